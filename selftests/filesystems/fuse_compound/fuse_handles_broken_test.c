// SPDX-License-Identifier: GPL-2.0
/*
 * File handles (FUSE_HAS_LOOKUP_HANDLE), a server that breaks them: broken
 * handles, nodeids and attributes give the caller EIO, and every nodeid
 * and open handle the kernel read from the server comes back (FORGET,
 * RELEASE), from a reply it refused too; a largest handle out of range at
 * INIT, or where upstream's header does not put it, keeps the classic
 * requests; the same nodeid with another handle, generation, type or
 * inode number is another object, not an error; a STATX with fewer fields
 * than an inode needs is completed by GETATTR; a server that answers the
 * handle requests ENOSYS gets the classic ones.
 *
 * On a kernel that does not offer handles (FUSEGATE_EXPECT_HANDLES=0) the
 * tests report SKIP.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../../kselftest_harness.h"
#include "fuse_test.h"
#include "reply_edit.h"
#include "fuse_handles.h"

/* --- a server whose replies the test breaks --- */

enum action {
	LOOKUP_NEW,		/* stat "file" for the first time */
	MAKE_DIR,		/* mkdir "made" */
	MAKE_FIFO,		/* mknod "made", a fifo */
	MAKE_SYMLINK,		/* symlink "made" -> "file" */
	CREATE_OPEN,		/* open "made" with O_CREAT */
};

/* The nodeid the server gives the first object a test makes */
#define NODE_MADE	8

FIXTURE(broken) {
	struct mnt m;
	struct shared *sh;
};

FIXTURE_VARIANT(broken) {
	enum action action;
	uint32_t opcode;	/* the reply (or subreply) broken */
	uint32_t also;		/* another subreply that gets @error too */
	void (*edit)(void *payload, size_t *len);
	uint32_t statx_mode;	/* a STATX (sub)reply's mode becomes this */
	size_t trailing;	/* bytes after the compound whose first op
				 * is @opcode */
	int error;		/* instead of an edit: this error */
	int call_errno;
	int write_errno;	/* of the server's write: 0 taken, or refused */
	uint64_t forgets;	/* the nodeid the kernel must give back, or 0 */
	bool releases;		/* an open handle given back */
	bool made_stays;	/* the object made is kept: "made" exists */
};

/* The handle of an entry2 reply */
static struct fuse_file_handle *fh_of(void *payload)
{
	return (void *)((struct fuse_entry2_out *)payload + 1);
}

static void handle_missing(void *p, size_t *len)
{
	*len = sizeof(struct fuse_entry2_out);
}

static void handle_size_zero(void *p, size_t *len)
{
	fh_of(p)->size = 0;
	*len = sizeof(struct fuse_entry2_out) + sizeof(struct fuse_file_handle);
}

/* 17 bytes where the server said at most 16 */
static void handle_size_above_max(void *p, size_t *len)
{
	fh_of(p)->size = 17;
	memset(fh_of(p)->handle, 'x', 17);
	*len = sizeof(struct fuse_entry2_out) + sizeof(struct fuse_file_handle) + 17;
}

static void handle_size_above_payload(void *p, size_t *len)
{
	fh_of(p)->size++;
}

static void handle_size_below_payload(void *p, size_t *len)
{
	fh_of(p)->size--;
}

static void root_nodeid(void *p, size_t *len)
{
	((struct fuse_entry2_out *)p)->nodeid = FUSE_ROOT_ID;
}

static void zero_nodeid(void *p, size_t *len)
{
	((struct fuse_entry2_out *)p)->nodeid = 0;
}

/* a STATX subreply 8 bytes short: rule 7, after the entry before it */
static void statx_cut(void *p, size_t *len)
{
	*len -= 8;
}

#define BROKEN(name, act, op, ...)					\
	FIXTURE_VARIANT_ADD(broken, name) {				\
		.action = act, .opcode = op, .call_errno = EIO, __VA_ARGS__ \
	}

/*
 * A handle of no bytes, or one whose size is not what the reply holds:
 * the reply is malformed, the server's write refused (handle_size_mismatch),
 * and the entry before the handle, which the kernel read, comes back
 * (refused_reply_gives_back); one longer than the out-arg can hold is
 * refused by the compound's own rules (payload_mismatch) before the
 * kernel reads anything
 */
/* an entry without a handle: the lookup fails, the nodeid comes back */
BROKEN(handle_missing, LOOKUP_NEW, FUSE_LOOKUP_HANDLE,
       .edit = handle_missing, .forgets = NODE_FILE);
BROKEN(handle_size_zero, LOOKUP_NEW, FUSE_LOOKUP_HANDLE,
       .edit = handle_size_zero, .write_errno = EINVAL, .forgets = NODE_FILE);
BROKEN(handle_size_above_max, LOOKUP_NEW, FUSE_LOOKUP_HANDLE,
       .edit = handle_size_above_max, .write_errno = EINVAL);
BROKEN(handle_size_above_payload, LOOKUP_NEW, FUSE_LOOKUP_HANDLE,
       .edit = handle_size_above_payload, .write_errno = EINVAL,
       .forgets = NODE_FILE);
BROKEN(handle_size_below_payload, LOOKUP_NEW, FUSE_LOOKUP_HANDLE,
       .edit = handle_size_below_payload, .write_errno = EINVAL,
       .forgets = NODE_FILE);
