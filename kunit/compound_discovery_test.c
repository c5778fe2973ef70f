// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: discovery of compound support by trial (compound.md section 3).
 *
 * A connection is unknown until a compound got a valid reply.  While it
 * is, any outer error the server answered, but EOPNOTSUPP and EINTR, means
 * "not supported": remembered, and the request falls back.  Once compounds
 * are known to work, only ENOSYS disables them and other errors reach the
 * caller.  EOPNOTSUPP refuses one combination of opcodes, which is then
 * sent as separate requests without asking again.  The kernel's own
 * failures and malformed replies are not answers: they leave the state as
 * it was.
 */

#include "fuse_kunit.h"

#define NO_DEP FUSE_COMPOUND_NO_DEP

static const struct fk_op lookup_getattr[] = {
	{ FUSE_LOOKUP, 1, NO_DEP, "child" },
	{ FUSE_GETATTR, 0, 0 },
};

/* Send LOOKUP + GETATTR(dep 0) and check that both ops succeeded */
static void send_lookup_getattr(struct kunit *test, struct fk_ctx *ctx)
{
	struct fk_batch *b = fk_batch_create(test, lookup_getattr,
					     ARRAY_SIZE(lookup_getattr));

	KUNIT_EXPECT_EQ(test, fuse_compound_send(ctx->fm, b->ops, b->n), 0);
	KUNIT_EXPECT_EQ(test, b->errors[0], 0);
	KUNIT_EXPECT_EQ(test, b->errors[1], 0);
	KUNIT_EXPECT_EQ(test, b->out[0].entry.nodeid, (u64)FK_CHILD_NODEID);
	KUNIT_EXPECT_EQ(test, b->out[1].attr.attr.ino, (u64)FK_CHILD_NODEID);
}

/* Send LOOKUP + GETATTR(dep 0) and expect @err for the call and both ops */
static void send_lookup_getattr_fails(struct kunit *test, struct fk_ctx *ctx,
				      int err)
{
	struct fk_batch *b = fk_batch_create(test, lookup_getattr,
					     ARRAY_SIZE(lookup_getattr));

	KUNIT_EXPECT_EQ(test, fuse_compound_send(ctx->fm, b->ops, b->n), err);
	KUNIT_EXPECT_EQ(test, b->errors[0], err);
	KUNIT_EXPECT_EQ(test, b->errors[1], err);
}

/*
 * After a compound that taught nothing, sent as the one request of the
 * test: compounds are neither disabled nor known to work, and the next
 * LOOKUP + GETATTR to a compliant server is a compound again
 */
static void expect_state_unknown_then_compound(struct kunit *test,
					       struct fk_ctx *ctx)
{
	KUNIT_EXPECT_EQ(test, ctx->nrequests, 1U);
	KUNIT_EXPECT_FALSE(test, ctx->fc->no_compound);
	KUNIT_EXPECT_FALSE(test, ctx->fc->compound_ok);

	ctx->serve = fk_serve_compliant;
	send_lookup_getattr(test, ctx);
	KUNIT_EXPECT_EQ(test, ctx->ncompounds, 2U);
}

static void discovery_enosys_disables_compounds(struct kunit *test)
{
	struct fk_ctx *ctx = fk_ctx_refusing(test, FK_UNKNOWN_OPCODE);

	send_lookup_getattr(test, ctx);
	/* one refused compound, then the two ops on their own */
	KUNIT_EXPECT_EQ(test, ctx->ncompounds, 1U);
	KUNIT_EXPECT_EQ(test, ctx->nrequests, 3U);
	KUNIT_EXPECT_TRUE(test, ctx->fc->no_compound);

	send_lookup_getattr(test, ctx);
	/* straight to single requests: two more, no compound */
	KUNIT_EXPECT_EQ(test, ctx->ncompounds, 1U);
	KUNIT_EXPECT_EQ(test, ctx->nrequests, 5U);
}

/* What servers answer to an opcode they do not know, besides ENOSYS */
static const int answered_errors[] = {
	-EINVAL, -EIO, -EPERM, -ENOENT, -EPROTO, -ENOMEM,
};

static void answered_error_desc(const int *err, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "outer error %d", *err);
}

KUNIT_ARRAY_PARAM(answered_error, answered_errors, answered_error_desc);

