// SPDX-License-Identifier: GPL-2.0
/*
 * What stock FUSE already protects when names come and go: the replies
 * to CREATE, MKNOD, MKDIR, SYMLINK and LINK, the errors of UNLINK, RMDIR,
 * RENAME and LINK that leave the dcache in doubt, the ENOSYS answers of
 * CREATE, TMPFILE, RENAME2, LINK and FSYNCDIR, and the server's
 * notifications that drop entries (FUSE_NOTIFY_INVAL_ENTRY, _DELETE).
 * Each variant is named after its row of docs/stock-checks.md (sections
 * "dir.c" and "ENOSYS translations") and states the broken exchange: which
 * reply is changed and how, and what the caller, the server's write and
 * the next path walk must show.  They pass on any kernel that keeps those
 * checks, with or without compounds, and fail when one is removed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "../../kselftest_harness.h"
#include "fuse_test.h"

/* --- the exchange kit: how a test breaks the replies its server sends --- */

/* sh->nodeid: a nodeid the test learned (st_ino); child: another one */
#define SHARED_EXTRA	uint64_t child;
#include "reply_edit.h"

/*
 * The edit (@f##_op on every operation a reply answers), setup and
 * teardown of a fixture { struct mnt m; struct shared *sh; } whose server
 * has the given timeouts.
 */
