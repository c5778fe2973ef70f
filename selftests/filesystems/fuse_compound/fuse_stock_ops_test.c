// SPDX-License-Identifier: GPL-2.0
/*
 * Operations of stock 6.12 that the other stock programs never drive, and
 * the checks on their way (docs/stock-checks.md names each row):
 *
 *  - clone: a second /dev/fuse serving the same connection
 *    (FUSE_DEV_IOC_CLONE): a request it read is answered through it, not
 *    through the other device, and closing it leaves the connection up;
 *  - export_nosupp: file handles of a server that did not say
 *    FUSE_EXPORT_SUPPORT (or said FUSE_NO_EXPORT_SUPPORT), handles
 *    that no server made (open_by_handle_at() of a crafted handle), and
 *    a buffer too small for a handle;
 *  - poll_notify: FUSE_POLL_SCHEDULE_NOTIFY, and the NOTIFY_POLL that
 *    wakes a waiting poll(2);
 *  - abort_wakes_pollers: an abort wakes a poll(2) that waits for the
 *    server's notification, which then sees POLLERR;
 *  - no_opendir: a server that answers OPENDIR with ENOSYS is not asked
 *    again, and a directory opened without OPENDIR is never released;
 *  - exec_mode: a regular file without an execute bit is not executed,
 *    without default_permissions too;
 *  - o_trunc: open(O_TRUNC) truncates in the OPEN when the server said
 *    FUSE_ATOMIC_O_TRUNC, else with a SETATTR of size 0.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../kselftest_harness.h"
#include "fuse_test.h"

#define OH			sizeof(struct fuse_out_header)
#define CLONE			_IOR(229, 0, uint32_t)	/* FUSE_DEV_IOC_CLONE */
#define NO_EXPORT_SUPPORT	(1ULL << 38)		/* FUSE_NO_EXPORT_SUPPORT, 7.40 */
#ifndef AT_HANDLE_FID
#define AT_HANDLE_FID		0x200
#endif
#define FILEID_INO64_GEN	0x81
#define FILEID_INO64_GEN_PARENT	0x82

static long neg_errno(long ret)
{
	return ret < 0 ? -errno : ret;
}

/* --- a clone of the server's device, made and used by the server --- */

/* What the server did with its clone, in memory shared with the test */
struct clone_seen {
	int go;			/* the write end: lets the test's child call */
	bool close_clone;	/* after the exchange */
	int clone_ret;		/* of FUSE_DEV_IOC_CLONE */
	uint32_t opcode;	/* of the request the clone read */
	int other_errno;	/* the reply written on the server's own device */
	int clone_errno;	/* ... and then on the clone */
	int step;		/* how far the server got: 4 is all */
};

static struct clone_seen *cseen;

/*
 * While it answers the test's STATFS the server clones its device, lets
 * the test's child make its LOOKUP, reads it on the clone (the only
 * reader then), and answers it EXDEV: first on its own device, which did
 * not read it, then on the clone.
 */
static void edit_clone(const struct srv_config *cfg,
		       const struct fuse_in_header *req, struct srv_reply *r)
{
	static unsigned char buf[256 << 10];
	const struct fuse_in_header *ih = (void *)buf;
	struct fuse_out_header oh = { .len = OH, .error = -EXDEV };
	int c;

	struct pollfd p;
	ssize_t n;

	if (req->opcode != FUSE_STATFS || cseen->step)
		return;
	c = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	cseen->clone_ret = c < 0 ? -errno : ioctl(c, CLONE, &r->fd) ? -errno : 0;
	cseen->step = 1;
	if (write(cseen->go, "x", 1) != 1 || cseen->clone_ret)
		return;
	cseen->step = 2;
	/* not a wait on time: a bound on a failure, which the test reports */
	p = (struct pollfd){ .fd = c, .events = POLLIN };
	if (poll(&p, 1, 20000) != 1)
		return;
	cseen->step = 3;
	n = read(c, buf, sizeof(buf));
	if (n < (ssize_t)sizeof(*ih))
		return;
	srv_took(r->log, buf, n);
	cseen->step = 4;
	cseen->opcode = ih->opcode;
	oh.unique = ih->unique;
	cseen->other_errno = srv_write(r->log, r->fd, &oh, OH);
	cseen->clone_errno = srv_write(r->log, c, &oh, OH);
	if (cseen->close_clone)
		close(c);
}

