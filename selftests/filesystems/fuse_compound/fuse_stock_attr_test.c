// SPDX-License-Identifier: GPL-2.0
/*
 * What stock FUSE already protects in attributes: the replies that carry
 * them (LOOKUP, GETATTR, STATX, SETATTR), READLINK, the ENOSYS answers of
 * STATX and ACCESS, and the server's FUSE_NOTIFY_INVAL_INODE.  Each
 * variant is named after its row of docs/stock-checks.md (sections
 * "dir.c", "inode.c" and "ENOSYS translations") and states the broken
 * exchange: which reply is changed and how, what the call must return and
 * what the next call must find.  They pass on any kernel that keeps those
 * checks, with or without compounds, and fail when one is removed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "../../kselftest_harness.h"
#include "fuse_test.h"

/* --- the exchange kit: how a test breaks the replies its server sends --- */

/* sh->nodeid: the server's edit learns it from LOOKUP */
#include "reply_edit.h"

/* The write result of the first reply to @opcode since @from */
static int reply_errno_since(struct mnt *m, unsigned int from, uint32_t opcode)
{
	const struct srv_record *rec;
	unsigned int i;

	for (i = from; i < nreq(m); i++) {
		rec = &m->log->rec[i];
		if (rec->opcode == opcode && !rec->sub)
			return wait_replied(m, rec) ? rec->write_errno : -1;
	}
	return -1;
}

/* --- one reply broken, and what the call and the next one see --- */

/*
 * The variant's name is looked up and held (O_PATH); then its call is
 * made.  The first reply to the variant's opcode for that node gets the
 * variant's edits (two at most); every other reply is left alone.
 */
enum call { DO_STAT, DO_STATX, DO_CHMOD, DO_READLINK, DO_ACCESS };
enum field {
	NO_EDIT, ERROR, SIZE, MODE, BLKSIZE, ATIMENSEC, MTIMENSEC, CTIMENSEC,
	SX_MASK_OR, SX_MASK_CLEAR, SX_BTIME_NSEC, LINK_LEN,
};
enum check {
	NOTHING, STX_BLKSIZE, STX_ATIME_NSEC, STX_MTIME_NSEC, STX_CTIME_NSEC,
	STX_BTIME_NSEC, STX_MASK_WITHOUT, LINK_LENGTH, STX_SIZE,
};
enum after {
	AFTER_NOTHING,
	AFTER_BAD,	/* fstat(held) -> EIO and nothing is sent */
	AFTER_GETATTR,	/* fstat(held) succeeds with a GETATTR */
	AFTER_AGAIN,	/* the call again, the check again, no @opcode sent */
	AFTER_CACHED,	/* fstat(held) succeeds, and nothing is sent */
	AFTER_ASKED,	/* the call again succeeds, with @opcode sent again */
};

FIXTURE(attr_reply) {
	struct mnt m;
	struct shared *sh;
	int held;
};

FIXTURE_VARIANT(attr_reply) {
	const char *name;
	enum call call;
	uint64_t attr_valid;
	bool no_statx;		/* the server answers STATX with ENOSYS */
	uint32_t opcode;	/* whose reply is broken */
	struct { enum field field; uint64_t value; } edit[2];
	int call_errno;
	int write_errno;	/* of the broken reply */
	enum check check;
	uint64_t expect;
	enum after after;
};

#define BIG	(1ULL << 63)	/* above LLONG_MAX: fuse_valid_size() */
#define NSEC_2S	2000000000ULL	/* out of range: clamped to 999999999 */
#define NSEC_1S	1000000000ULL	/* the first out of range */
#define NSEC_MAX 999999999ULL	/* the last in range */
#define LLMAX	0x7fffffffffffffffULL	/* the largest valid size */
#define NO_TYPE	0170000		/* S_IFMT bits that name no type */

