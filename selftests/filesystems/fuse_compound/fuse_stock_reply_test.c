// SPDX-License-Identifier: GPL-2.0
/*
 * What stock FUSE already protects: a server's plain replies and its
 * INIT answer, each broken in one way, and the check of 6.12 that holds
 * against it (docs/stock-checks.md lists them, one row per check, and
 * each variant here is named after its row).  These tests pass on any
 * kernel that keeps those checks, with or without compounds, and fail
 * when one of them is removed.
 *
 * Each variant states the broken exchange itself: the request it answers
 * (opcode), the write made before the correct reply, and what the caller
 * and the server's two write(2)s must see.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../../kselftest_harness.h"
#include "fuse_test.h"

#define OH sizeof(struct fuse_out_header)

static void *shared_alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* --- the callers: one syscall each, 0 or -errno --- */

static int stat_file(struct mnt *m)
{
	struct stat st;

	return stat(path(m, "file"), &st) ? -errno : 0;
}

static int statfs_mnt(struct mnt *m)
{
	struct statfs st;

	return statfs(m->dir, &st) ? -errno : 0;
}

/* open "file" and do @what on it */
static int on_file(struct mnt *m, int (*what)(int fd))
{
	int fd = open(path(m, "file"), O_RDONLY), ret;

	if (fd < 0)
		return -errno;
	ret = what(fd);
	close(fd);
	return ret;
}

static int do_read(int fd)
{
	char buf[4096];

	return read(fd, buf, sizeof(buf)) < 0 ? -errno : 0;
}

/* a restricted ioctl: out-args fuse_ioctl_out + 8 bytes of data */
static int do_ioctl(int fd)
{
	uint64_t v;

	return ioctl(fd, _IOR('X', 1, uint64_t), &v) < 0 ? -errno : 0;
}

static int read_file(struct mnt *m) { return on_file(m, do_read); }
static int ioctl_file(struct mnt *m) { return on_file(m, do_ioctl); }

/* --- the broken writes, each made from the correct reply @r --- */

/* the header alone, its error replaced by @arg */
static void header_with_error(const struct fuse_in_header *req,
			      struct srv_reply *r, int64_t arg)
{
	struct fuse_out_header oh = *(struct fuse_out_header *)r->buf;

	oh.len = OH;
	oh.error = arg;
	srv_write_raw(r, &oh, OH);
}

/* error @arg, and 8 bytes of payload */
static void error_with_payload(const struct fuse_in_header *req,
			       struct srv_reply *r, int64_t arg)
{
	unsigned char buf[OH + 8] = { 0 };
	struct fuse_out_header *oh = (void *)buf;

	*oh = *(struct fuse_out_header *)r->buf;
	oh->len = sizeof(buf);
	oh->error = arg;
	srv_write_raw(r, buf, sizeof(buf));
}

/* the first @arg bytes, with out_header.len saying so if it is there */
static void cut_to(const struct fuse_in_header *req, struct srv_reply *r,
		   int64_t arg)
{
	static unsigned char buf[OH + 4096];

	memcpy(buf, r->buf, arg);
	if (arg >= (int64_t)OH)
		((struct fuse_out_header *)buf)->len = arg;
	srv_write_raw(r, buf, arg);
}

/* the whole reply, out_header.len off by @arg */
static void len_off_by(const struct fuse_in_header *req, struct srv_reply *r,
		       int64_t arg)
{
	static unsigned char buf[OH + 4096];

	memcpy(buf, r->buf, r->len);
	((struct fuse_out_header *)buf)->len = r->len + arg;
	srv_write_raw(r, buf, r->len);
}

/* @arg bytes more than the out-args hold (a READ: more than asked) */
static void longer_by(const struct fuse_in_header *req, struct srv_reply *r,
		      int64_t arg)
{
	static unsigned char buf[OH + (128 << 10)];
	size_t len = r->len + arg;

	if (req->opcode == FUSE_READ)
		len = OH + ((const struct fuse_read_in *)(req + 1))->size + arg;
	if (len > sizeof(buf))
		len = sizeof(buf);
	memset(buf, 'x', len);
	memcpy(buf, r->buf, r->len);
	((struct fuse_out_header *)buf)->len = len;
	srv_write_raw(r, buf, len);
}

