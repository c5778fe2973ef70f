// SPDX-License-Identifier: GPL-2.0
/*
 * What stock FUSE already checks in FUSE_IOCTL, GETXATTR and LISTXATTR
 * replies (fs/fuse/ioctl.c, xattr.c, acl.c), and the ENOSYS answers of
 * those requests that the kernel translates (and remembers).
 * docs/stock-checks.md lists the checks, one row per check, named as the
 * variants here are (row listxattr-empty-name is variant
 * listxattr_empty_name).
 *
 * Each variant states the broken exchange: the request whose reply is
 * edited and what it is made to say, the call made on "file" (the test
 * server's "hello\n", which carries user.fusegate) and what it returns.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "../../kselftest_harness.h"
#include "fuse_test.h"

#define ACL_ACCESS	"system.posix_acl_access"

/* restricted ioctls of no known filesystem: FUSE hands them to the server */
#define IOCTL_GET_U64		_IOR('X', 1, uint64_t)
#define IOCTL_PUT_8K		_IOW('X', 1, char[8192])
#define IOCTL_PUT_4K		_IOW('X', 1, char[4096])
#define IOCTL_PUT_4K1		_IOW('X', 1, char[4097])

enum call {
	CALL_IOCTL_GET,		/* ioctl(IOCTL_GET_U64): guard bytes after */
	CALL_IOCTL_PUT_8K,	/* ioctl(IOCTL_PUT_8K) */
	CALL_IOCTL_PUT_4K,	/* ioctl(IOCTL_PUT_4K): one page */
	CALL_IOCTL_PUT_4K1,	/* ioctl(IOCTL_PUT_4K1): a byte more */
	CALL_GETFLAGS,		/* ioctl(FS_IOC_GETFLAGS): fileattr_get */
	CALL_GETXATTR_SIZE,	/* getxattr(user.fusegate, NULL, 0) */
	CALL_GETXATTR,		/* getxattr(user.fusegate, 64 bytes) */
	CALL_LISTXATTR_SIZE,	/* listxattr(NULL, 0) */
	CALL_LISTXATTR,		/* listxattr(64 bytes) */
	CALL_SETXATTR,		/* setxattr(user.fusegate, "x") */
	CALL_REMOVEXATTR,	/* removexattr(user.fusegate) */
	CALL_GET_ACL,		/* getxattr(system.posix_acl_access, 4096) */
};

struct xcase {
	/* the exchange */
	uint16_t max_pages;	/* INIT: FUSE_MAX_PAGES with this */
	uint32_t opcode;	/* the request whose reply is edited: */
	int error;		/*   to this error, or to success with */
	uint32_t size;		/*   [LIST|GET]XATTR size 0: this size */
	const char *data;	/*   this payload (after fuse_ioctl_out) */
	unsigned int len;	/*   of this length */
	struct fuse_ioctl_out io; /*   FUSE_IOCTL: this fuse_ioctl_out */
	/* the call and what it must see */
	enum call call;
	long ret;		/* its result, or -errno */
	int sent;		/* @opcode requests it sent (-1: unchecked) */
	int again;		/* ... a second call sends (-1: no second call) */
};

/* Runs in the server: the variant's answer to @opcode */
static void edit_x(const struct srv_config *cfg,
		   const struct fuse_in_header *req, struct srv_reply *r)
{
	const struct xcase *c = (const void *)(uintptr_t)cfg->edit_arg;
	struct fuse_out_header *oh = (void *)r->buf;
	unsigned char *out = (void *)(oh + 1);
	size_t len = 0;

	if (req->opcode == FUSE_INIT && c->max_pages) {
		struct fuse_init_out *o = (void *)out;

		o->flags |= FUSE_MAX_PAGES;
		o->max_pages = c->max_pages;
		return;
	}
	if (req->opcode != c->opcode)
		return;
	oh->error = c->error;
	if (c->error) {
		len = 0;
	} else if (req->opcode == FUSE_IOCTL) {
		memcpy(out, &c->io, sizeof(c->io));
		memcpy(out + sizeof(c->io), c->data, c->len);
		len = sizeof(c->io) + c->len;
	} else if (!((const struct fuse_getxattr_in *)(req + 1))->size) {
		struct fuse_getxattr_out o = { .size = c->size };

		memcpy(out, &o, sizeof(o));
		len = sizeof(o);
	} else {
		memcpy(out, c->data, c->len);
		len = c->len;
	}
	r->len = oh->len = sizeof(*oh) + len;
}

