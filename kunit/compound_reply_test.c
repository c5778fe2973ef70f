// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: validation of compound replies (compound.md section 3).  Each
 * case answers a two-op compound with a crafted reply: op 0 has one fixed
 * out-arg (a fuse_attr_out), op 1 a fixed 8-byte out-arg followed by a
 * variable-length one of 64 bytes.  A rejected reply must fail the whole
 * compound with -EIO, fail the server's write with -EINVAL and never read
 * past what the server wrote; the subreplies before the fault keep their
 * status, and their out-args hold what they said.
 */

#include "fuse_kunit.h"

#define OH	sizeof(struct fuse_out_header)
#define CO	sizeof(struct fuse_compound_out)
#define P0	sizeof(struct fuse_attr_out)
#define P1_FIXED	8
#define P1_VAR		64
#define P1	(P1_FIXED + P1_VAR)
#define FULL	(OH + CO + OH + P0 + OH + P1)

struct fr_sub {
	u64 unique;
	int error;
	u32 len;		/* the subreply header's len field */
	u32 payload;		/* bytes actually following it */
};

struct fr_case {
	const char *name;
	unsigned int nsubs;
	struct fr_sub subs[3];
	size_t cut;		/* nonzero: the reply ends after this many bytes */
	size_t trailing;	/* bytes appended after the last subreply */
	u64 reserved[2];	/* fuse_compound_out's reserved fields */
	bool dep;		/* op 1 depends on op 0 (dep_index 0) */
	/* expectations */
	int ret;
	int err0, err1;
	u32 var_size;		/* op 1's variable out-arg, when ret == 0 */
};

#define OK0		{ 0, 0, OH + P0, P0 }
#define OK1		{ 1, 0, OH + P1, P1 }
/*
 * A rejected reply: what the kernel read whole before the fault keeps its
 * status (and out-args), for the caller to give back what it granted
 */
#define REJECT		.ret = -EIO, .err0 = -EIO, .err1 = -EIO
#define REJECT_AFTER_0	.ret = -EIO, .err0 = 0, .err1 = -EIO
#define REJECT_AFTER_ALL	.ret = -EIO, .err0 = 0, .err1 = 0