/* error -ENOENT and @arg bytes of payload */
static void enoent_with_bytes(const struct fuse_in_header *req,
			      struct srv_reply *r, int64_t arg)
{
	unsigned char buf[OH + 64] = { 0 };
	struct fuse_out_header *oh = (void *)buf;

	*oh = *(struct fuse_out_header *)r->buf;
	oh->len = OH + arg;
	oh->error = -ENOENT;
	srv_write_raw(r, buf, oh->len);
}

/* the correct reply itself: the one after it answers a request that is done */
static void same_reply(const struct fuse_in_header *req, struct srv_reply *r,
		       int64_t arg)
{
	srv_write_raw(r, r->buf, r->len);
}

/* success, with @arg bytes of payload whatever the request wants */
static void payload_of(const struct fuse_in_header *req, struct srv_reply *r,
		       int64_t arg)
{
	unsigned char buf[OH + 64];
	struct fuse_out_header *oh = (void *)buf;

	memset(buf, 0, sizeof(buf));
	*oh = *(struct fuse_out_header *)r->buf;
	oh->len = OH + arg;
	oh->error = 0;
	srv_write_raw(r, buf, oh->len);
}

/* the whole reply with another unique */
static void with_unique(const struct fuse_in_header *req, struct srv_reply *r,
			int64_t arg)
{
	static unsigned char buf[OH + 4096];

	memcpy(buf, r->buf, r->len);
	((struct fuse_out_header *)buf)->unique = arg;
	srv_write_raw(r, buf, r->len);
}

/* unique 0: a notification, FUSE_NOTIFY_INVAL_INODE of the root */
static void inval_root(const struct fuse_in_header *req, struct srv_reply *r,
		       int64_t arg)
{
	struct fuse_notify_inval_inode_out in = { .ino = FUSE_ROOT_ID };

	srv_write_notify(r, FUSE_NOTIFY_INVAL_INODE, &in, sizeof(in));
}

/* the header readable, the payload on a page that is not */
static void payload_unmapped(const struct fuse_in_header *req,
			     struct srv_reply *r, int64_t arg)
{
	long pg = sysconf(_SC_PAGESIZE);
	unsigned char *p = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char *h = p + pg - OH;

	memcpy(h, r->buf, OH);
	mprotect(p + pg, pg, PROT_NONE);
	srv_write_raw(r, h, r->len);
	munmap(p, 2 * pg);
}

/* --- the exchange: a broken write, then the correct reply --- */

FIXTURE(reply) {
	struct mnt m;
};

FIXTURE_VARIANT(reply) {
	uint32_t opcode;		/* the request answered */
	int (*call)(struct mnt *m);	/* the caller's syscall that sends it */
	void (*write_bad)(const struct fuse_in_header *req,
			  struct srv_reply *r, int64_t arg);
	int64_t arg;
	int bad_errno;			/* of the broken write */
	int good_errno;			/* of the correct reply after it:
					 * ENOENT once the request is done */
	int call_errno;
};

