// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the request stream of a compound.  The outer len the kernel
 * announces must equal the bytes it streams, and each subrequest's header
 * must describe exactly its own payload.
 */

#include "fuse_kunit.h"

#define FS_MAX_OPS	FUSE_COMPOUND_MAX_OPS

struct fs_op_desc {
	u32 opcode;
	u64 nodeid;
	u8 dep_index;
	u8 nargs;
	u16 sizes[3];
};

struct fs_case {
	const char *name;
	unsigned int nops;
	struct fs_op_desc ops[FS_MAX_OPS];
	/* when nonzero: every op is ops[0], repeated this many times */
	unsigned int repeat;
};

#define NO_DEP FUSE_COMPOUND_NO_DEP

static const struct fs_case fs_cases[] = {
	{ "one op, one in-arg", 1,
	  { { FUSE_GETATTR, 5, NO_DEP, 1, { 16 } } } },
	{ "one op, no in-args", 1,
	  { { FUSE_STATFS, 1, NO_DEP, 0, { } } } },
	{ "one op, three in-args of varied sizes", 1,
	  { { FUSE_SETXATTR, 9, NO_DEP, 3, { 8, 13, 100 } } } },
	{ "one op, two in-args", 1,
	  { { FUSE_RENAME, 9, NO_DEP, 2, { 8, 7 } } } },
	{ "zero-length in-arg", 1,
	  { { FUSE_LOOKUP, 1, NO_DEP, 1, { 0 } } } },
	{ "three zero-length in-args", 1,
	  { { FUSE_SETXATTR, 1, NO_DEP, 3, { 0, 0, 0 } } } },
	{ "one-byte name", 1,
	  { { FUSE_LOOKUP, 1, NO_DEP, 1, { 1 } } } },
	{ "odd sizes that do not keep alignment", 3,
	  { { FUSE_LOOKUP, 1, NO_DEP, 1, { 3 } },
	    { FUSE_GETATTR, 0, 0, 1, { 16 } },
	    { FUSE_LOOKUP, 1, NO_DEP, 1, { 255 } } } },
	{ "open and getattr", 2,
	  { { FUSE_OPEN, 7, NO_DEP, 1, { 8 } },
	    { FUSE_GETATTR, 7, NO_DEP, 1, { 16 } } } },
	{ "lookup and dependent getattr", 2,
	  { { FUSE_LOOKUP, 1, NO_DEP, 1, { 6 } },
	    { FUSE_GETATTR, 0, 0, 1, { 16 } } } },
	{ "five ops mixing 0..3 in-args", 5,
	  { { FUSE_STATFS, 1, NO_DEP, 0, { } },
	    { FUSE_LOOKUP, 1, NO_DEP, 1, { 1024 } },
	    { FUSE_RENAME, 2, NO_DEP, 2, { 8, 1 } },
	    { FUSE_SETXATTR, 3, 1, 3, { 8, 5, 0 } },
	    { FUSE_GETATTR, 4, NO_DEP, 1, { 16 } } } },
	{ "the maximum number of ops", FS_MAX_OPS,
	  { { FUSE_GETATTR, 3, NO_DEP, 1, { 16 } } }, FS_MAX_OPS },
	{ "the maximum number of ops with long names", FS_MAX_OPS,
	  { { FUSE_LOOKUP, 1, NO_DEP, 1, { 256 } } }, FS_MAX_OPS },
};