static void discovery_unknown_any_answered_error_disables(struct kunit *test)
{
	const int *outer = test->param_value;
	struct fk_ctx *ctx = fk_ctx_refusing(test, *outer);

	send_lookup_getattr(test, ctx);
	KUNIT_EXPECT_EQ(test, ctx->ncompounds, 1U);
	KUNIT_EXPECT_EQ(test, ctx->nrequests, 3U);
	KUNIT_EXPECT_EQ(test, ctx->write_err, 0);
	KUNIT_EXPECT_TRUE(test, ctx->fc->no_compound);
	KUNIT_EXPECT_FALSE(test, ctx->fc->compound_ok);

	send_lookup_getattr(test, ctx);
	KUNIT_EXPECT_EQ(test, ctx->ncompounds, 1U);
	KUNIT_EXPECT_EQ(test, ctx->nrequests, 5U);
}

/* Runs the first compound; answers every later one with priv (an int *) */
static size_t serve_first_then_error(struct fk_ctx *ctx, const u8 *req,
				     size_t len, u8 *reply)
{
	const struct fuse_in_header *ih = (const void *)req;

	if (ih->opcode == FUSE_COMPOUND && ctx->ncompounds > 1)
		return fk_reply_simple(reply, ih->unique, *(int *)ctx->priv,
				       NULL, 0);
	return fk_serve_compliant(ctx, req, len, reply);
}

static void discovery_known_error_reaches_caller(struct kunit *test)
{
	const int *outer = test->param_value;
	struct fk_ctx *ctx = fk_ctx_create(test, serve_first_then_error);

	ctx->priv = (void *)outer;
	send_lookup_getattr(test, ctx);
	KUNIT_EXPECT_TRUE(test, ctx->fc->compound_ok);

	send_lookup_getattr_fails(test, ctx, *outer);
	/* no fallback, and compounds stay enabled */
	KUNIT_EXPECT_EQ(test, ctx->nrequests, 2U);
	KUNIT_EXPECT_EQ(test, ctx->write_err, 0);
	KUNIT_EXPECT_FALSE(test, ctx->fc->no_compound);
	KUNIT_EXPECT_TRUE(test, ctx->fc->compound_ok);
}

static void discovery_known_enosys_still_disables(struct kunit *test)
{
	static const int enosys = -ENOSYS;
	struct fk_ctx *ctx = fk_ctx_create(test, serve_first_then_error);

	ctx->priv = (void *)&enosys;
	send_lookup_getattr(test, ctx);
	send_lookup_getattr(test, ctx);
	KUNIT_EXPECT_EQ(test, ctx->nrequests, 4U);
	KUNIT_EXPECT_TRUE(test, ctx->fc->no_compound);
}

/* The server answers -EINTR, as to an interrupted compound: not an answer */
static void discovery_eintr_leaves_state_unknown(struct kunit *test)
{
	struct fk_ctx *ctx = fk_ctx_refusing(test, -EINTR);

	send_lookup_getattr_fails(test, ctx, -EINTR);
	expect_state_unknown_then_compound(test, ctx);
	KUNIT_EXPECT_TRUE(test, ctx->fc->compound_ok);
}

/* Errors of the kernel's own: no server saw the compound */
static const int kernel_errors[] = { -ENOTCONN, -ECONNABORTED, -ENOMEM };

KUNIT_ARRAY_PARAM(kernel_error, kernel_errors, answered_error_desc);

static void discovery_kernel_error_leaves_state_unknown(struct kunit *test)
{
	const int *err = test->param_value;
	struct fk_ctx *ctx = fk_ctx_create(test, fk_serve_compliant);

	ctx->kernel_error = *err;
	send_lookup_getattr_fails(test, ctx, *err);
	KUNIT_EXPECT_FALSE(test, ctx->fc->no_compound);
	KUNIT_EXPECT_FALSE(test, ctx->fc->compound_ok);

	ctx->kernel_error = 0;
	send_lookup_getattr(test, ctx);
	KUNIT_EXPECT_EQ(test, ctx->ncompounds, 1U);
	KUNIT_EXPECT_EQ(test, ctx->nrequests, 1U);
}

/* A compound reply that stops after its outer header */
static size_t serve_cut_reply(struct fk_ctx *ctx, const u8 *req, size_t len,
			      u8 *reply)
{
	const struct fuse_in_header *ih = (const void *)req;

	return fk_reply_simple(reply, ih->unique, 0, NULL, 0);
}

static void discovery_malformed_reply_leaves_state_unknown(struct kunit *test)
{
	struct fk_ctx *ctx = fk_ctx_create(test, serve_cut_reply);

	send_lookup_getattr_fails(test, ctx, -EIO);
	KUNIT_EXPECT_EQ(test, ctx->write_err, -EINVAL);
	expect_state_unknown_then_compound(test, ctx);
}