BROKEN(root_nodeid_for_a_name, LOOKUP_NEW, FUSE_LOOKUP_HANDLE,
       .edit = root_nodeid, .forgets = FUSE_ROOT_ID);
BROKEN(zero_nodeid_on_creation, MAKE_DIR, FUSE_MKOBJ_HANDLE,
       .edit = zero_nodeid);
BROKEN(root_nodeid_on_creation, MAKE_DIR, FUSE_MKOBJ_HANDLE,
       .edit = root_nodeid, .forgets = FUSE_ROOT_ID);
BROKEN(statx_fails_on_lookup, LOOKUP_NEW, FUSE_STATX, .error = -EIO,
       .forgets = NODE_FILE);
/* the object was made and opened, then its attributes failed */
BROKEN(statx_fails_on_create, CREATE_OPEN, FUSE_STATX, .error = -EIO,
       .forgets = NODE_MADE, .releases = true);

/*
 * refused_reply_gives_back: a compound reply refused after subreplies the
 * kernel read whole: what they granted comes back, the caller gets EIO.
 * The fault in the STATX after the entry; or after the last subreply
 * (trailing bytes), so that the OPEN was read too.
 */
BROKEN(refused_reply_gives_back_lookup, LOOKUP_NEW, FUSE_STATX,
       .edit = statx_cut, .write_errno = EINVAL, .forgets = NODE_FILE);
BROKEN(refused_reply_gives_back_mkdir, MAKE_DIR, FUSE_STATX,
       .edit = statx_cut, .write_errno = EINVAL, .forgets = NODE_MADE);
BROKEN(refused_reply_gives_back_create, CREATE_OPEN, FUSE_STATX,
       .edit = statx_cut, .write_errno = EINVAL, .forgets = NODE_MADE);
BROKEN(refused_reply_gives_back_create_open, CREATE_OPEN, FUSE_MKOBJ_HANDLE,
       .trailing = 8, .write_errno = EINVAL, .forgets = NODE_MADE,
       .releases = true);

/*
 * creation_type: the attributes of what was made are of another type
 * than asked for (as stock create_new_entry() refuses them): each other
 * class of file type, not only the directory bit
 */
#define CREATION_TYPE(name, act, mode)					\
	BROKEN(creation_type_##name, act, FUSE_STATX, .statx_mode = mode,	\
	       .forgets = NODE_MADE, .releases = act == CREATE_OPEN)
CREATION_TYPE(file_is_dir, CREATE_OPEN, S_IFDIR | 0755);
CREATION_TYPE(file_is_fifo, CREATE_OPEN, S_IFIFO | 0644);
CREATION_TYPE(file_is_symlink, CREATE_OPEN, S_IFLNK | 0777);
CREATION_TYPE(file_is_socket, CREATE_OPEN, S_IFSOCK | 0644);
CREATION_TYPE(file_is_chardev, CREATE_OPEN, S_IFCHR | 0644);
CREATION_TYPE(file_is_blockdev, CREATE_OPEN, S_IFBLK | 0644);
CREATION_TYPE(dir_is_file, MAKE_DIR, S_IFREG | 0755);
CREATION_TYPE(dir_is_symlink, MAKE_DIR, S_IFLNK | 0777);
CREATION_TYPE(fifo_is_socket, MAKE_FIFO, S_IFSOCK | 0600);
CREATION_TYPE(fifo_is_file, MAKE_FIFO, S_IFREG | 0600);
CREATION_TYPE(symlink_is_file, MAKE_SYMLINK, S_IFREG | 0777);
/*
 * Made, then its open refused: the object stays (as when the OPEN after a
 * MKNOD fails), the caller gets the open's error, and there is no open
 * handle to give back
 */
FIXTURE_VARIANT_ADD(broken, open_fails_on_create) {
	.action = CREATE_OPEN, .opcode = FUSE_OPEN, .error = -EACCES,
	.call_errno = EACCES, .made_stays = true,
};
/*
 * ok_after_failed_dep: a subreply that says its op ran although the op it
 * depends on failed ({MKOBJ_HANDLE: -EEXIST}{STATX: -EEXIST}{OPEN: 0}) is
 * a malformed reply: refused from there on, its open handle not read, so
 * no RELEASE (of nodeid 0, or of any); the lookup's STATX likewise
 */
BROKEN(ok_after_failed_dep_create, CREATE_OPEN, FUSE_MKOBJ_HANDLE,
       .error = -EEXIST, .also = FUSE_STATX, .write_errno = EINVAL);
BROKEN(ok_after_failed_dep_lookup, LOOKUP_NEW, FUSE_LOOKUP_HANDLE,
       .error = -ENOENT, .write_errno = EINVAL);

/* In the server: once the test says so, break the variant's (sub)reply */
static void break_op(struct shared *sh, struct srv_reply *r,
		     const struct op *op)
{
	const FIXTURE_VARIANT(broken) *v = sh->variant;
	struct fuse_out_header *oh = op_out(r, op);
	unsigned char payload[512];
	size_t len = oh->len - sizeof(*oh);

	if ((op->opcode != v->opcode && (!v->also || op->opcode != v->also)) ||
	    oh->error || len > sizeof(payload) || v->trailing)
		return;
	memcpy(payload, oh + 1, len);
	if (v->edit && op->opcode == v->opcode)
		v->edit(payload, &len);
	if (v->statx_mode)
		((struct fuse_statx_out *)payload)->stat.mode = v->statx_mode;
	op_answer(r, op, v->error, payload, v->error ? 0 : len);
	EDITED(sh);
}

