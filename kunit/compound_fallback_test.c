// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: what happens when the server does not run the compound itself.
 *
 * fuse_compound_dep: the in-order fallback honours dep_index (the server
 * answers FUSE_COMPOUND with FK_UNKNOWN_OPCODE and every single request normally).
 * fuse_compound_discovery: how the answer to a compound decides the next
 * one (FK_UNKNOWN_OPCODE, -EOPNOTSUPP, other errors, a compliant server).
 */

#include "fuse_kunit.h"

#define NO_DEP FUSE_COMPOUND_NO_DEP

/* Up to four ops built from a small description */
struct fb_op {
	u32 opcode;
	u64 nodeid;
	u8 dep_index;
	const char *name;	/* LOOKUP and entry-creating ops */
};

struct fb_batch {
	unsigned int n;
	struct fuse_args args[4];
	struct fuse_compound_op ops[4];
	int errors[4];
	union {
		struct fuse_entry_out entry;
		struct fuse_attr_out attr;
		struct fuse_open_out open;
	} out[4];
	struct fuse_open_out create_open[4];
	struct fuse_getattr_in getattr_in[4];
};

static void fb_build(struct fb_batch *b, const struct fb_op *d, unsigned int n)
{
	unsigned int i;

	memset(b, 0, sizeof(*b));
	b->n = n;
	for (i = 0; i < n; i++) {
		struct fuse_args *a = &b->args[i];

		a->opcode = d[i].opcode;
		a->nodeid = d[i].nodeid;
		if (d[i].name) {
			a->in_numargs = 1;
			a->in_args[0].size = strlen(d[i].name) + 1;
			a->in_args[0].value = d[i].name;
		} else {
			a->in_numargs = 1;
			a->in_args[0].size = sizeof(b->getattr_in[i]);
			a->in_args[0].value = &b->getattr_in[i];
		}
		a->out_numargs = 1;
		a->out_args[0].value = &b->out[i];
		switch (d[i].opcode) {
		case FUSE_GETATTR:
			a->out_args[0].size = sizeof(struct fuse_attr_out);
			break;
		case FUSE_OPEN:
		case FUSE_OPENDIR:
			a->out_args[0].size = sizeof(struct fuse_open_out);
			break;
		case FUSE_CREATE:
			a->out_numargs = 2;
			a->out_args[1].size = sizeof(struct fuse_open_out);
			a->out_args[1].value = &b->create_open[i];
			fallthrough;
		default:
			a->out_args[0].size = sizeof(struct fuse_entry_out);
			break;
		}
		b->ops[i].args = a;
		b->ops[i].error = &b->errors[i];
		b->ops[i].dep_index = d[i].dep_index;
		b->errors[i] = 1;	/* must be overwritten */
	}
}

static struct fk_ctx *fb_ctx(struct kunit *test, int compound_answer)
{
	struct fk_ctx *ctx = fk_ctx_create(test, fk_serve_refuse_compound);
	int *answer = kunit_kzalloc(test, sizeof(*answer), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, answer);
	*answer = compound_answer;
	ctx->priv = answer;
	return ctx;
}

/* --- dep_index in the fallback --- */

static void dep_none_sends_each_op_as_is(struct kunit *test)
{
	static const struct fb_op d[] = {
		{ FUSE_GETATTR, 5, NO_DEP },
		{ FUSE_GETATTR, 6, NO_DEP },
	};
	struct fk_ctx *ctx = fb_ctx(test, FK_UNKNOWN_OPCODE);
	struct fb_batch *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, b);
	fb_build(b, d, ARRAY_SIZE(d));
	KUNIT_EXPECT_EQ(test, fuse_compound_send(ctx->fm, b->ops, b->n), 0);
	KUNIT_EXPECT_EQ(test, b->errors[0], 0);
	KUNIT_EXPECT_EQ(test, b->errors[1], 0);
	KUNIT_ASSERT_EQ(test, fk_count(ctx, FUSE_GETATTR, false), 2U);
	KUNIT_EXPECT_EQ(test, fk_find(ctx, FUSE_GETATTR, 0)->nodeid, 5ULL);
	KUNIT_EXPECT_EQ(test, fk_find(ctx, FUSE_GETATTR, 1)->nodeid, 6ULL);
	KUNIT_EXPECT_EQ(test, b->out[1].attr.attr.ino, 6ULL);
}

