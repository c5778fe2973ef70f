// SPDX-License-Identifier: GPL-2.0
/*
 * What stock FUSE already checks on an open file (fs/fuse/file.c,
 * iomode.c, passthrough.c): READ, WRITE, COPY_FILE_RANGE, LSEEK, GETLK,
 * POLL and OPEN replies broken in one way each, the ENOSYS answers the
 * kernel translates (and remembers), and the server's passthrough ioctls
 * on /dev/fuse.  docs/stock-checks.md lists the checks, one row per check,
 * named as the variants here are (row getlk-bad-type is variant
 * getlk_bad_type).
 *
 * Each variant states the broken exchange: INIT and OPEN flags, the reply
 * edited and how, the call made on "file" ("hello\n") and its result.
 * Attributes never expire and opens are plain: a kernel with compounds
 * sends the same single requests.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../kselftest_harness.h"
#include "fuse_test.h"

/* Protocol 7.40 (passthrough), for headers that predate it */
#define INIT_PASSTHROUGH	(1ULL << 37)	/* FUSE_PASSTHROUGH */
#define OPEN_PASSTHROUGH	(1 << 7)	/* FOPEN_PASSTHROUGH */
struct init_out_40 {
	uint32_t major, minor, max_readahead, flags;
	uint16_t max_background, congestion_threshold;
	uint32_t max_write, time_gran;
	uint16_t max_pages, map_alignment;
	uint32_t flags2, max_stack_depth, unused[6];
};
struct open_out_40 { uint64_t fh; uint32_t open_flags; int32_t backing_id; };
struct backing_map { int32_t fd; uint32_t flags; uint64_t padding; };
#define BACKING_OPEN	_IOW(229, 1, struct backing_map)
#define BACKING_CLOSE	_IOW(229, 2, uint32_t)

#define BACKING1	"pt-one\n"
#ifndef FIBMAP
#define FIBMAP		_IO(0x00, 1)
#endif
#define LLONG_MAX_OFF	0x7fffffffffffffffULL

enum call {
	CALL_NONE, CALL_READ,	/* nothing; read(8192) */
	CALL_FAULT,		/* mmap 8192, MADV_RANDOM, load byte 0, 4096 */
	CALL_WRITE,		/* write(count) */
	CALL_WRITE_FSYNC,	/* write(4096), then fsync() */
	CALL_COPY,		/* copy_file_range(file -> empty, 100) */
	CALL_FSYNC, CALL_CLOSE,
	CALL_LSEEK,		/* lseek(3, SEEK_DATA) */
	CALL_POLL,		/* poll(POLLIN | POLLOUT, 0): the revents */
	CALL_FALLOCATE,		/* fallocate(@falloc_mode, 0, 4096) */
	CALL_GETLK, CALL_SETLK,	/* fcntl(F_GETLK or F_SETLK, F_WRLCK) */
	CALL_SETLKW,		/* fcntl(F_SETLKW, F_WRLCK) */
	CALL_FLOCK,		/* flock(LOCK_EX | LOCK_NB) */
	CALL_FLOCK_WAIT,	/* flock(LOCK_EX) */
	CALL_FIBMAP,		/* ioctl(FIBMAP) of block 0: the block */
	CALL_MMAP_SHARED,	/* mmap(MAP_SHARED); MAP_PRIVATE must work */
};

/* what the server's BACKING_OPEN passes */
enum bfd { BFD_FILE, BFD_DIR, BFD_PIPE, BFD_OTHER_MOUNT };

struct io_case {
	/* the exchange */
	uint32_t init_flags;	/* added to INIT's flags */
	uint32_t minor;		/* INIT's minor, if not 0 */
	bool pt;		/* INIT: passthrough, max_stack_depth 1 */
	bool writeback;		/* the server negotiates FUSE_WRITEBACK_CACHE */
	uint32_t open_flags[2];	/* added to the 1st and the 2nd OPEN */
	int backing[2];		/* their backing_id; 1, 2: the ids registered */
	uint64_t file_size;	/* LOOKUP of "file" reports this size */
	int read_len;		/* READ answered with this many 'x' bytes */
	bool read_empty;	/* READ answered with none */
	uint32_t opcode;	/* the request whose reply is edited: */
	int error;		/*   to this error, else */
	int extra;		/*   WRITE, COPY_FILE_RANGE: acked - asked */
	uint64_t offset;	/*   LSEEK: this offset */
	struct fuse_file_lock lk; /* GETLK: this lock */
	bool lk_caller_pid;	/*   its pid the caller's own */
	bool notify_kh;		/* at the 1st LOOKUP: NOTIFY_POLL, kh 0xdead */
	unsigned int ioctl;	/* at the 1st LOOKUP: this ioctl, of */
	enum bfd bfd;		/*   BACKING_OPEN: this fd */
	uint32_t map_flags;	/*   with these flags */
	uint64_t map_padding;	/*   and this padding */
	int close_id;		/*   BACKING_CLOSE: this id */
	bool unpriv;		/*   made without CAP_SYS_ADMIN */
	/* the call and what it must see */
	int oflags;		/* open(2) of "file" (0: O_RDWR) */
	enum call call;
	size_t count;
	int falloc_mode;
	long ret;		/* what the call returns, or -errno */
	bool twice;		/* a second round, which sends @again @opcode */
	int again;
	bool check_sent;	/* the first round sent @sent of @sent_op */
	unsigned int sent;
	uint32_t sent_op;
	bool check_lk;		/* F_GETLK returned this l_type, l_pid, l_len */
	short lk_type;
	int lk_pid;		/*   -1: the caller's own */
	off_t lk_len;
	off_t st_size;		/* fstat after the call (0: unchecked) */
	uint32_t read_size;	/* the READ asked for this (0: unchecked) */
	int at_4096;		/* CALL_FAULT: byte 4096 (-SIGBUS: beyond EOF) */
	int open_err[2];	/* errno of the 1st, 2nd (if 2nd flags) open */
	bool mmap_first;	/* the 1st fd cannot be mapped */
	int ioctl_ret;		/* the server's ioctl: its result or -errno */
	int ioctl_ret2;		/* BACKING_CLOSE again, privileged (unpriv) */
};

/*
 * Between the test and its server (a child), mapped before the fork: the
 * fds of backing files 1 and 2 and of the BACKING_OPEN, what it did.
 */
static struct shared {
	int fd[3], backing_id[2], ioctl_ret, ioctl_ret2, read_size;
} *sh;