static void edit_broken(const struct srv_config *cfg,
			const struct fuse_in_header *req, struct srv_reply *r)
{
	struct shared *sh = (void *)(uintptr_t)cfg->edit_arg;
	const FIXTURE_VARIANT(broken) *v = sh->variant;

	if (!LOAD(sh->phase))
		return;
	for_each_op(cfg, req, r, break_op);
	/* bytes after the last subreply of the compound the variant names */
	if (v->trailing && req->opcode == FUSE_COMPOUND && r->nsubs &&
	    ((const struct fuse_in_header *)((const char *)(req + 1) +
		sizeof(struct fuse_compound_in) +
		sizeof(struct fuse_compound_req_in)))->opcode == v->opcode) {
		memset(r->buf + r->len, 0, v->trailing);
		r->len += v->trailing;
		EDITED(sh);
	}
}

FIXTURE_SETUP(broken)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, 0, LONG);

	cfg.statx = true;
	cfg.max_handle_sz = 16;
	self->sh = mnt_start_edited(&self->m, cfg, variant, edit_broken);
	ASSERT_NE(NULL, self->sh);
}

FIXTURE_TEARDOWN(broken)
{
	mnt_stop(_metadata, &self->m);
}

static int act(struct mnt *m, struct shared *sh, enum action a)
{
	struct stat st;
	int fd;

	switch (a) {
	case LOOKUP_NEW:
		STORE(sh->phase, 1);
		return stat(path(m, "file"), &st) ? -errno : 0;
	case MAKE_DIR:
		STORE(sh->phase, 1);
		return mkdir(path(m, "made"), 0755) ? -errno : 0;
	case MAKE_FIFO:
		STORE(sh->phase, 1);
		return mknod(path(m, "made"), S_IFIFO | 0600, 0) ? -errno : 0;
	case MAKE_SYMLINK:
		STORE(sh->phase, 1);
		return symlink("file", path(m, "made")) ? -errno : 0;
	case CREATE_OPEN:
		STORE(sh->phase, 1);
		fd = open(path(m, "made"), O_CREAT | O_EXCL | O_RDWR, 0600);
		if (fd < 0)
			return -errno;
		close(fd);
		return 0;
	}
	return -EINVAL;
}

TEST_F(broken, the_call_fails_and_nothing_granted_leaks)
{
	const struct srv_record *rec;
	unsigned int from = nreq(&self->m);
	struct stat st;

	SKIP_WITHOUT_HANDLES(&self->m);
	EXPECT_EQ(-variant->call_errno, act(&self->m, self->sh,
					    variant->action));
	dump_log(_metadata, &self->m, from);
	ASSERT_LE(1, LOAD(self->sh->edits));
	/* the compound broken: the lookup's, or the creation's */
	rec = compound_of(&self->m, from, variant->action == LOOKUP_NEW ?
			  FUSE_LOOKUP_HANDLE : FUSE_MKOBJ_HANDLE);
	ASSERT_NE(NULL, rec);
	ASSERT_TRUE(wait_replied(&self->m, rec));
	EXPECT_EQ(variant->write_errno, rec->write_errno);
	STORE(self->sh->phase, 0);
	/* the mount is usable: a request after this one is answered */
	ASSERT_EQ(0, stat(path(&self->m, "dir"), &st));
	if (variant->forgets) {
		ASSERT_TRUE(wait_forgotten(&self->m, variant->forgets, 1));
	} else {
		EXPECT_EQ(0, LOAD(self->m.log->forgotten[NODE_FILE]));
	}
	if (variant->releases)
		ASSERT_TRUE(wait_op(&self->m, from, FUSE_RELEASE));
	EXPECT_EQ(variant->releases ? 1 : 0,
		  count_since(&self->m, from, FUSE_RELEASE, false));
	/*
	 * kept, and not forgotten: its dentry holds it (a FORGET would have
	 * come before the stat of "dir" above: the kernel sends forgets first)
	 */
	if (variant->made_stays) {
		EXPECT_EQ(0, LOAD(self->m.log->forgotten[NODE_MADE]));
		EXPECT_EQ(0, stat(path(&self->m, "made"), &st));
		EXPECT_TRUE(S_ISREG(st.st_mode));
	}
}

/* --- a largest handle out of range at INIT --- */

FIXTURE(init_max) {
	struct mnt m;
	struct shared *sh;
};

/* The max_handle_sz the INIT reply states (with the flag set) */
FIXTURE_VARIANT(init_max) {
	uint16_t max_handle_sz;
	bool handles;		/* whether the kernel then uses them */
};

FIXTURE_VARIANT_ADD(init_max, zero) { .max_handle_sz = 0, .handles = false };
FIXTURE_VARIANT_ADD(init_max, above_the_protocol_max) {
	.max_handle_sz = FUSE_MAX_HANDLE_SZ + 1, .handles = false,
};
FIXTURE_VARIANT_ADD(init_max, the_protocol_max_is_taken) {
	.max_handle_sz = FUSE_MAX_HANDLE_SZ, .handles = true,
};