/* blksize 0: the superblock's 4096, in the reply and in the inode */
FIXTURE_VARIANT_ADD(attr_reply, getattr_blksize_zero) {
	.name = "file", .call = DO_STAT, .opcode = FUSE_GETATTR,
	.edit = { { BLKSIZE, 0 } }, .check = STX_BLKSIZE, .expect = 4096,
};
FIXTURE_VARIANT_ADD(attr_reply, attr_blksize_zero_inode) {
	.name = "file", .call = DO_STAT, .attr_valid = LONG,
	.opcode = FUSE_LOOKUP, .edit = { { BLKSIZE, 0 } },
	.check = STX_BLKSIZE, .expect = 4096,
};
/* ... 1 is a block size (0 is the one value out) */
FIXTURE_VARIANT_ADD(attr_reply, getattr_blksize_zero_but_1_is_taken) {
	.name = "file", .call = DO_STAT, .opcode = FUSE_GETATTR,
	.edit = { { BLKSIZE, 1 } }, .check = STX_BLKSIZE, .expect = 1,
};
FIXTURE_VARIANT_ADD(attr_reply, attr_blksize_zero_inode_but_1_is_taken) {
	.name = "file", .call = DO_STAT, .attr_valid = LONG,
	.opcode = FUSE_LOOKUP, .edit = { { BLKSIZE, 1 } },
	.check = STX_BLKSIZE, .expect = 1,
};
/* nanoseconds above a second are clamped */
FIXTURE_VARIANT_ADD(attr_reply, attr_atime_nsec_clamp) {
	.name = "file", .call = DO_STAT, .opcode = FUSE_GETATTR,
	.edit = { { ATIMENSEC, NSEC_2S } }, .check = STX_ATIME_NSEC,
	.expect = 999999999,
};
FIXTURE_VARIANT_ADD(attr_reply, attr_mtime_nsec_clamp) {
	.name = "file", .call = DO_STAT, .opcode = FUSE_GETATTR,
	.edit = { { MTIMENSEC, NSEC_2S } }, .check = STX_MTIME_NSEC,
	.expect = 999999999,
};
FIXTURE_VARIANT_ADD(attr_reply, attr_ctime_nsec_clamp) {
	.name = "file", .call = DO_STAT, .opcode = FUSE_GETATTR,
	.edit = { { CTIMENSEC, NSEC_2S } }, .check = STX_CTIME_NSEC,
	.expect = 999999999,
};
/* ... from the first value out (NSEC_PER_SEC) to the largest (U32_MAX) */
FIXTURE_VARIANT_ADD(attr_reply, attr_atime_nsec_clamp_1e9) {
	.name = "file", .call = DO_STAT, .opcode = FUSE_GETATTR,
	.edit = { { ATIMENSEC, NSEC_1S } }, .check = STX_ATIME_NSEC, .expect = NSEC_MAX,
};
FIXTURE_VARIANT_ADD(attr_reply, attr_atime_nsec_clamp_u32_max) {
	.name = "file", .call = DO_STAT, .opcode = FUSE_GETATTR,
	.edit = { { ATIMENSEC, 0xffffffff } }, .check = STX_ATIME_NSEC, .expect = NSEC_MAX,
};
FIXTURE_VARIANT_ADD(attr_reply, attr_atime_nsec_clamp_but_999999999_is_taken) {
	.name = "file", .call = DO_STAT, .opcode = FUSE_GETATTR,
	.edit = { { ATIMENSEC, NSEC_MAX } }, .check = STX_ATIME_NSEC, .expect = NSEC_MAX,
};
FIXTURE_VARIANT_ADD(attr_reply, attr_mtime_nsec_clamp_1e9) {
	.name = "file", .call = DO_STAT, .opcode = FUSE_GETATTR,
	.edit = { { MTIMENSEC, NSEC_1S } }, .check = STX_MTIME_NSEC, .expect = NSEC_MAX,
};
FIXTURE_VARIANT_ADD(attr_reply, attr_mtime_nsec_clamp_u32_max) {
	.name = "file", .call = DO_STAT, .opcode = FUSE_GETATTR,
	.edit = { { MTIMENSEC, 0xffffffff } }, .check = STX_MTIME_NSEC, .expect = NSEC_MAX,
};
FIXTURE_VARIANT_ADD(attr_reply, attr_mtime_nsec_clamp_but_999999999_is_taken) {
	.name = "file", .call = DO_STAT, .opcode = FUSE_GETATTR,
	.edit = { { MTIMENSEC, NSEC_MAX } }, .check = STX_MTIME_NSEC, .expect = NSEC_MAX,
};
FIXTURE_VARIANT_ADD(attr_reply, attr_ctime_nsec_clamp_1e9) {
	.name = "file", .call = DO_STAT, .opcode = FUSE_GETATTR,
	.edit = { { CTIMENSEC, NSEC_1S } }, .check = STX_CTIME_NSEC, .expect = NSEC_MAX,
};
FIXTURE_VARIANT_ADD(attr_reply, attr_ctime_nsec_clamp_u32_max) {
	.name = "file", .call = DO_STAT, .opcode = FUSE_GETATTR,
	.edit = { { CTIMENSEC, 0xffffffff } }, .check = STX_CTIME_NSEC, .expect = NSEC_MAX,
};
FIXTURE_VARIANT_ADD(attr_reply, attr_ctime_nsec_clamp_but_999999999_is_taken) {
	.name = "file", .call = DO_STAT, .opcode = FUSE_GETATTR,
	.edit = { { CTIMENSEC, NSEC_MAX } }, .check = STX_CTIME_NSEC, .expect = NSEC_MAX,
};
/* the btime of STATX: clamped in the reply, and in the cached copy */
FIXTURE_VARIANT_ADD(attr_reply, statx_btime_nsec_clamp) {
	.name = "file", .call = DO_STATX, .opcode = FUSE_STATX,
	.edit = { { SX_MASK_CLEAR, STATX_BLOCKS },
		  { SX_BTIME_NSEC, NSEC_2S } },
	.check = STX_BTIME_NSEC, .expect = 999999999,
};
FIXTURE_VARIANT_ADD(attr_reply, attr_btime_nsec_clamp) {
	.name = "file", .call = DO_STATX, .attr_valid = LONG,
	.opcode = FUSE_STATX, .edit = { { SX_BTIME_NSEC, NSEC_2S } },
	.check = STX_BTIME_NSEC, .expect = 999999999, .after = AFTER_AGAIN,
};
FIXTURE_VARIANT_ADD(attr_reply, statx_btime_nsec_clamp_1e9) {
	.name = "file", .call = DO_STATX, .opcode = FUSE_STATX,
	.edit = { { SX_MASK_CLEAR, STATX_BLOCKS }, { SX_BTIME_NSEC, NSEC_1S } },
	.check = STX_BTIME_NSEC, .expect = NSEC_MAX,
};
FIXTURE_VARIANT_ADD(attr_reply, statx_btime_nsec_clamp_but_999999999_is_taken) {
	.name = "file", .call = DO_STATX, .opcode = FUSE_STATX,
	.edit = { { SX_MASK_CLEAR, STATX_BLOCKS }, { SX_BTIME_NSEC, NSEC_MAX } },
	.check = STX_BTIME_NSEC, .expect = NSEC_MAX,
};
FIXTURE_VARIANT_ADD(attr_reply, attr_btime_nsec_clamp_1e9) {
	.name = "file", .call = DO_STATX, .attr_valid = LONG,
	.opcode = FUSE_STATX, .edit = { { SX_BTIME_NSEC, NSEC_1S } },
	.check = STX_BTIME_NSEC, .expect = NSEC_MAX, .after = AFTER_AGAIN,
};
/* only basic stats and btime reach the caller */
FIXTURE_VARIANT_ADD(attr_reply, statx_mask_filter) {
	.name = "file", .call = DO_STATX, .opcode = FUSE_STATX,
	.edit = { { SX_MASK_OR, STATX_DIOALIGN } },
	.check = STX_MASK_WITHOUT, .expect = STATX_DIOALIGN,
};
FIXTURE_VARIANT_ADD(attr_reply, statx_mask_filter_reserved_bit) {
	.name = "file", .call = DO_STATX, .opcode = FUSE_STATX,
	.edit = { { SX_MASK_OR, 0x80000000 } },
	.check = STX_MASK_WITHOUT, .expect = 0x80000000,
};
/* an invalid size or another type makes the inode bad */
FIXTURE_VARIANT_ADD(attr_reply, getattr_invalid_attr) {
	.name = "file", .call = DO_STAT, .opcode = FUSE_GETATTR,
	.edit = { { SIZE, BIG } }, .call_errno = EIO, .after = AFTER_BAD,
};
FIXTURE_VARIANT_ADD(attr_reply, getattr_invalid_attr_u64_max) {
	.name = "file", .call = DO_STAT, .opcode = FUSE_GETATTR,
	.edit = { { SIZE, ~0ULL } }, .call_errno = EIO, .after = AFTER_BAD,
};
FIXTURE_VARIANT_ADD(attr_reply, getattr_invalid_attr_but_llong_max_is_taken) {
	.name = "file", .call = DO_STAT, .opcode = FUSE_GETATTR,
	.edit = { { SIZE, LLMAX } }, .check = STX_SIZE, .expect = LLMAX,
};
FIXTURE_VARIANT_ADD(attr_reply, getattr_type_change) {
	.name = "dir", .call = DO_STAT, .opcode = FUSE_GETATTR,
	.edit = { { MODE, S_IFREG | 0644 } }, .call_errno = EIO,
	.after = AFTER_BAD,
};
/* ... no type at all, and S_IFMT bits that name none */
FIXTURE_VARIANT_ADD(attr_reply, getattr_type_change_no_type) {
	.name = "dir", .call = DO_STAT, .opcode = FUSE_GETATTR,
	.edit = { { MODE, 0755 } }, .call_errno = EIO, .after = AFTER_BAD,
};
FIXTURE_VARIANT_ADD(attr_reply, getattr_type_change_invalid_type) {
	.name = "dir", .call = DO_STAT, .opcode = FUSE_GETATTR,
	.edit = { { MODE, NO_TYPE | 0755 } }, .call_errno = EIO,
	.after = AFTER_BAD,
};
/* ... the same type with other permissions is no change of type */
FIXTURE_VARIANT_ADD(attr_reply, getattr_type_change_but_the_mode_bits_are_taken) {
	.name = "dir", .call = DO_STAT, .opcode = FUSE_GETATTR,
	.edit = { { MODE, S_IFDIR | 0700 } },
};
/* a bad inode's stat: EIO without asking the server */
FIXTURE_VARIANT_ADD(attr_reply, bad_inode_stat) {
	.name = "file", .call = DO_STAT, .opcode = FUSE_GETATTR,
	.edit = { { MODE, S_IFDIR | 0755 } }, .call_errno = EIO,
	.after = AFTER_BAD,
};
FIXTURE_VARIANT_ADD(attr_reply, statx_invalid_size) {
	.name = "file", .call = DO_STATX, .opcode = FUSE_STATX,
	.edit = { { SIZE, BIG } }, .call_errno = EIO, .after = AFTER_BAD,
};
FIXTURE_VARIANT_ADD(attr_reply, statx_invalid_size_u64_max) {
	.name = "file", .call = DO_STATX, .opcode = FUSE_STATX,
	.edit = { { SIZE, ~0ULL } }, .call_errno = EIO, .after = AFTER_BAD,
};
FIXTURE_VARIANT_ADD(attr_reply, statx_invalid_size_but_llong_max_is_taken) {
	.name = "file", .call = DO_STATX, .opcode = FUSE_STATX,
	.edit = { { SIZE, LLMAX } }, .check = STX_SIZE, .expect = LLMAX,
};
FIXTURE_VARIANT_ADD(attr_reply, statx_type_change) {
	.name = "dir", .call = DO_STATX, .opcode = FUSE_STATX,
	.edit = { { MODE, S_IFREG | 0644 } }, .call_errno = EIO,
	.after = AFTER_BAD,
};
FIXTURE_VARIANT_ADD(attr_reply, statx_type_change_no_type) {
	.name = "dir", .call = DO_STATX, .opcode = FUSE_STATX,
	.edit = { { MODE, 0755 } }, .call_errno = EIO, .after = AFTER_BAD,
};
FIXTURE_VARIANT_ADD(attr_reply, statx_type_change_invalid_type) {
	.name = "dir", .call = DO_STATX, .opcode = FUSE_STATX,
	.edit = { { MODE, NO_TYPE | 0755 } }, .call_errno = EIO,
	.after = AFTER_BAD,
};
FIXTURE_VARIANT_ADD(attr_reply, setattr_invalid_attr) {
	.name = "file", .call = DO_CHMOD, .attr_valid = LONG,
	.opcode = FUSE_SETATTR, .edit = { { SIZE, BIG } }, .call_errno = EIO,
	.after = AFTER_BAD,
};
FIXTURE_VARIANT_ADD(attr_reply, setattr_invalid_attr_u64_max) {
	.name = "file", .call = DO_CHMOD, .attr_valid = LONG,
	.opcode = FUSE_SETATTR, .edit = { { SIZE, ~0ULL } }, .call_errno = EIO,
	.after = AFTER_BAD,
};
FIXTURE_VARIANT_ADD(attr_reply, setattr_invalid_attr_but_llong_max_is_taken) {
	.name = "file", .call = DO_CHMOD, .attr_valid = LONG,
	.opcode = FUSE_SETATTR, .edit = { { SIZE, LLMAX } }, .after = AFTER_CACHED,
};
FIXTURE_VARIANT_ADD(attr_reply, setattr_type_change) {
	.name = "file", .call = DO_CHMOD, .attr_valid = LONG,
	.opcode = FUSE_SETATTR, .edit = { { MODE, S_IFDIR | 0755 } },
	.call_errno = EIO, .after = AFTER_BAD,
};
FIXTURE_VARIANT_ADD(attr_reply, setattr_type_change_no_type) {
	.name = "file", .call = DO_CHMOD, .attr_valid = LONG,
	.opcode = FUSE_SETATTR, .edit = { { MODE, 0644 } },
	.call_errno = EIO, .after = AFTER_BAD,
};
FIXTURE_VARIANT_ADD(attr_reply, setattr_type_change_invalid_type) {
	.name = "file", .call = DO_CHMOD, .attr_valid = LONG,
	.opcode = FUSE_SETATTR, .edit = { { MODE, NO_TYPE | 0644 } },
	.call_errno = EIO, .after = AFTER_BAD,
};
/* an interrupted SETATTR: the attributes are asked again */
FIXTURE_VARIANT_ADD(attr_reply, setattr_eintr_invalidates) {
	.name = "file", .call = DO_CHMOD, .attr_valid = LONG,
	.opcode = FUSE_SETATTR, .edit = { { ERROR, -EINTR } },
	.call_errno = EINTR, .after = AFTER_GETATTR,
};
/* ... another error leaves them as they are */
FIXTURE_VARIANT_ADD(attr_reply, setattr_eintr_invalidates_but_eio_does_not) {
	.name = "file", .call = DO_CHMOD, .attr_valid = LONG,
	.opcode = FUSE_SETATTR, .edit = { { ERROR, -EIO } },
	.call_errno = EIO, .after = AFTER_CACHED,
};
/* a symlink target fills at most a page less its NUL */
FIXTURE_VARIANT_ADD(attr_reply, readlink_max_len) {
	.name = "link", .call = DO_READLINK, .opcode = FUSE_READLINK,
	.edit = { { LINK_LEN, 4096 } }, .call_errno = EIO,
	.write_errno = EINVAL,
};
FIXTURE_VARIANT_ADD(attr_reply, readlink_max_len_4095_is_taken) {
	.name = "link", .call = DO_READLINK, .opcode = FUSE_READLINK,
	.edit = { { LINK_LEN, 4095 } }, .check = LINK_LENGTH, .expect = 4095,
};
FIXTURE_VARIANT_ADD(attr_reply, readlink_max_len_4097) {
	.name = "link", .call = DO_READLINK, .opcode = FUSE_READLINK,
	.edit = { { LINK_LEN, 4097 } }, .call_errno = EIO,
	.write_errno = EINVAL,
};
/* ENOSYS: not implemented, so GETATTR, and never STATX again */
FIXTURE_VARIANT_ADD(attr_reply, enosys_statx) {
	.name = "file", .call = DO_STATX, .no_statx = true,
	.opcode = FUSE_STATX, .check = STX_MASK_WITHOUT, .expect = STATX_BTIME,
	.after = AFTER_AGAIN,
};
/* ... another error is the caller's, and STATX is asked again */
FIXTURE_VARIANT_ADD(attr_reply, enosys_statx_but_eio_is_not_remembered) {
	.name = "file", .call = DO_STATX, .opcode = FUSE_STATX,
	.edit = { { ERROR, -EIO } }, .call_errno = EIO, .after = AFTER_ASKED,
};
/* ENOSYS: every access is granted, and no ACCESS is sent again */
FIXTURE_VARIANT_ADD(attr_reply, enosys_access) {
	.name = "file", .call = DO_ACCESS, .opcode = FUSE_ACCESS,
	.after = AFTER_AGAIN,
};
FIXTURE_VARIANT_ADD(attr_reply, enosys_access_but_eacces_is_not_remembered) {
	.name = "file", .call = DO_ACCESS, .opcode = FUSE_ACCESS,
	.edit = { { ERROR, -EACCES } }, .call_errno = EACCES, .after = AFTER_ASKED,
};