/* Take CAP_SYS_ADMIN out of (@off) or back into the effective set */
static void sys_admin(bool off)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct caps[2];

	if (syscall(SYS_capget, &h, caps))
		return;
	if (off)
		caps[0].effective &= ~(1u << CAP_SYS_ADMIN);
	else
		caps[0].effective |= 1u << CAP_SYS_ADMIN;
	syscall(SYS_capset, &h, caps);
}

static void set_reply(struct srv_reply *r, int error, const void *p, size_t len)
{
	struct fuse_out_header *oh = (void *)r->buf;

	oh->error = error;
	memcpy(oh + 1, p, error ? 0 : len);
	r->len = oh->len = sizeof(*oh) + (error ? 0 : len);
}

static void first_lookup(const struct io_case *c, struct srv_reply *r)
{
	struct backing_map map = { .fd = sh->fd[0] };
	uint64_t kh = 0xdead;
	int i, ret = 0;

	if (c->notify_kh)
		srv_write_notify(r, FUSE_NOTIFY_POLL, &kh, sizeof(kh));
	for (i = 0; i < 2 && c->pt; i++) {
		map.fd = sh->fd[i];
		sh->backing_id[i] = ioctl(r->fd, BACKING_OPEN, &map);
	}
	map.fd = sh->fd[2];
	map.flags = c->map_flags;
	map.padding = c->map_padding;
	if (c->unpriv)
		sys_admin(true);
	if (c->ioctl == BACKING_OPEN)
		ret = ioctl(r->fd, BACKING_OPEN, &map);
	else if (c->ioctl == BACKING_CLOSE)
		ret = ioctl(r->fd, BACKING_CLOSE, &c->close_id);
	sh->ioctl_ret = ret < 0 ? -errno : ret;
	if (c->unpriv) {
		sys_admin(false);
		/* what was refused is there still */
		ret = c->ioctl == BACKING_CLOSE ?
			ioctl(r->fd, BACKING_CLOSE, &c->close_id) : 0;
		sh->ioctl_ret2 = ret < 0 ? -errno : ret;
	}
}

/* Runs in the server: the variant's edits of the core's replies */
static void edit_io(const struct srv_config *cfg,
		    const struct fuse_in_header *req, struct srv_reply *r)
{
	const struct io_case *c = (const void *)(uintptr_t)cfg->edit_arg;
	struct fuse_out_header *oh = (void *)r->buf;
	const void *in = req + 1;
	void *out = oh + 1;
	static unsigned int lookups, opens;
	static char data[8192];

	if (req->opcode == FUSE_INIT) {
		struct init_out_40 *o = out;

		o->flags |= c->init_flags | (c->pt ? FUSE_INIT_EXT : 0);
		if (c->minor)
			o->minor = c->minor;
		o->flags2 |= c->pt ? INIT_PASSTHROUGH >> 32 : 0;
		o->max_stack_depth = c->pt;
		return;
	}
	if (req->opcode == FUSE_LOOKUP && !lookups++)
		first_lookup(c, r);
	if (req->opcode == FUSE_LOOKUP && c->file_size && !strcmp(in, "file"))
		((struct fuse_entry_out *)out)->attr.size = c->file_size;
	if (req->opcode == FUSE_OPEN && !oh->error && opens < 2) {
		struct open_out_40 *o = out;
		int b = c->backing[opens];

		o->open_flags |= c->open_flags[opens++];
		o->backing_id = b == 1 || b == 2 ? sh->backing_id[b - 1] : b;
	}
	if (req->opcode == FUSE_READ) {
		sh->read_size = ((const struct fuse_read_in *)in)->size;
		memset(data, 'x', sizeof(data));
		if (c->read_len || c->read_empty)
			set_reply(r, 0, data, c->read_len);
	}
	if (req->opcode != c->opcode)
		return;
	if (c->error) {
		set_reply(r, c->error, NULL, 0);
	} else if (req->opcode == FUSE_WRITE || req->opcode == FUSE_COPY_FILE_RANGE) {
		struct fuse_write_out wo = { .size = c->extra + (req->opcode == FUSE_WRITE ?
			((const struct fuse_write_in *)in)->size :
			((const struct fuse_copy_file_range_in *)in)->len) };

		set_reply(r, 0, &wo, sizeof(wo));
	} else if (req->opcode == FUSE_LSEEK) {
		set_reply(r, 0, &c->offset, sizeof(c->offset));
	} else if (req->opcode == FUSE_GETLK) {
		struct fuse_file_lock lk = c->lk;

		if (c->lk_caller_pid)
			lk.pid = req->pid;
		set_reply(r, 0, &lk, sizeof(lk));	/* fuse_lk_out */
	}
}

static int backing_file(const char *content)
{
	char name[] = "/tmp/fusegate-backing.XXXXXX";
	int fd = mkstemp(name);

	unlink(name);
	return fd < 0 || write(fd, content, strlen(content)) < 0 ? -1 : fd;
}

/* the second mount of backing_open_stack_depth: it negotiates passthrough */
static const struct io_case other_mount = { .pt = true };

static int mount_case(struct mnt *m, const struct io_case *c)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG, LONG);

	cfg.edit_reply = edit_io;
	cfg.edit_arg = (uintptr_t)c;
	cfg.writeback_cache = c->writeback;
	return mnt_start(m, cfg);
}

/* The fds the server uses, then the mount: its server inherits them */
static void setup_case(struct __test_metadata *_metadata, struct mnt *m,
		       struct mnt *b, const struct io_case *c)
{
	int p[2] = { -1, -1 }, ret;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	sh->fd[0] = backing_file(BACKING1);
	sh->fd[1] = backing_file("pt-two\n");
	if (c->bfd == BFD_OTHER_MOUNT) {
		ASSERT_EQ(0, mount_case(b, &other_mount));
		sh->fd[2] = open(path(b, "file"), O_RDONLY);
	} else {
		sh->fd[2] = c->bfd == BFD_FILE ? dup(sh->fd[0]) :
			    c->bfd == BFD_DIR ? open("/tmp", O_DIRECTORY) :
			    pipe(p) ? -1 : p[0];
	}
	ret = sh->fd[0] < 0 || sh->fd[1] < 0 || sh->fd[2] < 0 ? -EBADF :
	      mount_case(m, c);
	/* a failed setup has no teardown: no server may be left */
	if (ret && b->server)
		mnt_kill(b);
	ASSERT_EQ(0, ret);
}

static void teardown_case(struct __test_metadata *_metadata, struct mnt *m,
			  struct mnt *b)
{
	for (int i = 0; i < 3; i++)
		close(sh->fd[i]);
	mnt_stop(_metadata, m);
	if (b->server)
		mnt_stop(_metadata, b);
}