static void edit_init_max(const struct srv_config *cfg,
			  const struct fuse_in_header *req, struct srv_reply *r)
{
	struct shared *sh = (void *)(uintptr_t)cfg->edit_arg;
	const FIXTURE_VARIANT(init_max) *v = sh->variant;

	if (req->opcode != FUSE_INIT)
		return;
	memcpy(r->buf + sizeof(struct fuse_out_header) +
	       SRV_INIT_MAX_HANDLE_SZ_OFF, &v->max_handle_sz,
	       sizeof(v->max_handle_sz));
	EDITED(sh);
}

FIXTURE_SETUP(init_max)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG, LONG);

	cfg.statx = true;
	cfg.max_handle_sz = 16;
	self->sh = mnt_start_edited(&self->m, cfg, variant, edit_init_max);
	ASSERT_NE(NULL, self->sh);
}

FIXTURE_TEARDOWN(init_max)
{
	mnt_stop(_metadata, &self->m);
}

TEST_F(init_max, out_of_range_keeps_the_classic_requests)
{
	struct stat st;

	ASSERT_EQ(0, stat(path(&self->m, "file"), &st));
	ASSERT_EQ(0, mkdir(path(&self->m, "made"), 0755));
	if (!expect_handles())
		SKIP(return, "kernel without FUSE_HAS_LOOKUP_HANDLE");
	ASSERT_EQ(1, LOAD(self->sh->edits));
	EXPECT_EQ(NODE_FILE, st.st_ino);
	EXPECT_EQ(variant->handles, ops_since(&self->m, 0, FUSE_LOOKUP_HANDLE) > 0);
	EXPECT_EQ(!variant->handles, ops_since(&self->m, 0, FUSE_LOOKUP) > 0);
	EXPECT_EQ(variant->handles, ops_since(&self->m, 0, FUSE_MKOBJ_HANDLE) > 0);
	EXPECT_EQ(!variant->handles, ops_since(&self->m, 0, FUSE_MKDIR) > 0);
}

/* --- INIT: the layout of upstream's header, and the minor announced --- */

/* sh->nodeid: the minor the kernel's INIT announced */
FIXTURE(init_layout) {
	struct mnt m;
	struct shared *sh;
};

/*
 * init_max_handle_offset: where the INIT reply puts max_handle_sz.  A
 * server built against upstream's header writes request_timeout at byte
 * 40 and max_handle_sz at byte 42; one that writes it at 40 (where this
 * series once had it) states 0 at 42 and gets no handles.
 */
FIXTURE_VARIANT(init_layout) {
	uint16_t at_40, at_42;
	bool handles;
};

FIXTURE_VARIANT_ADD(init_layout, upstream_header_with_request_timeout) {
	.at_40 = 30, .at_42 = 16, .handles = true,
};
FIXTURE_VARIANT_ADD(init_layout, upstream_header) {
	.at_40 = 0, .at_42 = 16, .handles = true,
};
FIXTURE_VARIANT_ADD(init_layout, max_handle_sz_at_offset_40) {
	.at_40 = 16, .at_42 = 0, .handles = false,
};

static void edit_init_layout(const struct srv_config *cfg,
			     const struct fuse_in_header *req,
			     struct srv_reply *r)
{
	struct shared *sh = (void *)(uintptr_t)cfg->edit_arg;
	const FIXTURE_VARIANT(init_layout) *v = sh->variant;
	unsigned char *out = r->buf + sizeof(struct fuse_out_header);

	if (req->opcode != FUSE_INIT)
		return;
	/* what the kernel announced, for the test */
	STORE(sh->nodeid, ((const struct fuse_init_in *)(req + 1))->minor);
	memcpy(out + SRV_INIT_REQUEST_TIMEOUT_OFF, &v->at_40, 2);
	memcpy(out + SRV_INIT_MAX_HANDLE_SZ_OFF, &v->at_42, 2);
	EDITED(sh);
}

FIXTURE_SETUP(init_layout)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG, LONG);

	cfg.statx = true;
	cfg.max_handle_sz = 16;
	self->sh = mnt_start_edited(&self->m, cfg, variant, edit_init_layout);
	ASSERT_NE(NULL, self->sh);
}

FIXTURE_TEARDOWN(init_layout)
{
	mnt_stop(_metadata, &self->m);
}

TEST_F(init_layout, init_max_handle_offset_is_upstreams)
{
	struct stat st;

	ASSERT_EQ(0, stat(path(&self->m, "file"), &st));
	ASSERT_EQ(0, mkdir(path(&self->m, "made"), 0755));
	if (!expect_handles())
		SKIP(return, "kernel without FUSE_HAS_LOOKUP_HANDLE");
	ASSERT_EQ(1, LOAD(self->sh->edits));
	EXPECT_EQ(NODE_FILE, st.st_ino);
	EXPECT_EQ(variant->handles, ops_since(&self->m, 0, FUSE_LOOKUP_HANDLE) > 0);
	EXPECT_EQ(!variant->handles, ops_since(&self->m, 0, FUSE_LOOKUP) > 0);
	EXPECT_EQ(variant->handles, ops_since(&self->m, 0, FUSE_MKOBJ_HANDLE) > 0);
}

/*
 * no_minor_bump: 6.12 with this series still speaks 7.41; 7.42 and 7.43
 * are io_uring and request timeouts upstream, which it does not have
 */
TEST_F(init_layout, no_minor_bump_the_kernel_announces_7_41)
{
	struct stat st;

	ASSERT_EQ(0, stat(path(&self->m, "file"), &st));
	ASSERT_EQ(1, LOAD(self->sh->edits));
	EXPECT_EQ(41, LOAD(self->sh->nodeid));
}