FIXTURE(clone) {
	struct mnt m;
	int go[2];
};

FIXTURE_VARIANT(clone) {
	bool close_clone;
};

/* dev-release-last-aborts: one of two devices closed: the connection stays */
FIXTURE_VARIANT_ADD(clone, dev_release_last_aborts) { .close_clone = true };
/* reply-unique-unknown: a request is answered on the device that read it */
FIXTURE_VARIANT_ADD(clone, reply_unique_unknown_on_another_device) {
	.close_clone = false,
};

FIXTURE_SETUP(clone)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG, LONG);

	cseen = mmap(NULL, sizeof(*cseen), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, cseen);
	ASSERT_EQ(0, pipe(self->go));
	cseen->go = self->go[1];
	cseen->close_clone = variant->close_clone;
	cfg.edit_reply = edit_clone;
	ASSERT_EQ(0, mnt_start(&self->m, cfg));
	/* the server holds the write end: its death ends the child's wait */
	close(self->go[1]);
}

FIXTURE_TEARDOWN(clone)
{
	mnt_stop(_metadata, &self->m);
	close(self->go[0]);
	munmap(cseen, sizeof(*cseen));
}

TEST_F(clone, a_clone_serves_the_connection_it_was_cloned_from)
{
	struct statfs sfs;
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		struct stat st;
		char c;

		_exit(read(self->go[0], &c, 1) != 1 ? 100 :
		      stat(path(&self->m, "via_clone"), &st) ? errno : 0);
	}
	ASSERT_LT(0, pid);
	/* the STATFS reply comes after the exchange, on the server's device */
	EXPECT_EQ(0, statfs(self->m.dir, &sfs));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(EXDEV, WEXITSTATUS(status));
	EXPECT_EQ(4, cseen->step);
	EXPECT_EQ(0, cseen->clone_ret);
	EXPECT_EQ(FUSE_LOOKUP, cseen->opcode);
	EXPECT_EQ(ENOENT, cseen->other_errno);
	EXPECT_EQ(0, cseen->clone_errno);
	/* and the connection serves on */
	EXPECT_EQ(0, statfs(self->m.dir, &sfs));
}

/* --- file handles without FUSE_EXPORT_SUPPORT, and crafted ones --- */

enum handle_kind {
	H_MADE,			/* as name_to_handle_at() made it */
	H_TYPE,			/* an unknown handle type */
	H_PARENT_TYPE,		/* FILEID_INO64_GEN_PARENT, 6 words */
	H_SHORT,		/* 2 words of FILEID_INO64_GEN */
	H_NODEID_ZERO,		/* nodeid 0 */
};

FIXTURE(export_nosupp) {
	struct mnt m;
	int fd;
};

FIXTURE_VARIANT(export_nosupp) {
	bool support;		/* FUSE_EXPORT_SUPPORT */
	bool no_support;	/* FUSE_NO_EXPORT_SUPPORT (with FUSE_INIT_EXT) */
	bool fid;		/* name_to_handle_at(AT_HANDLE_FID) */
	int name_errno;		/* of name_to_handle_at() */
	bool small;		/* offer name_to_handle_at() only @bytes */
	unsigned int bytes;
	bool cached;		/* "file" open meanwhile, else evicted */
	enum handle_kind kind;
	int open_errno;		/* of open_by_handle_at() */
	unsigned int lookups;	/* LOOKUPs of "." it sends */
};

/* export-no-support-evicted: no LOOKUP of "." for a server that did not opt in */
FIXTURE_VARIANT_ADD(export_nosupp, export_no_support_evicted) {
	.cached = false, .open_errno = ESTALE, .lookups = 0,
};
/* ... a cached inode needs no server: the handle opens */
FIXTURE_VARIANT_ADD(export_nosupp, export_no_support_evicted_but_a_cached_inode_opens) {
	.cached = true, .open_errno = 0, .lookups = 0,
};
/* ... and with FUSE_EXPORT_SUPPORT the kernel asks */
FIXTURE_VARIANT_ADD(export_nosupp, export_no_support_evicted_with_support_control) {
	.support = true, .cached = false, .open_errno = 0, .lookups = 1,
};
/* init-no-export-support: handles for identification only */
FIXTURE_VARIANT_ADD(export_nosupp, init_no_export_support) {
	.no_support = true, .name_errno = EOPNOTSUPP,
};
FIXTURE_VARIANT_ADD(export_nosupp, init_no_export_support_but_a_fid_is_made) {
	.no_support = true, .fid = true, .name_errno = 0,
};
/*
 * export-fh-buffer-too-small: a buffer too small for the handle gets
 * EOVERFLOW and the size needed (3 words), nothing written past it
 * (KASAN would report it); 12 bytes are enough
 */