/* A fixture of io_case variants, and its test */
#define IO_FIXTURE(name, test, body)					\
	FIXTURE(name) {							\
		struct mnt m, b;					\
	};								\
	FIXTURE_VARIANT(name) {						\
		struct io_case c;					\
	};								\
	FIXTURE_SETUP(name) {						\
		setup_case(_metadata, &self->m, &self->b, &variant->c);	\
	}								\
	FIXTURE_TEARDOWN(name) {					\
		teardown_case(_metadata, &self->m, &self->b);			\
	}								\
	TEST_F(name, test) {						\
		body(_metadata, &self->m, &variant->c);			\
	}

/* Open "file", make the call, close; what the call returned */
static long one_round(struct __test_metadata *_metadata, struct mnt *m,
		      const struct io_case *c)
{
	static char buf[8192] __attribute__((aligned(4096)));
	struct pollfd pfd = { .events = POLLIN | POLLOUT };
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	loff_t zero_in = 0, zero_out = 0;
	int fd = open(path(m, "file"), c->oflags ?: O_RDWR), other;
	struct stat st;
	long res = 0;
	char *p;

	if (fd < 0)
		return -errno;
	switch (c->call) {
	case CALL_NONE:
	case CALL_READ:
		res = c->call ? ret_of(read(fd, buf, sizeof(buf))) : 0;
		break;
	case CALL_FAULT:
		p = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0);
		EXPECT_EQ(0, madvise(p, 8192, MADV_RANDOM));
		res = p == MAP_FAILED ? -errno : p[0];
		EXPECT_EQ(c->at_4096, load_in_child(p + 4096));
		munmap(p, 8192);
		break;
	case CALL_WRITE:
		res = ret_of(write(fd, buf, c->count));
		break;
	case CALL_WRITE_FSYNC:
		EXPECT_EQ(4096, write(fd, buf, 4096));
		/* fall through */
	case CALL_FSYNC:
		res = ret_of(fsync(fd));
		break;
	case CALL_COPY:
		other = open(path(m, "empty"), O_RDWR);
		res = ret_of(copy_file_range(fd, &zero_in, other, &zero_out, 100, 0));
		close(other);
		break;
	case CALL_CLOSE:
		return ret_of(close(fd));
	case CALL_LSEEK:
		res = ret_of(lseek(fd, 3, SEEK_DATA));
		/* the position moves only with a valid answer */
		EXPECT_EQ(res < 0 ? 0 : res, lseek(fd, 0, SEEK_CUR));
		break;
	case CALL_POLL:
		pfd.fd = fd;
		res = poll(&pfd, 1, 0) == 1 ? pfd.revents : -1000;
		break;
	case CALL_FALLOCATE:
		res = ret_of(fallocate(fd, c->falloc_mode, 0, 4096));
		break;
	case CALL_GETLK:
	case CALL_SETLK:
	case CALL_SETLKW:
		res = ret_of(fcntl(fd, c->call == CALL_GETLK ? F_GETLK :
				   c->call == CALL_SETLK ? F_SETLK : F_SETLKW, &fl));
		if (c->check_lk && !res) {
			EXPECT_EQ(c->lk_type, fl.l_type);
			EXPECT_EQ(c->lk_pid < 0 ? getpid() : c->lk_pid, fl.l_pid);
			EXPECT_EQ(c->lk_len, fl.l_len);
		}
		break;
	case CALL_FLOCK:
	case CALL_FLOCK_WAIT:
		res = ret_of(flock(fd, LOCK_EX | (c->call == CALL_FLOCK ? LOCK_NB : 0)));
		break;
	case CALL_FIBMAP:
		other = 0;
		res = ret_of(ioctl(fd, FIBMAP, &other));
		if (!res)
			res = other;
		break;
	case CALL_MMAP_SHARED:
		p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
		res = p == MAP_FAILED ? -errno : 0;
		if (p != MAP_FAILED)
			munmap(p, 4096);
		/* a private mapping is allowed; unmapped, it holds no file */
		p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
		EXPECT_NE(MAP_FAILED, p);
		if (p != MAP_FAILED)
			munmap(p, 4096);
		break;
	}
	if (c->st_size) {
		EXPECT_EQ(0, fstat(fd, &st));
		EXPECT_EQ(c->st_size, st.st_size);
	}
	EXPECT_EQ(0, close(fd));
	return res;
}

/*
 * Make the call; with @twice a second time: an answer the kernel
 * remembers (ENOSYS) leaves the server out of it.
 */
static void run_call(struct __test_metadata *_metadata, struct mnt *m,
		     const struct io_case *c)
{
	const struct srv_record *raw;
	unsigned int from = nreq(m);

	EXPECT_EQ(c->ret, one_round(_metadata, m, c));
	if (c->check_sent)
		EXPECT_EQ(c->sent, count_since(m, from, c->sent_op, false));
	if (c->read_size)
		EXPECT_EQ(c->read_size, sh->read_size);
	if (c->notify_kh) {
		ASSERT_TRUE(wait_replied(m, srv_log_find(m->log, FUSE_LOOKUP, 0)));
		raw = srv_log_find_raw(m->log, 0);
		ASSERT_NE(NULL, raw);
		EXPECT_EQ(FUSE_NOTIFY_POLL, raw->arg);
		EXPECT_EQ(0, raw->write_errno);
	}
	if (!c->twice)
		return;
	from = nreq(m);
	EXPECT_EQ(c->ret, one_round(_metadata, m, c));
	EXPECT_EQ(c->again, count_since(m, from, c->opcode, false));
}

/* --- READ: a short read is the end of the file (fuse_short_read) --- */

IO_FIXTURE(read_short, the_file_ends_where_the_read_did, run_call)

/* "file" said to be 8192 bytes; READ answered with its 6 */
FIXTURE_VARIANT_ADD(read_short, read_short_eof_readahead) {
	.c = { .file_size = 8192, .call = CALL_READ, .ret = 6, .st_size = 6 },
};
/* the same, read by a page fault: ->read_folio, one page; page 1 is then past EOF */
FIXTURE_VARIANT_ADD(read_short, read_short_eof_readpage) {
	.c = { .file_size = 8192, .call = CALL_FAULT, .ret = 'h', .at_4096 = -SIGBUS,
	       .st_size = 6, .read_size = 4096 },
};
/* 6 bytes; READ(4096) answered with 200: short, but it does not grow */
FIXTURE_VARIANT_ADD(read_short, read_short_no_grow) {
	.c = { .read_len = 200, .call = CALL_READ, .ret = 6, .st_size = 6, .read_size = 4096 },
};
/* ... nor by one byte */
FIXTURE_VARIANT_ADD(read_short, read_short_no_grow_by_one) {
	.c = { .read_len = 7, .call = CALL_READ, .ret = 6, .st_size = 6, .read_size = 4096 },
};
/* short by one byte: the file is one byte shorter */
/*
 * (read(2)'s return tells: fstat() asks the server again, the read having
 * made the atime stale)
 */