static void fs_case_desc(const struct fs_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(fs_case, fs_cases, fs_case_desc);

static const struct fs_op_desc *fs_op(const struct fs_case *c, unsigned int i)
{
	return c->repeat ? &c->ops[0] : &c->ops[i];
}

/*
 * Keeps the stream for the test to read: answers the compound with a valid
 * reply whose every subreply is -ENOENT, so nothing falls back and no other
 * request overwrites the one streamed.
 */
static size_t fs_serve_stream_only(struct fk_ctx *ctx, const u8 *req,
				   size_t len, u8 *reply)
{
	const struct fuse_in_header *ih = (const void *)req;
	struct fk_reply r;
	unsigned int i;

	fk_reply_start(&r, reply, ih->unique, 0);
	fk_reply_compound_out(&r);
	/* the fake transport logged the compound and its subrequests */
	for (i = 0; i + 1 < ctx->nlog; i++)
		fk_reply_sub(&r, i, -ENOENT, sizeof(struct fuse_out_header), 0);
	return fk_reply_finish(&r);
}

static void compound_stream_len_matches_bytes(struct kunit *test)
{
	const struct fs_case *c = test->param_value;
	struct fuse_args *args;
	struct fuse_compound_op *ops;
	int *errors;
	u8 *pattern;
	const u8 *buf;
	const struct fuse_in_header *outer;
	struct fk_ctx *ctx;
	size_t off, expected_total;
	unsigned int i, a;
	int ret;

	ctx = fk_ctx_create(test, fs_serve_stream_only);
	args = kunit_kcalloc(test, c->nops, sizeof(*args), GFP_KERNEL);
	ops = kunit_kcalloc(test, c->nops, sizeof(*ops), GFP_KERNEL);
	errors = kunit_kcalloc(test, c->nops, sizeof(*errors), GFP_KERNEL);
	pattern = kunit_kmalloc(test, 2048, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, args);
	KUNIT_ASSERT_NOT_NULL(test, ops);
	KUNIT_ASSERT_NOT_NULL(test, errors);
	KUNIT_ASSERT_NOT_NULL(test, pattern);
	for (i = 0; i < 2048; i++)
		pattern[i] = i * 7 + 1;

	expected_total = sizeof(struct fuse_in_header) +
			 sizeof(struct fuse_compound_in);
	for (i = 0; i < c->nops; i++) {
		const struct fs_op_desc *d = fs_op(c, i);

		args[i].opcode = d->opcode;
		args[i].nodeid = d->nodeid;
		args[i].in_numargs = d->nargs;
		expected_total += sizeof(struct fuse_compound_req_in) +
				  sizeof(struct fuse_in_header);
		for (a = 0; a < d->nargs; a++) {
			/* each arg gets its own slice of the pattern */
			args[i].in_args[a].size = d->sizes[a];
			args[i].in_args[a].value = pattern + a * 300 + i;
			expected_total += d->sizes[a];
		}
		ops[i].args = &args[i];
		ops[i].error = &errors[i];
		ops[i].dep_index = d->dep_index;
	}

	ret = fuse_compound_send(ctx->fm, ops, c->nops);
	KUNIT_EXPECT_EQ(test, ret, 0);
	for (i = 0; i < c->nops; i++)
		KUNIT_EXPECT_EQ(test, errors[i], -ENOENT);
	KUNIT_ASSERT_EQ(test, ctx->nrequests, 1U);

	buf = ctx->req_buf;
	outer = (const void *)buf;
	KUNIT_EXPECT_EQ(test, outer->opcode, (u32)FUSE_COMPOUND);
	KUNIT_EXPECT_EQ(test, (size_t)outer->len, ctx->req_streamed);
	KUNIT_EXPECT_EQ(test, ctx->req_streamed, expected_total);
	/* nothing was written past the announced length */
	KUNIT_EXPECT_EQ(test, buf[ctx->req_streamed], 0x5a);

	off = sizeof(*outer) + sizeof(struct fuse_compound_in);
	for (i = 0; i < c->nops; i++) {
		const struct fs_op_desc *d = fs_op(c, i);
		const struct fuse_compound_req_in *rin;
		const struct fuse_in_header *sh;
		size_t payload = 0, poff;

		KUNIT_ASSERT_LE(test, off + sizeof(*rin) + sizeof(*sh),
				ctx->req_streamed);
		rin = (const void *)buf + off;
		sh = (const void *)(rin + 1);
		for (a = 0; a < d->nargs; a++)
			payload += d->sizes[a];

		KUNIT_EXPECT_EQ(test, rin->dep_index, d->dep_index);
		KUNIT_EXPECT_EQ(test, (size_t)sh->len, sizeof(*sh) + payload);
		KUNIT_EXPECT_EQ(test, sh->opcode, d->opcode);
		KUNIT_EXPECT_EQ(test, sh->unique, (u64)i);
		KUNIT_EXPECT_EQ(test, sh->nodeid, d->nodeid);
		KUNIT_EXPECT_EQ(test, sh->uid, outer->uid);
		KUNIT_EXPECT_EQ(test, sh->gid, outer->gid);
		KUNIT_EXPECT_EQ(test, sh->pid, outer->pid);

		/* the payload is the in-args, concatenated */
		poff = off + sizeof(*rin) + sizeof(*sh);
		for (a = 0; a < d->nargs; a++) {
			KUNIT_EXPECT_MEMEQ(test, buf + poff,
					   args[i].in_args[a].value,
					   d->sizes[a]);
			poff += d->sizes[a];
		}
		off += sizeof(*rin) + sh->len;
	}
	/* walking the subrequests ends exactly at the outer length */
	KUNIT_EXPECT_EQ(test, off, ctx->req_streamed);
	/* and the server saw as many subrequests as were sent */
	KUNIT_EXPECT_EQ(test, ctx->nlog, c->nops + 1);
}

/* The outer header carries the caller's credentials and the first nodeid */
static void compound_stream_outer_header(struct kunit *test)
{
	FUSE_ARGS(args);
	struct fk_ctx *ctx = fk_ctx_create(test, fs_serve_stream_only);
	struct fuse_getattr_in in = {};
	struct fuse_attr_out out;
	int error;
	struct fuse_compound_op op = { &args, &error, FUSE_COMPOUND_NO_DEP };
	const struct fuse_in_header *outer = (const void *)ctx->req_buf;
	const struct fuse_compound_in *cin = (const void *)(outer + 1);

	fuse_getattr_args_fill(&args, 11, &in, &out);
	KUNIT_EXPECT_EQ(test, fuse_compound_send(ctx->fm, &op, 1), 0);
	KUNIT_EXPECT_EQ(test, error, -ENOENT);
	KUNIT_EXPECT_EQ(test, outer->nodeid, 11ULL);
	KUNIT_EXPECT_EQ(test, outer->uid,
			from_kuid(&init_user_ns, current_fsuid()));
	KUNIT_EXPECT_EQ(test, outer->gid,
			from_kgid(&init_user_ns, current_fsgid()));
	KUNIT_EXPECT_EQ(test, outer->pid, (u32)task_pid_nr(current));
	KUNIT_EXPECT_NE(test, outer->unique, 0ULL);
	KUNIT_EXPECT_EQ(test, cin->reserved[0], 0ULL);
	KUNIT_EXPECT_EQ(test, cin->reserved[1], 0ULL);
}

static struct kunit_case compound_stream_cases[] = {
	KUNIT_CASE_PARAM(compound_stream_len_matches_bytes,
			 fs_case_gen_params),
	KUNIT_CASE(compound_stream_outer_header),
	{}
};

static struct kunit_suite compound_stream_suite = {
	.name = "fuse_compound_stream",
	.test_cases = compound_stream_cases,
};

kunit_test_suite(compound_stream_suite);