/* --- another object behind a known nodeid: stale, not EIO --- */

/*
 * handle_stale: the same nodeid with another handle, generation, type or
 * inode number is another object.  The old inode is stale (its open file
 * gets EIO, as for a generation change in stock), and the name leads to
 * the new object, whose lookup does not fail.
 */
FIXTURE(stale) {
	struct mnt m;
	struct shared *sh;
};

FIXTURE_VARIANT(stale) {
	uint32_t opcode;	/* the (sub)reply changed */
	void (*edit)(void *payload);
	uint32_t new_mode;	/* the new object's type, or 0: a file */
	uint64_t new_ino;	/* its inode number, or 0: NODE_FILE */
};

static void another_handle(void *p)
{
	/* the last byte of the handle: another incarnation */
	fh_of(p)->handle[fh_of(p)->size - 1] ^= 0xff;
}

static void another_generation(void *p)
{
	((struct fuse_entry2_out *)p)->generation++;
}

static void another_type(void *p)
{
	((struct fuse_statx_out *)p)->stat.mode = S_IFDIR | 0755;
}

static void another_ino(void *p)
{
	((struct fuse_statx_out *)p)->stat.ino += 100;
}

FIXTURE_VARIANT_ADD(stale, another_handle) {
	.opcode = FUSE_LOOKUP_HANDLE, .edit = another_handle,
};
/* the handle unchanged */
FIXTURE_VARIANT_ADD(stale, another_generation) {
	.opcode = FUSE_LOOKUP_HANDLE, .edit = another_generation,
};
FIXTURE_VARIANT_ADD(stale, another_type) {
	.opcode = FUSE_STATX, .edit = another_type, .new_mode = S_IFDIR,
};
FIXTURE_VARIANT_ADD(stale, another_ino) {
	.opcode = FUSE_STATX, .edit = another_ino, .new_ino = NODE_FILE + 100,
};

static void change_object(struct shared *sh, struct srv_reply *r,
			  const struct op *op)
{
	const FIXTURE_VARIANT(stale) *v = sh->variant;
	struct fuse_out_header *oh = op_out(r, op);

	if (op->opcode != v->opcode || oh->error)
		return;
	/* "file" only: the parent's handle must stay the same */
	if (op->opcode == FUSE_STATX ? op->nodeid != NODE_FILE && op->nodeid :
	    strcmp(op->arg, "file"))
		return;
	v->edit(oh + 1);
	EDITED(sh);
}

static void edit_stale(const struct srv_config *cfg,
		       const struct fuse_in_header *req, struct srv_reply *r)
{
	struct shared *sh = (void *)(uintptr_t)cfg->edit_arg;

	if (LOAD(sh->phase))
		for_each_op(cfg, req, r, change_object);
}

FIXTURE_SETUP(stale)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, 0, LONG);

	cfg.statx = true;
	cfg.max_handle_sz = FUSE_MAX_HANDLE_SZ;
	self->sh = mnt_start_edited(&self->m, cfg, variant, edit_stale);
	ASSERT_NE(NULL, self->sh);
}

FIXTURE_TEARDOWN(stale)
{
	mnt_stop(_metadata, &self->m);
}

TEST_F(stale, handle_stale_the_name_reaches_the_new_object)
{
	char buf[8];
	struct stat st;
	int fd;

	fd = open(path(&self->m, "file"), O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(6, pread(fd, buf, sizeof(buf), 0));
	STORE(self->sh->phase, 1);
	/* the entry expired: the lookup finds nodeid 2, another object */
	ASSERT_EQ(0, stat(path(&self->m, "file"), &st));
	if (!expect_handles())
		close(fd);	/* the books at the end want it closed */
	SKIP_WITHOUT_HANDLES(&self->m);
	EXPECT_LE(1, LOAD(self->sh->edits));
	EXPECT_EQ(variant->new_mode ? variant->new_mode : S_IFREG,
		  st.st_mode & S_IFMT);
	EXPECT_EQ(variant->new_ino ? variant->new_ino : NODE_FILE, st.st_ino);
	/* the old inode is stale: I/O through it fails */
	EXPECT_EQ(-EIO, ret_of(pread(fd, buf, sizeof(buf), 0)));
	close(fd);
	/* and the new object stays found */
	ASSERT_EQ(0, stat(path(&self->m, "file"), &st));
	EXPECT_EQ(variant->new_ino ? variant->new_ino : NODE_FILE, st.st_ino);
}

/*
 * handle_stale for an inode READDIRPLUS made, without a handle: its name
 * found again with a STATX of another inode number is another object.
 * The listing's entries do not expire; the server then invalidates the
 * name (FUSE_NOTIFY_INVAL_ENTRY, written while it answers a STATFS), so
 * that the next stat() looks it up.
 */
FIXTURE(rdplus_stale) {
	struct mnt m;
	struct shared *sh;
};

static void rdplus_change(struct shared *sh, struct srv_reply *r,
			  const struct op *op)
{
	struct fuse_out_header *oh = op_out(r, op);

	if (op->opcode != FUSE_STATX || oh->error ||
	    ((struct fuse_statx_out *)(oh + 1))->stat.ino != NODE_FILE)
		return;
	((struct fuse_statx_out *)(oh + 1))->stat.ino += 100;
	EDITED(sh);
}

static void edit_rdplus_stale(const struct srv_config *cfg,
			      const struct fuse_in_header *req,
			      struct srv_reply *r)
{
	struct shared *sh = (void *)(uintptr_t)cfg->edit_arg;
	struct {
		struct fuse_notify_inval_entry_out out;
		char name[sizeof("file")];
	} inval = {
		.out = { .parent = FUSE_ROOT_ID, .namelen = 4 },
		.name = "file",
	};

	if (!LOAD(sh->phase))
		return;
	if (req->opcode == FUSE_STATFS)
		/* the name and its NUL, no padding: the size is checked */
		srv_write_notify(r, FUSE_NOTIFY_INVAL_ENTRY, &inval,
				 sizeof(inval.out) + sizeof(inval.name));
	for_each_op(cfg, req, r, rdplus_change);
}

FIXTURE_SETUP(rdplus_stale)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG, LONG);

	cfg.statx = true;
	cfg.max_handle_sz = 16;
	cfg.readdirplus = true;
	self->sh = mnt_start_edited(&self->m, cfg, NULL, edit_rdplus_stale);
	ASSERT_NE(NULL, self->sh);
}