FIXTURE_VARIANT_ADD(read_short, read_short_eof_readahead_one_byte_short) {
	.c = { .file_size = 8192, .read_len = 8191, .call = CALL_READ, .ret = 8191 },
};
/* no bytes at all: the file is empty */
FIXTURE_VARIANT_ADD(read_short, read_short_eof_readahead_nothing) {
	.c = { .file_size = 8192, .read_empty = true, .call = CALL_READ, .ret = 0,
	       .st_size = 0 },
};
/* the control: all 8192, the size stays */
FIXTURE_VARIANT_ADD(read_short, read_short_eof_readahead_full_is_not_short) {
	.c = { .file_size = 8192, .read_len = 8192, .call = CALL_READ, .ret = 8192 },
};
/* a whole page read by the fault: page 1 is still in the file */
FIXTURE_VARIANT_ADD(read_short, read_short_eof_readpage_full_page_is_not_short) {
	.c = { .file_size = 8192, .read_len = 4096, .call = CALL_FAULT, .ret = 'x',
	       .at_4096 = 'x', .read_size = 4096 },
};

/* --- WRITE and COPY_FILE_RANGE acks: more or less than asked --- */

IO_FIXTURE(write_ack, the_ack_is_checked, run_call)

FIXTURE_VARIANT_ADD(write_ack, write_direct_too_long) {	/* 100 bytes written, 200 acked */
	.c = { .open_flags = { FOPEN_DIRECT_IO }, .opcode = FUSE_WRITE, .extra = 100,
	       .call = CALL_WRITE, .count = 100, .ret = -EIO },
};
FIXTURE_VARIANT_ADD(write_ack, write_direct_too_long_by_one) {
	.c = { .open_flags = { FOPEN_DIRECT_IO }, .opcode = FUSE_WRITE, .extra = 1,
	       .call = CALL_WRITE, .count = 100, .ret = -EIO },
};
FIXTURE_VARIANT_ADD(write_ack, write_direct_too_long_but_all_is_taken) {
	.c = { .open_flags = { FOPEN_DIRECT_IO }, .opcode = FUSE_WRITE, .extra = 0,
	       .call = CALL_WRITE, .count = 100, .ret = 100 },
};
/* less than asked is what write(2) returns */
FIXTURE_VARIANT_ADD(write_ack, write_direct_too_long_but_less_is_taken) {
	.c = { .open_flags = { FOPEN_DIRECT_IO }, .opcode = FUSE_WRITE, .extra = -50,
	       .call = CALL_WRITE, .count = 100, .ret = 50 },
};
FIXTURE_VARIANT_ADD(write_ack, write_buffered_too_long) {
	.c = { .opcode = FUSE_WRITE, .extra = 100, .call = CALL_WRITE, .count = 100, .ret = -EIO },
};
FIXTURE_VARIANT_ADD(write_ack, write_buffered_too_long_by_one) {
	.c = { .opcode = FUSE_WRITE, .extra = 1, .call = CALL_WRITE, .count = 100, .ret = -EIO },
};
FIXTURE_VARIANT_ADD(write_ack, write_buffered_too_long_but_all_is_taken) {
	.c = { .opcode = FUSE_WRITE, .extra = 0, .call = CALL_WRITE, .count = 100, .ret = 100 },
};
FIXTURE_VARIANT_ADD(write_ack, write_buffered_short) {	/* 4096 written, 0 acked */
	.c = { .opcode = FUSE_WRITE, .extra = -4096, .call = CALL_WRITE, .count = 4096,
	       .ret = -EIO },
};
/* a part acked is what write(2) returns: 100, and 4095 (one byte short) */
FIXTURE_VARIANT_ADD(write_ack, write_buffered_short_100_is_returned) {
	.c = { .opcode = FUSE_WRITE, .extra = -3996, .call = CALL_WRITE, .count = 4096,
	       .ret = 100 },
};
FIXTURE_VARIANT_ADD(write_ack, write_buffered_short_by_one_is_returned) {
	.c = { .opcode = FUSE_WRITE, .extra = -1, .call = CALL_WRITE, .count = 4096,
	       .ret = 4095 },
};
/* O_DIRECT with FUSE_ASYNC_DIO: 100 of 4096 acked */
FIXTURE_VARIANT_ADD(write_ack, write_async_dio_short) {
	.c = { .init_flags = FUSE_ASYNC_DIO, .oflags = O_RDWR | O_DIRECT, .opcode = FUSE_WRITE,
	       .extra = -3996, .call = CALL_WRITE, .count = 4096, .ret = -EIO },
};
/* ... one byte short, one byte long: any ack but the whole is EIO */
FIXTURE_VARIANT_ADD(write_ack, write_async_dio_short_by_one) {
	.c = { .init_flags = FUSE_ASYNC_DIO, .oflags = O_RDWR | O_DIRECT, .opcode = FUSE_WRITE,
	       .extra = -1, .call = CALL_WRITE, .count = 4096, .ret = -EIO },
};
FIXTURE_VARIANT_ADD(write_ack, write_async_dio_short_too_long_by_one) {
	.c = { .init_flags = FUSE_ASYNC_DIO, .oflags = O_RDWR | O_DIRECT, .opcode = FUSE_WRITE,
	       .extra = 1, .call = CALL_WRITE, .count = 4096, .ret = -EIO },
};
FIXTURE_VARIANT_ADD(write_ack, write_async_dio_short_but_all_is_taken) {
	.c = { .init_flags = FUSE_ASYNC_DIO, .oflags = O_RDWR | O_DIRECT, .opcode = FUSE_WRITE,
	       .extra = 0, .call = CALL_WRITE, .count = 4096, .ret = 4096 },
};
/* 6 bytes to copy (the size of "file"), 106 acked */
FIXTURE_VARIANT_ADD(write_ack, copy_file_range_too_long) {
	.c = { .opcode = FUSE_COPY_FILE_RANGE, .extra = 100, .call = CALL_COPY, .ret = -EIO },
};
FIXTURE_VARIANT_ADD(write_ack, copy_file_range_too_long_by_one) {
	.c = { .opcode = FUSE_COPY_FILE_RANGE, .extra = 1, .call = CALL_COPY, .ret = -EIO },
};
FIXTURE_VARIANT_ADD(write_ack, copy_file_range_too_long_but_all_is_taken) {
	.c = { .opcode = FUSE_COPY_FILE_RANGE, .extra = 0, .call = CALL_COPY, .ret = 6 },
};
FIXTURE_VARIANT_ADD(write_ack, copy_file_range_too_long_but_less_is_taken) {
	.c = { .opcode = FUSE_COPY_FILE_RANGE, .extra = -5, .call = CALL_COPY, .ret = 1 },
};
/* writeback cache: the WRITE of the dirty page fails, fsync says so */
FIXTURE_VARIANT_ADD(write_ack, writepage_error) {
	.c = { .writeback = true, .opcode = FUSE_WRITE, .error = -EIO, .call = CALL_WRITE_FSYNC,
	       .ret = -EIO },
};
/* ... whichever the error */
FIXTURE_VARIANT_ADD(write_ack, writepage_error_enospc) {
	.c = { .writeback = true, .opcode = FUSE_WRITE, .error = -ENOSPC,
	       .call = CALL_WRITE_FSYNC, .ret = -ENOSPC },
};