FIXTURE_VARIANT_ADD(export_nosupp, export_fh_buffer_too_small) {
	.support = true, .small = true, .bytes = 0, .name_errno = EOVERFLOW,
};
FIXTURE_VARIANT_ADD(export_nosupp, export_fh_buffer_too_small_by_one_word) {
	.support = true, .small = true, .bytes = 8, .name_errno = EOVERFLOW,
};
FIXTURE_VARIANT_ADD(export_nosupp, export_fh_buffer_too_small_but_12_is_taken) {
	.support = true, .small = true, .bytes = 12, .name_errno = 0,
	.cached = true, .open_errno = 0,
};
/* export-fh-type, export-fh-len, export-nodeid-zero: handles no server made */
FIXTURE_VARIANT_ADD(export_nosupp, export_fh_type) {
	.support = true, .cached = true, .kind = H_TYPE, .open_errno = ESTALE,
};
FIXTURE_VARIANT_ADD(export_nosupp, export_fh_type_with_parent_is_taken) {
	.support = true, .cached = true, .kind = H_PARENT_TYPE, .open_errno = 0,
};
FIXTURE_VARIANT_ADD(export_nosupp, export_fh_len) {
	.support = true, .cached = true, .kind = H_SHORT, .open_errno = ESTALE,
};
FIXTURE_VARIANT_ADD(export_nosupp, export_nodeid_zero) {
	.support = true, .cached = true, .kind = H_NODEID_ZERO,
	.open_errno = ESTALE, .lookups = 0,
};

static void edit_export(const struct srv_config *cfg,
			const struct fuse_in_header *req, struct srv_reply *r)
{
	const FIXTURE_VARIANT(export_nosupp) *v = (const void *)(uintptr_t)cfg->edit_arg;
	struct fuse_init_out *o = (void *)(r->buf + OH);

	if (req->opcode != FUSE_INIT || !v->no_support)
		return;
	o->flags |= FUSE_INIT_EXT;
	o->flags2 |= NO_EXPORT_SUPPORT >> 32;
}

FIXTURE_SETUP(export_nosupp)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG, LONG);

	self->fd = -1;
	cfg.export_support = variant->support;
	cfg.edit_reply = edit_export;
	cfg.edit_arg = (uintptr_t)variant;
	ASSERT_EQ(0, mnt_start(&self->m, cfg));
}

FIXTURE_TEARDOWN(export_nosupp)
{
	if (self->fd >= 0)
		close(self->fd);
	mnt_stop(_metadata, &self->m);
}

/* LOOKUPs of "." since record @from */
static unsigned int dot_lookups(struct mnt *m, unsigned int from)
{
	unsigned int i, n = 0;

	for (i = from; i < nreq(m); i++)
		n += m->log->rec[i].opcode == FUSE_LOOKUP &&
		     m->log->rec[i].len == sizeof(struct fuse_in_header) + 2;
	return n;
}

TEST_F(export_nosupp, a_handle_opens_only_what_the_server_can_find)
{
	struct file_handle *fh = calloc(1, sizeof(*fh) + MAX_HANDLE_SZ);
	uint32_t *w = (uint32_t *)fh->f_handle;
	int mount_id, mount_fd, fd;
	unsigned int from;

	ASSERT_NE(NULL, fh);
	fh->handle_bytes = variant->small ? variant->bytes : MAX_HANDLE_SZ;
	EXPECT_EQ(-variant->name_errno,
		  neg_errno(name_to_handle_at(AT_FDCWD, path(&self->m, "file"), fh,
					      &mount_id, variant->fid ? AT_HANDLE_FID : 0)));
	/* too small: the size it needs, in bytes */
	if (variant->name_errno == EOVERFLOW)
		EXPECT_EQ(12, fh->handle_bytes);
	if (variant->name_errno || variant->fid) {
		free(fh);
		return;
	}
	ASSERT_EQ(FILEID_INO64_GEN, fh->handle_type);
	ASSERT_EQ(12, fh->handle_bytes);
	switch (variant->kind) {
	case H_MADE:
		break;
	case H_TYPE:
		fh->handle_type = 0x99;
		break;
	case H_PARENT_TYPE:	/* the root as the parent */
		fh->handle_type = FILEID_INO64_GEN_PARENT;
		fh->handle_bytes = 24;
		w[3] = 0;
		w[4] = FUSE_ROOT_ID;
		w[5] = 0;
		break;
	case H_SHORT:
		fh->handle_bytes = 8;
		break;
	case H_NODEID_ZERO:
		w[0] = w[1] = 0;
		break;
	}
	if (variant->cached) {
		self->fd = open(path(&self->m, "file"), O_RDONLY);
		ASSERT_LE(0, self->fd);
	} else {
		ASSERT_TRUE(drop_caches());
	}
	mount_fd = open(self->m.dir, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, mount_fd);
	from = nreq(&self->m);
	fd = open_by_handle_at(mount_fd, fh, O_RDONLY);
	EXPECT_EQ(variant->open_errno, fd < 0 ? errno : 0);
	EXPECT_EQ(variant->lookups, dot_lookups(&self->m, from));
	if (fd >= 0)
		close(fd);
	close(mount_fd);
	free(fh);
}

