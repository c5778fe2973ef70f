// SPDX-License-Identifier: GPL-2.0
/*
 * What stock FUSE already protects on /dev/fuse itself: interrupt
 * replies, NOTIFY_RESEND of an interrupted request, and the server's
 * read(2) and splice(2) of requests.  docs/stock-checks.md lists the
 * checks of 6.12 dev.c, one row per check; each variant or test here is
 * named after its row.
 *
 * The server does the exchange itself, inside its reply to a request
 * that a client is waiting on: it signals the client (whose pid the
 * request carries), reads the FUSE_INTERRUPT that follows, writes what
 * the row says, reads again, and notes in memory shared with the test
 * what each read and write gave.  Waiting is on the kernel: a blocking
 * read(2) returns when the request it waits for is queued, a read with
 * O_NONBLOCK tells whether one is queued now, and to see how a client
 * sleeps the server polls its /proc/PID/stat until it does.
 *
 * The read and splice checks need a request queued while the server is
 * in the middle of its own read: a client's STATFS holds the server in
 * its reply, where it reads or splices the next request, which the test
 * then makes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "../../kselftest_harness.h"
#include "fuse_test.h"

#define OH sizeof(struct fuse_out_header)
#define PG 4096

/* Protocol 7.40, for headers that predate it */
#define NOTIFY_RESEND		7	/* FUSE_NOTIFY_RESEND */
#ifndef FUSE_UNIQUE_RESEND
#define FUSE_UNIQUE_RESEND	(1ULL << 63)
#endif

/* What the server saw, in memory shared with the test */
struct seen {
	struct {
		int err;		/* of the read(2): 0 or errno */
		uint32_t opcode;
		uint64_t unique, arg;	/* INTERRUPT: the unique it names */
	} got[4];
	unsigned int ngot;
	char state;			/* of the client in /proc, asleep */
	int op_errno[2];
	int op_value;
};

static struct seen *seen;

/* Mount a server answering with @hook(@arg); a fresh record of it */
static int start(struct mnt *m, void (*hook)(const struct srv_config *,
					     const struct fuse_in_header *,
					     struct srv_reply *),
		 const void *arg)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG, LONG);

	seen = mmap(NULL, sizeof(*seen), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (seen == MAP_FAILED)
		return -ENOMEM;
	cfg.edit_reply = hook;
	cfg.edit_arg = (uintptr_t)arg;
	return mnt_start(m, cfg);
}

static void stop(struct __test_metadata *_metadata, struct mnt *m)
{
	mnt_stop(_metadata, m);
	munmap(seen, sizeof(*seen));
}

/* --- in the server --- */

/* Read one request from /dev/fuse, with O_NONBLOCK if @now */
static void read_dev(struct srv_reply *r, bool now)
{
	static unsigned char buf[256 << 10];
	const struct fuse_in_header *ih = (void *)buf;
	int fl = fcntl(r->fd, F_GETFL);
	unsigned int i = seen->ngot++;
	ssize_t n;

	if (i >= sizeof(seen->got) / sizeof(seen->got[0]))
		return;
	if (now)
		fcntl(r->fd, F_SETFL, fl | O_NONBLOCK);
	n = read(r->fd, buf, sizeof(buf));
	seen->got[i].err = n < 0 ? errno : 0;
	if (now)
		fcntl(r->fd, F_SETFL, fl);
	if (n < (ssize_t)sizeof(*ih))
		return;
	srv_took(r->log, buf, n);	/* into the books, as the core's reads */
	seen->got[i].opcode = ih->opcode;
	seen->got[i].unique = ih->unique;
	if (ih->opcode == FUSE_INTERRUPT)
		seen->got[i].arg = ((struct fuse_interrupt_in *)(ih + 1))->unique;
}

/* A reply to the FUSE_INTERRUPT for @unique, with @payload more bytes */
static int interrupt_reply(struct srv_reply *r, uint64_t unique,
			   int32_t error, size_t payload)
{
	unsigned char buf[OH + 64] = { 0 };
	struct fuse_out_header *oh = (void *)buf;

	oh->len = OH + payload;
	oh->error = error;
	oh->unique = unique | 1;	/* FUSE_INT_REQ_BIT */
	return srv_write_raw(r, buf, oh->len);
}

