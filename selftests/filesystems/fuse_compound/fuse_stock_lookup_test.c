// SPDX-License-Identifier: GPL-2.0
/*
 * What stock FUSE already protects in name lookup: the LOOKUP replies of
 * a new name, of a dentry being revalidated, of a nodeid the kernel
 * already has an inode for, and of the "." a file handle is opened by.
 * Each variant is named after its row of docs/stock-checks.md (sections
 * "dir.c" and "inode.c") and states the broken exchange: which reply is
 * changed and how, and what the caller and the requests that follow must
 * show.  These tests pass on any kernel that keeps those checks, with or
 * without compounds (a revalidation is then a LOOKUP + GETATTR compound,
 * and the edits below break its LOOKUP subreply the same way), and fail
 * when one of them is removed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "../../kselftest_harness.h"
#include "fuse_test.h"

/* --- the exchange kit: how a test breaks the replies its server sends --- */

/* sh->nodeid: a nodeid the test learned (st_ino) */
#include "reply_edit.h"

static void make_entry(struct fuse_entry_out *e, uint64_t nodeid,
		       uint64_t generation, uint32_t mode, uint64_t size)
{
	*e = (struct fuse_entry_out){
		.nodeid = nodeid, .generation = generation,
		.entry_valid = LONG, .attr_valid = LONG,
		.attr = { .ino = nodeid, .mode = mode, .size = size,
			  .nlink = 1, .blksize = 4096 },
	};
}

static bool is_lookup_of(const struct op *op, const char *name)
{
	return op->opcode == FUSE_LOOKUP && !strcmp(op->arg, name);
}