/* --- GETLK answers (convert_fuse_file_lock), SETLK errors --- */

IO_FIXTURE(lock, the_lock_call_fails, run_call)

#define GETLK_OF(...)	.init_flags = FUSE_POSIX_LOCKS, .opcode = FUSE_GETLK, \
	.call = CALL_GETLK, .lk = { __VA_ARGS__ }

FIXTURE_VARIANT_ADD(lock, getlk_end_beyond_max) {
	.c = { GETLK_OF(.type = F_WRLCK, .start = 0, .end = 1ULL << 63), .ret = -EIO },
};
FIXTURE_VARIANT_ADD(lock, getlk_end_beyond_max_u64_max) {
	.c = { GETLK_OF(.type = F_WRLCK, .start = 0, .end = ~0ULL), .ret = -EIO },
};
/* OFFSET_MAX itself is "to the end of the file": l_len 0 */
FIXTURE_VARIANT_ADD(lock, getlk_end_beyond_max_but_offset_max_is_taken) {
	.c = { GETLK_OF(.type = F_WRLCK, .start = 0, .end = LLONG_MAX_OFF, .pid = 1),
	       .ret = 0, .check_lk = true, .lk_type = F_WRLCK, .lk_pid = 1, .lk_len = 0 },
};
/* a start beyond OFFSET_MAX (its end too: the start check alone is redundant) */
FIXTURE_VARIANT_ADD(lock, getlk_end_beyond_max_start_too) {
	.c = { GETLK_OF(.type = F_WRLCK, .start = 1ULL << 63, .end = 1ULL << 63), .ret = -EIO },
};
FIXTURE_VARIANT_ADD(lock, getlk_end_before_start) {
	.c = { GETLK_OF(.type = F_RDLCK, .start = 100, .end = 10), .ret = -EIO },
};
FIXTURE_VARIANT_ADD(lock, getlk_end_before_start_by_one) {
	.c = { GETLK_OF(.type = F_RDLCK, .start = 100, .end = 99), .ret = -EIO },
};
/* a lock of one byte: end == start */
FIXTURE_VARIANT_ADD(lock, getlk_end_before_start_but_one_byte_is_taken) {
	.c = { GETLK_OF(.type = F_RDLCK, .start = 100, .end = 100, .pid = 1), .ret = 0,
	       .check_lk = true, .lk_type = F_RDLCK, .lk_pid = 1, .lk_len = 1 },
};
FIXTURE_VARIANT_ADD(lock, getlk_bad_type) {
	.c = { GETLK_OF(.type = 7, .start = 0, .end = 10), .ret = -EIO },
};
/* the first value past F_UNLCK (2), and the largest */
FIXTURE_VARIANT_ADD(lock, getlk_bad_type_3) {
	.c = { GETLK_OF(.type = 3, .start = 0, .end = 10), .ret = -EIO },
};
FIXTURE_VARIANT_ADD(lock, getlk_bad_type_u32_max) {
	.c = { GETLK_OF(.type = 0xffffffff, .start = 0, .end = 10), .ret = -EIO },
};
/* F_UNLCK: no conflict; its range and pid are not looked at */
FIXTURE_VARIANT_ADD(lock, getlk_bad_type_but_unlck_is_taken) {
	.c = { GETLK_OF(.type = F_UNLCK, .start = 100, .end = 10, .pid = 99999), .ret = 0,
	       .check_lk = true, .lk_type = F_UNLCK, .lk_pid = 0, .lk_len = 0 },
};
/* getlk-pid-translated: a pid no process has is reported as 0 */
FIXTURE_VARIANT_ADD(lock, getlk_pid_translated) {
	.c = { GETLK_OF(.type = F_WRLCK, .start = 0, .end = 9, .pid = 99999), .ret = 0,
	       .check_lk = true, .lk_type = F_WRLCK, .lk_pid = 0, .lk_len = 10 },
};
FIXTURE_VARIANT_ADD(lock, getlk_pid_translated_a_live_pid_is_kept) {
	.c = { GETLK_OF(.type = F_WRLCK, .start = 0, .end = 9), .lk_caller_pid = true,
	       .ret = 0, .check_lk = true, .lk_type = F_WRLCK, .lk_pid = -1, .lk_len = 10 },
};
/* EINTR becomes ERESTARTSYS; with no signal pending, errno 512 leaks */
FIXTURE_VARIANT_ADD(lock, setlk_eintr_restart) {
	.c = { .init_flags = FUSE_POSIX_LOCKS, .opcode = FUSE_SETLK, .error = -EINTR,
	       .call = CALL_SETLK, .ret = -512 },
};
/* ... for F_SETLKW, and for flock() emulated with POSIX locks */
FIXTURE_VARIANT_ADD(lock, setlk_eintr_restart_setlkw) {
	.c = { .init_flags = FUSE_POSIX_LOCKS, .opcode = FUSE_SETLKW, .error = -EINTR,
	       .call = CALL_SETLKW, .ret = -512 },
};
FIXTURE_VARIANT_ADD(lock, setlk_eintr_restart_flock) {
	.c = { .init_flags = FUSE_POSIX_LOCKS | FUSE_FLOCK_LOCKS, .opcode = FUSE_SETLKW,
	       .error = -EINTR, .call = CALL_FLOCK_WAIT, .ret = -512 },
};
/* other errors are the caller's as they are */
FIXTURE_VARIANT_ADD(lock, setlk_eintr_restart_but_eagain_is_eagain) {
	.c = { .init_flags = FUSE_POSIX_LOCKS, .opcode = FUSE_SETLK, .error = -EAGAIN,
	       .call = CALL_SETLK, .ret = -EAGAIN },
};

