// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: file handles (FUSE_HAS_LOOKUP_HANDLE).
 *
 * fuse_handle_check: which handles a reply may carry, row by row.
 * fuse_handle_inode: a handle kept with its inode, inline or not, and
 * whether a lookup's handle is the inode's (match, adopted, mismatch),
 * also when lookups of one object race.
 * fuse_handle_ext: the FUSE_EXT_HANDLE extension naming a parent.
 * fuse_handle_dep: LOOKUP_HANDLE as the producer of a dependent op, its
 * handle the variable-length out-arg, with and without compounds.
 */

#include "fuse_kunit.h"

#include <linux/completion.h>
#include <linux/kthread.h>

struct handle_check_case {
	const char *name;
	u16 max;		/* the server's max_handle_sz */
	u16 size;		/* what the handle says */
	size_t len;		/* what the reply gave it, header included */
	int expected;
};

static const struct handle_check_case handle_check_cases[] = {
	{ "one byte", 16, 1, 3, 0 },
	{ "size 0", 16, 0, 2, -EIO },
	{ "the server's largest", 16, 16, 18, 0 },
	{ "one above the server's largest", 16, 17, 19, -EIO },
	{ "the protocol's largest", FUSE_MAX_HANDLE_SZ, FUSE_MAX_HANDLE_SZ,
	  FUSE_MAX_HANDLE_SZ + 2, 0 },
	{ "one byte less than it says", 16, 8, 9, -EIO },
	{ "one byte more than it says", 16, 8, 11, -EIO },
	{ "no room for its size", 16, 0, 1, -EIO },
	{ "no bytes at all", 16, 0, 0, -EIO },
};

static void handle_check_case_desc(const struct handle_check_case *c,
				   char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(handle_check, handle_check_cases, handle_check_case_desc);

static void handle_check_accepts_only_sizes_the_reply_holds(struct kunit *test)
{
	const struct handle_check_case *c = test->param_value;
	struct fk_ctx *ctx = fk_ctx_create(test, fk_serve_compliant);
	u8 buf[sizeof(struct fuse_file_handle) + FUSE_MAX_HANDLE_SZ + 8] = {};
	struct fuse_file_handle *fh = (void *)buf;

	ctx->fc->max_handle_sz = c->max;
	fh->size = c->size;
	KUNIT_EXPECT_EQ(test, fuse_handle_check(ctx->fc, fh, c->len),
			c->expected);
}

/*
 * handles_need_transport: FUSE_HAS_LOOKUP_HANDLE is offered at INIT only
 * where compounds can be sent.  A transport that cannot carry them sets
 * no_compound before INIT (virtio_fs); its server, offered the flag, would
 * believe handles in use while every lookup stays classic.
 */
static void handle_offered_only_where_compounds_go(struct kunit *test)
{
	struct fk_ctx *ctx = fk_ctx_create(test, fk_serve_compliant);
	u64 with, without;

	with = fuse_init_flags(ctx->fc);
	ctx->fc->no_compound = true;
	without = fuse_init_flags(ctx->fc);
	KUNIT_EXPECT_TRUE(test, with & FUSE_HAS_LOOKUP_HANDLE);
	/* that flag alone */
	KUNIT_EXPECT_EQ(test, with ^ without, FUSE_HAS_LOOKUP_HANDLE);
}

static struct kunit_case handle_check_test_cases[] = {
	KUNIT_CASE_PARAM(handle_check_accepts_only_sizes_the_reply_holds,
			 handle_check_gen_params),
	KUNIT_CASE(handle_offered_only_where_compounds_go),
	{}
};

static struct kunit_suite handle_check_suite = {
	.name = "fuse_handle_check",
	.test_cases = handle_check_test_cases,
};

/* --- the handle of an inode --- */

static struct fuse_file_handle *make_handle(struct kunit *test, u16 size,
					    u8 first)
{
	struct fuse_file_handle *fh;
	unsigned int i;

	fh = kunit_kzalloc(test, sizeof(*fh) + size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fh);
	fh->size = size;
	for (i = 0; i < size; i++)
		fh->handle[i] = first + i;
	return fh;
}

static struct fuse_inode *make_inode(struct kunit *test)
{
	struct fuse_inode *fi = kunit_kzalloc(test, sizeof(*fi), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, fi);
	spin_lock_init(&fi->lock);
	return fi;
}

static const u16 handle_sizes[] = {
	1, FUSE_INLINE_HANDLE_SZ, FUSE_INLINE_HANDLE_SZ + 1, FUSE_MAX_HANDLE_SZ,
};

static void handle_size_desc(const u16 *size, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%u bytes%s", *size,
		 *size > FUSE_INLINE_HANDLE_SZ ? " (not inline)" : " (inline)");
}

