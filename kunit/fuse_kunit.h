/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fake FUSE transport for KUnit: a fuse_conn whose iqueue ops play the
 * server in-kernel.  Every request is streamed into a buffer with the code
 * that serves read(2) on /dev/fuse, handed to the test's server function,
 * and the reply that function writes is parsed with the code that serves
 * write(2).  Every request the "server" receives is logged.
 */
#ifndef _FS_FUSE_TESTS_FUSE_KUNIT_H
#define _FS_FUSE_TESTS_FUSE_KUNIT_H

#include <kunit/test.h>
#include "../fuse_i.h"

#define FK_BUF_SIZE	(64 * 1024)

/* What servers, libfuse among them, answer to an opcode they do not know */
#define FK_UNKNOWN_OPCODE	(-ENOSYS)
#define FK_MAX_LOG	256

/* One request (or one subrequest of a compound) as the server read it */
struct fk_logged {
	u32 opcode;
	u64 nodeid;
	u64 unique;
	u32 len;		/* len field of its fuse_in_header */
	u8 dep_index;		/* subrequests only */
	bool sub;		/* a subrequest of the compound logged before */
};

struct fk_ctx;

/*
 * The server: gets the request as streamed (@req, @len bytes) and writes
 * its reply into @reply (FK_BUF_SIZE bytes).  Returns the reply's length.
 */
typedef size_t (*fk_server_fn)(struct fk_ctx *ctx, const u8 *req, size_t len,
			       u8 *reply);

struct fk_ctx {
	struct kunit *test;
	struct fuse_conn *fc;
	struct fuse_mount *fm;
	fk_server_fn serve;
	void *priv;

	u8 *req_buf;		/* the last request, as streamed */
	size_t req_streamed;	/* bytes streamed for it */
	u8 *reply_buf;
	int write_err;		/* what the server's write(2) returned */

	/*
	 * Nonzero: the kernel ends each request with this error before any
	 * server sees it, as an abort (-ECONNABORTED), a gone connection
	 * (-ENOTCONN) or a failed allocation (-ENOMEM) would.
	 */
	int kernel_error;

	unsigned int nlog;	/* requests + subrequests logged */
	struct fk_logged log[FK_MAX_LOG];
	unsigned int nrequests;	/* round trips */
	unsigned int ncompounds;
};

/* Create the connection; freed when the test ends */
struct fk_ctx *fk_ctx_create(struct kunit *test, fk_server_fn serve);

/* Count logged entries with @opcode (subrequests if @sub, else requests) */
unsigned int fk_count(const struct fk_ctx *ctx, u32 opcode, bool sub);

/* Find the @n-th logged request (not subrequest) with @opcode, or NULL */
const struct fk_logged *fk_find(const struct fk_ctx *ctx, u32 opcode,
				unsigned int n);

/* Reply building */
struct fk_reply {
	u8 *buf;
	size_t len;
};

void fk_reply_start(struct fk_reply *r, u8 *buf, u64 unique, int error);
void fk_reply_compound_out(struct fk_reply *r);
void fk_reply_put(struct fk_reply *r, const void *data, size_t len);
/* A subreply: header declaring @len_field, then @payload_len bytes of 0xab */
void fk_reply_sub(struct fk_reply *r, u64 unique, int error, u32 len_field,
		  size_t payload_len);
size_t fk_reply_finish(struct fk_reply *r);

/* A complete reply to an ordinary request, with @payload */
size_t fk_reply_simple(u8 *buf, u64 unique, int error, const void *payload,
		       size_t payload_len);

/*
 * A small in-memory file system answering single operations: LOOKUP of
 * "missing" fails with -ENOENT, of "negative" yields nodeid 0, any other
 * name yields nodeid FK_CHILD_NODEID; entry-creating opcodes yield
 * FK_NEW_NODEID; GETATTR reports its nodeid as attr.ino.  Returns the
 * error and writes the payload to @out.
 */
#define FK_CHILD_NODEID	42
#define FK_NEW_NODEID	77
/* The handle LOOKUP_HANDLE and MKOBJ_HANDLE give (FUSE_HAS_LOOKUP_HANDLE) */
#define FK_HANDLE	"fh-1"

int fk_fs_op(u32 opcode, u64 nodeid, const u8 *payload, size_t len,
	     u8 *out, size_t *out_len);

/* Up to four operations, built from a small description (fk_batch_build) */
struct fk_op {
	u32 opcode;
	u64 nodeid;
	u8 dep_index;
	const char *name;	/* LOOKUP and entry-creating ops */
};

#define FK_BATCH_MAX	4

struct fk_batch {
	unsigned int n;
	struct fuse_args args[FK_BATCH_MAX];
	struct fuse_compound_op ops[FK_BATCH_MAX];
	int errors[FK_BATCH_MAX];
	union {
		struct fuse_entry_out entry;
		struct fuse_attr_out attr;
		struct fuse_open_out open;
	} out[FK_BATCH_MAX];
	struct fuse_open_out create_open[FK_BATCH_MAX];
	struct fuse_getattr_in getattr_in[FK_BATCH_MAX];
};

/* A batch of @n ops as @d describes them, each *error set to 1 */
struct fk_batch *fk_batch_create(struct kunit *test, const struct fk_op *d,
				 unsigned int n);

/*
 * LOOKUP of "missing" fails with -ENOENT, of "denied" with -EACCES, of
 * "broken" with -EIO (see fk_fs_op()).
 */

/* Servers built on fk_fs_op() */
size_t fk_serve_single(const u8 *req, u8 *reply);
size_t fk_serve_compliant(struct fk_ctx *ctx, const u8 *req, size_t len,
			  u8 *reply);
/* Answers FUSE_COMPOUND with priv (an int *: the outer error), singles ok */
size_t fk_serve_refuse_compound(struct fk_ctx *ctx, const u8 *req, size_t len,
				u8 *reply);
/* A connection whose server answers compounds with @compound_answer */
struct fk_ctx *fk_ctx_refusing(struct kunit *test, int compound_answer);

#endif