static const struct fr_case fr_cases[] = {
	/* valid replies */
	{ "all subrequests succeed", 2, { OK0, OK1 },
	  .var_size = P1_VAR },
	{ "first fails, second succeeds", 2,
	  { { 0, -ENOENT, OH, 0 }, OK1 },
	  .err0 = -ENOENT, .var_size = P1_VAR },
	{ "first succeeds, second fails", 2,
	  { OK0, { 1, -EACCES, OH, 0 } },
	  .err1 = -EACCES },
	{ "both fail", 2,
	  { { 0, -EIO, OH, 0 }, { 1, -ENOTDIR, OH, 0 } },
	  .err0 = -EIO, .err1 = -ENOTDIR },
	{ "sub_error_range: -511 is in range", 2,
	  { { 0, -511, OH, 0 }, OK1 },
	  .err0 = -511, .var_size = P1_VAR },
	{ "variable out-arg shrinks", 2,
	  { OK0, { 1, 0, OH + P1_FIXED + 10, P1_FIXED + 10 } },
	  .var_size = 10 },
	{ "variable out-arg shrinks to nothing", 2,
	  { OK0, { 1, 0, OH + P1_FIXED, P1_FIXED } },
	  .var_size = 0 },

	/* rule 1, cut_in_*: the bytes written do not cover what is declared */
	{ "cut_in_compound_out: before it", 2, { OK0, OK1 }, .cut = OH, REJECT },
	{ "cut_in_compound_out: inside it", 2, { OK0, OK1 }, .cut = OH + 8, REJECT },
	{ "cut_in_subheader: the first", 2, { OK0, OK1 },
	  .cut = OH + CO + 8, REJECT },
	{ "cut_in_payload: none after the first header", 2, { OK0, OK1 },
	  .cut = OH + CO + OH, REJECT },
	{ "cut_in_payload: the first", 2, { OK0, OK1 },
	  .cut = OH + CO + OH + 50, REJECT },
	{ "cut_in_subheader: the second", 2, { OK0, OK1 },
	  .cut = OH + CO + OH + P0 + 4, REJECT_AFTER_0 },
	{ "cut_in_payload: one byte short of the end", 2, { OK0, OK1 },
	  .cut = FULL - 1, REJECT_AFTER_0 },
	{ "cut_in_subheader: one subreply for two ops", 1, { OK0 }, REJECT_AFTER_0 },
	/* rule 2, trailing_bytes: bytes left over */
	{ "trailing_bytes: one byte", 2, { OK0, OK1 }, .trailing = 1, REJECT_AFTER_ALL },
	{ "trailing_bytes: a subreply header", 2, { OK0, OK1 },
	  .trailing = OH, REJECT_AFTER_ALL },
	{ "trailing_bytes: three subreplies for two ops", 3,
	  { OK0, OK1, { 2, -ENOENT, OH, 0 } }, REJECT_AFTER_ALL },
	/* rule 3, sub_unique: unique is not the index */
	{ "sub_unique: reordered", 2,
	  { { 1, 0, OH + P0, P0 }, { 0, 0, OH + P1, P1 } }, REJECT },
	{ "sub_unique: duplicated", 2,
	  { OK0, { 0, 0, OH + P1, P1 } }, REJECT_AFTER_0 },
	{ "sub_unique: 0 skipped", 2,
	  { { 1, 0, OH + P0, P0 }, { 2, 0, OH + P1, P1 } }, REJECT },
	{ "sub_unique: the last skipped", 2,
	  { OK0, { 2, 0, OH + P1, P1 } }, REJECT_AFTER_0 },
	/* rule 4, sublen_below_header */
	{ "sublen_below_header: the first", 2,
	  { { 0, 0, OH - 1, 0 }, OK1 }, REJECT },
	{ "sublen_below_header: the last, zero", 2, { OK0, { 1, -ENOENT, 0, 0 } }, REJECT_AFTER_0 },
	/* rule 5, sub_error_range */
	{ "sub_error_range: the first positive", 2, { { 0, 5, OH, 0 }, OK1 }, REJECT },
	{ "sub_error_range: the last positive", 2, { OK0, { 1, 1, OH, 0 } }, REJECT_AFTER_0 },
	{ "sub_error_range: the first -512", 2, { { 0, -512, OH, 0 }, OK1 }, REJECT },
	{ "sub_error_range: the last far below -512", 2,
	  { OK0, { 1, -100000, OH, 0 } }, REJECT_AFTER_0 },
	/* rule 6, error_with_payload */
	{ "error_with_payload: the first", 2,
	  { { 0, -ENOENT, OH + 8, 8 }, OK1 }, REJECT },
	{ "error_with_payload: the last", 2,
	  { OK0, { 1, -ENOENT, OH + P1, P1 } }, REJECT_AFTER_0 },
	/* rule 7, payload_mismatch: payload does not match the out-args */
	{ "payload_mismatch: fixed too long", 2,
	  { { 0, 0, OH + P0 + 8, P0 + 8 }, OK1 }, REJECT },
	{ "payload_mismatch: fixed too short", 2,
	  { { 0, 0, OH + P0 - 8, P0 - 8 }, OK1 }, REJECT },
	{ "payload_mismatch: fixed empty", 2, { { 0, 0, OH, 0 }, OK1 }, REJECT },
	{ "payload_mismatch: variable too long", 2,
	  { OK0, { 1, 0, OH + P1 + 1, P1 + 1 } }, REJECT_AFTER_0 },
	{ "payload_mismatch: variable shrinks too far", 2,
	  { OK0, { 1, 0, OH + P1_FIXED - 4, P1_FIXED - 4 } }, REJECT_AFTER_0 },
	/* rule 8, compound_out_reserved: its reserved fields are zero */
	{ "compound_out_reserved: [0] set", 2, { OK0, OK1 },
	  .reserved = { 1, 0 }, REJECT },
	{ "compound_out_reserved: [1] set", 2, { OK0, OK1 },
	  .reserved = { 0, 1ULL << 63 }, REJECT },
	/*
	 * rule 9, ok_after_failed_dep: a dependent op fails with its
	 * dependency; one that says it ran is not read
	 */
	{ "ok_after_failed_dep: the dependent says it ran", 2,
	  { { 0, -ENOENT, OH, 0 }, OK1 }, .dep = true,
	  .ret = -EIO, .err0 = -ENOENT, .err1 = -EIO },
	{ "ok_after_failed_dep: the dependent fails with it", 2,
	  { { 0, -ENOENT, OH, 0 }, { 1, -ENOENT, OH, 0 } }, .dep = true,
	  .err0 = -ENOENT, .err1 = -ENOENT },
	{ "ok_after_failed_dep: the dependency ran", 2, { OK0, OK1 },
	  .dep = true, .var_size = P1_VAR },
};