KUNIT_ARRAY_PARAM(handle_size, handle_sizes, handle_size_desc);

static void expect_kept(struct kunit *test, struct fuse_inode *fi,
			const struct fuse_file_handle *fh)
{
	KUNIT_ASSERT_EQ(test, fi->fh_size, fh->size);
	if (fh->size > FUSE_INLINE_HANDLE_SZ) {
		/* a buffer of its own: the inline bytes are not it */
		KUNIT_EXPECT_PTR_NE(test, (void *)fi->fh_ext,
				    (void *)fi->fh_inline);
		KUNIT_EXPECT_MEMEQ(test, fi->fh_ext, fh->handle, fh->size);
	} else {
		KUNIT_EXPECT_MEMEQ(test, fi->fh_inline, fh->handle, fh->size);
	}
}

/* ADOPTED: an inode without a handle takes the first one, then MATCHes it */
static void handle_match_adopts_then_matches(struct kunit *test)
{
	const u16 *size = test->param_value;
	struct fuse_inode *fi = make_inode(test);
	struct fuse_file_handle *fh = make_handle(test, *size, 1);
	struct fuse_file_handle *same = make_handle(test, *size, 1);

	KUNIT_EXPECT_EQ(test, fuse_inode_match_handle(fi, fh, true),
			FUSE_HANDLE_ADOPTED);
	expect_kept(test, fi, fh);
	KUNIT_EXPECT_EQ(test, fuse_inode_match_handle(fi, same, true),
			FUSE_HANDLE_MATCH);
	KUNIT_EXPECT_EQ(test, fuse_inode_match_handle(fi, same, false),
			FUSE_HANDLE_MATCH);
	fuse_inode_free_handle(fi);
	KUNIT_EXPECT_EQ(test, fi->fh_size, 0);
}

/* MISMATCH: another handle, by a byte or a length, and the inode keeps its */
static void handle_match_another_one_mismatches(struct kunit *test)
{
	const u16 *size = test->param_value;
	struct fuse_inode *fi = make_inode(test);
	struct fuse_file_handle *fh = make_handle(test, *size, 1);
	struct fuse_file_handle *other = make_handle(test, *size, 1);
	struct fuse_file_handle *longer = make_handle(test, *size + 1, 1);

	KUNIT_ASSERT_EQ(test, fuse_inode_match_handle(fi, fh, true),
			FUSE_HANDLE_ADOPTED);
	/* the last byte differs */
	other->handle[*size - 1] ^= 0xff;
	KUNIT_EXPECT_EQ(test, fuse_inode_match_handle(fi, other, true),
			FUSE_HANDLE_MISMATCH);
	/* the same bytes and one more */
	KUNIT_EXPECT_EQ(test, fuse_inode_match_handle(fi, longer, true),
			FUSE_HANDLE_MISMATCH);
	expect_kept(test, fi, fh);
	fuse_inode_free_handle(fi);
}

/* A shorter handle whose bytes are a prefix of the inode's is another one */
static void handle_match_a_prefix_mismatches(struct kunit *test)
{
	struct fuse_inode *fi = make_inode(test);
	struct fuse_file_handle *fh = make_handle(test, 8, 1);

	KUNIT_ASSERT_EQ(test, fuse_inode_match_handle(fi, fh, true),
			FUSE_HANDLE_ADOPTED);
	KUNIT_EXPECT_EQ(test,
			fuse_inode_match_handle(fi, make_handle(test, 7, 1),
						true),
			FUSE_HANDLE_MISMATCH);
	fuse_inode_free_handle(fi);
}