FIXTURE(xcall) {
	struct mnt m;
};

FIXTURE_VARIANT(xcall) {
	struct xcase c;
};

FIXTURE_SETUP(xcall)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG, LONG);

	cfg.xattrs = true;
	cfg.edit_reply = edit_x;
	cfg.edit_arg = (uintptr_t)&variant->c;
	ASSERT_EQ(0, mnt_start(&self->m, cfg));
}

FIXTURE_TEARDOWN(xcall)
{
	mnt_stop(_metadata, &self->m);
}

/* Make the call on "file"; its result or -errno */
static long xcall(struct __test_metadata *_metadata, struct mnt *m,
		  const struct xcase *c)
{
	static char big[8192];
	struct {
		uint64_t v, guard[2];
	} get = { 0x1111, { 0x2222, 0x3333 } };
	const char *file = path(m, "file");
	char buf[4096];
	long ret = 0;
	int fd = -1;
	unsigned int flags;

	if (c->call <= CALL_GETFLAGS) {
		fd = open(file, O_RDONLY);
		if (fd < 0)
			return -1000 - errno;
	}
	switch (c->call) {
	case CALL_IOCTL_GET:
		ret = ret_of(ioctl(fd, IOCTL_GET_U64, &get));
		/* a refused answer leaves the caller's buffer alone */
		EXPECT_EQ(ret < 0 ? 0x1111 : 0x4444, get.v);
		EXPECT_EQ(0x2222, get.guard[0]);
		EXPECT_EQ(0x3333, get.guard[1]);
		break;
	case CALL_IOCTL_PUT_8K:
		ret = ret_of(ioctl(fd, IOCTL_PUT_8K, big));
		break;
	case CALL_IOCTL_PUT_4K:
		ret = ret_of(ioctl(fd, IOCTL_PUT_4K, big));
		break;
	case CALL_IOCTL_PUT_4K1:
		ret = ret_of(ioctl(fd, IOCTL_PUT_4K1, big));
		break;
	case CALL_GETFLAGS:
		ret = ret_of(ioctl(fd, FS_IOC_GETFLAGS, &flags));
		break;
	case CALL_GETXATTR_SIZE:
		ret = ret_of(getxattr(file, SRV_XATTR_NAME, NULL, 0));
		break;
	case CALL_GETXATTR:
		ret = ret_of(getxattr(file, SRV_XATTR_NAME, buf, 64));
		break;
	case CALL_LISTXATTR_SIZE:
		ret = ret_of(listxattr(file, NULL, 0));
		break;
	case CALL_LISTXATTR:
		ret = ret_of(listxattr(file, buf, 64));
		break;
	case CALL_SETXATTR:
		ret = ret_of(setxattr(file, SRV_XATTR_NAME, "x", 1, 0));
		break;
	case CALL_REMOVEXATTR:
		ret = ret_of(removexattr(file, SRV_XATTR_NAME));
		break;
	case CALL_GET_ACL:
		ret = ret_of(getxattr(file, ACL_ACCESS, buf, sizeof(buf)));
		break;
	}
	if (fd >= 0)
		EXPECT_EQ(0, close(fd));
	return ret;
}

/* --- FUSE_IOCTL: fuse_do_ioctl(), fuse_priv_ioctl(), fuse_send_ioctl() --- */

