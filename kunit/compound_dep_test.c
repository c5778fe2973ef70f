// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: dependencies between the operations of a compound (dep_index).
 *
 * fuse_compound_dep: the in-order fallback honours dep_index (the server
 * answers FUSE_COMPOUND with FK_UNKNOWN_OPCODE and every single request
 * normally), whatever the protocol minor the server chose.
 * fuse_compound_dep_attr: when the attributes a dependent operation
 * returned may be applied to the inode the lookup found.
 */

#include "fuse_kunit.h"

#define NO_DEP FUSE_COMPOUND_NO_DEP

static void dep_none_sends_each_op_as_is(struct kunit *test)
{
	static const struct fk_op d[] = {
		{ FUSE_GETATTR, 5, NO_DEP },
		{ FUSE_GETATTR, 6, NO_DEP },
	};
	struct fk_ctx *ctx = fk_ctx_refusing(test, FK_UNKNOWN_OPCODE);
	struct fk_batch *b = fk_batch_create(test, d, ARRAY_SIZE(d));

	KUNIT_EXPECT_EQ(test, fuse_compound_send(ctx->fm, b->ops, b->n), 0);
	KUNIT_EXPECT_EQ(test, b->errors[0], 0);
	KUNIT_EXPECT_EQ(test, b->errors[1], 0);
	KUNIT_ASSERT_EQ(test, fk_count(ctx, FUSE_GETATTR, false), 2U);
	KUNIT_EXPECT_EQ(test, fk_find(ctx, FUSE_GETATTR, 0)->nodeid, 5ULL);
	KUNIT_EXPECT_EQ(test, fk_find(ctx, FUSE_GETATTR, 1)->nodeid, 6ULL);
	KUNIT_EXPECT_EQ(test, b->out[1].attr.attr.ino, 6ULL);
}

/* Send @producer of @name in the root and a GETATTR that depends on it */
static struct fk_batch *send_with_dependent(struct kunit *test,
					    struct fk_ctx *ctx, u32 producer,
					    const char *name)
{
	const struct fk_op d[] = {
		{ producer, 1, NO_DEP, name },
		{ FUSE_GETATTR, 0, 0 },
	};
	struct fk_batch *b = fk_batch_create(test, d, ARRAY_SIZE(d));

	KUNIT_EXPECT_EQ(test, fuse_compound_send(ctx->fm, b->ops, b->n), 0);
	return b;
}

/* Both ops succeeded, and the server saw one GETATTR, of @nodeid */
static void expect_dependent_sent_for(struct kunit *test, struct fk_ctx *ctx,
				      const struct fk_batch *b, u64 nodeid)
{
	KUNIT_EXPECT_EQ(test, b->errors[0], 0);
	KUNIT_EXPECT_EQ(test, b->errors[1], 0);
	KUNIT_ASSERT_EQ(test, fk_count(ctx, FUSE_GETATTR, false), 1U);
	KUNIT_EXPECT_EQ(test, fk_find(ctx, FUSE_GETATTR, 0)->nodeid, nodeid);
}

static void dep_backward_gets_nodeid_of_lookup(struct kunit *test)
{
	struct fk_ctx *ctx = fk_ctx_refusing(test, FK_UNKNOWN_OPCODE);
	struct fk_batch *b = send_with_dependent(test, ctx, FUSE_LOOKUP,
						 "child");

	expect_dependent_sent_for(test, ctx, b, FK_CHILD_NODEID);
	KUNIT_EXPECT_EQ(test, b->out[1].attr.attr.ino, (u64)FK_CHILD_NODEID);
}