/* --- POLL: asking for a notification, and the notification --- */

struct poll_seen {
	unsigned int polls;
	uint32_t flags[2];	/* of the first two POLLs */
	uint64_t kh;
	int notify_errno;
};

static struct poll_seen *pseen;

/*
 * The first POLL: nothing ready, and at once the NOTIFY_POLL of its kh;
 * the next one: POLLIN
 */
static void edit_poll(const struct srv_config *cfg,
		      const struct fuse_in_header *req, struct srv_reply *r)
{
	const struct fuse_poll_in *in = (const void *)(req + 1);
	struct {
		struct fuse_out_header oh;
		struct fuse_poll_out out;
	} msg = { { sizeof(msg), 0, req->unique }, { 0 } };
	struct fuse_notify_poll_wakeup_out wake = { .kh = in->kh };
	unsigned int n;

	if (req->opcode != FUSE_POLL)
		return;
	n = pseen->polls++;
	if (n < 2)
		pseen->flags[n] = in->flags;
	pseen->kh = in->kh;
	msg.out.revents = n ? POLLIN : 0;
	srv_write_raw(r, &msg, sizeof(msg));
	if (!n)
		pseen->notify_errno = srv_write_notify(r, FUSE_NOTIFY_POLL, &wake,
						       sizeof(wake));
	r->drop = true;
}

FIXTURE(poll_notify) {
	struct mnt m;
};

FIXTURE_VARIANT(poll_notify) {
	int timeout;		/* of poll(2) */
	int ret;		/* what it returns */
	unsigned int polls;
	bool schedule;		/* the first POLL asks for a notification */
};

/* poll-schedule-notify: a poll(2) that waits asks to be told, and is */
FIXTURE_VARIANT_ADD(poll_notify, poll_schedule_notify) {
	.timeout = -1, .ret = 1, .polls = 2, .schedule = true,
};
/* ... one that does not wait does not ask, and the notification is ignored */
FIXTURE_VARIANT_ADD(poll_notify, poll_schedule_notify_not_when_nobody_waits) {
	.timeout = 0, .ret = 0, .polls = 1, .schedule = false,
};

FIXTURE_SETUP(poll_notify)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG, LONG);

	pseen = mmap(NULL, sizeof(*pseen), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, pseen);
	cfg.edit_reply = edit_poll;
	ASSERT_EQ(0, mnt_start(&self->m, cfg));
}

FIXTURE_TEARDOWN(poll_notify)
{
	mnt_stop(_metadata, &self->m);
	munmap(pseen, sizeof(*pseen));
}

TEST_F(poll_notify, a_waiting_poll_is_woken_by_the_server)
{
	int fd = open(path(&self->m, "file"), O_RDONLY);
	struct pollfd p = { .fd = fd, .events = POLLIN };

	ASSERT_LE(0, fd);
	EXPECT_EQ(variant->ret, poll(&p, 1, variant->timeout));
	if (variant->ret)
		EXPECT_EQ(POLLIN, p.revents);
	EXPECT_EQ(variant->polls, pseen->polls);
	EXPECT_EQ(variant->schedule, !!(pseen->flags[0] & FUSE_POLL_SCHEDULE_NOTIFY));
	EXPECT_NE(0, pseen->kh);
	EXPECT_EQ(0, pseen->notify_errno);
	close(fd);
}