/* Refuses compounds that start with a LOOKUP, runs the others */
static size_t serve_refuse_lookup_combos(struct fk_ctx *ctx, const u8 *req,
					 size_t len, u8 *reply)
{
	const struct fuse_in_header *ih = (const void *)req;
	const struct fuse_in_header *sub = (const void *)(req + sizeof(*ih) +
		sizeof(struct fuse_compound_in) +
		sizeof(struct fuse_compound_req_in));

	if (ih->opcode == FUSE_COMPOUND && sub->opcode == FUSE_LOOKUP)
		return fk_reply_simple(reply, ih->unique, -EOPNOTSUPP, NULL, 0);
	return fk_serve_compliant(ctx, req, len, reply);
}

static void discovery_eopnotsupp_remembered_per_combination(struct kunit *test)
{
	static const struct fk_op two_getattrs[] = {
		{ FUSE_GETATTR, 5, NO_DEP },
		{ FUSE_GETATTR, 6, NO_DEP },
	};
	struct fk_ctx *ctx = fk_ctx_create(test, serve_refuse_lookup_combos);
	struct fk_batch *b;

	send_lookup_getattr(test, ctx);
	KUNIT_EXPECT_EQ(test, ctx->ncompounds, 1U);
	KUNIT_EXPECT_EQ(test, ctx->nrequests, 3U);
	/* the server answered as one that knows compounds */
	KUNIT_EXPECT_TRUE(test, ctx->fc->compound_ok);
	KUNIT_EXPECT_FALSE(test, ctx->fc->no_compound);

	/* the same combination: not asked again, two single requests */
	send_lookup_getattr(test, ctx);
	KUNIT_EXPECT_EQ(test, ctx->ncompounds, 1U);
	KUNIT_EXPECT_EQ(test, ctx->nrequests, 5U);

	/* another combination is still sent as a compound */
	b = fk_batch_create(test, two_getattrs, ARRAY_SIZE(two_getattrs));
	KUNIT_EXPECT_EQ(test, fuse_compound_send(ctx->fm, b->ops, b->n), 0);
	KUNIT_EXPECT_EQ(test, b->errors[0], 0);
	KUNIT_EXPECT_EQ(test, b->errors[1], 0);
	KUNIT_EXPECT_EQ(test, ctx->ncompounds, 2U);
	KUNIT_EXPECT_EQ(test, ctx->nrequests, 6U);
}

/*
 * refused_check_lock_free: the refused combinations are asked on every
 * lookup, revalidation and creation of a connection with file handles,
 * without a connection-wide lock.  Asked here with fc->ch.lock held: a check
 * that took it would spin on itself, which lockdep and the spinlock debug
 * checks report as recursion (and which never returns).
 */
static void discovery_refused_check_lock_free(struct kunit *test)
{
	static const u32 refused[] = { FUSE_LOOKUP, FUSE_GETATTR };
	static const u32 other[] = { FUSE_GETATTR, FUSE_GETATTR };
	struct fk_ctx *ctx = fk_ctx_create(test, serve_refuse_lookup_combos);
	bool refused_sent, other_sent;

	send_lookup_getattr(test, ctx);
	KUNIT_ASSERT_EQ(test, ctx->fc->compound_nr_refused, 1U);

	spin_lock(&ctx->fc->ch.lock);
	refused_sent = fuse_compound_available(ctx->fc, refused,
					       ARRAY_SIZE(refused));
	other_sent = fuse_compound_available(ctx->fc, other, ARRAY_SIZE(other));
	spin_unlock(&ctx->fc->ch.lock);
	KUNIT_EXPECT_FALSE(test, refused_sent);
	KUNIT_EXPECT_TRUE(test, other_sent);
}

/*
 * The connection remembers FUSE_COMPOUND_REFUSED_MAX refused combinations;
 * one more is asked again each time, and still falls back correctly.
 */
static void discovery_refusals_beyond_the_table_are_asked_again(struct kunit *test)
{
	struct fk_ctx *ctx = fk_ctx_refusing(test, -EOPNOTSUPP);
	unsigned int combo, round, i;

	for (round = 0; round < 2; round++) {
		for (combo = 0; combo <= FUSE_COMPOUND_REFUSED_MAX; combo++) {
			/* 2 or 3 ops, each GETATTR or OPEN: 12 combinations */
			unsigned int n = combo < 4 ? 2 : 3;
			unsigned int bits = combo < 4 ? combo : combo - 4;
			struct fk_op d[3];
			struct fk_batch *b;

			for (i = 0; i < n; i++)
				d[i] = (struct fk_op){
					bits & (1 << i) ? FUSE_OPEN : FUSE_GETATTR,
					3, NO_DEP };
			b = fk_batch_create(test, d, n);
			KUNIT_EXPECT_EQ(test,
					fuse_compound_send(ctx->fm, b->ops, n), 0);
			for (i = 0; i < n; i++)
				KUNIT_EXPECT_EQ(test, b->errors[i], 0);
		}
	}
	/* the first round asked each; the second only the one left over */
	KUNIT_EXPECT_EQ(test, ctx->ncompounds, FUSE_COMPOUND_REFUSED_MAX + 2U);
}