static void edit_attr(struct fuse_attr *a, enum field f, uint64_t v)
{
	switch (f) {
	case SIZE: a->size = v; break;
	case MODE: a->mode = v; break;
	case BLKSIZE: a->blksize = v; break;
	case ATIMENSEC: a->atimensec = v; break;
	case MTIMENSEC: a->mtimensec = v; break;
	case CTIMENSEC: a->ctimensec = v; break;
	default: break;
	}
}

static void edit_statx(struct fuse_statx *sx, enum field f, uint64_t v)
{
	switch (f) {
	case SIZE: sx->size = v; break;
	case MODE: sx->mode = v; break;
	case SX_MASK_OR: sx->mask |= v; break;
	case SX_MASK_CLEAR: sx->mask &= ~v; break;
	case SX_BTIME_NSEC: sx->btime.tv_nsec = v; break;
	default: break;
	}
}

static void attr_reply_op(struct shared *sh, struct srv_reply *r,
			  const struct op *op)
{
	const FIXTURE_VARIANT(attr_reply) *v = sh->variant;
	struct fuse_out_header *oh = op_out(r, op);
	char target[4096];
	unsigned int i;

	if (op->opcode == FUSE_LOOKUP && !strcmp(op->arg, v->name) && !oh->error)
		sh->nodeid = ((struct fuse_entry_out *)(oh + 1))->nodeid;
	if (LOAD(sh->phase) != 1 || op->opcode != v->opcode ||
	    (op->opcode == FUSE_LOOKUP ? strcmp(op->arg, v->name) :
					 op->nodeid != sh->nodeid))
		return;
	STORE(sh->phase, 2);
	EDITED(sh);
	for (i = 0; i < 2; i++) {
		enum field f = v->edit[i].field;

		if (f == ERROR) {
			op_answer(r, op, v->edit[i].value, NULL, 0);
		} else if (f == LINK_LEN) {
			memset(target, 'a', v->edit[i].value);
			op_answer(r, op, 0, target, v->edit[i].value);
		} else if (f == NO_EDIT || oh->error) {
			continue;
		} else if (op->opcode == FUSE_LOOKUP) {
			edit_attr(&((struct fuse_entry_out *)(oh + 1))->attr, f,
				  v->edit[i].value);
		} else if (op->opcode == FUSE_STATX) {
			edit_statx(&((struct fuse_statx_out *)(oh + 1))->stat,
				   f, v->edit[i].value);
		} else {
			edit_attr(&((struct fuse_attr_out *)(oh + 1))->attr, f,
				  v->edit[i].value);
		}
	}
}