/* RETRY with an iovec of the server's choice: only CUSE may ask that */
FIXTURE_VARIANT_ADD(xcall, ioctl_retry_restricted) {
	.c = { .opcode = FUSE_IOCTL,
	       .io = { .flags = FUSE_IOCTL_RETRY, .in_iovs = 1 },
	       .data = (const char *)&(struct fuse_ioctl_iovec){ 0x10000, 8 },
	       .len = sizeof(struct fuse_ioctl_iovec),
	       .call = CALL_IOCTL_GET, .ret = -EIO, .sent = 1, .again = -1 },
};
/* ... with no iovec at all */
FIXTURE_VARIANT_ADD(xcall, ioctl_retry_restricted_no_iovecs) {
	.c = { .opcode = FUSE_IOCTL, .io = { .flags = FUSE_IOCTL_RETRY },
	       .call = CALL_IOCTL_GET, .ret = -EIO, .sent = 1, .again = -1 },
};
/* 16 bytes out for an 8-byte argument */
FIXTURE_VARIANT_ADD(xcall, ioctl_out_too_long) {
	.c = { .opcode = FUSE_IOCTL, .data = "0123456789abcdef", .len = 16,
	       .call = CALL_IOCTL_GET, .ret = -EIO, .sent = 1, .again = -1 },
};
FIXTURE_VARIANT_ADD(xcall, ioctl_out_too_long_by_one) {
	.c = { .opcode = FUSE_IOCTL, .data = "012345678", .len = 9,
	       .call = CALL_IOCTL_GET, .ret = -EIO, .sent = 1, .again = -1 },
};
/* the control: 8 bytes out are copied, the guard stays */
FIXTURE_VARIANT_ADD(xcall, ioctl_out_exact) {
	.c = { .opcode = FUSE_IOCTL, .data = "\x44\x44\0\0\0\0\0\0", .len = 8,
	       .io = { .result = 7 },
	       .call = CALL_IOCTL_GET, .ret = 7, .sent = 1, .again = -1 },
};
/* max_pages 1: an 8 KiB argument is refused before any request */
FIXTURE_VARIANT_ADD(xcall, ioctl_max_pages) {
	.c = { .max_pages = 1, .opcode = FUSE_IOCTL,
	       .call = CALL_IOCTL_PUT_8K, .ret = -ENOMEM, .sent = 0,
	       .again = -1 },
};
/* ... a byte more than a page is two pages; one page is sent */
FIXTURE_VARIANT_ADD(xcall, ioctl_max_pages_one_byte_more) {
	.c = { .max_pages = 1, .opcode = FUSE_IOCTL,
	       .call = CALL_IOCTL_PUT_4K1, .ret = -ENOMEM, .sent = 0,
	       .again = -1 },
};
FIXTURE_VARIANT_ADD(xcall, ioctl_max_pages_but_one_page_is_sent) {
	.c = { .max_pages = 1, .opcode = FUSE_IOCTL, .error = -ENOSYS,
	       .call = CALL_IOCTL_PUT_4K, .ret = -ENOTTY, .sent = 1,
	       .again = -1 },
};
FIXTURE_VARIANT_ADD(xcall, fileattr_retry) {
	.c = { .opcode = FUSE_IOCTL, .io = { .flags = FUSE_IOCTL_RETRY },
	       .data = "\0\0\0\0", .len = 4,
	       .call = CALL_GETFLAGS, .ret = -EIO, .sent = 1, .again = -1 },
};
FIXTURE_VARIANT_ADD(xcall, enosys_ioctl_error) {
	.c = { .opcode = FUSE_IOCTL, .error = -ENOSYS,
	       .call = CALL_IOCTL_GET, .ret = -ENOTTY, .sent = 1, .again = -1 },
};
FIXTURE_VARIANT_ADD(xcall, enosys_ioctl_result) {
	.c = { .opcode = FUSE_IOCTL, .io = { .result = -ENOSYS },
	       .call = CALL_IOCTL_GET, .ret = -ENOTTY, .sent = 1, .again = -1 },
};
/* ... other errors are the caller's as they are */
FIXTURE_VARIANT_ADD(xcall, enosys_ioctl_error_but_eio_is_eio) {
	.c = { .opcode = FUSE_IOCTL, .error = -EIO,
	       .call = CALL_IOCTL_GET, .ret = -EIO, .sent = 1, .again = -1 },
};
FIXTURE_VARIANT_ADD(xcall, enosys_ioctl_result_but_eperm_is_eperm) {
	.c = { .opcode = FUSE_IOCTL, .io = { .result = -EPERM },
	       .call = CALL_IOCTL_GET, .ret = -EPERM, .sent = 1, .again = -1 },
};