/* Without @adopt an inode without a handle matches and stays without */
static void handle_match_without_adopting_keeps_none(struct kunit *test)
{
	struct fuse_inode *fi = make_inode(test);

	KUNIT_EXPECT_EQ(test,
			fuse_inode_match_handle(fi, make_handle(test, 1, 0),
						false),
			FUSE_HANDLE_MATCH);
	KUNIT_EXPECT_EQ(test, fi->fh_size, 0);
}

/*
 * Lookups of one object that run at once (hard links, parallel stat of an
 * inode READDIRPLUS made without a handle): with the same handle, one of
 * them adopts it and the others match, none mismatches.
 */
struct handle_race {
	struct fuse_inode *fi;
	const struct fuse_file_handle *fh;
	atomic_t start;
	atomic_t outcomes[3];
	struct completion done;
};

static int handle_race_thread(void *data)
{
	struct handle_race *r = data;

	atomic_dec(&r->start);
	while (atomic_read(&r->start) > 0)
		cond_resched();
	atomic_inc(&r->outcomes[fuse_inode_match_handle(r->fi, r->fh, true)]);
	complete(&r->done);
	return 0;
}

static void handle_match_racing_lookups_agree(struct kunit *test)
{
	const u16 *size = test->param_value;
	struct fuse_file_handle *fh = make_handle(test, *size, 3);
	struct handle_race *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct task_struct *t[2];
	unsigned int round, i;

	KUNIT_ASSERT_NOT_NULL(test, r);
	for (round = 0; round < 200; round++) {
		struct fuse_inode *fi = make_inode(test);

		r->fi = fi;
		r->fh = fh;
		atomic_set(&r->start, 2);
		for (i = 0; i < 3; i++)
			atomic_set(&r->outcomes[i], 0);
		init_completion(&r->done);
		/* both made before either runs: neither waits for a missing one */
		for (i = 0; i < 2; i++) {
			t[i] = kthread_create(handle_race_thread, r,
					      "fuse-kunit-%u", i);
			if (IS_ERR(t[i])) {
				if (i)
					kthread_stop(t[0]);
				KUNIT_FAIL(test, "no thread: %ld", PTR_ERR(t[i]));
				return;
			}
		}
		wake_up_process(t[0]);
		wake_up_process(t[1]);
		wait_for_completion(&r->done);
		wait_for_completion(&r->done);
		KUNIT_EXPECT_EQ(test, atomic_read(&r->outcomes[FUSE_HANDLE_ADOPTED]), 1);
		KUNIT_EXPECT_EQ(test, atomic_read(&r->outcomes[FUSE_HANDLE_MATCH]), 1);
		KUNIT_EXPECT_EQ(test, atomic_read(&r->outcomes[FUSE_HANDLE_MISMATCH]), 0);
		expect_kept(test, fi, fh);
		fuse_inode_free_handle(fi);
	}
}

static struct kunit_case handle_inode_test_cases[] = {
	KUNIT_CASE_PARAM(handle_match_adopts_then_matches,
			 handle_size_gen_params),
	KUNIT_CASE_PARAM(handle_match_another_one_mismatches,
			 handle_size_gen_params),
	KUNIT_CASE(handle_match_a_prefix_mismatches),
	KUNIT_CASE(handle_match_without_adopting_keeps_none),
	KUNIT_CASE_PARAM(handle_match_racing_lookups_agree,
			 handle_size_gen_params),
	{}
};

static struct kunit_suite handle_inode_suite = {
	.name = "fuse_handle_inode",
	.test_cases = handle_inode_test_cases,
};

/* --- the parent's handle in a request --- */

static void handle_ext_absent_for_a_dir_without_handle(struct kunit *test)
{
	struct fuse_inode *dir = make_inode(test);
	struct fuse_args args = { .in_numargs = 1 };

	KUNIT_EXPECT_EQ(test, fuse_add_parent_handle(&args, &dir->inode), 0);
	KUNIT_EXPECT_FALSE(test, args.is_ext);
	KUNIT_EXPECT_EQ(test, args.in_numargs, 1);
}