FIXTURE_TEARDOWN(rdplus_stale)
{
	mnt_stop(_metadata, &self->m);
}

/* List the root: READDIRPLUS makes the inodes of its names */
static int list_root(struct mnt *m)
{
	DIR *d = opendir(m->dir);
	int names = 0;

	if (!d)
		return -errno;
	while (readdir(d))
		names++;
	closedir(d);
	return names;
}

TEST_F(rdplus_stale, handle_stale_readdirplus_inode_of_another_ino)
{
	const struct srv_record *raw;
	struct statfs sfs;
	struct stat st;
	char buf[8];
	int fd;

	ASSERT_LT(0, list_root(&self->m));
	/* the listing's dentry: no lookup, an inode without a handle */
	fd = open(path(&self->m, "file"), O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(6, pread(fd, buf, sizeof(buf), 0));
	STORE(self->sh->phase, 1);
	ASSERT_EQ(0, statfs(self->m.dir, &sfs));
	raw = raw_write_in_statfs(&self->m);
	ASSERT_NE(NULL, raw);
	EXPECT_EQ(0, raw->write_errno);
	/* looked up again: nodeid 2, but another inode number */
	EXPECT_EQ(0, stat(path(&self->m, "file"), &st));
	if (!expect_handles())
		close(fd);	/* the books at the end want it closed */
	SKIP_WITHOUT_HANDLES(&self->m);
	EXPECT_LE(1, LOAD(self->sh->edits));
	EXPECT_EQ(NODE_FILE + 100, st.st_ino);
	/* the old inode is stale: I/O through it fails */
	EXPECT_EQ(-EIO, ret_of(pread(fd, buf, sizeof(buf), 0)));
	close(fd);
	STORE(self->sh->phase, 0);
}

/*
 * Lookups and revalidations of one object that run at once must agree
 * (fuse_inode_match_handle()): an inode READDIRPLUS made without a handle,
 * reached through two hard links, "file" and "twin", each stat()ed by its
 * own process while the server answers both with the same handle.  The
 * inode must never go stale (an open file on it keeps reading).  With two
 * different handles for the two names (the server's error), one of the
 * lookups finds another object, every time: the inode goes stale.
 */
FIXTURE(race) {
	struct mnt m;
	struct shared *sh;
};

FIXTURE_VARIANT(race) {
	bool two_handles;
};

FIXTURE_VARIANT_ADD(race, same_handle) { .two_handles = false };
FIXTURE_VARIANT_ADD(race, two_handles) { .two_handles = true };

static void twin_handle(struct shared *sh, struct srv_reply *r,
			const struct op *op)
{
	const FIXTURE_VARIANT(race) *v = sh->variant;
	struct fuse_out_header *oh = op_out(r, op);

	if (!v->two_handles || op->opcode != FUSE_LOOKUP_HANDLE || oh->error ||
	    strcmp(op->arg, "twin"))
		return;
	fh_of(oh + 1)->handle[fh_of(oh + 1)->size - 1] ^= 0xff;
	EDITED(sh);
}

static void edit_race(const struct srv_config *cfg,
		      const struct fuse_in_header *req, struct srv_reply *r)
{
	for_each_op(cfg, req, r, twin_handle);
}

FIXTURE_SETUP(race)
{
	/* entries expire at once: every stat() revalidates */
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, 0, LONG);

	cfg.statx = true;
	cfg.max_handle_sz = 16;
	cfg.readdirplus = true;
	cfg.export_support = true;
	self->sh = mnt_start_edited(&self->m, cfg, variant, edit_race);
	ASSERT_NE(NULL, self->sh);
}

FIXTURE_TEARDOWN(race)
{
	mnt_stop(_metadata, &self->m);
}

/*
 * stat() @name @n times in a child; its pid.  The child fails on any error
 * but ENOENT (a name between its dentries), and with @stale_ok also on any
 * but EIO and ESTALE: what a stat() racing with the lookup that found the
 * inode stale may see, as with stock's reuse of a nodeid
 */