/* --- [GET|LIST]XATTR: the size probe, the list (xattr.c) --- */

FIXTURE_VARIANT_ADD(xcall, getxattr_size_probe_clamp) {
	.c = { .opcode = FUSE_GETXATTR, .size = 1000000,
	       .call = CALL_GETXATTR_SIZE, .ret = 65536, .sent = 1,
	       .again = -1 },
};
/* ... one above the limit, and the limit itself */
FIXTURE_VARIANT_ADD(xcall, getxattr_size_probe_clamp_by_one) {
	.c = { .opcode = FUSE_GETXATTR, .size = 65537,
	       .call = CALL_GETXATTR_SIZE, .ret = 65536, .sent = 1,
	       .again = -1 },
};
FIXTURE_VARIANT_ADD(xcall, getxattr_size_probe_clamp_but_65536_is_taken) {
	.c = { .opcode = FUSE_GETXATTR, .size = 65536,
	       .call = CALL_GETXATTR_SIZE, .ret = 65536, .sent = 1,
	       .again = -1 },
};
FIXTURE_VARIANT_ADD(xcall, listxattr_size_probe_clamp) {
	.c = { .opcode = FUSE_LISTXATTR, .size = 1000000,
	       .call = CALL_LISTXATTR_SIZE, .ret = 65536, .sent = 1,
	       .again = -1 },
};
FIXTURE_VARIANT_ADD(xcall, listxattr_size_probe_clamp_by_one) {
	.c = { .opcode = FUSE_LISTXATTR, .size = 65537,
	       .call = CALL_LISTXATTR_SIZE, .ret = 65536, .sent = 1,
	       .again = -1 },
};
FIXTURE_VARIANT_ADD(xcall, listxattr_size_probe_clamp_but_65536_is_taken) {
	.c = { .opcode = FUSE_LISTXATTR, .size = 65536,
	       .call = CALL_LISTXATTR_SIZE, .ret = 65536, .sent = 1,
	       .again = -1 },
};
FIXTURE_VARIANT_ADD(xcall, listxattr_empty_name) {
	.c = { .opcode = FUSE_LISTXATTR, .data = "a\0\0b\0", .len = 5,
	       .call = CALL_LISTXATTR, .ret = -EIO, .sent = 1, .again = -1 },
};
/* ... the first name empty, or the list one NUL */
FIXTURE_VARIANT_ADD(xcall, listxattr_empty_name_first) {
	.c = { .opcode = FUSE_LISTXATTR, .data = "\0a\0", .len = 3,
	       .call = CALL_LISTXATTR, .ret = -EIO, .sent = 1, .again = -1 },
};
FIXTURE_VARIANT_ADD(xcall, listxattr_empty_name_alone) {
	.c = { .opcode = FUSE_LISTXATTR, .data = "", .len = 1,
	       .call = CALL_LISTXATTR, .ret = -EIO, .sent = 1, .again = -1 },
};
FIXTURE_VARIANT_ADD(xcall, listxattr_unterminated) {
	.c = { .opcode = FUSE_LISTXATTR, .data = "ab", .len = 2,
	       .call = CALL_LISTXATTR, .ret = -EIO, .sent = 1, .again = -1 },
};
/* ... the last of two names */
FIXTURE_VARIANT_ADD(xcall, listxattr_unterminated_after_a_name) {
	.c = { .opcode = FUSE_LISTXATTR, .data = "a\0b", .len = 3,
	       .call = CALL_LISTXATTR, .ret = -EIO, .sent = 1, .again = -1 },
};
/* the control: a well-formed list of two names */
FIXTURE_VARIANT_ADD(xcall, listxattr_two_names) {
	.c = { .opcode = FUSE_LISTXATTR, .data = "a\0b\0", .len = 4,
	       .call = CALL_LISTXATTR, .ret = 4, .sent = 1, .again = -1 },
};