/* @off: where the handle's extension starts in the extension arg */
static void expect_handle_ext(struct kunit *test, struct fuse_args *args,
			      u32 off, const struct fuse_file_handle *fh)
{
	const struct fuse_in_arg *ext = &args->in_args[args->ext_idx];
	const struct fuse_ext_header *xh = ext->value + off;
	const struct fuse_file_handle *sent = (const void *)(xh + 1);

	KUNIT_ASSERT_TRUE(test, args->is_ext);
	KUNIT_EXPECT_EQ(test, xh->type, (u32)FUSE_EXT_HANDLE);
	KUNIT_EXPECT_EQ(test, xh->size, fuse_ext_size(sizeof(*fh) + fh->size));
	KUNIT_EXPECT_EQ(test, xh->size % 8, 0U);
	KUNIT_EXPECT_EQ(test, ext->size, off + xh->size);
	KUNIT_EXPECT_EQ(test, sent->size, fh->size);
	KUNIT_EXPECT_MEMEQ(test, sent->handle, fh->handle, fh->size);
}

static void handle_ext_names_the_parent(struct kunit *test)
{
	const u16 *size = test->param_value;
	struct fuse_inode *dir = make_inode(test);
	struct fuse_file_handle *fh = make_handle(test, *size, 0x40);
	struct fuse_args args = { .in_numargs = 1 };

	fuse_inode_match_handle(dir, fh, true);
	KUNIT_EXPECT_EQ(test, fuse_add_parent_handle(&args, &dir->inode), 0);
	KUNIT_EXPECT_EQ(test, args.ext_idx, 1);
	KUNIT_EXPECT_EQ(test, args.in_numargs, 2);
	expect_handle_ext(test, &args, 0, fh);
	kfree(args.in_args[args.ext_idx].value);
	fuse_inode_free_handle(dir);
}

/* After the extensions a request already has (here 16 bytes of them) */
static void handle_ext_follows_other_extensions(struct kunit *test)
{
	struct fuse_inode *dir = make_inode(test);
	struct fuse_file_handle *fh = make_handle(test, 5, 0x40);
	struct fuse_args args = { .in_numargs = 2, .is_ext = true,
				  .ext_idx = 1 };
	struct fuse_ext_header *first;

	first = kzalloc(16, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, first);
	first->size = 16;
	first->type = FUSE_EXT_GROUPS;
	args.in_args[1].size = 16;
	args.in_args[1].value = first;

	fuse_inode_match_handle(dir, fh, true);
	KUNIT_EXPECT_EQ(test, fuse_add_parent_handle(&args, &dir->inode), 0);
	KUNIT_EXPECT_EQ(test, args.in_numargs, 2);
	first = (void *)args.in_args[1].value;
	KUNIT_EXPECT_EQ(test, first->type, (u32)FUSE_EXT_GROUPS);
	expect_handle_ext(test, &args, 16, fh);
	kfree(args.in_args[1].value);
	fuse_inode_free_handle(dir);
}

static struct kunit_case handle_ext_test_cases[] = {
	KUNIT_CASE(handle_ext_absent_for_a_dir_without_handle),
	KUNIT_CASE_PARAM(handle_ext_names_the_parent, handle_size_gen_params),
	KUNIT_CASE(handle_ext_follows_other_extensions),
	{}
};

static struct kunit_suite handle_ext_suite = {
	.name = "fuse_handle_ext",
	.test_cases = handle_ext_test_cases,
};

/* --- the arguments of MKOBJ_HANDLE --- */

struct mkobj_case {
	const char *name;
	umode_t mode;
	dev_t rdev;
	const char *link;
	unsigned int open_flags;
	bool no_statx;
};

static const struct mkobj_case mkobj_cases[] = {
	{ "regular file opened", S_IFREG | 0640, 0, NULL, O_RDWR | O_EXCL },
	{ "directory", S_IFDIR | 0750, 0, NULL, 0 },
	{ "character device", S_IFCHR | 0600, MKDEV(4, 64), NULL, 0 },
	{ "fifo, server without statx", S_IFIFO | 0600, 0, NULL, 0, true },
	{ "symlink", S_IFLNK | 0777, 0, "target/of/it", 0 },
};