static void dep_backward_gets_nodeid_of_lookup(struct kunit *test)
{
	static const struct fb_op d[] = {
		{ FUSE_LOOKUP, 1, NO_DEP, "child" },
		{ FUSE_GETATTR, 0, 0 },
	};
	struct fk_ctx *ctx = fb_ctx(test, FK_UNKNOWN_OPCODE);
	struct fb_batch *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, b);
	fb_build(b, d, ARRAY_SIZE(d));
	KUNIT_EXPECT_EQ(test, fuse_compound_send(ctx->fm, b->ops, b->n), 0);
	KUNIT_EXPECT_EQ(test, b->errors[0], 0);
	KUNIT_EXPECT_EQ(test, b->errors[1], 0);
	KUNIT_ASSERT_EQ(test, fk_count(ctx, FUSE_GETATTR, false), 1U);
	KUNIT_EXPECT_EQ(test, fk_find(ctx, FUSE_GETATTR, 0)->nodeid,
			(u64)FK_CHILD_NODEID);
	KUNIT_EXPECT_EQ(test, b->out[1].attr.attr.ino, (u64)FK_CHILD_NODEID);
}

struct dep_bad_case {
	const char *name;
	struct fb_op ops[3];
};

/* op 1 names an index that is not earlier than itself; op 2 is fine */
static const struct dep_bad_case dep_bad_cases[] = {
	{ "self reference",
	  { { FUSE_LOOKUP, 1, NO_DEP, "child" }, { FUSE_GETATTR, 0, 1 },
	    { FUSE_GETATTR, 9, NO_DEP } } },
	{ "forward reference",
	  { { FUSE_LOOKUP, 1, NO_DEP, "child" }, { FUSE_GETATTR, 0, 2 },
	    { FUSE_GETATTR, 9, NO_DEP } } },
	{ "reference past the last op",
	  { { FUSE_LOOKUP, 1, NO_DEP, "child" }, { FUSE_GETATTR, 0, 7 },
	    { FUSE_GETATTR, 9, NO_DEP } } },
	{ "dependency on a non-entry opcode",
	  { { FUSE_GETATTR, 4, NO_DEP }, { FUSE_GETATTR, 0, 0 },
	    { FUSE_GETATTR, 9, NO_DEP } } },
};