/* reply-too-short: 8 bytes are no header; the request waits on */
FIXTURE_VARIANT_ADD(reply, reply_too_short) {
	.opcode = FUSE_LOOKUP, .call = stat_file, .write_bad = cut_to,
	.arg = 8, .bad_errno = EINVAL, .good_errno = 0, .call_errno = 0,
};
/* ... nor are 15 bytes, nor none; 16 are one (an error reply) */
FIXTURE_VARIANT_ADD(reply, reply_too_short_15) {
	.opcode = FUSE_LOOKUP, .call = stat_file, .write_bad = cut_to,
	.arg = OH - 1, .bad_errno = EINVAL, .good_errno = 0, .call_errno = 0,
};
FIXTURE_VARIANT_ADD(reply, reply_too_short_empty) {
	.opcode = FUSE_LOOKUP, .call = stat_file, .write_bad = cut_to,
	.arg = 0, .bad_errno = EINVAL, .good_errno = 0, .call_errno = 0,
};
FIXTURE_VARIANT_ADD(reply, reply_too_short_but_16_is_a_header) {
	.opcode = FUSE_LOOKUP, .call = stat_file, .write_bad = header_with_error,
	.arg = -ENOENT, .bad_errno = 0, .good_errno = ENOENT, .call_errno = ENOENT,
};
/* reply-len-mismatch: out_header.len must be the size written */
FIXTURE_VARIANT_ADD(reply, reply_len_mismatch) {
	.opcode = FUSE_LOOKUP, .call = stat_file, .write_bad = len_off_by,
	.arg = 8, .bad_errno = EINVAL, .good_errno = 0, .call_errno = 0,
};
/* ... one more, one less, and 0 */
FIXTURE_VARIANT_ADD(reply, reply_len_mismatch_one_more) {
	.opcode = FUSE_LOOKUP, .call = stat_file, .write_bad = len_off_by,
	.arg = 1, .bad_errno = EINVAL, .good_errno = 0, .call_errno = 0,
};
FIXTURE_VARIANT_ADD(reply, reply_len_mismatch_one_less) {
	.opcode = FUSE_LOOKUP, .call = stat_file, .write_bad = len_off_by,
	.arg = -1, .bad_errno = EINVAL, .good_errno = 0, .call_errno = 0,
};
FIXTURE_VARIANT_ADD(reply, reply_len_mismatch_zero) {
	.opcode = FUSE_STATFS, .call = statfs_mnt, .write_bad = len_off_by,
	.arg = -(OH + sizeof(struct fuse_statfs_out)), .bad_errno = EINVAL,
	.good_errno = 0, .call_errno = 0,
};
/* reply-unique-zero-is-notify: unique 0 runs a notification */
FIXTURE_VARIANT_ADD(reply, reply_unique_zero_is_notify) {
	.opcode = FUSE_STATFS, .call = statfs_mnt, .write_bad = inval_root,
	.bad_errno = 0, .good_errno = 0, .call_errno = 0,
};
/* reply-error-positive: errors are 0 or -1..-511 */
FIXTURE_VARIANT_ADD(reply, reply_error_positive) {
	.opcode = FUSE_LOOKUP, .call = stat_file, .write_bad = header_with_error,
	.arg = 1, .bad_errno = EINVAL, .good_errno = 0, .call_errno = 0,
};
FIXTURE_VARIANT_ADD(reply, reply_error_positive_int_max) {
	.opcode = FUSE_LOOKUP, .call = stat_file, .write_bad = header_with_error,
	.arg = INT32_MAX, .bad_errno = EINVAL, .good_errno = 0, .call_errno = 0,
};
/* ... and -1, the first error in: the caller gets EPERM */
FIXTURE_VARIANT_ADD(reply, reply_error_positive_but_minus_1_is_taken) {
	.opcode = FUSE_LOOKUP, .call = stat_file, .write_bad = header_with_error,
	.arg = -1, .bad_errno = 0, .good_errno = ENOENT, .call_errno = EPERM,
};
/* reply-error-too-negative: -512 (ERESTARTSYS) is out */
FIXTURE_VARIANT_ADD(reply, reply_error_too_negative) {
	.opcode = FUSE_LOOKUP, .call = stat_file, .write_bad = header_with_error,
	.arg = -512, .bad_errno = EINVAL, .good_errno = 0, .call_errno = 0,
};
FIXTURE_VARIANT_ADD(reply, reply_error_too_negative_int_min) {
	.opcode = FUSE_LOOKUP, .call = stat_file, .write_bad = header_with_error,
	.arg = INT32_MIN, .bad_errno = EINVAL, .good_errno = 0, .call_errno = 0,
};
/* ... and -511 is the last one in: the caller gets it */
FIXTURE_VARIANT_ADD(reply, reply_error_too_negative_but_511_is_taken) {
	.opcode = FUSE_LOOKUP, .call = stat_file, .write_bad = header_with_error,
	.arg = -511, .bad_errno = 0, .good_errno = ENOENT, .call_errno = 511,
};
/* reply-unique-unknown: a unique never sent is ENOENT, nothing else */
FIXTURE_VARIANT_ADD(reply, reply_unique_unknown) {
	.opcode = FUSE_LOOKUP, .call = stat_file, .write_bad = with_unique,
	.arg = 1ULL << 62, .bad_errno = ENOENT, .good_errno = 0, .call_errno = 0,
};
/* ... a second reply to a request already answered */
FIXTURE_VARIANT_ADD(reply, reply_unique_unknown_answered_twice) {
	.opcode = FUSE_LOOKUP, .call = stat_file, .write_bad = same_reply,
	.bad_errno = 0, .good_errno = ENOENT, .call_errno = 0,
};
/* reply-error-with-payload: refused, and the caller gets EIO, not ENOENT */
FIXTURE_VARIANT_ADD(reply, reply_error_with_payload) {
	.opcode = FUSE_LOOKUP, .call = stat_file, .write_bad = error_with_payload,
	.arg = -ENOENT, .bad_errno = EINVAL, .good_errno = ENOENT,
	.call_errno = EIO,
};
/* ... one byte of payload is one too many */
FIXTURE_VARIANT_ADD(reply, reply_error_with_payload_one_byte) {
	.opcode = FUSE_LOOKUP, .call = stat_file, .write_bad = enoent_with_bytes,
	.arg = 1, .bad_errno = EINVAL, .good_errno = ENOENT, .call_errno = EIO,
};
/* reply-too-long: more than the out-args hold */
FIXTURE_VARIANT_ADD(reply, reply_too_long) {
	.opcode = FUSE_LOOKUP, .call = stat_file, .write_bad = longer_by,
	.arg = 8, .bad_errno = EINVAL, .good_errno = ENOENT, .call_errno = EIO,
};
FIXTURE_VARIANT_ADD(reply, reply_too_long_read) {
	.opcode = FUSE_READ, .call = read_file, .write_bad = longer_by,
	.arg = 4, .bad_errno = EINVAL, .good_errno = ENOENT, .call_errno = EIO,
};
/* ... by one byte */
FIXTURE_VARIANT_ADD(reply, reply_too_long_by_one) {
	.opcode = FUSE_LOOKUP, .call = stat_file, .write_bad = longer_by,
	.arg = 1, .bad_errno = EINVAL, .good_errno = ENOENT, .call_errno = EIO,
};
FIXTURE_VARIANT_ADD(reply, reply_too_long_read_by_one) {
	.opcode = FUSE_READ, .call = read_file, .write_bad = longer_by,
	.arg = 1, .bad_errno = EINVAL, .good_errno = ENOENT, .call_errno = EIO,
};
/* ... a READ of exactly what was asked is taken */
FIXTURE_VARIANT_ADD(reply, reply_too_long_read_but_all_asked_is_taken) {
	.opcode = FUSE_READ, .call = read_file, .write_bad = longer_by,
	.arg = 0, .bad_errno = 0, .good_errno = ENOENT, .call_errno = 0,
};
/* reply-short-fixed: STATFS with 40 of its 80 bytes */
FIXTURE_VARIANT_ADD(reply, reply_short_fixed) {
	.opcode = FUSE_STATFS, .call = statfs_mnt, .write_bad = cut_to,
	.arg = OH + 40, .bad_errno = EINVAL, .good_errno = ENOENT,
	.call_errno = EIO,
};
/* ... one byte short, and no payload */
FIXTURE_VARIANT_ADD(reply, reply_short_fixed_by_one) {
	.opcode = FUSE_STATFS, .call = statfs_mnt, .write_bad = cut_to,
	.arg = OH + sizeof(struct fuse_statfs_out) - 1, .bad_errno = EINVAL,
	.good_errno = ENOENT, .call_errno = EIO,
};
FIXTURE_VARIANT_ADD(reply, reply_short_fixed_empty) {
	.opcode = FUSE_STATFS, .call = statfs_mnt, .write_bad = cut_to,
	.arg = OH, .bad_errno = EINVAL, .good_errno = ENOENT, .call_errno = EIO,
};
/* reply-argvar-underflow: FUSE_IOCTL, 8 bytes: less than fuse_ioctl_out */
FIXTURE_VARIANT_ADD(reply, reply_argvar_underflow) {
	.opcode = FUSE_IOCTL, .call = ioctl_file, .write_bad = payload_of,
	.arg = 8, .bad_errno = EINVAL, .good_errno = ENOENT, .call_errno = EIO,
};
/* ... 15 bytes; 16 (fuse_ioctl_out, no data) are taken: the ioctl returns 0 */
FIXTURE_VARIANT_ADD(reply, reply_argvar_underflow_by_one) {
	.opcode = FUSE_IOCTL, .call = ioctl_file, .write_bad = payload_of,
	.arg = 15, .bad_errno = EINVAL, .good_errno = ENOENT, .call_errno = EIO,
};
FIXTURE_VARIANT_ADD(reply, reply_argvar_underflow_but_the_fixed_part_is_taken) {
	.opcode = FUSE_IOCTL, .call = ioctl_file, .write_bad = payload_of,
	.arg = 16, .bad_errno = 0, .good_errno = ENOENT, .call_errno = 0,
};
/* reply-copy-error-eio: the payload faults: EFAULT, and the caller EIO */
FIXTURE_VARIANT_ADD(reply, reply_copy_error_eio) {
	.opcode = FUSE_STATFS, .call = statfs_mnt, .write_bad = payload_unmapped,
	.bad_errno = EFAULT, .good_errno = ENOENT, .call_errno = EIO,
};