/*
 * --- which locks go to the server: INIT's FUSE_POSIX_LOCKS and
 * FUSE_FLOCK_LOCKS (process_init_reply) --- The server does not know the
 * lock requests: a call sent to it fails ENOSYS, a local one succeeds.
 */
IO_FIXTURE(lock_mode, the_server_gets_the_locks_it_asked_for, run_call)

#define SENT(op, n)	.check_sent = true, .sent_op = op, .sent = n

/* init-no-posix-locks: without the flag, POSIX locks are the kernel's */
FIXTURE_VARIANT_ADD(lock_mode, init_no_posix_locks) {
	.c = { .call = CALL_SETLK, .ret = 0, SENT(FUSE_SETLK, 0) },
};
FIXTURE_VARIANT_ADD(lock_mode, init_no_posix_locks_getlk) {
	.c = { .call = CALL_GETLK, .ret = 0, SENT(FUSE_GETLK, 0) },
};
FIXTURE_VARIANT_ADD(lock_mode, init_no_posix_locks_but_the_flag_sends_them) {
	.c = { .init_flags = FUSE_POSIX_LOCKS, .call = CALL_SETLK, .ret = -ENOSYS,
	       SENT(FUSE_SETLK, 1) },
};
/* init-no-flock-locks: since 7.17, flock() goes to the server only with FUSE_FLOCK_LOCKS */
FIXTURE_VARIANT_ADD(lock_mode, init_no_flock_locks) {
	.c = { .init_flags = FUSE_POSIX_LOCKS, .call = CALL_FLOCK, .ret = 0,
	       SENT(FUSE_SETLK, 0) },
};
FIXTURE_VARIANT_ADD(lock_mode, init_no_flock_locks_but_the_flag_sends_them) {
	.c = { .init_flags = FUSE_POSIX_LOCKS | FUSE_FLOCK_LOCKS, .call = CALL_FLOCK,
	       .ret = -ENOSYS, SENT(FUSE_SETLK, 1) },
};
/* init-flock-minor-lt-17: before 7.17 flock() follows FUSE_POSIX_LOCKS */
FIXTURE_VARIANT_ADD(lock_mode, init_flock_minor_lt_17) {
	.c = { .minor = 16, .init_flags = FUSE_POSIX_LOCKS, .call = CALL_FLOCK,
	       .ret = -ENOSYS, SENT(FUSE_SETLK, 1) },
};
FIXTURE_VARIANT_ADD(lock_mode, init_flock_minor_lt_17_without_posix_locks) {
	.c = { .minor = 16, .call = CALL_FLOCK, .ret = 0, SENT(FUSE_SETLK, 0) },
};
FIXTURE_VARIANT_ADD(lock_mode, init_flock_minor_lt_17_but_17_wants_the_flag) {
	.c = { .minor = 17, .init_flags = FUSE_POSIX_LOCKS, .call = CALL_FLOCK, .ret = 0,
	       SENT(FUSE_SETLK, 0) },
};

/* --- one call on an open file: errors, ENOSYS, NOTIFY_POLL --- */

IO_FIXTURE(file_op, the_call_sees_what_the_row_says, run_call)