static void attr_reply_edit(const struct srv_config *cfg,
			    const struct fuse_in_header *req, struct srv_reply *r)
{
	for_each_op(cfg, req, r, attr_reply_op);
}

FIXTURE_SETUP(attr_reply)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG, variant->attr_valid);

	cfg.statx = !variant->no_statx;
	self->sh = mnt_start_edited(&self->m, cfg, variant, attr_reply_edit);
	ASSERT_NE(NULL, self->sh);
	STORE(self->sh->phase, 1);
	self->held = open(path(&self->m, variant->name), O_PATH | O_NOFOLLOW);
	ASSERT_LE(0, self->held);
}

FIXTURE_TEARDOWN(attr_reply)
{
	close(self->held);
	mnt_stop(_metadata, &self->m);
}

/* The call; 0 or its errno, and what the check looks at in *@got */
static int call(struct mnt *m, enum call c, const char *name, enum check check,
		uint64_t *got)
{
	unsigned int mask = c == DO_STATX ? STATX_BASIC_STATS | STATX_BTIME :
					       STATX_BASIC_STATS;
	char target[8192];
	struct statx stx;
	ssize_t n;

	switch (c) {
	case DO_CHMOD:
		return chmod(path(m, name), 0600) ? errno : 0;
	case DO_ACCESS:
		return access(path(m, name), R_OK) ? errno : 0;
	case DO_READLINK:
		n = readlink(path(m, name), target, sizeof(target));
		*got = n;
		return n < 0 ? errno : 0;
	default:
		if (statx(AT_FDCWD, path(m, name), AT_SYMLINK_NOFOLLOW, mask, &stx))
			return errno;
		break;
	}
	switch (check) {
	case STX_BLKSIZE: *got = stx.stx_blksize; break;
	case STX_ATIME_NSEC: *got = stx.stx_atime.tv_nsec; break;
	case STX_MTIME_NSEC: *got = stx.stx_mtime.tv_nsec; break;
	case STX_CTIME_NSEC: *got = stx.stx_ctime.tv_nsec; break;
	case STX_BTIME_NSEC: *got = stx.stx_btime.tv_nsec; break;
	case STX_MASK_WITHOUT: *got = stx.stx_mask & 0xffffffff; break;
	case STX_SIZE: *got = stx.stx_size; break;
	default: break;
	}
	return 0;
}