#define EDITED_SERVER(f, entry, attr)					\
static void f##_edit(const struct srv_config *cfg,			\
		     const struct fuse_in_header *req, struct srv_reply *r) \
{									\
	for_each_op(cfg, req, r, f##_op);				\
}									\
FIXTURE_SETUP(f)							\
{									\
	self->sh = mnt_start_edited(&self->m,				\
			srv_cfg(SRV_COMPLIANT, entry, attr), variant, f##_edit); \
	ASSERT_NE(NULL, self->sh);					\
}									\
FIXTURE_TEARDOWN(f)							\
{									\
	mnt_stop(_metadata, &self->m);						\
}

static int stat_errno(struct mnt *m, const char *name)
{
	struct stat st;

	return stat(path(m, name), &st) ? errno : 0;
}

/* The calls that make or remove a name; 0 or their errno */
enum call {
	DO_CREATE, DO_MKDIR, DO_SYMLINK, DO_UNLINK, DO_RMDIR, DO_RENAME,
	DO_LINK, DO_TMPFILE, DO_RENAME_NOREPLACE, DO_FSYNCDIR,
};

static int call(struct mnt *m, enum call c, const char *name, const char *to)
{
	int fd = -1, ret = 0;

	switch (c) {
	case DO_CREATE:
		fd = open(path(m, name), O_CREAT | O_WRONLY, 0644);
		break;
	case DO_MKDIR:
		return mkdir(path(m, name), 0755) ? errno : 0;
	case DO_SYMLINK:
		return symlink("file", path(m, name)) ? errno : 0;
	case DO_UNLINK:
		return unlink(path(m, name)) ? errno : 0;
	case DO_RMDIR:
		return rmdir(path(m, name)) ? errno : 0;
	case DO_RENAME:
		return rename(path(m, name), path(m, to)) ? errno : 0;
	case DO_LINK:
		return link(path(m, name), path(m, to)) ? errno : 0;
	case DO_RENAME_NOREPLACE:
		return renameat2(AT_FDCWD, path(m, name), AT_FDCWD, path(m, to),
				 RENAME_NOREPLACE) ? errno : 0;
	case DO_TMPFILE:
		fd = open(m->dir, O_TMPFILE | O_RDWR, 0600);
		break;
	case DO_FSYNCDIR:
		fd = open(path(m, name), O_RDONLY | O_DIRECTORY);
		if (fd >= 0 && fsync(fd))
			ret = errno;
		break;
	}
	if (fd < 0)
		return errno;
	close(fd);
	return ret;
}

/* --- a new entry: fuse_create_open(), create_new_entry() --- */

/*
 * The variant's call makes "new"; the server does make it, but its reply
 * is changed as the variant says.  The call must fail with EIO and leave
 * no dentry: the next stat("new") looks it up.
 */
enum field { NODEID, MODE, SIZE };
#define BIG	(1ULL << 63)	/* above LLONG_MAX: fuse_valid_size() */

FIXTURE(new_entry) {
	struct mnt m;
	struct shared *sh;
};

FIXTURE_VARIANT(new_entry) {
	enum call call;
	uint32_t opcode;
	enum field field;
	uint64_t value;
};

/* CREATE: a regular file, a real nodeid, valid attributes */
FIXTURE_VARIANT_ADD(new_entry, create_not_regular) {
	.call = DO_CREATE, .opcode = FUSE_CREATE, .field = MODE, .value = S_IFDIR,
};
/* ... a symlink, another type than the directory */
FIXTURE_VARIANT_ADD(new_entry, create_not_regular_symlink) {
	.call = DO_CREATE, .opcode = FUSE_CREATE, .field = MODE, .value = S_IFLNK,
};
FIXTURE_VARIANT_ADD(new_entry, create_invalid_nodeid) {
	.call = DO_CREATE, .opcode = FUSE_CREATE, .field = NODEID, .value = 0,
};
/* ... the root's, the other invalid nodeid */
FIXTURE_VARIANT_ADD(new_entry, create_invalid_nodeid_root) {
	.call = DO_CREATE, .opcode = FUSE_CREATE, .field = NODEID,
	.value = FUSE_ROOT_ID,
};
FIXTURE_VARIANT_ADD(new_entry, create_invalid_attr) {
	.call = DO_CREATE, .opcode = FUSE_CREATE, .field = SIZE, .value = BIG,
};
FIXTURE_VARIANT_ADD(new_entry, create_invalid_attr_u64_max) {
	.call = DO_CREATE, .opcode = FUSE_CREATE, .field = SIZE, .value = ~0ULL,
};
/* MKDIR, MKNOD, SYMLINK, LINK: the same, and the type asked for */
FIXTURE_VARIANT_ADD(new_entry, newentry_invalid_nodeid) {
	.call = DO_MKDIR, .opcode = FUSE_MKDIR, .field = NODEID, .value = 0,
};
FIXTURE_VARIANT_ADD(new_entry, newentry_invalid_nodeid_root) {
	.call = DO_MKDIR, .opcode = FUSE_MKDIR, .field = NODEID,
	.value = FUSE_ROOT_ID,
};
FIXTURE_VARIANT_ADD(new_entry, newentry_invalid_attr) {
	.call = DO_MKDIR, .opcode = FUSE_MKDIR, .field = SIZE, .value = BIG,
};
FIXTURE_VARIANT_ADD(new_entry, newentry_invalid_attr_u64_max) {
	.call = DO_MKDIR, .opcode = FUSE_MKDIR, .field = SIZE, .value = ~0ULL,
};
FIXTURE_VARIANT_ADD(new_entry, newentry_type_mismatch) {
	.call = DO_MKDIR, .opcode = FUSE_MKDIR, .field = MODE, .value = S_IFREG,
};
FIXTURE_VARIANT_ADD(new_entry, newentry_type_mismatch_symlink) {
	.call = DO_SYMLINK, .opcode = FUSE_SYMLINK, .field = MODE, .value = S_IFDIR,
};
/* ... a FIFO for a directory: any type but the one asked for */
FIXTURE_VARIANT_ADD(new_entry, newentry_type_mismatch_fifo) {
	.call = DO_MKDIR, .opcode = FUSE_MKDIR, .field = MODE, .value = S_IFIFO,
};

static void new_entry_op(struct shared *sh, struct srv_reply *r,
			 const struct op *op)
{
	const FIXTURE_VARIANT(new_entry) *v = sh->variant;
	struct fuse_out_header *oh = op_out(r, op);
	struct fuse_entry_out *e = (void *)(oh + 1);

	if (op->opcode != v->opcode || oh->error)
		return;
	if (v->field == NODEID)
		e->nodeid = v->value;
	else if (v->field == MODE)
		e->attr.mode = v->value | 0755;
	else
		e->attr.size = v->value;
	EDITED(sh);
}

EDITED_SERVER(new_entry, LONG, LONG)

TEST_F(new_entry, the_entry_is_refused_and_no_dentry_is_made)
{
	unsigned int from;
	struct stat st;

	EXPECT_EQ(EIO, call(&self->m, variant->call, "new", NULL));
	ASSERT_EQ(1, LOAD(self->sh->edits));
	from = nreq(&self->m);
	EXPECT_EQ(0, lstat(path(&self->m, "new"), &st));
	EXPECT_EQ(1, ops_since(&self->m, from, FUSE_LOOKUP));
	/*
	 * The entry (and CREATE's open handle) was read, then refused: stock
	 * gives back nothing of it.  A nodeid of 0 or the root's is none.
	 */
	if (variant->field != NODEID)
		books_expect_kept(&self->m, st.st_ino, 1, variant->opcode == FUSE_CREATE ?
				  "stock: fuse_create_open() reads the entry, refuses it and sends no FORGET" :
				  "stock: create_new_entry() reads the entry, refuses it and sends no FORGET");
	if (variant->opcode == FUSE_CREATE)
		books_expect_kept_fh(&self->m, FUSE_CREATE, 1,
				     "stock: fuse_create_open() frees the refused entry's open handle (fuse_file_free()) and sends no RELEASE");
}

/* --- errors that leave the dcache in doubt: fuse_invalidate_entry() --- */

/*
 * The variant's name is looked up first: "new" is answered with nodeid 0
 * and a long entry_valid (a cached negative entry), the others as they
 * are.  The call's reply is replaced by the variant's error; the next
 * stat() must ask the server again (LOOKUP, or GETATTR for LINK's source).
 */
FIXTURE(error_invalidates) {
	struct mnt m;
	struct shared *sh;
};

FIXTURE_VARIANT(error_invalidates) {
	enum call call;
	const char *name, *to;
	uint32_t opcode;
	int error;
	uint32_t asked;		/* what the next stat(name) sends, once */
	bool kept;		/* ... or not at all: the error keeps the entry */
};

FIXTURE_VARIANT_ADD(error_invalidates, create_eexist_invalidates) {
	.call = DO_CREATE, .name = "new", .opcode = FUSE_CREATE,
	.error = -EEXIST, .asked = FUSE_LOOKUP,
};
FIXTURE_VARIANT_ADD(error_invalidates, newentry_eexist_invalidates) {
	.call = DO_MKDIR, .name = "new", .opcode = FUSE_MKDIR,
	.error = -EEXIST, .asked = FUSE_LOOKUP,
};
FIXTURE_VARIANT_ADD(error_invalidates, unlink_enoent_invalidates) {
	.call = DO_UNLINK, .name = "file", .opcode = FUSE_UNLINK,
	.error = -ENOENT, .asked = FUSE_LOOKUP,
};
FIXTURE_VARIANT_ADD(error_invalidates, rmdir_enoent_invalidates) {
	.call = DO_RMDIR, .name = "dir", .opcode = FUSE_RMDIR,
	.error = -ENOENT, .asked = FUSE_LOOKUP,
};
FIXTURE_VARIANT_ADD(error_invalidates, rename_enoent_invalidates) {
	.call = DO_RENAME, .name = "file", .to = "file2",
	.opcode = FUSE_RENAME, .error = -ENOENT, .asked = FUSE_LOOKUP,
};
FIXTURE_VARIANT_ADD(error_invalidates, link_eintr_invalidates) {
	.call = DO_LINK, .name = "file", .to = "file2", .opcode = FUSE_LINK,
	.error = -EINTR, .asked = FUSE_GETATTR,
};
/* EINTR drops the entries of UNLINK, RMDIR, RENAME too */
FIXTURE_VARIANT_ADD(error_invalidates, unlink_enoent_invalidates_eintr) {
	.call = DO_UNLINK, .name = "file", .opcode = FUSE_UNLINK,
	.error = -EINTR, .asked = FUSE_LOOKUP,
};
FIXTURE_VARIANT_ADD(error_invalidates, rmdir_enoent_invalidates_eintr) {
	.call = DO_RMDIR, .name = "dir", .opcode = FUSE_RMDIR,
	.error = -EINTR, .asked = FUSE_LOOKUP,
};
FIXTURE_VARIANT_ADD(error_invalidates, rename_enoent_invalidates_eintr) {
	.call = DO_RENAME, .name = "file", .to = "file2",
	.opcode = FUSE_RENAME, .error = -EINTR, .asked = FUSE_LOOKUP,
};
/* ... and any other error leaves the entry (or the attributes) cached */
FIXTURE_VARIANT_ADD(error_invalidates, create_eexist_invalidates_but_eacces_does_not) {
	.call = DO_CREATE, .name = "new", .opcode = FUSE_CREATE,
	.error = -EACCES, .asked = FUSE_LOOKUP, .kept = true,
};
FIXTURE_VARIANT_ADD(error_invalidates, newentry_eexist_invalidates_but_eacces_does_not) {
	.call = DO_MKDIR, .name = "new", .opcode = FUSE_MKDIR,
	.error = -EACCES, .asked = FUSE_LOOKUP, .kept = true,
};
FIXTURE_VARIANT_ADD(error_invalidates, unlink_enoent_invalidates_but_eio_does_not) {
	.call = DO_UNLINK, .name = "file", .opcode = FUSE_UNLINK,
	.error = -EIO, .asked = FUSE_LOOKUP, .kept = true,
};
FIXTURE_VARIANT_ADD(error_invalidates, rmdir_enoent_invalidates_but_eio_does_not) {
	.call = DO_RMDIR, .name = "dir", .opcode = FUSE_RMDIR,
	.error = -EIO, .asked = FUSE_LOOKUP, .kept = true,
};
FIXTURE_VARIANT_ADD(error_invalidates, rename_enoent_invalidates_but_eio_does_not) {
	.call = DO_RENAME, .name = "file", .to = "file2",
	.opcode = FUSE_RENAME, .error = -EIO, .asked = FUSE_LOOKUP, .kept = true,
};
FIXTURE_VARIANT_ADD(error_invalidates, link_eintr_invalidates_but_eio_does_not) {
	.call = DO_LINK, .name = "file", .to = "file2", .opcode = FUSE_LINK,
	.error = -EIO, .asked = FUSE_GETATTR, .kept = true,
};

static void error_invalidates_op(struct shared *sh, struct srv_reply *r,
				 const struct op *op)
{
	const FIXTURE_VARIANT(error_invalidates) *v = sh->variant;
	struct fuse_entry_out negative = { .entry_valid = LONG };

	if (op->opcode == FUSE_LOOKUP && !strcmp(op->arg, "new")) {
		op_answer(r, op, 0, &negative, sizeof(negative));
	} else if (op->opcode == v->opcode) {
		op_answer(r, op, v->error, NULL, 0);
		EDITED(sh);
	}
}

EDITED_SERVER(error_invalidates, LONG, LONG)

TEST_F(error_invalidates, the_entry_is_asked_again_after_the_error)
{
	bool negative = !strcmp(variant->name, "new");
	unsigned int from;

	EXPECT_EQ(negative ? ENOENT : 0, stat_errno(&self->m, variant->name));
	EXPECT_EQ(-variant->error, call(&self->m, variant->call, variant->name,
					variant->to));
	ASSERT_EQ(1, LOAD(self->sh->edits));
	from = nreq(&self->m);
	stat_errno(&self->m, variant->name);
	EXPECT_EQ(variant->kept ? 0 : 1, ops_since(&self->m, from, variant->asked));
}

/* --- ENOSYS: fuse_atomic_open(), fuse_tmpfile(), fuse_rename2(), ... --- */

/*
 * The variant's opcode is answered with ENOSYS (by the core, or by the
 * edit where the core implements it); the call is made twice, on "new1"
 * then "new2" where it makes a name.  A CREATE answered ENOSYS was made
 * by the core all the same: the MKNOD that follows it gets the entry the
 * CREATE had.
 */
FIXTURE(enosys) {
	struct mnt m;
	struct shared *sh;
};

FIXTURE_VARIANT(enosys) {
	enum call call;
	const char *name, *to, *name2, *to2;	/* *2: of the second call */
	uint32_t opcode;
	bool edit;		/* the core implements it: answer ENOSYS */
	int error;		/* ... or this error (not remembered) */
	int call_errno;
	unsigned int sent;	/* requests of opcode for both calls */
};

FIXTURE_VARIANT_ADD(enosys, enosys_create) {
	.call = DO_CREATE, .name = "new1", .name2 = "new2",
	.opcode = FUSE_CREATE, .edit = true, .sent = 1,
};
FIXTURE_VARIANT_ADD(enosys, enosys_tmpfile) {
	.call = DO_TMPFILE, .opcode = FUSE_TMPFILE, .call_errno = EOPNOTSUPP,
	.sent = 1,
};
FIXTURE_VARIANT_ADD(enosys, enosys_rename2) {
	.call = DO_RENAME_NOREPLACE, .name = "file", .to = "file2",
	.opcode = FUSE_RENAME2, .edit = true, .call_errno = EINVAL, .sent = 1,
};
/*
 * LINK: EPERM, and nothing is remembered (the core made "file2" before
 * its ENOSYS: the second call links to another name)
 */
FIXTURE_VARIANT_ADD(enosys, enosys_link) {
	.call = DO_LINK, .name = "file", .to = "file2", .to2 = "file3",
	.opcode = FUSE_LINK, .edit = true, .call_errno = EPERM, .sent = 2,
};
FIXTURE_VARIANT_ADD(enosys, enosys_fsyncdir) {
	.call = DO_FSYNCDIR, .name = "dir", .opcode = FUSE_FSYNCDIR,
	.edit = true, .sent = 1,
};
/* another error is the caller's, every time: the server is asked again */
FIXTURE_VARIANT_ADD(enosys, enosys_create_but_eacces_is_not_remembered) {
	.call = DO_CREATE, .name = "new1", .name2 = "new2",
	.opcode = FUSE_CREATE, .edit = true, .error = -EACCES,
	.call_errno = EACCES, .sent = 2,
};
FIXTURE_VARIANT_ADD(enosys, enosys_rename2_but_eperm_is_not_remembered) {
	.call = DO_RENAME_NOREPLACE, .name = "file", .to = "file2",
	.opcode = FUSE_RENAME2, .edit = true, .error = -EPERM,
	.call_errno = EPERM, .sent = 2,
};
FIXTURE_VARIANT_ADD(enosys, enosys_fsyncdir_but_eio_is_not_remembered) {
	.call = DO_FSYNCDIR, .name = "dir", .opcode = FUSE_FSYNCDIR,
	.edit = true, .error = -EIO, .call_errno = EIO, .sent = 2,
};

static void enosys_op(struct shared *sh, struct srv_reply *r,
		      const struct op *op)
{
	const FIXTURE_VARIANT(enosys) *v = sh->variant;
	static struct fuse_entry_out created;	/* the server's own copy */
	struct fuse_out_header *oh = op_out(r, op);

	if (op->opcode == v->opcode && v->edit) {
		if (op->opcode == FUSE_CREATE && !oh->error)
			memcpy(&created, oh + 1, sizeof(created));
		op_answer(r, op, v->error ? v->error : -ENOSYS, NULL, 0);
		EDITED(sh);
	} else if (op->opcode == FUSE_MKNOD && oh->error == -EEXIST &&
		   created.nodeid) {
		op_answer(r, op, 0, &created, sizeof(created));
		created.nodeid = 0;
	}
}

EDITED_SERVER(enosys, LONG, LONG)

TEST_F(enosys, not_implemented_is_translated_and_remembered)
{
	unsigned int from = nreq(&self->m);

	EXPECT_EQ(variant->call_errno, call(&self->m, variant->call,
					    variant->name, variant->to));
	EXPECT_EQ(variant->call_errno, call(&self->m, variant->call,
			variant->name2 ? variant->name2 : variant->name,
			variant->to2 ? variant->to2 : variant->to));
	EXPECT_EQ(variant->sent, ops_since(&self->m, from, variant->opcode));
	if (variant->opcode == FUSE_CREATE && !variant->error) {
		EXPECT_EQ(2, ops_since(&self->m, from, FUSE_MKNOD));
		EXPECT_EQ(0, stat_errno(&self->m, "new1"));
	}
}

/* --- the server drops dentries: fuse_reverse_inval_entry() --- */

/*
 * "file" is looked up first.  The STATFS of a statfs() is the server's
 * cue: before answering it, it writes the variant's FUSE_NOTIFY_INVAL_ENTRY
 * or FUSE_NOTIFY_DELETE, whose write(2) must give write_errno.
 */
#define NODEID_OF_FILE	(~0ULL)		/* the nodeid of "file" */
#define NODEID_OF_NAME	(~1ULL)		/* the nodeid of the notified name */

FIXTURE(notify_entry) {
	struct mnt m;
	struct shared *sh;
	int held;
};

FIXTURE_VARIANT(notify_entry) {
	int code;
	uint64_t parent, child;
	const char *name;
	uint32_t flags;
	const char *hold;	/* held with O_PATH during the notification */
	bool cwd_in_dir;	/* the test's cwd is mnt/dir meanwhile */
	int write_errno;
	int getcwd_errno;	/* with cwd_in_dir: after the notification */
};

FIXTURE_VARIANT_ADD(notify_entry, notify_inval_entry_parent_unknown) {
	.code = FUSE_NOTIFY_INVAL_ENTRY, .parent = 999, .name = "file",
	.write_errno = ENOENT,
};
/* ... nodeid 0, and the same parent in a DELETE */
FIXTURE_VARIANT_ADD(notify_entry, notify_inval_entry_parent_unknown_zero) {
	.code = FUSE_NOTIFY_INVAL_ENTRY, .parent = 0, .name = "file",
	.write_errno = ENOENT,
};
FIXTURE_VARIANT_ADD(notify_entry, notify_inval_entry_parent_unknown_in_a_delete) {
	.code = FUSE_NOTIFY_DELETE, .parent = 999, .child = 0, .name = "file",
	.write_errno = ENOENT,
};
FIXTURE_VARIANT_ADD(notify_entry, notify_inval_entry_parent_not_dir) {
	.code = FUSE_NOTIFY_INVAL_ENTRY, .parent = NODEID_OF_FILE, .name = "x",
	.write_errno = ENOTDIR,
};
FIXTURE_VARIANT_ADD(notify_entry, notify_inval_entry_not_cached) {
	.code = FUSE_NOTIFY_INVAL_ENTRY, .parent = FUSE_ROOT_ID,
	.name = "never-looked-up", .write_errno = ENOENT,
};
/* FUSE_EXPIRE_ONLY: the dentry of the cwd stays hashed */
FIXTURE_VARIANT_ADD(notify_entry, notify_inval_entry_expire_only) {
	.code = FUSE_NOTIFY_INVAL_ENTRY, .parent = FUSE_ROOT_ID, .name = "dir",
	.flags = FUSE_EXPIRE_ONLY, .cwd_in_dir = true, .getcwd_errno = 0,
};
/* the control: without the flag it is unhashed, and getcwd() fails */
FIXTURE_VARIANT_ADD(notify_entry, notify_inval_entry_without_expire_only) {
	.code = FUSE_NOTIFY_INVAL_ENTRY, .parent = FUSE_ROOT_ID, .name = "dir",
	.cwd_in_dir = true, .getcwd_errno = ENOENT,
};
FIXTURE_VARIANT_ADD(notify_entry, notify_delete_child_zero) {
	.code = FUSE_NOTIFY_DELETE, .parent = FUSE_ROOT_ID, .child = 0,
	.name = "file", .write_errno = 0,
};
/* the wrong child: refused, and the held inode keeps its link */
FIXTURE_VARIANT_ADD(notify_entry, notify_delete_child_mismatch) {
	.code = FUSE_NOTIFY_DELETE, .parent = FUSE_ROOT_ID, .child = 999,
	.name = "file", .hold = "file", .write_errno = ENOENT,
};
/* ... the root's nodeid for a file */
FIXTURE_VARIANT_ADD(notify_entry, notify_delete_child_mismatch_root) {
	.code = FUSE_NOTIFY_DELETE, .parent = FUSE_ROOT_ID, .child = FUSE_ROOT_ID,
	.name = "file", .hold = "file", .write_errno = ENOENT,
};
FIXTURE_VARIANT_ADD(notify_entry, notify_delete_dir_not_empty) {
	.code = FUSE_NOTIFY_DELETE, .parent = FUSE_ROOT_ID,
	.child = NODEID_OF_NAME, .name = "dir", .hold = "dir/inner",
	.write_errno = ENOTEMPTY,
};

static void notify_entry_op(struct shared *sh, struct srv_reply *r,
			    const struct op *op)
{
	const FIXTURE_VARIANT(notify_entry) *v = sh->variant;
	size_t namelen = strlen(v->name), len;
	union {
		struct fuse_notify_inval_entry_out inval;
		struct fuse_notify_delete_out del;
		unsigned char buf[64 + 256];
	} out = { .buf = { 0 } };

	if (!LOAD(sh->phase) || op->opcode != FUSE_STATFS)
		return;
	if (v->code == FUSE_NOTIFY_INVAL_ENTRY) {
		out.inval.parent = sh->nodeid;
		out.inval.namelen = namelen;
		out.inval.flags = v->flags;
		len = sizeof(out.inval);
	} else {
		out.del.parent = sh->nodeid;
		out.del.child = sh->child;
		out.del.namelen = namelen;
		len = sizeof(out.del);
	}
	memcpy(out.buf + len, v->name, namelen + 1);
	srv_write_notify(r, v->code, &out, len + namelen + 1);
	STORE(sh->phase, 0);
}

static void notify_entry_edit(const struct srv_config *cfg,
			      const struct fuse_in_header *req, struct srv_reply *r)
{
	for_each_op(cfg, req, r, notify_entry_op);
}

FIXTURE_SETUP(notify_entry)
{
	struct stat st;

	self->held = -1;
	self->sh = mnt_start_edited(&self->m, srv_cfg(SRV_COMPLIANT, LONG, LONG),
				    variant, notify_entry_edit);
	ASSERT_NE(NULL, self->sh);
	ASSERT_EQ(0, stat(path(&self->m, "file"), &st));
	self->sh->nodeid = variant->parent == NODEID_OF_FILE ? st.st_ino :
							       variant->parent;
	self->sh->child = variant->child;
	if (variant->child == NODEID_OF_NAME) {
		ASSERT_EQ(0, stat(path(&self->m, variant->name), &st));
		self->sh->child = st.st_ino;
	}
	if (variant->hold) {
		self->held = open(path(&self->m, variant->hold), O_PATH);
		ASSERT_LE(0, self->held);
	}
}

FIXTURE_TEARDOWN(notify_entry)
{
	if (chdir("/"))
		perror("chdir");
	if (self->held >= 0)
		close(self->held);
	mnt_stop(_metadata, &self->m);
}

TEST_F(notify_entry, the_notification_is_refused_or_drops_what_it_names)
{
	const struct srv_record *raw;
	char cwd[256];
	struct statfs sfs;
	struct stat st;

	if (variant->cwd_in_dir)
		ASSERT_EQ(0, chdir(path(&self->m, "dir")));
	STORE(self->sh->phase, 1);
	ASSERT_EQ(0, statfs(self->m.dir, &sfs));
	raw = raw_write_in_statfs(&self->m);
	ASSERT_NE(NULL, raw);
	EXPECT_EQ(variant->write_errno, raw->write_errno);

	if (variant->cwd_in_dir) {
		errno = 0;
		EXPECT_EQ(variant->getcwd_errno ? NULL : cwd,
			  getcwd(cwd, sizeof(cwd)));
		EXPECT_EQ(variant->getcwd_errno, errno);
	}
	if (variant->hold) {
		ASSERT_EQ(0, fstat(self->held, &st));
		EXPECT_EQ(1, st.st_nlink);
	}
}

TEST_HARNESS_MAIN