FIXTURE_VARIANT_ADD(file_op, lseek_offset_invalid) {
	.c = { .opcode = FUSE_LSEEK, .offset = ~0ULL, .call = CALL_LSEEK, .ret = -EINVAL,
	       .twice = true, .again = 1 },
};
/* the first negative offset; the largest one (s_maxbytes); beyond EOF */
FIXTURE_VARIANT_ADD(file_op, lseek_offset_invalid_llong_max_plus_one) {
	.c = { .opcode = FUSE_LSEEK, .offset = 1ULL << 63, .call = CALL_LSEEK, .ret = -EINVAL },
};
FIXTURE_VARIANT_ADD(file_op, lseek_offset_invalid_but_llong_max_is_taken) {
	.c = { .opcode = FUSE_LSEEK, .offset = LLONG_MAX_OFF, .call = CALL_LSEEK,
	       .ret = LLONG_MAX_OFF },
};
FIXTURE_VARIANT_ADD(file_op, lseek_offset_invalid_but_beyond_eof_is_taken) {
	.c = { .opcode = FUSE_LSEEK, .offset = 1ULL << 40, .call = CALL_LSEEK, .ret = 1LL << 40 },
};
FIXTURE_VARIANT_ADD(file_op, poll_error_epollerr) {
	.c = { .opcode = FUSE_POLL, .error = -EIO, .call = CALL_POLL, .ret = POLLERR, .twice = true,
	       .again = 1 },
};
FIXTURE_VARIANT_ADD(file_op, poll_error_epollerr_eagain) {
	.c = { .opcode = FUSE_POLL, .error = -EAGAIN, .call = CALL_POLL, .ret = POLLERR },
};
/* fallocate-mode-unsupported: only KEEP_SIZE, PUNCH_HOLE and ZERO_RANGE are sent */
FIXTURE_VARIANT_ADD(file_op, fallocate_mode_unsupported) {
	.c = { .call = CALL_FALLOCATE, .falloc_mode = FALLOC_FL_COLLAPSE_RANGE,
	       .ret = -EOPNOTSUPP, SENT(FUSE_FALLOCATE, 0) },
};
FIXTURE_VARIANT_ADD(file_op, fallocate_mode_unsupported_insert_range) {
	.c = { .call = CALL_FALLOCATE, .falloc_mode = FALLOC_FL_INSERT_RANGE,
	       .ret = -EOPNOTSUPP, SENT(FUSE_FALLOCATE, 0) },
};
FIXTURE_VARIANT_ADD(file_op, fallocate_mode_unsupported_unshare_range) {
	.c = { .call = CALL_FALLOCATE, .falloc_mode = FALLOC_FL_UNSHARE_RANGE,
	       .ret = -EOPNOTSUPP, SENT(FUSE_FALLOCATE, 0) },
};
/* ... the server does not know FALLOCATE: EOPNOTSUPP, after it was asked */
FIXTURE_VARIANT_ADD(file_op, fallocate_mode_unsupported_but_keep_size_is_sent) {
	.c = { .call = CALL_FALLOCATE, .falloc_mode = FALLOC_FL_KEEP_SIZE,
	       .ret = -EOPNOTSUPP, SENT(FUSE_FALLOCATE, 1) },
};
/* bmap-not-blockdev: FIBMAP on a FUSE mount without a block device asks nobody */
FIXTURE_VARIANT_ADD(file_op, bmap_not_blockdev) {
	.c = { .call = CALL_FIBMAP, .ret = 0, SENT(FUSE_BMAP, 0) },
};
/* no NOTIFY_POLL can name a file never polled: ignored */
FIXTURE_VARIANT_ADD(file_op, notify_poll_unknown_kh) {
	.c = { .notify_kh = true, .call = CALL_NONE },
};
/* FOPEN_DIRECT_IO without FUSE_DIRECT_IO_ALLOW_MMAP: no shared mapping */
FIXTURE_VARIANT_ADD(file_op, mmap_direct_io_shared) {
	.c = { .open_flags = { FOPEN_DIRECT_IO }, .call = CALL_MMAP_SHARED, .ret = -ENODEV },
};
/* ENOSYS: the call works without the server, which is not asked again */
FIXTURE_VARIANT_ADD(file_op, enosys_open) {
	.c = { .opcode = FUSE_OPEN, .error = -ENOSYS, .call = CALL_READ, .ret = 6, .twice = true },
};
FIXTURE_VARIANT_ADD(file_op, enosys_flush) {
	.c = { .opcode = FUSE_FLUSH, .error = -ENOSYS, .call = CALL_CLOSE, .twice = true },
};
FIXTURE_VARIANT_ADD(file_op, enosys_fsync) {
	.c = { .opcode = FUSE_FSYNC, .error = -ENOSYS, .call = CALL_FSYNC, .twice = true },
};
FIXTURE_VARIANT_ADD(file_op, enosys_lseek) {	/* generic lseek: all of "file" is data */
	.c = { .opcode = FUSE_LSEEK, .error = -ENOSYS, .call = CALL_LSEEK, .ret = 3,
	       .twice = true },
};
FIXTURE_VARIANT_ADD(file_op, enosys_poll) {
	.c = { .opcode = FUSE_POLL, .error = -ENOSYS, .call = CALL_POLL, .ret = POLLIN | POLLOUT,
	       .twice = true },
};
FIXTURE_VARIANT_ADD(file_op, enosys_fallocate) {
	.c = { .opcode = FUSE_FALLOCATE, .error = -ENOSYS, .call = CALL_FALLOCATE,
	       .ret = -EOPNOTSUPP, .twice = true },
};
/* the VFS copies through READ and WRITE instead */
FIXTURE_VARIANT_ADD(file_op, enosys_copy_file_range) {
	.c = { .opcode = FUSE_COPY_FILE_RANGE, .error = -ENOSYS, .call = CALL_COPY, .ret = 6,
	       .twice = true },
};
/* another error is the caller's, and asked again: nothing is remembered */
FIXTURE_VARIANT_ADD(file_op, enosys_open_but_eacces_is_not_remembered) {
	.c = { .opcode = FUSE_OPEN, .error = -EACCES, .call = CALL_READ, .ret = -EACCES,
	       .twice = true, .again = 1 },
};
FIXTURE_VARIANT_ADD(file_op, enosys_flush_but_eio_is_not_remembered) {
	.c = { .opcode = FUSE_FLUSH, .error = -EIO, .call = CALL_CLOSE, .ret = -EIO,
	       .twice = true, .again = 1 },
};
FIXTURE_VARIANT_ADD(file_op, enosys_fsync_but_eio_is_not_remembered) {
	.c = { .opcode = FUSE_FSYNC, .error = -EIO, .call = CALL_FSYNC, .ret = -EIO,
	       .twice = true, .again = 1 },
};
FIXTURE_VARIANT_ADD(file_op, enosys_lseek_but_eio_is_not_remembered) {
	.c = { .opcode = FUSE_LSEEK, .error = -EIO, .call = CALL_LSEEK, .ret = -EIO,
	       .twice = true, .again = 1 },
};
FIXTURE_VARIANT_ADD(file_op, enosys_fallocate_but_eio_is_not_remembered) {
	.c = { .opcode = FUSE_FALLOCATE, .error = -EIO, .call = CALL_FALLOCATE, .ret = -EIO,
	       .twice = true, .again = 1 },
};
FIXTURE_VARIANT_ADD(file_op, enosys_copy_file_range_but_eio_is_not_remembered) {
	.c = { .opcode = FUSE_COPY_FILE_RANGE, .error = -EIO, .call = CALL_COPY, .ret = -EIO,
	       .twice = true, .again = 1 },
};

/*
 * --- passthrough opens: the inode's I/O mode (iomode.c) --- The server
 * registers two backing files (tmpfs) at the first LOOKUP, and answers
 * the 1st and 2nd OPEN of "file" with the variant's flags and backing ids.
 */

static void two_opens(struct __test_metadata *_metadata, struct mnt *m,
		      const struct io_case *c)
{
	int fd[2] = { -1, -1 }, i;
	char buf[64];

	for (i = 0; i < 1 + !!c->open_flags[1]; i++) {
		fd[i] = open(path(m, "file"), O_RDWR);
		EXPECT_EQ(c->open_err[i], fd[i] < 0 ? errno : 0);
		if (fd[i] < 0)
			continue;
		/* a passthrough fd reads the backing file */
		memset(buf, 0, sizeof(buf));
		EXPECT_LE(0, pread(fd[i], buf, sizeof(buf) - 1, 0));
		EXPECT_STREQ(c->open_flags[i] & OPEN_PASSTHROUGH ? BACKING1 : "hello\n", buf);
	}
	if (c->mmap_first) {
		EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd[0], 0));
		EXPECT_EQ(ENODEV, errno);
	}
	close(fd[1]);
	close(fd[0]);
}

IO_FIXTURE(passthrough, a_mistaken_open_mode_fails_the_open, two_opens)

FIXTURE_VARIANT_ADD(passthrough, open_passthrough_unknown_backing_id) {
	.c = { .pt = true, .open_flags = { OPEN_PASSTHROUGH }, .backing = { 42 },
	       .open_err = { EIO } },
};
FIXTURE_VARIANT_ADD(passthrough, open_passthrough_bad_flags) {
	.c = { .pt = true, .open_flags = { OPEN_PASSTHROUGH | FOPEN_KEEP_CACHE }, .backing = { 1 },
	       .open_err = { EIO } },
};
/* open for passthrough, then a direct-io open without it */
FIXTURE_VARIANT_ADD(passthrough, open_mixed_passthrough) {
	.c = { .pt = true, .open_flags = { OPEN_PASSTHROUGH, FOPEN_DIRECT_IO }, .backing = { 1 },
	       .open_err = { 0, EIO } },
};
/* open cached, then for passthrough */
FIXTURE_VARIANT_ADD(passthrough, open_passthrough_while_cached) {
	.c = { .pt = true, .open_flags = { 0, OPEN_PASSTHROUGH }, .backing = { 0, 1 },
	       .open_err = { 0, EIO } },
};
/* for passthrough with backing id 1, then with 2 */
FIXTURE_VARIANT_ADD(passthrough, open_passthrough_backing_conflict) {
	.c = { .pt = true, .open_flags = { OPEN_PASSTHROUGH, OPEN_PASSTHROUGH },
	       .backing = { 1, 2 }, .open_err = { 0, EIO } },
};
/* open direct-io, then for passthrough: the first fd cannot be mapped */
FIXTURE_VARIANT_ADD(passthrough, mmap_backing_inode) {
	.c = { .pt = true, .open_flags = { FOPEN_DIRECT_IO, OPEN_PASSTHROUGH }, .backing = { 0, 1 },
	       .mmap_first = true },
};