static pid_t stat_in_child(struct mnt *m, const char *name, int n,
			   bool stale_ok)
{
	pid_t pid = fork();
	struct stat st;

	if (pid == 0) {
		while (n--)
			if (stat(path(m, name), &st) && errno != ENOENT &&
			    !(stale_ok && (errno == EIO || errno == ESTALE)))
				_exit(1);
		_exit(0);
	}
	return pid;
}

#define RACE_ROUNDS	40

TEST_F(race, handle_match_racing_lookups_agree)
{
	struct {
		struct file_handle fh;
		unsigned char bytes[MAX_HANDLE_SZ];
	} h = { .fh.handle_bytes = MAX_HANDLE_SZ };
	int mount_id, mfd, fd, round, stale = 0, status;
	char buf[8];
	pid_t a, b;

	ASSERT_EQ(0, link(path(&self->m, "file"), path(&self->m, "twin")));
	ASSERT_EQ(0, name_to_handle_at(AT_FDCWD, path(&self->m, "file"),
				       &h.fh, &mount_id, 0));
	mfd = open(self->m.dir, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, mfd);
	for (round = 0; round < RACE_ROUNDS; round++) {
		/* a fresh inode of the node, made by READDIRPLUS, no handle */
		ASSERT_TRUE(drop_caches());
		ASSERT_LT(0, list_root(&self->m));
		/* a file open on it without a lookup: by its nodeid */
		fd = open_by_handle_at(mfd, &h.fh, O_RDONLY);
		ASSERT_LE(0, fd);
		a = stat_in_child(&self->m, "file", 4, variant->two_handles);
		b = stat_in_child(&self->m, "twin", 4, variant->two_handles);
		ASSERT_LT(0, a);
		ASSERT_LT(0, b);
		ASSERT_EQ(a, waitpid(a, &status, 0));
		EXPECT_EQ(0, status);
		ASSERT_EQ(b, waitpid(b, &status, 0));
		EXPECT_EQ(0, status);
		stale += pread(fd, buf, sizeof(buf), 0) < 0 && errno == EIO;
		close(fd);
	}
	close(mfd);
	SKIP_WITHOUT_HANDLES(&self->m);
	TH_LOG("%d of %d rounds left the inode stale", stale, RACE_ROUNDS);
	EXPECT_EQ(variant->two_handles ? RACE_ROUNDS : 0, stale);
}

/* --- a STATX with fewer fields than an inode needs --- */

/*
 * partial_statx: a STATX whose mask lacks a basic field (a passthrough
 * server relaying a backing filesystem that has none) does not fail the
 * lookup: as stock fuse_do_statx() does, the kernel does not build
 * attributes from part of them, and asks GETATTR for that node
 */
FIXTURE(partial_statx) {
	struct mnt m;
	struct shared *sh;
};

FIXTURE_VARIANT(partial_statx) {
	uint32_t missing;	/* the STATX_* bit the server leaves out */
	enum action action;
};

#define PARTIAL(name, bit, act)						\
	FIXTURE_VARIANT_ADD(partial_statx, name) {			\
		.missing = bit, .action = act,				\
	}
PARTIAL(no_type, STATX_TYPE, LOOKUP_NEW);
PARTIAL(no_mode, STATX_MODE, LOOKUP_NEW);
PARTIAL(no_nlink, STATX_NLINK, LOOKUP_NEW);
PARTIAL(no_uid, STATX_UID, LOOKUP_NEW);
PARTIAL(no_gid, STATX_GID, LOOKUP_NEW);
PARTIAL(no_atime, STATX_ATIME, LOOKUP_NEW);
PARTIAL(no_mtime, STATX_MTIME, LOOKUP_NEW);
PARTIAL(no_ctime, STATX_CTIME, LOOKUP_NEW);
PARTIAL(no_ino, STATX_INO, LOOKUP_NEW);
PARTIAL(no_size, STATX_SIZE, LOOKUP_NEW);
PARTIAL(no_blocks, STATX_BLOCKS, LOOKUP_NEW);
PARTIAL(no_size_on_mkdir, STATX_SIZE, MAKE_DIR);
PARTIAL(no_type_on_create, STATX_TYPE, CREATE_OPEN);

static void drop_field(struct shared *sh, struct srv_reply *r,
		       const struct op *op)
{
	const FIXTURE_VARIANT(partial_statx) *v = sh->variant;
	struct fuse_out_header *oh = op_out(r, op);

	if (op->opcode != FUSE_STATX || oh->error)
		return;
	((struct fuse_statx_out *)(oh + 1))->stat.mask &= ~v->missing;
	EDITED(sh);
}

static void edit_partial(const struct srv_config *cfg,
			 const struct fuse_in_header *req, struct srv_reply *r)
{
	struct shared *sh = (void *)(uintptr_t)cfg->edit_arg;

	if (LOAD(sh->phase))
		for_each_op(cfg, req, r, drop_field);
}

FIXTURE_SETUP(partial_statx)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG, LONG);

	cfg.statx = true;
	cfg.max_handle_sz = 16;
	self->sh = mnt_start_edited(&self->m, cfg, variant, edit_partial);
	ASSERT_NE(NULL, self->sh);
}

FIXTURE_TEARDOWN(partial_statx)
{
	mnt_stop(_metadata, &self->m);
}