static void mkobj_case_desc(const struct mkobj_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(mkobj, mkobj_cases, mkobj_case_desc);

static void mkobj_args_carry_the_object_and_its_attributes(struct kunit *test)
{
	const struct mkobj_case *c = test->param_value;
	struct fk_ctx *ctx = fk_ctx_create(test, fk_serve_compliant);
	const struct qstr name = QSTR_INIT("obj", 3);
	struct fuse_mkobj *mo = kunit_kzalloc(test, sizeof(*mo), GFP_KERNEL);
	const struct fuse_mkobj_handle_in *in;
	struct fuse_args *a, *attr;
	size_t names = 4 + (c->link ? strlen(c->link) + 1 : 0);

	KUNIT_ASSERT_NOT_NULL(test, mo);
	ctx->fc->max_handle_sz = 32;
	ctx->fc->no_statx = c->no_statx;
	KUNIT_ASSERT_EQ(test, fuse_mkobj_args_fill(mo, ctx->fc, 9, &name,
						   c->mode, c->rdev, c->link,
						   c->open_flags), 0);
	a = &mo->hl.args[0];
	attr = &mo->hl.args[1];
	KUNIT_EXPECT_EQ(test, a->opcode, (u32)FUSE_MKOBJ_HANDLE);
	KUNIT_EXPECT_EQ(test, a->nodeid, 9ULL);
	/* the struct and the names: the third in-arg is the extensions' */
	KUNIT_ASSERT_EQ(test, a->in_numargs, 2);
	KUNIT_ASSERT_EQ(test, a->in_args[0].size, sizeof(*in));
	in = a->in_args[0].value;
	KUNIT_EXPECT_EQ(test, in->mode, (u32)c->mode);
	KUNIT_EXPECT_EQ(test, in->umask, (u32)current_umask());
	KUNIT_EXPECT_EQ(test, in->flags, c->open_flags);
	KUNIT_EXPECT_EQ(test, in->rdev, new_encode_dev(c->rdev));
	KUNIT_ASSERT_EQ(test, a->in_args[1].size, names);
	KUNIT_EXPECT_MEMEQ(test, a->in_args[1].value, "obj", 4);
	if (c->link)
		KUNIT_EXPECT_MEMEQ(test, a->in_args[1].value + 4, c->link,
				   strlen(c->link) + 1);
	/* the entry, then the handle: variable, as large as the server's */
	KUNIT_ASSERT_EQ(test, a->out_numargs, 2);
	KUNIT_EXPECT_EQ(test, a->out_args[0].size,
			sizeof(struct fuse_entry2_out));
	KUNIT_EXPECT_TRUE(test, a->out_argvar);
	KUNIT_EXPECT_EQ(test, a->out_argvar_idx, 1);
	KUNIT_EXPECT_EQ(test, a->out_args[1].size,
			sizeof(struct fuse_file_handle) + 32);
	/* the attributes of what op 0 made */
	KUNIT_EXPECT_EQ(test, attr->opcode,
			c->no_statx ? (u32)FUSE_GETATTR : (u32)FUSE_STATX);
	KUNIT_EXPECT_EQ(test, attr->nodeid, 0ULL);
	KUNIT_EXPECT_EQ(test, mo->hl.ops[0].dep_index, FUSE_COMPOUND_NO_DEP);
	KUNIT_EXPECT_EQ(test, mo->hl.ops[1].dep_index, 0);
	KUNIT_EXPECT_PTR_EQ(test, mo->hl.ops[1].args, attr);
	fuse_mkobj_args_free(mo);
}

static struct kunit_case handle_mkobj_test_cases[] = {
	KUNIT_CASE_PARAM(mkobj_args_carry_the_object_and_its_attributes,
			 mkobj_gen_params),
	{}
};

static struct kunit_suite handle_mkobj_suite = {
	.name = "fuse_handle_mkobj",
	.test_cases = handle_mkobj_test_cases,
};

/* --- LOOKUP_HANDLE as a dependency producer --- */

struct lookup_handle_batch {
	struct fuse_entry2_out entry;
	u8 fh_buf[sizeof(struct fuse_file_handle) + FUSE_MAX_HANDLE_SZ];
	struct fuse_getattr_in getattr_in;
	struct fuse_attr_out attr;
	struct fuse_args args[2];
	int errors[2];
	struct fuse_compound_op ops[2];
	int ret;		/* of fuse_compound_send() */
};

/* LOOKUP_HANDLE of "child" in the root, then GETATTR of what it found */
static struct lookup_handle_batch *send_lookup_handle(struct kunit *test,
						      struct fk_ctx *ctx)
{
	struct lookup_handle_batch *b = kunit_kzalloc(test, sizeof(*b),
						      GFP_KERNEL);
	struct fuse_args *lh;

	KUNIT_ASSERT_NOT_NULL(test, b);
	lh = &b->args[0];
	lh->opcode = FUSE_LOOKUP_HANDLE;
	lh->nodeid = FUSE_ROOT_ID;
	lh->in_numargs = 1;
	lh->in_args[0].size = sizeof("child");
	lh->in_args[0].value = "child";
	lh->out_numargs = 2;
	lh->out_args[0].size = sizeof(b->entry);
	lh->out_args[0].value = &b->entry;
	lh->out_args[1].size = sizeof(b->fh_buf);
	lh->out_args[1].value = b->fh_buf;
	lh->out_argvar = true;
	lh->out_argvar_idx = 1;
	lh->out_handle = true;
	fuse_getattr_args_fill(&b->args[1], 0, &b->getattr_in, &b->attr);
	b->ops[0] = (struct fuse_compound_op){ .args = lh,
		.error = &b->errors[0], .dep_index = FUSE_COMPOUND_NO_DEP };
	b->ops[1] = (struct fuse_compound_op){ .args = &b->args[1],
		.error = &b->errors[1], .dep_index = 0 };

	b->ret = fuse_compound_send(ctx->fm, b->ops, 2);
	return b;
}

static void expect_lookup_handle_served(struct kunit *test,
					struct lookup_handle_batch *b)
{
	const struct fuse_file_handle *fh = (const void *)b->fh_buf;
	size_t fh_len = sizeof(*fh) + sizeof(FK_HANDLE) - 1;

	KUNIT_EXPECT_EQ(test, b->ret, 0);
	KUNIT_EXPECT_EQ(test, b->errors[0], 0);
	KUNIT_EXPECT_EQ(test, b->errors[1], 0);
	KUNIT_EXPECT_EQ(test, b->entry.nodeid, (u64)FK_CHILD_NODEID);
	/* the handle, the variable out-arg, shrank to what the reply held */
	KUNIT_EXPECT_EQ(test, b->args[0].out_args[1].size, fh_len);
	KUNIT_EXPECT_EQ(test, fh->size, sizeof(FK_HANDLE) - 1);
	KUNIT_EXPECT_MEMEQ(test, fh->handle, FK_HANDLE, fh->size);
	/* the GETATTR was of the node found */
	KUNIT_EXPECT_EQ(test, b->attr.attr.ino, (u64)FK_CHILD_NODEID);
}

static void dep_lookup_handle_in_the_fallback(struct kunit *test)
{
	struct fk_ctx *ctx = fk_ctx_refusing(test, FK_UNKNOWN_OPCODE);
	struct lookup_handle_batch *b = send_lookup_handle(test, ctx);

	expect_lookup_handle_served(test, b);
	KUNIT_ASSERT_EQ(test, fk_count(ctx, FUSE_GETATTR, false), 1U);
	KUNIT_EXPECT_EQ(test, fk_find(ctx, FUSE_GETATTR, 0)->nodeid,
			(u64)FK_CHILD_NODEID);
}

static void dep_lookup_handle_in_a_compound(struct kunit *test)
{
	struct fk_ctx *ctx = fk_ctx_create(test, fk_serve_compliant);
	struct lookup_handle_batch *b = send_lookup_handle(test, ctx);

	expect_lookup_handle_served(test, b);
	KUNIT_EXPECT_EQ(test, ctx->nrequests, 1U);
	KUNIT_EXPECT_EQ(test, fk_count(ctx, FUSE_GETATTR, true), 1U);
}

/*
 * handle_size_mismatch: a handle that claims one byte more than its reply
 * gives it.  Where it lies: after the outer header, and in a compound
 * after compound_out and the subreply's header; then after the entry.
 */
#define FH_SINGLE	(sizeof(struct fuse_out_header) + \
			 sizeof(struct fuse_entry2_out))