/* In the server: every reply to the variant's opcode goes bad first */
static void bad_then_good(const struct srv_config *cfg,
			  const struct fuse_in_header *req, struct srv_reply *r)
{
	const FIXTURE_VARIANT(reply) *v = (const void *)(uintptr_t)cfg->edit_arg;

	if (req->opcode != v->opcode)
		return;
	v->write_bad(req, r, v->arg);
	srv_write_raw(r, r->buf, r->len);
	r->drop = true;
}

FIXTURE_SETUP(reply)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG, LONG);

	cfg.edit_reply = bad_then_good;
	cfg.edit_arg = (uintptr_t)variant;
	ASSERT_EQ(0, mnt_start(&self->m, cfg));
}

FIXTURE_TEARDOWN(reply)
{
	mnt_stop(_metadata, &self->m);
}

TEST_F(reply, broken_first_is_refused_or_taken_as_the_check_says)
{
	const struct srv_record *req, *bad, *good;

	EXPECT_EQ(-variant->call_errno, variant->call(&self->m));
	/* the server is done with the request once it has logged its reply */
	req = srv_log_find(self->m.log, variant->opcode, 0);
	ASSERT_NE(NULL, req);
	ASSERT_TRUE(wait_replied(&self->m, req));
	bad = srv_log_find_raw(self->m.log, 0);
	good = srv_log_find_raw(self->m.log, 1);
	ASSERT_NE(NULL, bad);
	ASSERT_NE(NULL, good);
	EXPECT_EQ(variant->bad_errno, bad->write_errno);
	EXPECT_EQ(variant->good_errno, good->write_errno);
}