struct dep_bad_case {
	const char *name;
	struct fk_op ops[3];
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

/* A caller bug: it warns once, fails that op, and the others go on */
static void dep_invalid_fails_op_and_later_ops_run(struct kunit *test)
{
	const struct dep_bad_case *c = test->param_value;
	struct fk_ctx *ctx = fk_ctx_refusing(test, FK_UNKNOWN_OPCODE);
	struct fk_batch *b = fk_batch_create(test, c->ops, 3);
	unsigned int getattrs = c->ops[0].opcode == FUSE_GETATTR ? 2 : 1;

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

/* each error of the producer reaches the dependent as it is */
static const struct dep_fail_case dep_fail_cases[] = {
	{ "producer failed with ENOENT", "missing", -ENOENT },
	{ "producer failed with EACCES", "denied", -EACCES },
	{ "producer failed with EIO", "broken", -EIO },
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
	struct fk_ctx *ctx = fk_ctx_refusing(test, FK_UNKNOWN_OPCODE);
	struct fk_batch *b = send_with_dependent(test, ctx, FUSE_LOOKUP,
						 c->lookup_name);

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
	u64 expected = *opcode == FUSE_LOOKUP ? FK_CHILD_NODEID : FK_NEW_NODEID;
	struct fk_ctx *ctx = fk_ctx_refusing(test, FK_UNKNOWN_OPCODE);
	struct fk_batch *b = send_with_dependent(test, ctx, *opcode, "new");

	expect_dependent_sent_for(test, ctx, b, expected);
}

/* A server of protocol minor 8: entries and attributes of the old sizes */
static size_t serve_minor_8(struct fk_ctx *ctx, const u8 *req, size_t len,
			    u8 *reply)
{
	const struct fuse_in_header *ih = (const void *)req;
	struct fuse_out_header *oh = (void *)reply;

	fk_serve_single(req, reply);
	if (ih->opcode == FUSE_LOOKUP)
		oh->len = min_t(u32, oh->len,
				sizeof(*oh) + FUSE_COMPAT_ENTRY_OUT_SIZE);
	else if (ih->opcode == FUSE_GETATTR)
		oh->len = min_t(u32, oh->len,
				sizeof(*oh) + FUSE_COMPAT_ATTR_OUT_SIZE);
	return oh->len;
}

/*
 * The protocol minor is the server's choice, and below 9 the LOOKUP entry
 * shrinks to its old size: the dependency is still served, and nothing
 * warns (a warning is for caller bugs only).
 */
static void dep_served_for_a_server_of_minor_8(struct kunit *test)
{
	struct fk_ctx *ctx = fk_ctx_create(test, serve_minor_8);
	struct fk_batch *b;

	ctx->fc->ch.minor = 8;
	b = send_with_dependent(test, ctx, FUSE_LOOKUP, "child");
	/* minor < 12: no compound at all, the two ops one by one */
	KUNIT_EXPECT_EQ(test, ctx->ncompounds, 0U);
	expect_dependent_sent_for(test, ctx, b, FK_CHILD_NODEID);
}

static struct kunit_case compound_dep_cases[] = {
	KUNIT_CASE(dep_none_sends_each_op_as_is),
	KUNIT_CASE(dep_backward_gets_nodeid_of_lookup),
	KUNIT_CASE_PARAM(dep_invalid_fails_op_and_later_ops_run,
			 dep_bad_gen_params),
	KUNIT_CASE_PARAM(dep_on_failed_op_fails_unsent, dep_fail_gen_params),
	KUNIT_CASE_PARAM(dep_nodeid_propagated_from_entry_producer,
			 dep_producer_gen_params),
	KUNIT_CASE(dep_served_for_a_server_of_minor_8),
	{}
};

static struct kunit_suite compound_dep_suite = {
	.name = "fuse_compound_dep",
	.test_cases = compound_dep_cases,
};

/* --- the attributes of a dependent op --- */

#define DA_INO	0x100000042ULL		/* above 32 bits: squashed on 32-bit */

struct dep_attr_case {
	const char *name;
	u32 mode;		/* of the attributes */
	u64 size;
	u64 ino;
	bool usable;
};

/* the inode: a regular file, ino DA_INO */
static const struct dep_attr_case dep_attr_cases[] = {
	{ "valid, same type, same node", S_IFREG | 0644, 10, DA_INO, true },
	{ "mode without a type", 0644, 10, DA_INO, false },
	{ "size above LLONG_MAX", S_IFREG | 0644, 1ULL << 63, DA_INO, false },
	{ "a directory for a file", S_IFDIR | 0755, 10, DA_INO, false },
	{ "a symlink for a file", S_IFLNK | 0777, 10, DA_INO, false },
	{ "another node", S_IFREG | 0644, 10, DA_INO + 1, false },
	{ "the same ino in its low 32 bits only", S_IFREG | 0644, 10,
	  DA_INO & 0xffffffff, false },
};

static void dep_attr_case_desc(const struct dep_attr_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(dep_attr, dep_attr_cases, dep_attr_case_desc);

static void dep_attr_applied_only_when_they_fit(struct kunit *test)
{
	const struct dep_attr_case *c = test->param_value;
	struct fuse_inode *fi = kunit_kzalloc(test, sizeof(*fi), GFP_KERNEL);
	struct fuse_attr attr = {
		.mode = c->mode, .size = c->size, .ino = c->ino, .nlink = 1,
	};

	KUNIT_ASSERT_NOT_NULL(test, fi);
	fi->inode.i_mode = S_IFREG | 0644;
	fi->orig_ino = DA_INO;
	KUNIT_EXPECT_EQ(test, fuse_dep_attr_usable(&fi->inode, &attr), c->usable);
}

static struct kunit_case compound_dep_attr_cases[] = {
	KUNIT_CASE_PARAM(dep_attr_applied_only_when_they_fit,
			 dep_attr_gen_params),
	{}
};

static struct kunit_suite compound_dep_attr_suite = {
	.name = "fuse_compound_dep_attr",
	.test_cases = compound_dep_attr_cases,
};

kunit_test_suites(&compound_dep_suite, &compound_dep_attr_suite);