static bool check_holds(enum check check, uint64_t expect, uint64_t got)
{
	if (check == NOTHING)
		return true;
	if (check == STX_MASK_WITHOUT)
		return !(got & expect);
	return got == expect;
}

TEST_F(attr_reply, the_reply_is_sanitised_or_the_call_fails)
{
	unsigned int from = nreq(&self->m);
	uint64_t got = 0;
	struct stat st;

	EXPECT_EQ(variant->call_errno, call(&self->m, variant->call,
					    variant->name, variant->check, &got));
	EXPECT_TRUE(check_holds(variant->check, variant->expect, got))
		TH_LOG("got %#llx", (unsigned long long)got);
	if (variant->edit[0].field != NO_EDIT)
		EXPECT_EQ(1, LOAD(self->sh->edits));
	if (variant->call == DO_READLINK)
		EXPECT_EQ(variant->write_errno,
			  reply_errno_since(&self->m, from, FUSE_READLINK));

	from = nreq(&self->m);
	switch (variant->after) {
	case AFTER_BAD:
		EXPECT_EQ(-1, fstat(self->held, &st));
		EXPECT_EQ(EIO, errno);
		EXPECT_EQ(from, nreq(&self->m));
		break;
	case AFTER_GETATTR:
		EXPECT_EQ(0, fstat(self->held, &st));
		EXPECT_EQ(1, ops_since(&self->m, from, FUSE_GETATTR));
		break;
	case AFTER_CACHED:
		EXPECT_EQ(0, fstat(self->held, &st));
		EXPECT_EQ(from, nreq(&self->m));
		break;
	case AFTER_ASKED:
		EXPECT_EQ(0, call(&self->m, variant->call, variant->name,
				  NOTHING, &got));
		EXPECT_EQ(1, ops_since(&self->m, from, variant->opcode));
		break;
	case AFTER_AGAIN:
		got = 0;
		EXPECT_EQ(0, call(&self->m, variant->call, variant->name,
				  variant->check, &got));
		EXPECT_TRUE(check_holds(variant->check, variant->expect, got));
		EXPECT_EQ(0, ops_since(&self->m, from, variant->opcode));
		break;
	default:
		break;
	}
}