static void fr_case_desc(const struct fr_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(fr_case, fr_cases, fr_case_desc);

static size_t fr_serve(struct fk_ctx *ctx, const u8 *req, size_t len,
		       u8 *reply)
{
	const struct fr_case *c = ctx->priv;
	const struct fuse_in_header *ih = (const void *)req;
	struct fk_reply r;
	unsigned int i;

	fk_reply_start(&r, reply, ih->unique, 0);
	fk_reply_put(&r, c->reserved, sizeof(struct fuse_compound_out));
	for (i = 0; i < c->nsubs; i++)
		fk_reply_sub(&r, c->subs[i].unique, c->subs[i].error,
			     c->subs[i].len, c->subs[i].payload);
	if (c->trailing) {
		static const u8 zeros[OH];

		fk_reply_put(&r, zeros, c->trailing);
	}
	if (c->cut)
		r.len = c->cut;
	return fk_reply_finish(&r);
}

static void compound_reply_validated(struct kunit *test)
{
	FUSE_ARGS(a0);
	FUSE_ARGS(a1);
	const struct fr_case *c = test->param_value;
	struct fk_ctx *ctx = fk_ctx_create(test, fr_serve);
	struct fuse_attr_out attr;
	u8 fixed[P1_FIXED], var[P1_VAR];
	int err0 = 1, err1 = 1;
	struct fuse_compound_op ops[] = {
		{ &a0, &err0, FUSE_COMPOUND_NO_DEP },
		{ &a1, &err1, FUSE_COMPOUND_NO_DEP },
	};
	int ret;

	ctx->priv = (void *)c;
	if (c->dep)
		ops[1].dep_index = 0;
	a0.opcode = FUSE_GETATTR;
	a0.nodeid = 2;
	a0.out_numargs = 1;
	a0.out_args[0].size = sizeof(attr);
	a0.out_args[0].value = &attr;
	a1.opcode = FUSE_GETXATTR;
	a1.nodeid = 2;
	a1.out_numargs = 2;
	a1.out_argvar = true;
	a1.out_argvar_idx = 1;
	a1.out_args[0].size = sizeof(fixed);
	a1.out_args[0].value = fixed;
	a1.out_args[1].size = sizeof(var);
	a1.out_args[1].value = var;

	ret = fuse_compound_send(ctx->fm, ops, ARRAY_SIZE(ops));

	KUNIT_EXPECT_EQ(test, ret, c->ret);
	KUNIT_EXPECT_EQ(test, err0, c->err0);
	KUNIT_EXPECT_EQ(test, err1, c->err1);
	/* the server's write(2) fails exactly when the reply is rejected */
	KUNIT_EXPECT_EQ(test, ctx->write_err, c->ret ? -EINVAL : 0);
	/* a rejected reply is final: no fallback, one round trip */
	KUNIT_EXPECT_EQ(test, ctx->nrequests, 1U);
	KUNIT_EXPECT_FALSE(test, ctx->fc->no_compound);
	/* only a valid reply tells that compounds work */
	KUNIT_EXPECT_EQ(test, (bool)ctx->fc->compound_ok, !c->ret);
	if (!c->ret && !c->err1)
		KUNIT_EXPECT_EQ(test, a1.out_args[1].size, c->var_size);
	if (!c->err0)
		KUNIT_EXPECT_EQ(test, attr.attr.ino, 0xababababababababULL);
}

static struct kunit_case compound_reply_cases[] = {
	KUNIT_CASE_PARAM(compound_reply_validated, fr_case_gen_params),
	{}
};

static struct kunit_suite compound_reply_suite = {
	.name = "fuse_compound_reply",
	.test_cases = compound_reply_cases,
};

kunit_test_suite(compound_reply_suite);