/*
 * --- abort_wakes_pollers: a poll(2) that waits when the connection is
 * aborted is woken ---
 *
 * Without it the poll would wait for a notification no server can send.
 * The abort wakes the connection's polled files under the channel's lock,
 * taking the connection's lock (which guards the tree of polled files)
 * inside it; the poll that put the file in the tree took the connection's
 * lock alone.  Both run here, so lockdep (in the guest's config) sees the
 * order of the two locks as every kernel that splits them takes them.
 */
static void edit_poll_never_ready(const struct srv_config *cfg,
				  const struct fuse_in_header *req,
				  struct srv_reply *r)
{
	struct {
		struct fuse_out_header oh;
		struct fuse_poll_out out;
	} msg = { { sizeof(msg), 0, req->unique }, { 0 } };

	if (req->opcode != FUSE_POLL)
		return;
	srv_write_raw(r, &msg, sizeof(msg));	/* nothing ready, ever */
	r->drop = true;
}

FIXTURE(abort_wakes_pollers) {
	struct mnt m;
};

FIXTURE_VARIANT(abort_wakes_pollers) {
	bool fusectl;		/* abort through the control filesystem */
};

/* abort-wakes-pollers: the server dies, and its device is the last one */
FIXTURE_VARIANT_ADD(abort_wakes_pollers, abort_wakes_pollers) { .fusectl = false };
/* ... or the connection is aborted through fusectl, the server alive */
FIXTURE_VARIANT_ADD(abort_wakes_pollers, abort_wakes_pollers_through_fusectl) {
	.fusectl = true,
};

FIXTURE_SETUP(abort_wakes_pollers)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG, LONG);

	cfg.edit_reply = edit_poll_never_ready;
	ASSERT_EQ(0, mnt_start(&self->m, cfg));
}

FIXTURE_TEARDOWN(abort_wakes_pollers)
{
	mnt_stop(_metadata, &self->m);
}

TEST_F(abort_wakes_pollers, a_waiting_poll_is_woken_by_the_abort)
{
	struct { int ret; short revents; } got = { -1, 0 };
	int fd = open(path(&self->m, "file"), O_RDONLY);
	int res[2], st;
	pid_t poller;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pipe(res));
	poller = fork();
	ASSERT_LE(0, poller);
	if (!poller) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		got.ret = poll(&p, 1, -1);
		got.revents = p.revents;
		_exit(write(res[1], &got, sizeof(got)) == sizeof(got) ? 0 : 1);
	}
	close(res[1]);
	/*
	 * The POLL was sent after the poller joined the file's wait queue,
	 * and answered "nothing ready": from here the poller waits, or is
	 * about to, and only a wake-up ends its poll(2)
	 */
	ASSERT_TRUE(wait_op(&self->m, 0, FUSE_POLL));
	ASSERT_TRUE(wait_replied(&self->m, first_op(&self->m, 0, FUSE_POLL)));
	books_not_checked(&self->m, "the connection is aborted: the kernel gives nothing back after it");
	if (variant->fusectl) {
		struct stat st;

		ASSERT_EQ(0, stat(self->m.dir, &st));
		ASSERT_EQ(0, fusectl_abort(minor(st.st_dev)))
			TH_LOG("fusectl abort: %s", strerror(errno));
	} else {
		/* the server dies, and with it the connection's last device */
		ASSERT_EQ(0, kill(self->m.server, SIGKILL));
		ASSERT_EQ(self->m.server, waitpid(self->m.server, NULL, 0));
		self->m.server = 0;
	}
	/* a bound for a kernel that never wakes it: a failure, not a wait */
	if (poll(&(struct pollfd){ .fd = res[0], .events = POLLIN }, 1, 20000) != 1)
		kill(poller, SIGKILL);
	ASSERT_EQ(sizeof(got), read(res[0], &got, sizeof(got)))
		TH_LOG("the poller's poll(2) did not return in 20 s after the abort");
	ASSERT_EQ(poller, waitpid(poller, &st, 0));
	EXPECT_EQ(1, got.ret);
	EXPECT_TRUE(got.revents & POLLERR)
		TH_LOG("revents 0x%x", got.revents);
	close(res[0]);
	close(fd);
}