/* --- protocol-minor compatibility: fuse_adjust_compat(), forgets --- */

#define COMPAT_ENTRY_OUT	120	/* FUSE_COMPAT_ENTRY_OUT_SIZE */
#define COMPAT_ATTR_OUT		96	/* FUSE_COMPAT_ATTR_OUT_SIZE */
#define COMPAT_STATFS		48	/* FUSE_COMPAT_STATFS_SIZE */

struct forgets {
	bool armed;			/* at the next STATFS */
	unsigned int single, batch;	/* FORGET, BATCH_FORGET read */
	int inval_errno[3];
};

static struct forgets *forgets;

FIXTURE(old_minor) {
	struct mnt m;
};

FIXTURE_VARIANT(old_minor) {
	uint32_t minor;			/* the server's in its INIT reply */
};

/*
 * Each test runs for each minor, so every check is also seen from the
 * other side; the comment above each test names the rows it shows.
 */
/* init-minor-lt-4-statfs: STATFS replies of 48 bytes */
FIXTURE_VARIANT_ADD(old_minor, init_minor_lt_4_statfs) { .minor = 3 };
/* init-minor-lt-9-compat-sizes: entry_out 120, attr_out 96 bytes */
FIXTURE_VARIANT_ADD(old_minor, init_minor_lt_9_compat_sizes) { .minor = 8 };
/* init-minor-lt-12-request-sizes: CREATE/MKNOD with their old in-args */
FIXTURE_VARIANT_ADD(old_minor, init_minor_lt_12_request_sizes) { .minor = 11 };
/* init-minor-lt-16-single-forget: never a BATCH_FORGET */
FIXTURE_VARIANT_ADD(old_minor, init_minor_lt_16_single_forget) { .minor = 15 };
/* each minor at its boundary: the first that is not old in that respect */
FIXTURE_VARIANT_ADD(old_minor, init_minor_lt_4_statfs_at_4) { .minor = 4 };
FIXTURE_VARIANT_ADD(old_minor, init_minor_lt_9_compat_sizes_at_9) { .minor = 9 };
FIXTURE_VARIANT_ADD(old_minor, init_minor_lt_12_request_sizes_at_12) { .minor = 12 };
FIXTURE_VARIANT_ADD(old_minor, init_minor_lt_16_single_forget_at_16) { .minor = 16 };
/* the same exchanges with a current server, to show what changes */
FIXTURE_VARIANT_ADD(old_minor, init_minor_current) {
	.minor = FUSE_KERNEL_MINOR_VERSION,
};