/* ENOSYS: EOPNOTSUPP, and the request is not sent again */
FIXTURE_VARIANT_ADD(xcall, enosys_setxattr) {
	.c = { .opcode = FUSE_SETXATTR, .error = -ENOSYS,
	       .call = CALL_SETXATTR, .ret = -EOPNOTSUPP, .sent = 1,
	       .again = 0 },
};
FIXTURE_VARIANT_ADD(xcall, enosys_getxattr) {
	.c = { .opcode = FUSE_GETXATTR, .error = -ENOSYS,
	       .call = CALL_GETXATTR, .ret = -EOPNOTSUPP, .sent = 1,
	       .again = 0 },
};
FIXTURE_VARIANT_ADD(xcall, enosys_listxattr) {
	.c = { .opcode = FUSE_LISTXATTR, .error = -ENOSYS,
	       .call = CALL_LISTXATTR, .ret = -EOPNOTSUPP, .sent = 1,
	       .again = 0 },
};
FIXTURE_VARIANT_ADD(xcall, enosys_removexattr) {
	.c = { .opcode = FUSE_REMOVEXATTR, .error = -ENOSYS,
	       .call = CALL_REMOVEXATTR, .ret = -EOPNOTSUPP, .sent = 1,
	       .again = 0 },
};
/* another error is the caller's, and the request is sent again */
FIXTURE_VARIANT_ADD(xcall, enosys_setxattr_but_eio_is_not_remembered) {
	.c = { .opcode = FUSE_SETXATTR, .error = -EIO,
	       .call = CALL_SETXATTR, .ret = -EIO, .sent = 1, .again = 1 },
};
FIXTURE_VARIANT_ADD(xcall, enosys_getxattr_but_eio_is_not_remembered) {
	.c = { .opcode = FUSE_GETXATTR, .error = -EIO,
	       .call = CALL_GETXATTR, .ret = -EIO, .sent = 1, .again = 1 },
};
FIXTURE_VARIANT_ADD(xcall, enosys_listxattr_but_eio_is_not_remembered) {
	.c = { .opcode = FUSE_LISTXATTR, .error = -EIO,
	       .call = CALL_LISTXATTR, .ret = -EIO, .sent = 1, .again = 1 },
};
FIXTURE_VARIANT_ADD(xcall, enosys_removexattr_but_eio_is_not_remembered) {
	.c = { .opcode = FUSE_REMOVEXATTR, .error = -EIO,
	       .call = CALL_REMOVEXATTR, .ret = -EIO, .sent = 1, .again = 1 },
};

/* --- POSIX ACLs read through GETXATTR (acl.c) --- */

FIXTURE_VARIANT_ADD(xcall, acl_erange_e2big) {
	.c = { .opcode = FUSE_GETXATTR, .error = -ERANGE,
	       .call = CALL_GET_ACL, .ret = -E2BIG, .sent = 1, .again = -1 },
};
FIXTURE_VARIANT_ADD(xcall, acl_erange_e2big_but_eio_is_eio) {
	.c = { .opcode = FUSE_GETXATTR, .error = -EIO,
	       .call = CALL_GET_ACL, .ret = -EIO, .sent = 1, .again = -1 },
};
/* the first GETXATTR ever is ENOSYS: no ACL, already on that call */
FIXTURE_VARIANT_ADD(xcall, enosys_acl) {
	.c = { .opcode = FUSE_GETXATTR, .error = -ENOSYS,
	       .call = CALL_GET_ACL, .ret = -ENODATA, .sent = 1, .again = 0 },
};

TEST_F(xcall, the_call_sees_what_the_row_says)
{
	const struct xcase *c = &variant->c;
	unsigned int from = nreq(&self->m);

	EXPECT_EQ(c->ret, xcall(_metadata, &self->m, c));
	if (c->sent >= 0)
		EXPECT_EQ(c->sent, count_since(&self->m, from, c->opcode, false));
	if (c->again < 0)
		return;
	from = nreq(&self->m);
	EXPECT_EQ(c->ret, xcall(_metadata, &self->m, c));
	EXPECT_EQ(c->again, count_since(&self->m, from, c->opcode, false));
}

TEST_HARNESS_MAIN