static void discovery_compliant_server_one_round_trip(struct kunit *test)
{
	struct fk_ctx *ctx = fk_ctx_create(test, fk_serve_compliant);
	const struct fk_logged *l;

	send_lookup_getattr(test, ctx);
	KUNIT_EXPECT_EQ(test, ctx->nrequests, 1U);
	KUNIT_EXPECT_EQ(test, ctx->ncompounds, 1U);
	KUNIT_EXPECT_EQ(test, ctx->write_err, 0);
	KUNIT_EXPECT_TRUE(test, ctx->fc->compound_ok);
	/* the dependent GETATTR went out with nodeid 0 and dep_index 0 */
	KUNIT_ASSERT_EQ(test, ctx->nlog, 3U);
	l = &ctx->log[2];
	KUNIT_EXPECT_TRUE(test, l->sub);
	KUNIT_EXPECT_EQ(test, l->opcode, (u32)FUSE_GETATTR);
	KUNIT_EXPECT_EQ(test, l->nodeid, 0ULL);
	KUNIT_EXPECT_EQ(test, l->dep_index, 0);
	KUNIT_EXPECT_EQ(test, ctx->log[1].dep_index, NO_DEP);

	send_lookup_getattr(test, ctx);
	KUNIT_EXPECT_EQ(test, ctx->nrequests, 2U);
	KUNIT_EXPECT_EQ(test, ctx->ncompounds, 2U);
}

/*
 * An op marked skip_on_fallback (the best-effort GETATTR of the open user)
 * runs inside a compound, and is neither sent nor resolved when the
 * compound falls back: the stock kernel would not have sent it either.
 * Its -EOPNOTSUPP is then the kernel's, and marked so (skipped), apart
 * from a server's answer.
 */
struct skip_case {
	const char *name;
	int compound_answer;	/* 0: a compliant server */
};

static const struct skip_case skip_cases[] = {
	{ "compliant server: sent in the compound", 0 },
	{ "unknown opcode: not sent", FK_UNKNOWN_OPCODE },
	{ "EOPNOTSUPP: not sent", -EOPNOTSUPP },
	{ "EINVAL, compounds unknown: not sent", -EINVAL },
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
		fk_ctx_refusing(test, c->compound_answer) :
		fk_ctx_create(test, fk_serve_compliant);
	struct fk_batch *b = fk_batch_create(test, lookup_getattr,
					     ARRAY_SIZE(lookup_getattr));

	b->ops[1].skip_on_fallback = true;
	KUNIT_EXPECT_EQ(test, fuse_compound_send(ctx->fm, b->ops, b->n), 0);
	KUNIT_EXPECT_EQ(test, b->errors[0], 0);
	KUNIT_EXPECT_EQ(test, b->out[0].entry.nodeid, (u64)FK_CHILD_NODEID);
	KUNIT_EXPECT_EQ(test, ctx->ncompounds, 1U);
	KUNIT_EXPECT_FALSE(test, b->ops[0].skipped);
	KUNIT_EXPECT_EQ(test, b->ops[1].skipped, !!c->compound_answer);
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
	KUNIT_CASE_PARAM(discovery_unknown_any_answered_error_disables,
			 answered_error_gen_params),
	KUNIT_CASE_PARAM(discovery_known_error_reaches_caller,
			 answered_error_gen_params),
	KUNIT_CASE(discovery_known_enosys_still_disables),
	KUNIT_CASE(discovery_eintr_leaves_state_unknown),
	KUNIT_CASE_PARAM(discovery_kernel_error_leaves_state_unknown,
			 kernel_error_gen_params),
	KUNIT_CASE(discovery_malformed_reply_leaves_state_unknown),
	KUNIT_CASE(discovery_eopnotsupp_remembered_per_combination),
	KUNIT_CASE(discovery_refusals_beyond_the_table_are_asked_again),
	KUNIT_CASE(discovery_refused_check_lock_free),
	KUNIT_CASE(discovery_compliant_server_one_round_trip),
	KUNIT_CASE_PARAM(discovery_skip_on_fallback_op_only_in_compound,
			 skip_case_gen_params),
	{}
};

static struct kunit_suite compound_discovery_suite = {
	.name = "fuse_compound_discovery",
	.test_cases = compound_discovery_cases,
};

kunit_test_suite(compound_discovery_suite);