/* Cut a full-size reply to what a server of @minor sends */
static void shorten(uint32_t minor, uint32_t opcode, struct srv_reply *r)
{
	const size_t entry = OH + sizeof(struct fuse_entry_out);
	unsigned char *p = r->buf + OH;

	if (((struct fuse_out_header *)r->buf)->error)
		return;
	if (minor < 4 && opcode == FUSE_STATFS)
		r->len = OH + COMPAT_STATFS;
	if (minor < 9 && (opcode == FUSE_GETATTR || opcode == FUSE_SETATTR))
		r->len = OH + COMPAT_ATTR_OUT;
	if (minor < 9 && (opcode == FUSE_LOOKUP || opcode == FUSE_MKNOD))
		r->len = OH + COMPAT_ENTRY_OUT;
	if (minor < 9 && opcode == FUSE_CREATE) {	/* entry_out, then open_out */
		memmove(p + COMPAT_ENTRY_OUT, p + entry - OH, r->len - entry);
		r->len -= sizeof(struct fuse_entry_out) - COMPAT_ENTRY_OUT;
	}
	/* the header was written for the full size */
	((struct fuse_out_header *)r->buf)->len = r->len;
}

/*
 * Evict three inodes at once (NOTIFY_INVAL_ENTRY drops their dentries),
 * then read what that queued until nothing is left.
 */
static void evict_and_read_forgets(struct srv_reply *r)
{
	static const char *names[] = { "file", "empty", "link" };
	static unsigned char buf[256 << 10];
	int i, fl = fcntl(r->fd, F_GETFL);
	ssize_t n;

	for (i = 0; i < 3; i++) {
		unsigned char msg[64] = { 0 };
		struct fuse_notify_inval_entry_out *in = (void *)msg;

		in->parent = FUSE_ROOT_ID;
		in->namelen = strlen(names[i]);
		strcpy((char *)(in + 1), names[i]);
		forgets->inval_errno[i] = srv_write_notify(r,
			FUSE_NOTIFY_INVAL_ENTRY, msg, sizeof(*in) + in->namelen + 1);
	}
	fcntl(r->fd, F_SETFL, fl | O_NONBLOCK);
	while ((n = read(r->fd, buf, sizeof(buf))) >= (ssize_t)sizeof(struct fuse_in_header)) {
		uint32_t op = ((struct fuse_in_header *)buf)->opcode;

		srv_took(r->log, buf, n);	/* the books count the forgets */
		forgets->single += op == FUSE_FORGET;
		forgets->batch += op == FUSE_BATCH_FORGET;
	}
	fcntl(r->fd, F_SETFL, fl);
}

static void speak_minor(const struct srv_config *cfg,
			const struct fuse_in_header *req, struct srv_reply *r)
{
	uint32_t minor = cfg->edit_arg;

	if (req->opcode == FUSE_INIT)
		((struct fuse_init_out *)(r->buf + OH))->minor = minor;
	else
		shorten(minor, req->opcode, r);
	if (req->opcode == FUSE_STATFS && forgets->armed)
		evict_and_read_forgets(r);
}