#define FH_COMPOUND	(FH_SINGLE + sizeof(struct fuse_compound_out) + \
			 sizeof(struct fuse_out_header))

static size_t serve_handle_size_mismatch(struct fk_ctx *ctx, const u8 *req,
					 size_t len, u8 *reply)
{
	const struct fuse_in_header *ih = (const void *)req;
	size_t n;

	if (ih->opcode == FUSE_COMPOUND && *(bool *)ctx->priv)
		return fk_reply_simple(reply, ih->unique, -ENOSYS, NULL, 0);
	n = fk_serve_compliant(ctx, req, len, reply);
	if (ih->opcode == FUSE_COMPOUND)
		((struct fuse_file_handle *)(reply + FH_COMPOUND))->size++;
	else if (ih->opcode == FUSE_LOOKUP_HANDLE)
		((struct fuse_file_handle *)(reply + FH_SINGLE))->size++;
	return n;
}

static const bool handle_paths[] = { false, true };

static void handle_path_desc(const bool *fallback, char *desc)
{
	strscpy(desc, *fallback ? "fallback" : "compound",
		KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(handle_path, handle_paths, handle_path_desc);

static void handle_size_mismatch_is_a_malformed_reply(struct kunit *test)
{
	struct fk_ctx *ctx = fk_ctx_create(test, serve_handle_size_mismatch);
	const bool *fallback = test->param_value;
	struct lookup_handle_batch *b;

	ctx->priv = (void *)test->param_value;
	b = send_lookup_handle(test, ctx);
	KUNIT_EXPECT_EQ(test, b->ret, *fallback ? 0 : -EIO);
	KUNIT_EXPECT_EQ(test, ctx->write_err, -EINVAL);
	/*
	 * The entry was read before the handle: in a compound its status says
	 * so (0), for its caller to give it back; alone, the request failed
	 */
	KUNIT_EXPECT_EQ(test, b->errors[0], *fallback ? -EIO : 0);
	KUNIT_EXPECT_EQ(test, b->entry.nodeid, (u64)FK_CHILD_NODEID);
}

/*
 * A lookup by handle costs one round trip only in a compound: where the
 * server does not run them, the fallback does not send LOOKUP_HANDLE and
 * its attribute op alone (the caller sends a classic LOOKUP instead)
 */
static void handle_lookup_is_never_sent_alone(struct kunit *test)
{
	struct fk_ctx *ctx = fk_ctx_refusing(test, FK_UNKNOWN_OPCODE);
	const struct qstr name = QSTR_INIT("child", 5);
	struct fuse_handle_lookup *hl;

	hl = kunit_kzalloc(test, sizeof(*hl), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, hl);
	ctx->fc->max_handle_sz = 16;
	fuse_handle_lookup_init(hl, ctx->fc, FUSE_ROOT_ID, &name);
	KUNIT_EXPECT_EQ(test, fuse_compound_send(ctx->fm, hl->ops, 2), 0);
	KUNIT_EXPECT_EQ(test, hl->errors[0], -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, hl->errors[1], -EOPNOTSUPP);
	/* the refused compound, nothing after it */
	KUNIT_EXPECT_EQ(test, ctx->nrequests, 1U);
	KUNIT_EXPECT_EQ(test, fk_count(ctx, FUSE_LOOKUP_HANDLE, false), 0U);
	KUNIT_EXPECT_TRUE(test, ctx->fc->no_compound);
}

static struct kunit_case handle_dep_test_cases[] = {
	KUNIT_CASE_PARAM(handle_size_mismatch_is_a_malformed_reply,
			 handle_path_gen_params),
	KUNIT_CASE(dep_lookup_handle_in_the_fallback),
	KUNIT_CASE(dep_lookup_handle_in_a_compound),
	KUNIT_CASE(handle_lookup_is_never_sent_alone),
	{}
};

static struct kunit_suite handle_dep_suite = {
	.name = "fuse_handle_dep",
	.test_cases = handle_dep_test_cases,
};

kunit_test_suites(&handle_check_suite, &handle_inode_suite, &handle_ext_suite,
		  &handle_mkobj_suite, &handle_dep_suite);