/* --- the server drops cached attributes and pages: INVAL_INODE --- */

/*
 * "file" is made 8192 bytes long, opened and read whole (both pages are
 * cached, the attributes are valid for long).  The STATFS of an fstatfs()
 * is the server's cue: it writes FUSE_NOTIFY_INVAL_INODE for the variant's
 * nodeid and range first.  Then one page is read again: it is sent as
 * READ if the notification dropped it; a page it kept is not.
 */
FIXTURE(notify_inode) {
	struct mnt m;
	struct shared *sh;
	int fd;
};

FIXTURE_VARIANT(notify_inode) {
	uint64_t ino;		/* 0: the nodeid of "file" */
	bool use_zero;		/*   ... unless this says 0 is meant */
	int64_t off, len;
	int write_errno;
	int64_t keep;		/* a page that stays cached, or -1 */
	int64_t probe;		/* a page read afterwards, or -1 */
	unsigned int probe_reads, getattrs;
};

FIXTURE_VARIANT_ADD(notify_inode, notify_inval_inode_unknown) {
	.ino = 999, .write_errno = ENOENT, .keep = 0, .probe = -1,
};
/* offset 0 is a range: every page goes, and the attributes */
FIXTURE_VARIANT_ADD(notify_inode, notify_inval_inode_offset) {
	.off = 0, .len = 0, .keep = -1, .probe = 0, .probe_reads = 1,
	.getattrs = 1,
};
/* a negative offset: only the attributes */
FIXTURE_VARIANT_ADD(notify_inode, notify_inval_inode_offset_negative) {
	.off = -1, .len = 0, .keep = 0, .probe = -1, .getattrs = 1,
};
/* ... the most negative one, and 1, which is in page 0 */
FIXTURE_VARIANT_ADD(notify_inode, notify_inval_inode_offset_llong_min) {
	.off = INT64_MIN, .len = 0, .keep = 0, .probe = -1, .getattrs = 1,
};
FIXTURE_VARIANT_ADD(notify_inode, notify_inval_inode_offset_1_drops_its_page) {
	.off = 1, .len = 0, .keep = -1, .probe = 0, .probe_reads = 1,
	.getattrs = 1,
};
FIXTURE_VARIANT_ADD(notify_inode, notify_inval_inode_unknown_zero) {
	.ino = 0, .use_zero = true, .write_errno = ENOENT, .keep = 0, .probe = -1,
};
/* len 0: from the offset to the end of the file */
FIXTURE_VARIANT_ADD(notify_inode, notify_inval_inode_len) {
	.off = 4096, .len = 0, .keep = 0, .probe = 4096, .probe_reads = 1,
	.getattrs = 1,
};
/* ... and so is a negative len; len 4096 is page 0 alone */
FIXTURE_VARIANT_ADD(notify_inode, notify_inval_inode_len_negative) {
	.off = 4096, .len = -1, .keep = 0, .probe = 4096, .probe_reads = 1,
	.getattrs = 1,
};
FIXTURE_VARIANT_ADD(notify_inode, notify_inval_inode_len_one_page) {
	.off = 0, .len = 4096, .keep = 4096, .probe = 0, .probe_reads = 1,
	.getattrs = 1,
};