FIXTURE_SETUP(old_minor)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG, LONG);

	cfg.edit_reply = speak_minor;
	cfg.edit_arg = variant->minor;
	forgets = shared_alloc(sizeof(*forgets));
	ASSERT_NE(NULL, forgets);
	ASSERT_EQ(0, mnt_start(&self->m, cfg));
}

FIXTURE_TEARDOWN(old_minor)
{
	mnt_stop(_metadata, &self->m);
	munmap(forgets, sizeof(*forgets));
}

/* init-minor-lt-9-compat-sizes, init-minor-lt-4-statfs */
TEST_F(old_minor, short_replies_of_the_old_sizes_are_taken)
{
	const struct srv_record *rec;
	struct statfs sfs;
	struct stat st;

	ASSERT_EQ(0, stat(path(&self->m, "file"), &st));
	EXPECT_EQ(6, st.st_size);
	rec = srv_log_find(self->m.log, FUSE_LOOKUP, 0);
	ASSERT_NE(NULL, rec);
	ASSERT_TRUE(wait_replied(&self->m, rec));
	EXPECT_EQ(0, rec->write_errno);

	ASSERT_EQ(0, statfs(self->m.dir, &sfs));
	EXPECT_EQ(4096, sfs.f_bsize);
	rec = srv_log_find(self->m.log, FUSE_STATFS, 0);
	ASSERT_NE(NULL, rec);
	ASSERT_TRUE(wait_replied(&self->m, rec));
	EXPECT_EQ(0, rec->write_errno);
}

/* init-minor-lt-12-request-sizes */
TEST_F(old_minor, create_and_mknod_carry_the_in_args_of_the_minor)
{
	size_t create_in = variant->minor < 12 ? sizeof(struct fuse_open_in) :
						 sizeof(struct fuse_create_in);
	size_t mknod_in = variant->minor < 12 ? 8 : sizeof(struct fuse_mknod_in);
	/* a server reading new in-args loses 8 bytes of the name: not all */
	const char *c = "created_by_old", *n = "mknodded_by_old";
	const struct srv_record *rec;
	int fd;

	fd = open(path(&self->m, c), O_CREAT | O_WRONLY, 0644);
	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, mknod(path(&self->m, n), S_IFREG | 0644, 0));
	rec = srv_log_find(self->m.log, FUSE_CREATE, 0);
	ASSERT_NE(NULL, rec);
	EXPECT_EQ(sizeof(struct fuse_in_header) + create_in + strlen(c) + 1,
		  rec->len);
	rec = srv_log_find(self->m.log, FUSE_MKNOD, 0);
	ASSERT_NE(NULL, rec);
	EXPECT_EQ(sizeof(struct fuse_in_header) + mknod_in + strlen(n) + 1,
		  rec->len);
}

/* init-minor-lt-16-single-forget */
TEST_F(old_minor, forgets_come_as_the_minor_says)
{
	const struct srv_record *rec;
	struct statfs sfs;
	struct stat st;

	ASSERT_EQ(0, stat(path(&self->m, "file"), &st));
	ASSERT_EQ(0, stat(path(&self->m, "empty"), &st));
	ASSERT_EQ(0, lstat(path(&self->m, "link"), &st));
	/* the server evicts the three inodes, then reads their forgets */
	forgets->armed = true;
	ASSERT_EQ(0, statfs(self->m.dir, &sfs));
	rec = srv_log_find(self->m.log, FUSE_STATFS, 0);
	ASSERT_NE(NULL, rec);
	ASSERT_TRUE(wait_replied(&self->m, rec));
	EXPECT_EQ(0, forgets->inval_errno[0]);
	EXPECT_EQ(0, forgets->inval_errno[1]);
	EXPECT_EQ(0, forgets->inval_errno[2]);
	if (variant->minor < 16) {
		EXPECT_EQ(3, forgets->single);
		EXPECT_EQ(0, forgets->batch);
	} else {
		EXPECT_EQ(0, forgets->single);
		EXPECT_EQ(1, forgets->batch);
	}
}

TEST_HARNESS_MAIN