static void dep_bad_case_desc(const struct dep_bad_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(dep_bad, dep_bad_cases, dep_bad_case_desc);

static void dep_invalid_fails_op_and_later_ops_run(struct kunit *test)
{
	const struct dep_bad_case *c = test->param_value;
	struct fk_ctx *ctx = fb_ctx(test, FK_UNKNOWN_OPCODE);
	struct fb_batch *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	unsigned int getattrs;

	KUNIT_ASSERT_NOT_NULL(test, b);
	fb_build(b, c->ops, 3);
	getattrs = c->ops[0].opcode == FUSE_GETATTR ? 2 : 1;

	KUNIT_EXPECT_EQ(test, fuse_compound_send(ctx->fm, b->ops, b->n), 0);
	KUNIT_EXPECT_EQ(test, b->errors[0], 0);
	KUNIT_EXPECT_EQ(test, b->errors[1], -EINVAL);
	KUNIT_EXPECT_EQ(test, b->errors[2], 0);
	/* op 1 never reached the server, op 2 did */
	KUNIT_EXPECT_EQ(test, fk_count(ctx, FUSE_GETATTR, false), getattrs);
	KUNIT_EXPECT_EQ(test, fk_find(ctx, FUSE_GETATTR, getattrs - 1)->nodeid,
			9ULL);
}

struct dep_fail_case {
	const char *name;
	const char *lookup_name;
	int expected;
};

static const struct dep_fail_case dep_fail_cases[] = {
	{ "producer failed with ENOENT", "missing", -ENOENT },
	{ "producer found a negative entry", "negative", -ENOENT },
};

static void dep_fail_case_desc(const struct dep_fail_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(dep_fail, dep_fail_cases, dep_fail_case_desc);

static void dep_on_failed_op_fails_unsent(struct kunit *test)
{
	const struct dep_fail_case *c = test->param_value;
	struct fb_op d[] = {
		{ FUSE_LOOKUP, 1, NO_DEP, c->lookup_name },
		{ FUSE_GETATTR, 0, 0 },
	};
	struct fk_ctx *ctx = fb_ctx(test, FK_UNKNOWN_OPCODE);
	struct fb_batch *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, b);
	fb_build(b, d, ARRAY_SIZE(d));
	KUNIT_EXPECT_EQ(test, fuse_compound_send(ctx->fm, b->ops, b->n), 0);
	KUNIT_EXPECT_EQ(test, b->errors[1], c->expected);
	KUNIT_EXPECT_EQ(test, fk_count(ctx, FUSE_LOOKUP, false), 1U);
	KUNIT_EXPECT_EQ(test, fk_count(ctx, FUSE_GETATTR, false), 0U);
}

static const u32 dep_producers[] = {
	FUSE_LOOKUP, FUSE_MKNOD, FUSE_MKDIR, FUSE_SYMLINK, FUSE_LINK,
	FUSE_CREATE, FUSE_TMPFILE,
};

static void dep_producer_desc(const u32 *opcode, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "opcode %u", *opcode);
}

KUNIT_ARRAY_PARAM(dep_producer, dep_producers, dep_producer_desc);

static void dep_nodeid_propagated_from_entry_producer(struct kunit *test)
{
	const u32 *opcode = test->param_value;
	struct fb_op d[] = {
		{ *opcode, 1, NO_DEP, "new" },
		{ FUSE_GETATTR, 0, 0 },
	};
	u64 expected = *opcode == FUSE_LOOKUP ? FK_CHILD_NODEID : FK_NEW_NODEID;
	struct fk_ctx *ctx = fb_ctx(test, FK_UNKNOWN_OPCODE);
	struct fb_batch *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, b);
	fb_build(b, d, ARRAY_SIZE(d));
	KUNIT_EXPECT_EQ(test, fuse_compound_send(ctx->fm, b->ops, b->n), 0);
	KUNIT_EXPECT_EQ(test, b->errors[0], 0);
	KUNIT_EXPECT_EQ(test, b->errors[1], 0);
	KUNIT_ASSERT_EQ(test, fk_count(ctx, FUSE_GETATTR, false), 1U);
	KUNIT_EXPECT_EQ(test, fk_find(ctx, FUSE_GETATTR, 0)->nodeid, expected);
}

static struct kunit_case compound_dep_cases[] = {
	KUNIT_CASE(dep_none_sends_each_op_as_is),
	KUNIT_CASE(dep_backward_gets_nodeid_of_lookup),
	KUNIT_CASE_PARAM(dep_invalid_fails_op_and_later_ops_run,
			 dep_bad_gen_params),
	KUNIT_CASE_PARAM(dep_on_failed_op_fails_unsent, dep_fail_gen_params),
	KUNIT_CASE_PARAM(dep_nodeid_propagated_from_entry_producer,
			 dep_producer_gen_params),
	{}
};

static struct kunit_suite compound_dep_suite = {
	.name = "fuse_compound_dep",
	.test_cases = compound_dep_cases,
};

/* --- discovery by trial --- */

static const struct fb_op lookup_getattr[] = {
	{ FUSE_LOOKUP, 1, NO_DEP, "child" },
	{ FUSE_GETATTR, 0, 0 },
};