static void notify_inode_op(struct shared *sh, struct srv_reply *r,
			    const struct op *op)
{
	const FIXTURE_VARIANT(notify_inode) *v = sh->variant;
	struct fuse_notify_inval_inode_out out = {
		.ino = v->ino || v->use_zero ? v->ino : sh->nodeid,
		.off = v->off, .len = v->len,
	};

	if (LOAD(sh->phase) != 1 || op->opcode != FUSE_STATFS)
		return;
	STORE(sh->phase, 2);
	srv_write_notify(r, FUSE_NOTIFY_INVAL_INODE, &out, sizeof(out));
}

static void notify_inode_edit(const struct srv_config *cfg,
			      const struct fuse_in_header *req, struct srv_reply *r)
{
	for_each_op(cfg, req, r, notify_inode_op);
}

FIXTURE_SETUP(notify_inode)
{
	char buf[8192];
	struct stat st;

	self->sh = mnt_start_edited(&self->m, srv_cfg(SRV_COMPLIANT, LONG, LONG),
				    variant, notify_inode_edit);
	ASSERT_NE(NULL, self->sh);
	ASSERT_EQ(0, truncate(path(&self->m, "file"), sizeof(buf)));
	self->fd = open(path(&self->m, "file"), O_RDONLY);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(sizeof(buf), pread(self->fd, buf, sizeof(buf), 0));
	ASSERT_EQ(0, fstat(self->fd, &st));
	self->sh->nodeid = st.st_ino;
}