/*
 * --- the server's FUSE_DEV_IOC_BACKING_OPEN/CLOSE (passthrough.c) --- Made
 * while it answers the first LOOKUP: ioctl_ret is the id or -errno.  With
 * passthrough negotiated, the two backing files before got the ids 1, 2.
 */
static void server_ioctl(struct __test_metadata *_metadata, struct mnt *m,
			 const struct io_case *c)
{
	const struct srv_record *lookup;
	struct stat st;

	ASSERT_EQ(0, stat(path(m, "file"), &st));
	lookup = srv_log_find(m->log, FUSE_LOOKUP, 0);
	ASSERT_NE(NULL, lookup);
	ASSERT_TRUE(wait_replied(m, lookup));
	EXPECT_EQ(c->ioctl_ret, sh->ioctl_ret);
	EXPECT_EQ(c->ioctl_ret2, sh->ioctl_ret2);
	EXPECT_EQ(c->pt ? 1 : 0, sh->backing_id[0]);
	EXPECT_EQ(c->pt ? 2 : 0, sh->backing_id[1]);
}

IO_FIXTURE(backing_ioctl, the_server_ioctl_gets_what_the_row_says, server_ioctl)

/* the control: a regular file, passthrough negotiated: the next id */
FIXTURE_VARIANT_ADD(backing_ioctl, backing_open_regular_file) {
	.c = { .pt = true, .ioctl = BACKING_OPEN, .bfd = BFD_FILE, .ioctl_ret = 3 },
};
FIXTURE_VARIANT_ADD(backing_ioctl, backing_open_not_negotiated) {
	.c = { .ioctl = BACKING_OPEN, .bfd = BFD_FILE, .ioctl_ret = -EPERM },
};
FIXTURE_VARIANT_ADD(backing_ioctl, backing_open_flags) {
	.c = { .pt = true, .ioctl = BACKING_OPEN, .bfd = BFD_FILE, .map_flags = 1,
	       .ioctl_ret = -EINVAL },
};
FIXTURE_VARIANT_ADD(backing_ioctl, backing_open_not_regular) {
	.c = { .pt = true, .ioctl = BACKING_OPEN, .bfd = BFD_DIR, .ioctl_ret = -EISDIR },
};
FIXTURE_VARIANT_ADD(backing_ioctl, backing_open_not_regular_pipe) {
	.c = { .pt = true, .ioctl = BACKING_OPEN, .bfd = BFD_PIPE, .ioctl_ret = -EINVAL },
};
/* a file of another FUSE mount with passthrough: its stack depth is 1 */
FIXTURE_VARIANT_ADD(backing_ioctl, backing_open_stack_depth) {
	.c = { .pt = true, .ioctl = BACKING_OPEN, .bfd = BFD_OTHER_MOUNT, .ioctl_ret = -ELOOP },
};
FIXTURE_VARIANT_ADD(backing_ioctl, backing_close_not_negotiated) {
	.c = { .ioctl = BACKING_CLOSE, .close_id = 1, .ioctl_ret = -EPERM },
};
FIXTURE_VARIANT_ADD(backing_ioctl, backing_close_id) {
	.c = { .pt = true, .ioctl = BACKING_CLOSE, .close_id = 0, .ioctl_ret = -EINVAL },
};
FIXTURE_VARIANT_ADD(backing_ioctl, backing_close_unknown) {
	.c = { .pt = true, .ioctl = BACKING_CLOSE, .close_id = 42, .ioctl_ret = -ENOENT },
};
/*
 * backing-open-unprivileged, backing-close-unprivileged: a server without
 * CAP_SYS_ADMIN may neither, passthrough negotiated or not; the id it
 * could not close is there still (closed at once with the capability)
 */
FIXTURE_VARIANT_ADD(backing_ioctl, backing_open_unprivileged) {
	.c = { .pt = true, .ioctl = BACKING_OPEN, .bfd = BFD_FILE, .unpriv = true,
	       .ioctl_ret = -EPERM },
};
FIXTURE_VARIANT_ADD(backing_ioctl, backing_close_unprivileged) {
	.c = { .pt = true, .ioctl = BACKING_CLOSE, .close_id = 1, .unpriv = true,
	       .ioctl_ret = -EPERM, .ioctl_ret2 = 0 },
};
/* id 0 and negative ids: the other classes of invalid id */
FIXTURE_VARIANT_ADD(backing_ioctl, backing_close_id_negative) {
	.c = { .pt = true, .ioctl = BACKING_CLOSE, .close_id = -1, .ioctl_ret = -EINVAL },
};
FIXTURE_VARIANT_ADD(backing_ioctl, backing_close_id_int_min) {
	.c = { .pt = true, .ioctl = BACKING_CLOSE, .close_id = INT32_MIN, .ioctl_ret = -EINVAL },
};
/* ... and 1, the first valid one */
FIXTURE_VARIANT_ADD(backing_ioctl, backing_close_id_1_is_closed) {
	.c = { .pt = true, .ioctl = BACKING_CLOSE, .close_id = 1, .ioctl_ret = 0 },
};
/* backing-open-flags: padding is a field of its own */
FIXTURE_VARIANT_ADD(backing_ioctl, backing_open_flags_padding) {
	.c = { .pt = true, .ioctl = BACKING_OPEN, .bfd = BFD_FILE, .map_padding = 1,
	       .ioctl_ret = -EINVAL },
};
FIXTURE_VARIANT_ADD(backing_ioctl, backing_open_flags_high_bit) {
	.c = { .pt = true, .ioctl = BACKING_OPEN, .bfd = BFD_FILE, .map_flags = 1u << 31,
	       .ioctl_ret = -EINVAL },
};

TEST_HARNESS_MAIN