/* Send LOOKUP + GETATTR(dep 0) and check both ops' results */
static void discovery_send(struct kunit *test, struct fk_ctx *ctx)
{
	struct fb_batch *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, b);
	fb_build(b, lookup_getattr, ARRAY_SIZE(lookup_getattr));
	KUNIT_EXPECT_EQ(test, fuse_compound_send(ctx->fm, b->ops, b->n), 0);
	KUNIT_EXPECT_EQ(test, b->errors[0], 0);
	KUNIT_EXPECT_EQ(test, b->errors[1], 0);
	KUNIT_EXPECT_EQ(test, b->out[0].entry.nodeid, (u64)FK_CHILD_NODEID);
	KUNIT_EXPECT_EQ(test, b->out[1].attr.attr.ino, (u64)FK_CHILD_NODEID);
}

static void discovery_enosys_disables_compounds(struct kunit *test)
{
	struct fk_ctx *ctx = fb_ctx(test, FK_UNKNOWN_OPCODE);

	discovery_send(test, ctx);
	/* one refused compound, then the two ops on their own */
	KUNIT_EXPECT_EQ(test, ctx->ncompounds, 1U);
	KUNIT_EXPECT_EQ(test, ctx->nrequests, 3U);
	KUNIT_EXPECT_TRUE(test, ctx->fc->no_compound);

	discovery_send(test, ctx);
	/* straight to single requests: two more, no compound */
	KUNIT_EXPECT_EQ(test, ctx->ncompounds, 1U);
	KUNIT_EXPECT_EQ(test, ctx->nrequests, 5U);
}

static void discovery_eopnotsupp_falls_back_once(struct kunit *test)
{
	struct fk_ctx *ctx = fb_ctx(test, -EOPNOTSUPP);

	discovery_send(test, ctx);
	KUNIT_EXPECT_EQ(test, ctx->ncompounds, 1U);
	KUNIT_EXPECT_EQ(test, ctx->nrequests, 3U);
	KUNIT_EXPECT_FALSE(test, ctx->fc->no_compound);

	/* the next compound is tried again */
	discovery_send(test, ctx);
	KUNIT_EXPECT_EQ(test, ctx->ncompounds, 2U);
	KUNIT_EXPECT_EQ(test, ctx->nrequests, 6U);
	KUNIT_EXPECT_FALSE(test, ctx->fc->no_compound);
}

static const int discovery_other_errors[] = {
	-EINVAL, -EIO, -ENOENT, -EPERM, -ENOMEM, -EPROTO,
};

static void discovery_error_desc(const int *err, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "outer error %d", *err);
}

KUNIT_ARRAY_PARAM(discovery_error, discovery_other_errors,
		  discovery_error_desc);

static void discovery_other_error_reaches_caller(struct kunit *test)
{
	const int *outer = test->param_value;
	struct fk_ctx *ctx = fb_ctx(test, *outer);
	struct fb_batch *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, b);
	fb_build(b, lookup_getattr, ARRAY_SIZE(lookup_getattr));
	KUNIT_EXPECT_EQ(test, fuse_compound_send(ctx->fm, b->ops, b->n),
			*outer);
	KUNIT_EXPECT_EQ(test, b->errors[0], *outer);
	KUNIT_EXPECT_EQ(test, b->errors[1], *outer);
	/* no fallback, and compounds stay enabled */
	KUNIT_EXPECT_EQ(test, ctx->nrequests, 1U);
	KUNIT_EXPECT_EQ(test, ctx->write_err, 0);
	KUNIT_EXPECT_FALSE(test, ctx->fc->no_compound);
}