/*
 * --- no_opendir: ENOSYS to OPENDIR ---
 *
 * Stock remembers ENOSYS to OPENDIR (fc->no_opendir) and opens later
 * directories without asking; such a directory has no release arguments
 * (fuse_file_open() frees them), so its close sends no RELEASEDIR
 * (fuse_file_put(): "Do nothing when server does not implement 'opendir'").
 * Another error fails the opendir(3) and is asked again.
 */
FIXTURE(no_opendir) {
	struct mnt m;
};

FIXTURE_VARIANT(no_opendir) {
	int error;		/* the answer to every OPENDIR */
	unsigned int opendirs;	/* the OPENDIRs two opendir(3)s send */
};

/* no-opendir-remembered: asked once, the directory never released */
FIXTURE_VARIANT_ADD(no_opendir, no_opendir_remembered) {
	.error = -ENOSYS, .opendirs = 1,
};
/* ... EIO is not ENOSYS: the opendir(3) fails, and the next one asks again */
FIXTURE_VARIANT_ADD(no_opendir, no_opendir_remembered_but_eio_is_asked_again) {
	.error = -EIO, .opendirs = 2,
};

FIXTURE_SETUP(no_opendir)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG, LONG);

	cfg.unknown_opcode = FUSE_OPENDIR;
	cfg.unknown_error = variant->error;
	ASSERT_EQ(0, mnt_start(&self->m, cfg));
}

FIXTURE_TEARDOWN(no_opendir)
{
	mnt_stop(_metadata, &self->m);
}

TEST_F(no_opendir, a_directory_without_opendir_is_listed_and_never_released)
{
	struct statfs sfs;
	struct dirent *e;
	unsigned int names;
	DIR *d;
	int i;

	for (i = 0; i < 2; i++) {
		d = opendir(self->m.dir);
		if (variant->error != -ENOSYS) {
			ASSERT_EQ(NULL, d);
			EXPECT_EQ(-variant->error, errno);
			continue;
		}
		ASSERT_NE(NULL, d) TH_LOG("opendir %d: %s", i, strerror(errno));
		names = 0;
		errno = 0;
		while ((e = readdir(d)))
			names += strcmp(e->d_name, "file") == 0;
		EXPECT_EQ(0, errno);
		EXPECT_EQ(1, names) TH_LOG("listing %d has no \"file\"", i);
		ASSERT_EQ(0, closedir(d));
	}
	/*
	 * A release is queued at the close, before this STATFS, and the
	 * server reads its requests in order: a RELEASEDIR sent for either
	 * directory is in the log once statfs(2) returns
	 */
	ASSERT_EQ(0, statfs(self->m.dir, &sfs));
	/* as requests of their own or inside a compound */
	EXPECT_EQ(variant->opendirs, srv_log_count(self->m.log, FUSE_OPENDIR, false) +
				     srv_log_count(self->m.log, FUSE_OPENDIR, true));
	EXPECT_EQ(0, srv_log_count(self->m.log, FUSE_RELEASEDIR, false) +
		     srv_log_count(self->m.log, FUSE_RELEASEDIR, true));
}

/*
 * --- exec_mode: execve(2) of a file the server says has no execute bit ---
 *
 * Without default_permissions the server decides access, but stock does
 * not exec a regular file none of whose execute bits is set: it asks the
 * server for fresh attributes first (fuse_permission(), MAY_EXEC) and
 * fails with EACCES, whether the cached ones had expired or not.  With
 * an execute bit the exec goes on and reads the file, which is no
 * program: ENOEXEC.
 */
#define NODE_FILE	2

static void edit_exec_mode(const struct srv_config *cfg,
			   const struct fuse_in_header *req, struct srv_reply *r)
{
	struct fuse_out_header *oh = (void *)r->buf;
	uint32_t mode = S_IFREG | (uint32_t)cfg->edit_arg;

	if (oh->error)
		return;
	if (req->opcode == FUSE_LOOKUP &&
	    ((struct fuse_entry_out *)(oh + 1))->nodeid == NODE_FILE)
		((struct fuse_entry_out *)(oh + 1))->attr.mode = mode;
	if (req->opcode == FUSE_GETATTR && req->nodeid == NODE_FILE)
		((struct fuse_attr_out *)(oh + 1))->attr.mode = mode;
}

FIXTURE(exec_mode) {
	struct mnt m;
};

FIXTURE_VARIANT(exec_mode) {
	uint32_t perm;		/* the file's permission bits */
	bool attr_expired;	/* attributes valid 0 s, else long */
	int err;		/* of execve(2) */
};

