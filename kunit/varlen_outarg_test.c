// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: a variable-length out-arg that is not the last one.  The request
 * has two out-args, a variable one of VAR_MAX bytes at index 0 followed by
 * a fixed one of FIXED bytes, as a LOOKUP_HANDLE-style reply (handle, then
 * attributes) will have.  The server answers with @var bytes of 0x11 and
 * then FIXED bytes of 0x22, once as a plain reply and once as the first
 * subreply of a compound.  The variable arg must shrink to @var, the fixed
 * arg must get the bytes after it, and a reply short by more than the
 * variable arg's size must be rejected.
 */

#include "fuse_kunit.h"

#define VAR_MAX		64
#define FIXED		16
#define VAR_BYTE	0x11
#define FIXED_BYTE	0x22
#define UNTOUCHED	0x5a

enum vl_path { VL_PLAIN, VL_COMPOUND };

struct vl_case {
	const char *name;
	enum vl_path path;
	size_t payload;		/* bytes the server sends for the op */
	/* expectations */
	bool rejected;
	u32 var_size;
};

static const struct vl_case vl_cases[] = {
	{ "plain reply: full size", VL_PLAIN, VAR_MAX + FIXED, false, VAR_MAX },
	{ "plain reply: shrinks", VL_PLAIN, 10 + FIXED, false, 10 },
	{ "plain reply: shrinks to nothing", VL_PLAIN, FIXED, false, 0 },
	{ "plain reply: short by one more than its size", VL_PLAIN,
	  FIXED - 1, true },
	{ "plain reply: nothing but the header", VL_PLAIN, 0, true },
	{ "plain reply: one byte too long", VL_PLAIN, VAR_MAX + FIXED + 1,
	  true },
	{ "compound subreply: full size", VL_COMPOUND, VAR_MAX + FIXED, false,
	  VAR_MAX },
	{ "compound subreply: shrinks", VL_COMPOUND, 10 + FIXED, false, 10 },
	{ "compound subreply: shrinks to nothing", VL_COMPOUND, FIXED, false,
	  0 },
	{ "compound subreply: short by one more than its size", VL_COMPOUND,
	  FIXED - 1, true },
	{ "compound subreply: nothing but the header", VL_COMPOUND, 0, true },
	{ "compound subreply: one byte too long", VL_COMPOUND,
	  VAR_MAX + FIXED + 1, true },
};

static void vl_case_desc(const struct vl_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(vl_case, vl_cases, vl_case_desc);

/* The op's payload: the variable part, then the fixed part */
static void vl_put_payload(struct fk_reply *r, size_t payload)
{
	u8 bytes[VAR_MAX + FIXED + 1];
	size_t var = payload > FIXED ? payload - FIXED : 0;

	memset(bytes, VAR_BYTE, var);
	memset(bytes + var, FIXED_BYTE, payload - var);
	fk_reply_put(r, bytes, payload);
}

static size_t vl_serve(struct fk_ctx *ctx, const u8 *req, size_t len,
		       u8 *reply)
{
	const struct vl_case *c = ctx->priv;
	const struct fuse_in_header *ih = (const void *)req;
	struct fuse_attr_out attr = { .attr.ino = 2 };
	struct fk_reply r;

	fk_reply_start(&r, reply, ih->unique, 0);
	if (c->path == VL_PLAIN) {
		vl_put_payload(&r, c->payload);
		return fk_reply_finish(&r);
	}
	fk_reply_compound_out(&r);
	fk_reply_sub(&r, 0, 0, sizeof(struct fuse_out_header) + c->payload, 0);
	vl_put_payload(&r, c->payload);
	fk_reply_sub(&r, 1, 0, sizeof(struct fuse_out_header) + sizeof(attr),
		     0);
	fk_reply_put(&r, &attr, sizeof(attr));
	return fk_reply_finish(&r);
}

static void vl_args_fill(struct fuse_args *args, u8 *var, u8 *fixed)
{
	memset(var, UNTOUCHED, VAR_MAX);
	memset(fixed, UNTOUCHED, FIXED);
	args->opcode = FUSE_GETXATTR;
	args->nodeid = 2;
	args->out_numargs = 2;
	args->out_argvar = true;
	args->out_argvar_idx = 0;
	args->out_args[0].size = VAR_MAX;
	args->out_args[0].value = var;
	args->out_args[1].size = FIXED;
	args->out_args[1].value = fixed;
}

static void varlen_outarg_first_of_two(struct kunit *test)
{
	FUSE_ARGS(args);
	const struct vl_case *c = test->param_value;
	struct fk_ctx *ctx = fk_ctx_create(test, vl_serve);
	u8 var[VAR_MAX], fixed[FIXED];
	ssize_t ret;
	int err;

	ctx->priv = (void *)c;
	vl_args_fill(&args, var, fixed);

	if (c->path == VL_PLAIN) {
		ret = fuse_simple_request(ctx->fm, &args);
		err = ret < 0 ? ret : 0;
		/* a variable-length reply returns the size it was given */
		if (!c->rejected)
			KUNIT_EXPECT_EQ(test, ret, (ssize_t)c->var_size);
	} else {
		FUSE_ARGS(getattr);
		struct fuse_getattr_in getattr_in;
		struct fuse_attr_out attr_out;
		int getattr_err;
		struct fuse_compound_op ops[] = {
			{ &args, &err, FUSE_COMPOUND_NO_DEP },
			{ &getattr, &getattr_err, FUSE_COMPOUND_NO_DEP },
		};

		fuse_getattr_args_fill(&getattr, 2, &getattr_in, &attr_out);
		ret = fuse_compound_send(ctx->fm, ops, ARRAY_SIZE(ops));
		KUNIT_EXPECT_EQ(test, ret, c->rejected ? -EIO : 0);
		if (!c->rejected) {
			KUNIT_EXPECT_EQ(test, getattr_err, 0);
			KUNIT_EXPECT_EQ(test, attr_out.attr.ino, 2ULL);
		}
	}
	KUNIT_EXPECT_EQ(test, ctx->nrequests, 1U);

	if (c->rejected) {
		KUNIT_EXPECT_EQ(test, err, -EIO);
		KUNIT_EXPECT_EQ(test, ctx->write_err, -EINVAL);
		return;
	}
	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, ctx->write_err, 0);
	KUNIT_EXPECT_EQ(test, args.out_args[0].size, c->var_size);
	KUNIT_EXPECT_EQ(test, args.out_args[1].size, (u32)FIXED);
	KUNIT_EXPECT_NULL(test, memchr_inv(var, VAR_BYTE, c->var_size));
	KUNIT_EXPECT_NULL(test, memchr_inv(var + c->var_size, UNTOUCHED,
					   VAR_MAX - c->var_size));
	KUNIT_EXPECT_NULL(test, memchr_inv(fixed, FIXED_BYTE, FIXED));
}

static struct kunit_case varlen_outarg_cases[] = {
	KUNIT_CASE_PARAM(varlen_outarg_first_of_two, vl_case_gen_params),
	{}
};

static struct kunit_suite varlen_outarg_suite = {
	.name = "fuse_varlen_outarg",
	.test_cases = varlen_outarg_cases,
};

kunit_test_suite(varlen_outarg_suite);