static void discovery_compliant_server_one_round_trip(struct kunit *test)
{
	struct fk_ctx *ctx = fk_ctx_create(test, fk_serve_compliant);
	const struct fk_logged *l;

	discovery_send(test, ctx);
	KUNIT_EXPECT_EQ(test, ctx->nrequests, 1U);
	KUNIT_EXPECT_EQ(test, ctx->ncompounds, 1U);
	KUNIT_EXPECT_EQ(test, ctx->write_err, 0);
	/* the dependent GETATTR went out with nodeid 0 and dep_index 0 */
	KUNIT_ASSERT_EQ(test, ctx->nlog, 3U);
	l = &ctx->log[2];
	KUNIT_EXPECT_TRUE(test, l->sub);
	KUNIT_EXPECT_EQ(test, l->opcode, (u32)FUSE_GETATTR);
	KUNIT_EXPECT_EQ(test, l->nodeid, 0ULL);
	KUNIT_EXPECT_EQ(test, l->dep_index, 0);
	KUNIT_EXPECT_EQ(test, ctx->log[1].dep_index, NO_DEP);

	discovery_send(test, ctx);
	KUNIT_EXPECT_EQ(test, ctx->nrequests, 2U);
	KUNIT_EXPECT_EQ(test, ctx->ncompounds, 2U);
}

/*
 * An op marked skip_on_fallback (the best-effort GETATTR of both in-kernel
 * users) runs inside a compound, and is neither sent nor resolved when the
 * compound falls back: the stock kernel would not have sent it either.
 */
struct skip_case {
	const char *name;
	int compound_answer;	/* 0: a compliant server */
};

static const struct skip_case skip_cases[] = {
	{ "compliant server: sent in the compound", 0 },
	{ "unknown opcode: not sent", FK_UNKNOWN_OPCODE },
	{ "EOPNOTSUPP: not sent", -EOPNOTSUPP },
};

static void skip_case_desc(const struct skip_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(skip_case, skip_cases, skip_case_desc);

static void discovery_skip_on_fallback_op_only_in_compound(struct kunit *test)
{
	const struct skip_case *c = test->param_value;
	struct fk_ctx *ctx = c->compound_answer ?
		fb_ctx(test, c->compound_answer) :
		fk_ctx_create(test, fk_serve_compliant);
	struct fb_batch *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, b);
	fb_build(b, lookup_getattr, ARRAY_SIZE(lookup_getattr));
	b->ops[1].skip_on_fallback = true;
	KUNIT_EXPECT_EQ(test, fuse_compound_send(ctx->fm, b->ops, b->n), 0);
	KUNIT_EXPECT_EQ(test, b->errors[0], 0);
	KUNIT_EXPECT_EQ(test, b->out[0].entry.nodeid, (u64)FK_CHILD_NODEID);
	KUNIT_EXPECT_EQ(test, ctx->ncompounds, 1U);
	if (!c->compound_answer) {
		KUNIT_EXPECT_EQ(test, b->errors[1], 0);
		KUNIT_EXPECT_EQ(test, b->out[1].attr.attr.ino,
				(u64)FK_CHILD_NODEID);
		KUNIT_EXPECT_EQ(test, ctx->nrequests, 1U);
		KUNIT_EXPECT_EQ(test, fk_count(ctx, FUSE_GETATTR, true), 1U);
		return;
	}
	/* the refused compound and the LOOKUP; no GETATTR */
	KUNIT_EXPECT_EQ(test, b->errors[1], -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, ctx->nrequests, 2U);
	KUNIT_EXPECT_EQ(test, fk_count(ctx, FUSE_LOOKUP, false), 1U);
	KUNIT_EXPECT_EQ(test, fk_count(ctx, FUSE_GETATTR, false), 0U);
}

static struct kunit_case compound_discovery_cases[] = {
	KUNIT_CASE(discovery_enosys_disables_compounds),
	KUNIT_CASE(discovery_eopnotsupp_falls_back_once),
	KUNIT_CASE_PARAM(discovery_other_error_reaches_caller,
			 discovery_error_gen_params),
	KUNIT_CASE(discovery_compliant_server_one_round_trip),
	KUNIT_CASE_PARAM(discovery_skip_on_fallback_op_only_in_compound,
			 skip_case_gen_params),
	{}
};

static struct kunit_suite compound_discovery_suite = {
	.name = "fuse_compound_discovery",
	.test_cases = compound_discovery_cases,
};

kunit_test_suites(&compound_dep_suite, &compound_discovery_suite);