/* exec-no-x-bit: EACCES, from attributes still valid ... */
FIXTURE_VARIANT_ADD(exec_mode, exec_no_x_bit) {
	.perm = 0644, .attr_expired = false, .err = EACCES,
};
/* ... or refreshed because they had expired */
FIXTURE_VARIANT_ADD(exec_mode, exec_no_x_bit_attr_expired) {
	.perm = 0644, .attr_expired = true, .err = EACCES,
};
/* ... one execute bit (others') is enough to try: ENOEXEC, no program */
FIXTURE_VARIANT_ADD(exec_mode, exec_no_x_bit_but_0645_is_tried) {
	.perm = 0645, .attr_expired = false, .err = ENOEXEC,
};

FIXTURE_SETUP(exec_mode)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG,
					variant->attr_expired ? 0 : LONG);

	cfg.edit_reply = edit_exec_mode;
	cfg.edit_arg = variant->perm;
	ASSERT_EQ(0, mnt_start(&self->m, cfg));
}

FIXTURE_TEARDOWN(exec_mode)
{
	mnt_stop(_metadata, &self->m);
}

TEST_F(exec_mode, a_file_without_an_execute_bit_is_not_executed)
{
	char *const argv[] = { "file", NULL }, *const envp[] = { NULL };
	struct stat st;
	int st_child;
	pid_t pid;

	ASSERT_EQ(0, stat(path(&self->m, "file"), &st));
	ASSERT_EQ(S_IFREG | variant->perm, st.st_mode);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		execve(path(&self->m, "file"), argv, envp);
		_exit(errno);
	}
	ASSERT_EQ(pid, waitpid(pid, &st_child, 0));
	ASSERT_TRUE(WIFEXITED(st_child));
	EXPECT_EQ(variant->err, WEXITSTATUS(st_child))
		TH_LOG("execve: %s", strerror(WEXITSTATUS(st_child)));
}

/*
 * --- o_trunc: who truncates at open(O_TRUNC) ---
 *
 * A server that said FUSE_ATOMIC_O_TRUNC gets O_TRUNC in the OPEN and no
 * SETATTR (the open did it: fuse_do_setattr() only drops the page
 * cache); one that did not gets an OPEN without O_TRUNC and then a
 * SETATTR of size 0.  The test counts the SETATTRs (as requests or
 * inside a compound); the truncation itself is the server's.
 */
static void edit_o_trunc(const struct srv_config *cfg,
			 const struct fuse_in_header *req, struct srv_reply *r)
{
	struct fuse_init_out *o = (void *)(r->buf + OH);

	if (req->opcode == FUSE_INIT && !cfg->edit_arg)
		o->flags &= ~FUSE_ATOMIC_O_TRUNC;
}

FIXTURE(o_trunc) {
	struct mnt m;
};

FIXTURE_VARIANT(o_trunc) {
	bool atomic;		/* FUSE_ATOMIC_O_TRUNC at INIT */
};

/* init-atomic-o-trunc: the OPEN truncates, no SETATTR */
FIXTURE_VARIANT_ADD(o_trunc, init_atomic_o_trunc) { .atomic = true };
/* ... without it: an OPEN without O_TRUNC, then a SETATTR of size 0 */
FIXTURE_VARIANT_ADD(o_trunc, init_atomic_o_trunc_not_said) { .atomic = false };

FIXTURE_SETUP(o_trunc)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG, LONG);

	cfg.edit_reply = edit_o_trunc;
	cfg.edit_arg = variant->atomic;
	ASSERT_EQ(0, mnt_start(&self->m, cfg));
}

FIXTURE_TEARDOWN(o_trunc)
{
	mnt_stop(_metadata, &self->m);
}

TEST_F(o_trunc, the_file_is_truncated_once)
{
	unsigned int from, setattrs;
	struct stat st;
	int fd;

	ASSERT_EQ(0, stat(path(&self->m, "file"), &st));
	from = nreq(&self->m);
	fd = open(path(&self->m, "file"), O_WRONLY | O_TRUNC);
	ASSERT_LE(0, fd) TH_LOG("open: %s", strerror(errno));
	setattrs = count_since(&self->m, from, FUSE_SETATTR, false) +
		   count_since(&self->m, from, FUSE_SETATTR, true);
	EXPECT_EQ(variant->atomic ? 0 : 1, setattrs);
	close(fd);
}

TEST_HARNESS_MAIN