FIXTURE_TEARDOWN(notify_inode)
{
	close(self->fd);
	mnt_stop(_metadata, &self->m);
}

static unsigned int reads_of_page(struct mnt *m, int fd, int64_t off)
{
	unsigned int from = nreq(m);
	char buf[4096];

	if (pread(fd, buf, sizeof(buf), off) != sizeof(buf))
		return ~0u;
	return count_since(m, from, FUSE_READ, false);
}

TEST_F(notify_inode, the_notification_drops_what_its_range_says)
{
	const struct srv_record *raw;
	unsigned int from;
	struct statfs sfs;
	struct stat st;

	STORE(self->sh->phase, 1);
	ASSERT_EQ(0, fstatfs(self->fd, &sfs));
	raw = raw_write_in_statfs(&self->m);
	ASSERT_NE(NULL, raw);
	EXPECT_EQ(variant->write_errno, raw->write_errno);

	if (variant->keep >= 0)
		EXPECT_EQ(0, reads_of_page(&self->m, self->fd, variant->keep));
	if (variant->probe >= 0)
		EXPECT_EQ(variant->probe_reads,
			  reads_of_page(&self->m, self->fd, variant->probe));
	from = nreq(&self->m);
	ASSERT_EQ(0, fstat(self->fd, &st));
	EXPECT_EQ(variant->getattrs, ops_since(&self->m, from, FUSE_GETATTR));
}

TEST_HARNESS_MAIN