TEST_F(partial_statx, partial_statx_falls_back_to_getattr)
{
	unsigned int from = nreq(&self->m);
	const char *name = variant->action == LOOKUP_NEW ? "file" : "made";
	const struct srv_record *getattr;
	struct stat st;

	ASSERT_EQ(0, act(&self->m, self->sh, variant->action));
	STORE(self->sh->phase, 0);
	SKIP_WITHOUT_HANDLES(&self->m);
	dump_log(_metadata, &self->m, from);
	ASSERT_LE(1, LOAD(self->sh->edits));
	/* the attributes of the node, asked again in full */
	getattr = first_op(&self->m, from, FUSE_GETATTR);
	ASSERT_NE(NULL, getattr);
	EXPECT_EQ(0, getattr->sub);
	EXPECT_EQ(variant->action == LOOKUP_NEW ? NODE_FILE : NODE_MADE,
		  getattr->nodeid);
	/* what the inode was made of is the server's */
	ASSERT_EQ(0, lstat(path(&self->m, name), &st));
	EXPECT_EQ(getattr->nodeid, st.st_ino);
	if (variant->action == LOOKUP_NEW) {
		EXPECT_EQ(6, st.st_size);
		EXPECT_EQ(S_IFREG | 0644, st.st_mode);
	}
	/*
	 * close() returns before the kernel sends RELEASE: let the created
	 * file's RELEASE arrive, so that what is counted next is the lookup's
	 * alone (under a loaded host it came after the count began)
	 */
	if (variant->action == CREATE_OPEN)
		ASSERT_TRUE(wait_op(&self->m, from, FUSE_RELEASE));
	/* and remembered: the next lookup asks GETATTR in its compound */
	from = nreq(&self->m);
	ASSERT_EQ(0, stat(path(&self->m, "empty"), &st));
	EXPECT_EQ(1, round_trips_since(&self->m, from));
	EXPECT_EQ(0, ops_since(&self->m, from, FUSE_STATX));
	EXPECT_EQ(1, count_since(&self->m, from, FUSE_GETATTR, true));
}

/* --- a server that offers handles but does not know their requests --- */

/*
 * lookup_handle_enosys, mkobj_handle_enosys: the server negotiated the
 * flag but does not know the request: it answers ENOSYS (and the op that
 * depends on it fails with it).  The call that learned it succeeds by the
 * classic request, and the connection keeps to it.
 * handle_eopnotsupp_remembered: so does a server that knows the request
 * but does not serve it (EOPNOTSUPP): asked again on every lookup, it
 * would cost a round trip more than stock each time.
 */
FIXTURE(handle_op_enosys) {
	struct mnt m;
};

FIXTURE_VARIANT(handle_op_enosys) {
	uint32_t opcode;	/* the server does not know it */
	int error;		/* its answer: ENOSYS unless set */
	uint32_t classic;	/* what the kernel sends instead */
	enum action action;
};

FIXTURE_VARIANT_ADD(handle_op_enosys, lookup_handle_enosys) {
	.opcode = FUSE_LOOKUP_HANDLE, .classic = FUSE_LOOKUP,
	.action = LOOKUP_NEW,
};
FIXTURE_VARIANT_ADD(handle_op_enosys, mkobj_handle_enosys) {
	.opcode = FUSE_MKOBJ_HANDLE, .classic = FUSE_MKDIR,
	.action = MAKE_DIR,
};
FIXTURE_VARIANT_ADD(handle_op_enosys, handle_eopnotsupp_remembered_lookup) {
	.opcode = FUSE_LOOKUP_HANDLE, .error = -EOPNOTSUPP,
	.classic = FUSE_LOOKUP, .action = LOOKUP_NEW,
};
FIXTURE_VARIANT_ADD(handle_op_enosys, handle_eopnotsupp_remembered_mkobj) {
	.opcode = FUSE_MKOBJ_HANDLE, .error = -EOPNOTSUPP,
	.classic = FUSE_MKDIR, .action = MAKE_DIR,
};

FIXTURE_SETUP(handle_op_enosys)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG, LONG);

	cfg.statx = true;
	cfg.max_handle_sz = 16;
	cfg.unknown_opcode = variant->opcode;
	cfg.unknown_error = variant->error;
	ASSERT_EQ(0, mnt_start(&self->m, cfg));
}

FIXTURE_TEARDOWN(handle_op_enosys)
{
	mnt_stop(_metadata, &self->m);
}

TEST_F(handle_op_enosys, the_call_succeeds_and_the_classic_request_stays)
{
	unsigned int from = nreq(&self->m), again;
	struct shared sh = {};
	struct stat st;

	ASSERT_EQ(0, act(&self->m, &sh, variant->action));
	SKIP_WITHOUT_HANDLES(&self->m);
	dump_log(_metadata, &self->m, from);
	EXPECT_EQ(1, ops_since(&self->m, from, variant->opcode));
	EXPECT_EQ(1, ops_since(&self->m, from, variant->classic));
	/* the next one is classic at once, one round trip */
	again = nreq(&self->m);
	if (variant->action == LOOKUP_NEW) {
		ASSERT_EQ(0, stat(path(&self->m, "empty"), &st));
	} else {
		ASSERT_EQ(0, mkdir(path(&self->m, "made2"), 0755));
		/* and the lookups still go by handle */
		EXPECT_EQ(0, ops_since(&self->m, from, FUSE_LOOKUP));
	}
	EXPECT_EQ(0, ops_since(&self->m, again, variant->opcode));
	EXPECT_EQ(1, ops_since(&self->m, again, variant->classic));
}

TEST_HARNESS_MAIN