/* The state of @pid once it sleeps: 'S' interruptible, 'D' not */
static char sleep_state(pid_t pid)
{
	char name[64], buf[512], *s;
	int fd, n;

	snprintf(name, sizeof(name), "/proc/%d/stat", pid);
	for (;;) {
		fd = open(name, O_RDONLY);
		n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		close(fd);
		s = n > 0 ? (buf[n] = 0, strrchr(buf, ')')) : NULL;
		if (!s || s[2] != 'R')
			return s ? s[2] : '?';
		sched_yield();		/* still on its way to the wait */
	}
}

/* --- in the test --- */

static void on_signal(int sig) { }

/* A client that stat()s @name with a SIGUSR1 handler (no SA_RESTART) */
static pid_t client_stat(struct mnt *m, const char *name)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct sigaction sa = { .sa_handler = on_signal };
		struct stat st;

		sigaction(SIGUSR1, &sa, NULL);
		_exit(stat(path(m, name), &st) ? errno : 0);
	}
	return pid;
}

static int exit_code(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The @nth request of @opcode, once the server has answered it */
static const struct srv_record *answered(struct mnt *m, uint32_t opcode,
					 unsigned int nth)
{
	const struct srv_record *rec;

	while (!(rec = srv_log_find(m->log, opcode, nth)))
		if (!next_event(m))
			return NULL;
	return wait_replied(m, rec) ? rec : NULL;
}

/* What the kernel made of the server's @nth own write; -1: none */
static int raw_errno(struct mnt *m, unsigned int nth)
{
	const struct srv_record *raw = srv_log_find_raw(m->log, nth);

	return raw ? raw->write_errno : -1;
}

/* --- interrupt replies: fuse_dev_do_write(), queue_interrupt() --- */

FIXTURE(interrupt_reply) {
	struct mnt m;
};

FIXTURE_VARIANT(interrupt_reply) {
	bool signal;			/* the client is interrupted first */
	int32_t error;			/* of the interrupt reply */
	size_t payload;			/* bytes after its header */
	int write_errno;		/* of that reply */
	bool requeued;			/* the FUSE_INTERRUPT is queued again */
	bool then_uninterruptible;	/* later requests: no more INTERRUPTs */
	bool then_interruptible;	/* ... or still interrupted */
};

/* interrupt-reply-len: an interrupt reply is a header alone */
FIXTURE_VARIANT_ADD(interrupt_reply, interrupt_reply_len) {
	.signal = true, .error = 0, .payload = 8, .write_errno = EINVAL,
};
FIXTURE_VARIANT_ADD(interrupt_reply, interrupt_reply_len_16_is_taken) {
	.signal = true, .error = 0, .payload = 0, .write_errno = 0,
};
FIXTURE_VARIANT_ADD(interrupt_reply, interrupt_reply_len_17) {
	.signal = true, .error = 0, .payload = 1, .write_errno = EINVAL,
};
/* interrupt-reply-enosys: the server does not do interrupts, ever */
FIXTURE_VARIANT_ADD(interrupt_reply, interrupt_reply_enosys) {
	.signal = true, .error = -ENOSYS, .write_errno = 0,
	.then_uninterruptible = true,
};
/* ... another error stops nothing: the next request is interrupted too */
FIXTURE_VARIANT_ADD(interrupt_reply, interrupt_reply_enosys_but_eio_stops_nothing) {
	.signal = true, .error = -EIO, .write_errno = 0,
	.then_interruptible = true,
};
/* interrupt-reply-eagain: "not now": the INTERRUPT comes again */
FIXTURE_VARIANT_ADD(interrupt_reply, interrupt_reply_eagain) {
	.signal = true, .error = -EAGAIN, .write_errno = 0, .requeued = true,
};
/* interrupt-reply-not-interrupted: no such interrupt to answer */
FIXTURE_VARIANT_ADD(interrupt_reply, interrupt_reply_not_interrupted) {
	.signal = false, .error = -EAGAIN, .write_errno = EINVAL,
};

/* In the server, answering a LOOKUP the client waits on */
static void interrupt_then_answer(const struct srv_config *cfg,
				  const struct fuse_in_header *req,
				  struct srv_reply *r)
{
	const FIXTURE_VARIANT(interrupt_reply) *v = (void *)(uintptr_t)cfg->edit_arg;
	static unsigned int lookups;

	if (req->opcode != FUSE_LOOKUP)
		return;
	if (lookups++ == 0) {
		if (v->signal) {
			kill(req->pid, SIGUSR1);
			read_dev(r, false);	/* its FUSE_INTERRUPT */
		}
		interrupt_reply(r, req->unique, v->error, v->payload);
	} else {
		seen->state = sleep_state(req->pid);
		kill(req->pid, SIGUSR1);
	}
	/* an INTERRUPT that must come is waited for; one that must not, not */
	read_dev(r, !(lookups > 1 && v->then_interruptible));
}

FIXTURE_SETUP(interrupt_reply)
{
	ASSERT_EQ(0, start(&self->m, interrupt_then_answer, variant));
}

FIXTURE_TEARDOWN(interrupt_reply)
{
	stop(_metadata, &self->m);
}

TEST_F(interrupt_reply, is_checked_and_leaves_the_request_alone)
{
	const struct srv_record *lookup;
	unsigned int i = 0;

	EXPECT_EQ(0, exit_code(client_stat(&self->m, "file")));
	lookup = answered(&self->m, FUSE_LOOKUP, 0);
	ASSERT_NE(NULL, lookup);
	EXPECT_EQ(0, lookup->write_errno);	/* the request's own reply */
	EXPECT_EQ(variant->write_errno, raw_errno(&self->m, 0));
	if (variant->signal) {
		EXPECT_EQ(FUSE_INTERRUPT, seen->got[i].opcode);
		EXPECT_EQ(lookup->unique, seen->got[i].arg);
		EXPECT_EQ(lookup->unique | 1, seen->got[i].unique);
		i++;
	}
	/* right after the interrupt reply */
	if (variant->requeued) {
		EXPECT_EQ(FUSE_INTERRUPT, seen->got[i].opcode);
		EXPECT_EQ(lookup->unique, seen->got[i].arg);
	} else {
		EXPECT_EQ(EAGAIN, seen->got[i].err);
	}
	if (!variant->then_uninterruptible && !variant->then_interruptible)
		return;
	/* a later request waits killable only, and a signal sends nothing */
	EXPECT_EQ(0, exit_code(client_stat(&self->m, "dir")));
	ASSERT_NE(NULL, answered(&self->m, FUSE_LOOKUP, 1));
	if (variant->then_uninterruptible) {
		EXPECT_EQ('D', seen->state);
		EXPECT_EQ(EAGAIN, seen->got[i + 1].err);
	} else {
		EXPECT_EQ('S', seen->state);
		EXPECT_EQ(FUSE_INTERRUPT, seen->got[i + 1].opcode);
	}
}

/* --- notify-resend-interrupted: fuse_resend() --- */

FIXTURE(resend) {
	struct mnt m;
};

/*
 * In the server, answering a LOOKUP: interrupt the client, and leave its
 * FUSE_INTERRUPT queued (-EAGAIN); then ask for a resend, read the
 * request and its INTERRUPT again, and answer the resent request.
 */
static void interrupt_resend_answer(const struct srv_config *cfg,
				    const struct fuse_in_header *req,
				    struct srv_reply *r)
{
	struct fuse_out_header *oh = (void *)r->buf;
	char none = 0;

	if (req->opcode != FUSE_LOOKUP)
		return;
	kill(req->pid, SIGUSR1);
	read_dev(r, false);
	interrupt_reply(r, req->unique, -EAGAIN, 0);
	srv_write_notify(r, NOTIFY_RESEND, &none, 0);
	read_dev(r, true);		/* the request, resent */
	read_dev(r, true);		/* its INTERRUPT */
	srv_write_raw(r, r->buf, r->len);	/* under the old unique */
	oh->unique |= FUSE_UNIQUE_RESEND;
}

FIXTURE_SETUP(resend)
{
	ASSERT_EQ(0, start(&self->m, interrupt_resend_answer, NULL));
}

FIXTURE_TEARDOWN(resend)
{
	stop(_metadata, &self->m);
}

TEST_F(resend, notify_resend_interrupted)
{
	const struct srv_record *lookup;
	uint64_t resent;

	EXPECT_EQ(0, exit_code(client_stat(&self->m, "file")));
	lookup = answered(&self->m, FUSE_LOOKUP, 0);
	ASSERT_NE(NULL, lookup);
	resent = lookup->unique | FUSE_UNIQUE_RESEND;
	EXPECT_EQ(FUSE_INTERRUPT, seen->got[0].opcode);
	EXPECT_EQ(0, raw_errno(&self->m, 0));	/* -EAGAIN: queued again */
	EXPECT_EQ(0, raw_errno(&self->m, 1));	/* NOTIFY_RESEND */
	/* the request first, with the resend bit; its old INTERRUPT is gone */
	EXPECT_EQ(FUSE_LOOKUP, seen->got[1].opcode);
	EXPECT_EQ(resent, seen->got[1].unique);
	/* and interrupted again as it is read */
	EXPECT_EQ(FUSE_INTERRUPT, seen->got[2].opcode);
	EXPECT_EQ(resent, seen->got[2].arg);
	EXPECT_EQ(ENOENT, raw_errno(&self->m, 2));	/* the old unique is gone */
	EXPECT_EQ(0, lookup->write_errno);	/* the new one answers it */
}

/* --- the server's read(2) and splice(2) of requests --- */

FIXTURE(device) {
	struct mnt m;
	int fd;				/* "file" */
	pid_t lost;			/* a caller whose request is lost */
};

FIXTURE_VARIANT(device) {
	uint32_t max_write;		/* negotiated */
	bool direct_io;			/* "file" opened with FOPEN_DIRECT_IO */
	/* on /dev/fuse, in the server, while a client's STATFS is open */
	void (*op)(const void *v, struct srv_reply *r);
	size_t op_len;			/* read size; pipe size */
	bool op_fill;			/* a byte in the pipe first */
	int op_errno[2], op_value;
	/* meanwhile the test, on "file" (open O_RDWR, read once) */
	int (*call)(int fd, int n);
	int call_arg, call_errno;
	bool call_is_lost;		/* its request is never answered */
	bool kick;			/* then a STATFS for the op to read */
};

/* read(2) @op_len - 1 bytes, then @op_len, with nothing queued */
static void read_short_then_enough(const void *variant, struct srv_reply *r)
{
	const FIXTURE_VARIANT(device) *v = variant;
	static unsigned char buf[256 << 10];
	int fl = fcntl(r->fd, F_GETFL), i;

	fcntl(r->fd, F_SETFL, fl | O_NONBLOCK);
	for (i = 0; i < 2; i++)
		seen->op_errno[i] = read(r->fd, buf, v->op_len - 1 + i) < 0 ?
				    errno : 0;
	fcntl(r->fd, F_SETFL, fl);
}

/* read(2) @op_len bytes: the first request that fits; answer a STATFS */
static void read_next_that_fits(const void *variant, struct srv_reply *r)
{
	const FIXTURE_VARIANT(device) *v = variant;
	static unsigned char buf[256 << 10];
	struct fuse_in_header *ih = (void *)buf;
	ssize_t n = read(r->fd, buf, v->op_len);
	unsigned char out[OH + sizeof(struct fuse_statfs_out)] = { 0 };
	struct fuse_out_header *oh = (void *)out;

	seen->op_errno[0] = n < 0 ? errno : 0;
	if (n < (ssize_t)sizeof(*ih))
		return;
	srv_took(r->log, buf, n);
	seen->op_value = ih->opcode;
	if (ih->opcode != FUSE_STATFS)
		return;
	oh->len = sizeof(out);
	oh->unique = ih->unique;
	srv_write_raw(r, out, sizeof(out));
}

/* splice(2) the next request into a pipe of @op_len bytes */
static void splice_into_pipe(const void *variant, struct srv_reply *r)
{
	const FIXTURE_VARIANT(device) *v = variant;
	int p[2];

	if (pipe(p))
		return;
	if (fcntl(p[1], F_SETPIPE_SZ, v->op_len) < 0 ||
	    (v->op_fill && write(p[1], "x", 1) != 1))
		seen->op_errno[1] = errno;
	seen->op_errno[0] = splice(r->fd, NULL, p[1], NULL, 1 << 20, 0) < 0 ?
			    errno : 0;
	ioctl(p[0], FIONREAD, &seen->op_value);
	close(p[0]);
	close(p[1]);
}

/* splice(2) 32 bytes to /dev/fuse from a pipe holding 16 */
static void splice_short_pipe(const void *variant, struct srv_reply *r)
{
	struct fuse_out_header oh = { .len = 32, .unique = 2 };
	int p[2];

	if (pipe(p))
		return;
	if (write(p[1], &oh, sizeof(oh)) != sizeof(oh))
		seen->op_errno[1] = errno;
	seen->op_errno[0] = splice(p[0], NULL, r->fd, NULL, 32, 0) < 0 ?
			    errno : 0;
	ioctl(p[0], FIONREAD, &seen->op_value);
	close(p[0]);
	close(p[1]);
}

static int ioctl_in(int fd, int n)	/* a restricted _IOW of 16000 bytes */
{
	static char arg[16000];

	return ioctl(fd, _IOW('X', 1, char[16000]), arg) < 0 ? -errno : 0;
}

static int setxattr_of(int fd, int n)
{
	static char value[10000];

	return fsetxattr(fd, "user.big", value, n, 0) ? -errno : 0;
}

/* @n iovecs of 16 bytes, each in a page of its own */
static int writev_pages(int fd, int n)
{
	char *p = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct iovec iov[4];
	int i, ret;

	for (i = 0; i < n; i++)
		iov[i] = (struct iovec){ .iov_base = p + i * PG + 64, .iov_len = 16 };
	ret = writev(fd, iov, n) < 0 ? -errno : 0;
	munmap(p, 4 * PG);
	return ret;
}

/* @n bytes from offset 100: over the end of the first page */
static int pwrite_across_pages(int fd, int n)
{
	static char buf[PG];

	return pwrite(fd, buf, n, 100) < 0 ? -errno : 0;
}

/* read-buffer-too-small: max(8192, 80 + max_write) bytes at least */
FIXTURE_VARIANT_ADD(device, read_buffer_too_small) {
	.max_write = PG, .op = read_short_then_enough, .op_len = 8192,
	.op_errno = { EINVAL, EAGAIN },
};
FIXTURE_VARIANT_ADD(device, read_buffer_too_small_for_max_write) {
	.max_write = 32 * PG, .op = read_short_then_enough,
	.op_len = 80 + 32 * PG, .op_errno = { EINVAL, EAGAIN },
};
/* read-request-too-large: EIO to the caller, the read goes on */
FIXTURE_VARIANT_ADD(device, read_request_too_large) {
	.max_write = PG, .op = read_next_that_fits, .op_len = 8192,
	.op_value = FUSE_STATFS, .call = ioctl_in, .call_errno = EIO,
	.kick = true,
};
/* read-setxattr-too-large: E2BIG for a SETXATTR */
FIXTURE_VARIANT_ADD(device, read_setxattr_too_large) {
	.max_write = PG, .op = read_next_that_fits, .op_len = 8192,
	.op_value = FUSE_STATFS, .call = setxattr_of, .call_arg = 10000,
	.call_errno = E2BIG, .kick = true,
};
/* splice-write-short-pipe: not more than the pipe holds */
FIXTURE_VARIANT_ADD(device, splice_write_short_pipe) {
	.op = splice_short_pipe, .op_errno = { EINVAL }, .op_value = 16,
};
/* splice-read-pipe-full: 4 pages into a 4-slot pipe holding a byte */
FIXTURE_VARIANT_ADD(device, splice_read_pipe_full) {
	.max_write = PG, .direct_io = true, .op = splice_into_pipe,
	.op_len = 4 * PG, .op_fill = true, .op_errno = { EIO }, .op_value = 1,
	.call = writev_pages, .call_arg = 3, .call_is_lost = true,
};
/* splice-read-pipe-too-small-hdr: a third page copied into 2 slots */
FIXTURE_VARIANT_ADD(device, splice_read_pipe_too_small_hdr) {
	.max_write = PG, .direct_io = true, .op = splice_into_pipe,
	.op_len = 2 * PG, .op_errno = { EIO }, .op_value = 0,
	.call = writev_pages, .call_arg = 2, .call_errno = EIO,
};
/* splice-read-pipe-too-small-page: a third page referenced in 2 slots */
FIXTURE_VARIANT_ADD(device, splice_read_pipe_too_small_page) {
	.max_write = PG, .direct_io = false, .op = splice_into_pipe,
	.op_len = 2 * PG, .op_errno = { EIO }, .op_value = 0,
	.call = pwrite_across_pages, .call_arg = PG, .call_errno = EIO,
};

static void device_hook(const struct srv_config *cfg,
			const struct fuse_in_header *req, struct srv_reply *r)
{
	const FIXTURE_VARIANT(device) *v = (void *)(uintptr_t)cfg->edit_arg;
	struct fuse_out_header *oh = (void *)r->buf;
	static unsigned int statfs;

	if (req->opcode == FUSE_INIT && v->max_write)
		((struct fuse_init_out *)(oh + 1))->max_write = v->max_write;
	if (req->opcode == FUSE_OPEN && v->direct_io && !oh->error)
		((struct fuse_open_out *)(oh + 1))->open_flags |= FOPEN_DIRECT_IO;
	if (req->opcode == FUSE_STATFS && !statfs++)
		v->op(v, r);
}

FIXTURE_SETUP(device)
{
	self->fd = self->lost = -1;
	ASSERT_EQ(0, start(&self->m, device_hook, variant));
}

FIXTURE_TEARDOWN(device)
{
	/* the books want the file closed; a lost call keeps it (below) */
	if (!variant->call_is_lost && self->fd >= 0) {
		close(self->fd);
		self->fd = -1;
	}
	stop(_metadata, &self->m);		/* aborts the connection: the lost call ends */
	exit_code(self->lost);
	/* only now: the lost write holds the inode lock that FLUSH takes */
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(device, reads_and_splices_are_checked)
{
	char buf[PG];
	struct statfs st;
	pid_t statfs_client;
	int fd;

	fd = self->fd = open(path(&self->m, "file"), O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(6, read(fd, buf, sizeof(buf)));	/* page 0 cached */
	/* GETXATTR -ENOSYS: a write's security.capability check asks no more */
	ASSERT_GT(0, fgetxattr(fd, "user.none", NULL, 0));
	statfs_client = fork();
	if (statfs_client == 0) {
		/* not at its exit: FLUSH waits for the inode a lost write holds */
		close(fd);
		_exit(statfs(self->m.dir, &st) ? errno : 0);
	}
	/* the server is in the op from now on: it reads what comes next */
	while (!srv_log_find(self->m.log, FUSE_STATFS, 0))
		ASSERT_TRUE(next_event(&self->m));
	if (variant->call_is_lost) {
		books_not_checked(&self->m, "a WRITE is lost in a pipe: its caller holds the file's lock until the connection ends");
		self->lost = fork();
		if (self->lost == 0)
			_exit(variant->call(fd, variant->call_arg));
	} else if (variant->call) {
		EXPECT_EQ(-variant->call_errno,
			  variant->call(fd, variant->call_arg));
	}
	if (variant->kick)
		EXPECT_EQ(0, statfs(self->m.dir, &st));
	EXPECT_EQ(0, exit_code(statfs_client));
	ASSERT_NE(NULL, answered(&self->m, FUSE_STATFS, 0));
	EXPECT_EQ(variant->op_errno[0], seen->op_errno[0]);
	EXPECT_EQ(variant->op_errno[1], seen->op_errno[1]);
	EXPECT_EQ(variant->op_value, seen->op_value);
}

TEST_HARNESS_MAIN
