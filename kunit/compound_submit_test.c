// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: compounds refused at submission, before anything is sent.
 */

#include "fuse_kunit.h"

#define NOPS_MAX	(FUSE_COMPOUND_MAX_OPS + 1)

struct submit_case {
	const char *name;
	unsigned int count;
	bool in_pages;		/* set on the last op */
	bool out_pages;
	int expected;
};

static const struct submit_case submit_cases[] = {
	{ "count 0 is refused", 0, .expected = -EINVAL },
	{ "count above the maximum is refused", FUSE_COMPOUND_MAX_OPS + 1,
	  .expected = -EINVAL },
	{ "page-based in-args are refused", 2, .in_pages = true,
	  .expected = -EINVAL },
	{ "page-based out-args are refused", 2, .out_pages = true,
	  .expected = -EINVAL },
	{ "page-based args in the only op are refused", 1, .in_pages = true,
	  .out_pages = true, .expected = -EINVAL },
	{ "one op is accepted", 1, .expected = 0 },
	{ "the maximum count is accepted", FUSE_COMPOUND_MAX_OPS,
	  .expected = 0 },
};

static void submit_case_desc(const struct submit_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(submit, submit_cases, submit_case_desc);

static void compound_submit_checked(struct kunit *test)
{
	const struct submit_case *c = test->param_value;
	struct fk_ctx *ctx = fk_ctx_create(test, fk_serve_compliant);
	struct fuse_args *args;
	struct fuse_compound_op *ops;
	struct fuse_getattr_in *in;
	struct fuse_attr_out *out;
	int *errors;
	unsigned int i;

	args = kunit_kcalloc(test, NOPS_MAX, sizeof(*args), GFP_KERNEL);
	ops = kunit_kcalloc(test, NOPS_MAX, sizeof(*ops), GFP_KERNEL);
	in = kunit_kcalloc(test, NOPS_MAX, sizeof(*in), GFP_KERNEL);
	out = kunit_kcalloc(test, NOPS_MAX, sizeof(*out), GFP_KERNEL);
	errors = kunit_kcalloc(test, NOPS_MAX, sizeof(*errors), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, args);
	KUNIT_ASSERT_NOT_NULL(test, ops);
	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, out);
	KUNIT_ASSERT_NOT_NULL(test, errors);

	for (i = 0; i < NOPS_MAX; i++) {
		fuse_getattr_args_fill(&args[i], 3 + i, &in[i], &out[i]);
		ops[i].args = &args[i];
		ops[i].error = &errors[i];
		ops[i].dep_index = FUSE_COMPOUND_NO_DEP;
		errors[i] = 1;
	}
	if (c->count) {
		args[c->count - 1].in_pages = c->in_pages;
		args[c->count - 1].out_pages = c->out_pages;
	}

	KUNIT_EXPECT_EQ(test, fuse_compound_send(ctx->fm, ops, c->count),
			c->expected);
	if (c->expected) {
		/* nothing reached the server */
		KUNIT_EXPECT_EQ(test, ctx->nrequests, 0U);
		return;
	}
	KUNIT_EXPECT_EQ(test, ctx->nrequests, 1U);
	KUNIT_EXPECT_EQ(test, ctx->ncompounds, 1U);
	for (i = 0; i < c->count; i++) {
		KUNIT_EXPECT_EQ(test, errors[i], 0);
		KUNIT_EXPECT_EQ(test, out[i].attr.ino, 3ULL + i);
	}
}

/* A refused compound reports the error in every op it can name */
static void compound_submit_refusal_sets_errors(struct kunit *test)
{
	FUSE_ARGS(a0);
	FUSE_ARGS(a1);
	struct fk_ctx *ctx = fk_ctx_create(test, fk_serve_compliant);
	struct fuse_getattr_in in[2];
	struct fuse_attr_out out[2];
	int err0 = 1, err1 = 1;
	struct fuse_compound_op ops[] = {
		{ &a0, &err0, FUSE_COMPOUND_NO_DEP },
		{ &a1, &err1, FUSE_COMPOUND_NO_DEP },
	};

	fuse_getattr_args_fill(&a0, 3, &in[0], &out[0]);
	fuse_getattr_args_fill(&a1, 4, &in[1], &out[1]);
	a1.out_pages = true;
	KUNIT_EXPECT_EQ(test, fuse_compound_send(ctx->fm, ops, 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, err0, -EINVAL);
	KUNIT_EXPECT_EQ(test, err1, -EINVAL);
	KUNIT_EXPECT_EQ(test, ctx->nrequests, 0U);
}

static struct kunit_case compound_submit_cases[] = {
	KUNIT_CASE_PARAM(compound_submit_checked, submit_gen_params),
	KUNIT_CASE(compound_submit_refusal_sets_errors),
	{}
};

static struct kunit_suite compound_submit_suite = {
	.name = "fuse_compound_submit",
	.test_cases = compound_submit_cases,
};

kunit_test_suite(compound_submit_suite);