/* The edit of a fixture: @f##_op on every operation a reply answers */
#define EDIT_OF(f)							\
static void f##_edit(const struct srv_config *cfg,			\
		     const struct fuse_in_header *req, struct srv_reply *r) \
{									\
	for_each_op(cfg, req, r, f##_op);				\
}

/* LOOKUPs since record @from, sent alone or inside a compound */
static unsigned int lookups_since(struct mnt *m, unsigned int from)
{
	return count_since(m, from, FUSE_LOOKUP, false) +
	       count_since(m, from, FUSE_LOOKUP, true);
}

static int stat_errno(struct mnt *m, const char *name)
{
	struct stat st;

	return stat(path(m, name), &st) ? errno : 0;
}

/*
 * FORGETs the server read after the first request logged at @from: the
 * core does not log them (and were it to, they are skipped here), but each
 * took a unique of its own (fuse_read_single_forget(),
 * fuse_read_batch_forget()): they are the uniques no other request has.  A FORGET can wait behind up to 8
 * requests (forget_batch in fuse_dev_do_read()): 20 STATFS round trips
 * make sure it has been read before the last one is sent.
 */
static unsigned int forgets_since(struct mnt *m, unsigned int from)
{
	const struct srv_record *a = NULL, *b = NULL, *rec;
	unsigned int i, logged = 0;
	struct statfs sfs;

	for (i = 0; i < 20; i++)
		if (statfs(m->dir, &sfs))
			return ~0u;
	for (i = from; i < nreq(m); i++) {
		rec = &m->log->rec[i];
		if (rec->sub || rec->opcode == FUSE_INTERRUPT ||
		    rec->opcode == SRV_RAW_WRITE || rec->opcode == FUSE_FORGET ||
		    rec->opcode == FUSE_BATCH_FORGET)
			continue;
		if (!a)
			a = rec;
		else
			logged++;
		b = rec;
	}
	if (!a || a == b)
		return ~0u;
	return (b->unique - a->unique) / 2 - logged;
}

/* --- a new name: fuse_lookup_name(), fuse_lookup(), fuse_iget() --- */

/*
 * stat() of "x", a name nobody looked up, is answered by the entry the
 * variant describes instead of ENOENT.  Then the test looks again, at the
 * root, and has the server tell the kernel to forget the root's attributes
 * (FUSE_NOTIFY_INVAL_INODE for nodeid 1): that works as long as the root
 * inode is the one in the inode hash.
 */
FIXTURE(lookup_reply) {
	struct mnt m;
	struct shared *sh;
};

FIXTURE_VARIANT(lookup_reply) {
	uint64_t nodeid, generation;
	uint32_t mode;
	uint64_t size;
	int stat_errno;
	unsigned int relookups;	/* LOOKUPs of a second stat("x") */
	bool root_bad;		/* stat(mnt) -> EIO afterwards */
	unsigned int kept;	/* lookups of the nodeid read and never
				 * given back (the books, at the end) */
};

/* nodeid 0 is a negative entry, cached for its entry_valid */
FIXTURE_VARIANT_ADD(lookup_reply, lookup_nodeid_zero) {
	.nodeid = 0, .mode = S_IFREG | 0644, .stat_errno = ENOENT,
};
/* a size above LLONG_MAX, and no file type: fuse_invalid_attr() */
FIXTURE_VARIANT_ADD(lookup_reply, lookup_invalid_attr) {
	.nodeid = 40, .generation = 1, .mode = S_IFREG | 0644,
	.size = 1ULL << 63, .stat_errno = EIO, .relookups = 1, .kept = 2,
};
FIXTURE_VARIANT_ADD(lookup_reply, lookup_invalid_attr_no_type) {
	.nodeid = 40, .mode = 0644, .stat_errno = EIO, .relookups = 1,
	.kept = 2,
};
/* ... S_IFMT bits that name no type, the largest size */
FIXTURE_VARIANT_ADD(lookup_reply, lookup_invalid_attr_invalid_type) {
	.nodeid = 40, .mode = 0170644, .stat_errno = EIO, .relookups = 1,
	.kept = 2,
};
FIXTURE_VARIANT_ADD(lookup_reply, lookup_invalid_attr_u64_max) {
	.nodeid = 40, .generation = 1, .mode = S_IFREG | 0644,
	.size = ~0ULL, .stat_errno = EIO, .relookups = 1, .kept = 2,
};
/* ... LLONG_MAX is a size: the entry is taken and cached */
FIXTURE_VARIANT_ADD(lookup_reply, lookup_invalid_attr_but_llong_max_is_taken) {
	.nodeid = 40, .generation = 1, .mode = S_IFREG | 0644,
	.size = 0x7fffffffffffffffULL, .stat_errno = 0, .relookups = 0,
};
/* the root under another name: its generation is taken as 0 */
FIXTURE_VARIANT_ADD(lookup_reply, lookup_root_generation) {
	.nodeid = FUSE_ROOT_ID, .generation = 7, .mode = S_IFDIR | 0755,
	.stat_errno = EIO, .relookups = 1,
};
FIXTURE_VARIANT_ADD(lookup_reply, lookup_root_nodeid) {
	.nodeid = FUSE_ROOT_ID, .mode = S_IFDIR | 0755, .stat_errno = EIO,
	.relookups = 1,
};
/* the root as a regular file: marked bad, but never replaced */
FIXTURE_VARIANT_ADD(lookup_reply, iget_stale_root) {
	.nodeid = FUSE_ROOT_ID, .mode = S_IFREG | 0644, .stat_errno = EIO,
	.root_bad = true,
};

static void lookup_reply_op(struct shared *sh, struct srv_reply *r,
			    const struct op *op)
{
	const FIXTURE_VARIANT(lookup_reply) *v = sh->variant;
	struct fuse_notify_inval_inode_out inval = { .ino = FUSE_ROOT_ID };
	struct fuse_entry_out e;

	if (is_lookup_of(op, "x")) {
		make_entry(&e, v->nodeid, v->generation, v->mode, v->size);
		op_answer(r, op, 0, &e, sizeof(e));
		EDITED(sh);
	} else if (op->opcode == FUSE_STATFS) {
		srv_write_notify(r, FUSE_NOTIFY_INVAL_INODE, &inval,
				 sizeof(inval));
	}
}

EDIT_OF(lookup_reply)

FIXTURE_SETUP(lookup_reply)
{
	self->sh = mnt_start_edited(&self->m, srv_cfg(SRV_COMPLIANT, LONG, LONG),
				    variant, lookup_reply_edit);
	ASSERT_NE(NULL, self->sh);
}

FIXTURE_TEARDOWN(lookup_reply)
{
	mnt_stop(_metadata, &self->m);
}

TEST_F(lookup_reply, the_entry_is_refused_and_the_root_keeps_its_inode)
{
	const struct srv_record *raw;
	struct statfs sfs;
	unsigned int from;

	/* each stat("x") reads the entry and refuses it */
	if (variant->kept)
		books_expect_kept(&self->m, variant->nodeid, variant->kept,
				  "stock: fuse_lookup_name() reads the entry, refuses its attributes (fuse_invalid_attr()) and sends no FORGET");
	EXPECT_EQ(variant->stat_errno, stat_errno(&self->m, "x"));
	ASSERT_EQ(1, LOAD(self->sh->edits));
	from = nreq(&self->m);
	EXPECT_EQ(variant->stat_errno, stat_errno(&self->m, "x"));
	EXPECT_EQ(variant->relookups, lookups_since(&self->m, from));
	EXPECT_EQ(variant->root_bad ? EIO : 0, stat_errno(&self->m, ""));

	/* the notification is written before the STATFS is answered */
	ASSERT_EQ(0, statfs(self->m.dir, &sfs));
	raw = srv_log_find_raw(self->m.log, 0);
	ASSERT_NE(NULL, raw);
	EXPECT_EQ(0, raw->write_errno);
}

/* --- revalidation: fuse_dentry_revalidate(), and fuse_iget() after it --- */

/*
 * "file" is looked up and held (an O_PATH fd keeps its dentry and inode),
 * with entry_valid 0: the next path walk revalidates it.  From then on the
 * LOOKUPs of the variant's name are answered as the variant says.
 */
enum change {
	SET_NODEID, SET_GENERATION, SET_SUBMOUNT, SET_SIZE, SET_ERROR, SET_MODE,
	FILE_WITH_GENERATION,	/* an entry for the held nodeid */
	DIR_WITH_GENERATION,	/* ... that says it is a directory */
};

FIXTURE(revalidate) {
	struct mnt m;
	struct shared *sh;
	int held;		/* O_PATH fd of "file" */
};

FIXTURE_VARIANT(revalidate) {
	const char *name;	/* what stat() walks to */
	enum change change;
	uint64_t value;
	int stat_errno;
	unsigned int lookups;	/* LOOKUPs that stat() sends */
	int forgets;		/* -1: any; else 0, or at least one */
	bool held_bad;		/* fstat(held) -> EIO */
	unsigned int kept;	/* lookups of "file" read and never given
				 * back (the books, at the end) */
};

/* nodeid 0 is ENOENT: the dentry is dropped, nothing to forget */
FIXTURE_VARIANT_ADD(revalidate, revalidate_nodeid_zero) {
	.name = "file", .change = SET_NODEID, .value = 0,
	.stat_errno = ENOENT, .lookups = 2, .forgets = 0,
};
/* another nodeid: the new one is forgotten and looked up afresh */
FIXTURE_VARIANT_ADD(revalidate, revalidate_nodeid_change) {
	.name = "file", .change = SET_NODEID, .value = 100, .lookups = 2,
	.forgets = 1,
};
/* a submount flag on a plain mount (no auto_submounts): the same */
FIXTURE_VARIANT_ADD(revalidate, revalidate_submount_flag) {
	.name = "file", .change = SET_SUBMOUNT, .lookups = 2, .forgets = 1,
};
/* EINTR and ENOMEM are the caller's, and the dentry stays */
FIXTURE_VARIANT_ADD(revalidate, revalidate_eintr_enomem) {
	.name = "file", .change = SET_ERROR, .value = -EINTR,
	.stat_errno = EINTR, .lookups = 1, .forgets = 0,
};
FIXTURE_VARIANT_ADD(revalidate, revalidate_eintr_enomem_as_enomem) {
	.name = "file", .change = SET_ERROR, .value = -ENOMEM,
	.stat_errno = ENOMEM, .lookups = 1, .forgets = 0,
};
/* ... any other error drops the dentry: a fresh LOOKUP, answered the same */
FIXTURE_VARIANT_ADD(revalidate, revalidate_eintr_enomem_but_eio_drops_it) {
	.name = "file", .change = SET_ERROR, .value = -EIO,
	.stat_errno = EIO, .lookups = 2, .forgets = 0,
};
/* a size above LLONG_MAX: dropped, and the fresh lookup refuses it */
FIXTURE_VARIANT_ADD(revalidate, revalidate_invalid_attr) {
	.name = "file", .change = SET_SIZE, .value = 1ULL << 63,
	.stat_errno = EIO, .lookups = 2, .forgets = -1, .kept = 1,
};
FIXTURE_VARIANT_ADD(revalidate, revalidate_invalid_attr_u64_max) {
	.name = "file", .change = SET_SIZE, .value = ~0ULL,
	.stat_errno = EIO, .lookups = 2, .forgets = -1, .kept = 1,
};
/* ... LLONG_MAX is a size: the dentry stays */
FIXTURE_VARIANT_ADD(revalidate, revalidate_invalid_attr_but_llong_max_is_taken) {
	.name = "file", .change = SET_SIZE, .value = 0x7fffffffffffffffULL,
	.stat_errno = 0, .lookups = 1, .forgets = 0,
};
/* a new generation: dropped; fuse_iget() then retires the old inode */
FIXTURE_VARIANT_ADD(revalidate, revalidate_stale_inode) {
	.name = "file", .change = SET_GENERATION, .value = 2, .lookups = 2,
	.forgets = -1, .held_bad = true,
};
/* ... another type: the same */
FIXTURE_VARIANT_ADD(revalidate, revalidate_stale_inode_type) {
	.name = "file", .change = SET_MODE, .value = S_IFDIR | 0755, .lookups = 2,
	.forgets = -1, .held_bad = true,
};
/* ... the same generation: the dentry and the inode stay */
FIXTURE_VARIANT_ADD(revalidate, revalidate_stale_inode_but_the_same_generation_stays) {
	.name = "file", .change = SET_GENERATION, .value = 1, .lookups = 1,
	.forgets = 0,
};
/* no revalidation: another name finds the held nodeid, generation 2 */
FIXTURE_VARIANT_ADD(revalidate, iget_stale_inode) {
	.name = "alias", .change = FILE_WITH_GENERATION, .value = 2,
	.lookups = 1, .forgets = -1, .held_bad = true,
};
/* ... or generation 1 and another type */
FIXTURE_VARIANT_ADD(revalidate, iget_stale_inode_type) {
	.name = "alias", .change = DIR_WITH_GENERATION, .value = 1,
	.lookups = 1, .forgets = -1, .held_bad = true,
};
/* ... generation 1, the same type: a hard link to the held inode */
FIXTURE_VARIANT_ADD(revalidate, iget_stale_inode_but_the_same_one_is_linked) {
	.name = "alias", .change = FILE_WITH_GENERATION, .value = 1,
	.lookups = 1, .forgets = 0,
};

static void revalidate_op(struct shared *sh, struct srv_reply *r,
			  const struct op *op)
{
	const FIXTURE_VARIANT(revalidate) *v = sh->variant;
	struct fuse_out_header *oh = op_out(r, op);
	struct fuse_entry_out *e = (void *)(oh + 1);
	struct fuse_entry_out new;

	/* a compound's GETATTR is of the node its LOOKUP found: the same */
	if (LOAD(sh->phase) && op->opcode == FUSE_GETATTR && op->idx > 0 &&
	    !oh->error && v->change == SET_NODEID && v->value)
		((struct fuse_attr_out *)(oh + 1))->attr.ino = v->value;
	if (!LOAD(sh->phase) || !is_lookup_of(op, v->name))
		return;
	EDITED(sh);
	if (v->change == SET_ERROR) {
		op_answer(r, op, v->value, NULL, 0);
		return;
	}
	if (v->change == FILE_WITH_GENERATION || v->change == DIR_WITH_GENERATION) {
		make_entry(&new, sh->nodeid, v->value,
			   v->change == DIR_WITH_GENERATION ? S_IFDIR | 0755 :
							     S_IFREG | 0644, 6);
		op_answer(r, op, 0, &new, sizeof(new));
		return;
	}
	if (oh->error)
		return;
	if (v->change == SET_NODEID)
		e->nodeid = e->attr.ino = v->value;
	else if (v->change == SET_GENERATION)
		e->generation = v->value;
	else if (v->change == SET_SUBMOUNT)
		e->attr.flags |= FUSE_ATTR_SUBMOUNT;
	else if (v->change == SET_SIZE)
		e->attr.size = v->value;
	else if (v->change == SET_MODE)
		e->attr.mode = v->value;
}

EDIT_OF(revalidate)

FIXTURE_SETUP(revalidate)
{
	struct stat st;

	self->sh = mnt_start_edited(&self->m, srv_cfg(SRV_COMPLIANT, 0, LONG),
				    variant, revalidate_edit);
	ASSERT_NE(NULL, self->sh);
	self->held = open(path(&self->m, "file"), O_PATH);
	ASSERT_LE(0, self->held);
	ASSERT_EQ(0, fstat(self->held, &st));
	self->sh->nodeid = st.st_ino;
}

FIXTURE_TEARDOWN(revalidate)
{
	close(self->held);
	mnt_stop(_metadata, &self->m);
}

TEST_F(revalidate, the_reply_decides_whether_the_dentry_and_inode_stay)
{
	unsigned int from = nreq(&self->m), forgets;
	struct stat st;

	/* the revalidation's entry counts; the fresh lookup's is refused */
	if (variant->kept)
		books_expect_kept(&self->m, self->sh->nodeid, variant->kept,
				  "stock: fuse_lookup_name() reads the entry, refuses its attributes (fuse_invalid_attr()) and sends no FORGET");
	STORE(self->sh->phase, 1);
	EXPECT_EQ(variant->stat_errno, stat_errno(&self->m, variant->name));
	ASSERT_LT(0, LOAD(self->sh->edits));
	EXPECT_EQ(variant->lookups, lookups_since(&self->m, from));
	forgets = forgets_since(&self->m, from);
	ASSERT_NE(~0u, forgets);
	if (variant->forgets >= 0) {
		EXPECT_EQ(variant->forgets, forgets > 0);
	}
	if (variant->change == SET_NODEID && variant->value) {
		ASSERT_EQ(0, stat(path(&self->m, variant->name), &st));
		EXPECT_EQ(variant->value, st.st_ino);
	}
	EXPECT_EQ(variant->held_bad ? -1 : 0, fstat(self->held, &st));
	if (variant->held_bad) {
		EXPECT_EQ(EIO, errno);
	} else {
		EXPECT_EQ(self->sh->nodeid, st.st_ino);
	}
}

/* --- a bad inode's dentry: fuse_dentry_revalidate() --- */

/*
 * "dir" (entry_valid long, attr_valid 0) turns into a regular file on the
 * server: the GETATTR of the next stat() makes its inode bad, and the
 * stat() after that must look the name up again and find the file.
 */
FIXTURE(bad_inode) {
	struct mnt m;
	struct shared *sh;
};

static void bad_inode_op(struct shared *sh, struct srv_reply *r,
			 const struct op *op)
{
	struct fuse_out_header *oh = op_out(r, op);

	if (!LOAD(sh->phase) || oh->error)
		return;
	if (is_lookup_of(op, "dir")) {
		((struct fuse_entry_out *)(oh + 1))->attr.mode = S_IFREG | 0644;
		EDITED(sh);
	} else if (op->opcode == FUSE_GETATTR && op->nodeid == sh->nodeid) {
		((struct fuse_attr_out *)(oh + 1))->attr.mode = S_IFREG | 0644;
		EDITED(sh);
	}
}

EDIT_OF(bad_inode)

FIXTURE_SETUP(bad_inode)
{
	struct stat st;

	self->sh = mnt_start_edited(&self->m, srv_cfg(SRV_COMPLIANT, LONG, 0),
				    NULL, bad_inode_edit);
	ASSERT_NE(NULL, self->sh);
	ASSERT_EQ(0, stat(path(&self->m, "dir"), &st));
	self->sh->nodeid = st.st_ino;
}

FIXTURE_TEARDOWN(bad_inode)
{
	mnt_stop(_metadata, &self->m);
}

/* revalidate-bad-inode */
TEST_F(bad_inode, revalidate_bad_inode)
{
	unsigned int from;
	struct stat st;

	STORE(self->sh->phase, 1);
	EXPECT_EQ(EIO, stat_errno(&self->m, "dir"));
	ASSERT_EQ(1, LOAD(self->sh->edits));
	from = nreq(&self->m);
	ASSERT_EQ(0, stat(path(&self->m, "dir"), &st));
	EXPECT_TRUE(S_ISREG(st.st_mode));
	EXPECT_EQ(1, lookups_since(&self->m, from));
}

/* --- export: fuse_get_dentry() after the inode was evicted --- */

/*
 * A handle of "file" is made, the caches are dropped (the inode goes, the
 * kernel forgets the nodeid), and open_by_handle_at() makes the kernel ask
 * for the nodeid again: LOOKUP(nodeid, "."), answered as the variant says.
 * open_by_handle_at() reports every failure but ENOMEM as ESTALE
 * (do_handle_to_path()).
 */
FIXTURE(export) {
	struct mnt m;
	struct shared *sh;
};

FIXTURE_VARIANT(export) {
	int error;
	uint64_t nodeid, generation;
	int open_errno;
};

FIXTURE_VARIANT_ADD(export, export_handle_opens_control) {
	.open_errno = 0,
};
/* another nodeid: EIO, as ESTALE */
FIXTURE_VARIANT_ADD(export, export_nodeid_mismatch) {
	.nodeid = 100, .open_errno = ESTALE,
};
FIXTURE_VARIANT_ADD(export, export_generation_mismatch) {
	.generation = 3, .open_errno = ESTALE,
};
/* ... 2, one more than the handle's 1 */
FIXTURE_VARIANT_ADD(export, export_generation_mismatch_by_one) {
	.generation = 2, .open_errno = ESTALE,
};
/* an error other than ENOENT is the caller's: ENOMEM shows it */
FIXTURE_VARIANT_ADD(export, export_lookup_error) {
	.error = -ENOMEM, .open_errno = ENOMEM,
};

static void export_op(struct shared *sh, struct srv_reply *r,
		      const struct op *op)
{
	const FIXTURE_VARIANT(export) *v = sh->variant;
	struct fuse_out_header *oh = op_out(r, op);
	struct fuse_entry_out *e = (void *)(oh + 1);

	if (!is_lookup_of(op, ".") || oh->error)
		return;
	EDITED(sh);
	if (v->error)
		op_answer(r, op, v->error, NULL, 0);
	else if (v->nodeid)
		e->nodeid = e->attr.ino = v->nodeid;
	else if (v->generation)
		e->generation = v->generation;
}

EDIT_OF(export)

FIXTURE_SETUP(export)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG, LONG);

	cfg.export_support = true;
	self->sh = mnt_start_edited(&self->m, cfg, variant, export_edit);
	ASSERT_NE(NULL, self->sh);
}

FIXTURE_TEARDOWN(export)
{
	mnt_stop(_metadata, &self->m);
}

TEST_F(export, a_handle_opens_only_the_node_it_names)
{
	struct file_handle *fh = calloc(1, sizeof(*fh) + MAX_HANDLE_SZ);
	int mount_id, mount_fd, fd, drop;

	ASSERT_NE(NULL, fh);
	fh->handle_bytes = MAX_HANDLE_SZ;
	ASSERT_EQ(0, name_to_handle_at(AT_FDCWD, path(&self->m, "file"), fh,
				       &mount_id, 0));
	drop = open("/proc/sys/vm/drop_caches", O_WRONLY);
	ASSERT_LE(0, drop);
	ASSERT_EQ(2, write(drop, "2\n", 2));
	close(drop);
	mount_fd = open(self->m.dir, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, mount_fd);
	fd = open_by_handle_at(mount_fd, fh, O_RDONLY);
	EXPECT_EQ(variant->open_errno, fd < 0 ? errno : 0);
	EXPECT_EQ(1, LOAD(self->sh->edits));
	if (fd >= 0)
		close(fd);
	close(mount_fd);
	free(fh);
}

TEST_HARNESS_MAIN
