// SPDX-License-Identifier: GPL-2.0
/*
 * File handles (FUSE_HAS_LOOKUP_HANDLE), a server that breaks them: broken
 * handles, nodeids and attributes give the caller EIO, and every nodeid
 * and open handle the server granted comes back (FORGET, RELEASE); a
 * largest handle out of range at INIT keeps the classic requests; the
 * same nodeid with another handle is another object.
 *
 * On a kernel that does not offer handles (FUSEGATE_EXPECT_HANDLES=0) the
 * tests report SKIP.
 */
#define _GNU_SOURCE
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
	REVALIDATE,		/* stat "file" again, its entry expired, while
				 * an open file holds its inode */
	MAKE_DIR,		/* mkdir "made" */
	CREATE_OPEN,		/* open "made" with O_CREAT */
};

FIXTURE(broken) {
	struct mnt m;
	struct shared *sh;
};

FIXTURE_VARIANT(broken) {
	enum action action;
	uint32_t opcode;	/* the reply (or subreply) broken */
	void (*edit)(void *payload, size_t *len);
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

static void attr_of_a_directory(void *p, size_t *len)
{
	((struct fuse_statx_out *)p)->stat.mode = S_IFDIR | 0755;
}

static void attr_of_another_node(void *p, size_t *len)
{
	((struct fuse_statx_out *)p)->stat.ino += 100;
}

#define BROKEN(name, act, op, ...)					\
	FIXTURE_VARIANT_ADD(broken, name) {				\
		.action = act, .opcode = op, .call_errno = EIO, __VA_ARGS__ \
	}

/*
 * A handle of no bytes, or one whose size is not what the reply holds:
 * the reply is malformed, the server's write refused (handle_size_mismatch)
 * and no entry taken; one longer than the out-arg can hold is refused by
 * the compound's own rules (payload_mismatch)
 */
/* an entry without a handle: the lookup fails, the nodeid comes back */
BROKEN(handle_missing, LOOKUP_NEW, FUSE_LOOKUP_HANDLE,
       .edit = handle_missing, .forgets = NODE_FILE);
BROKEN(handle_size_zero, LOOKUP_NEW, FUSE_LOOKUP_HANDLE,
       .edit = handle_size_zero, .write_errno = EINVAL);
BROKEN(handle_size_above_max, LOOKUP_NEW, FUSE_LOOKUP_HANDLE,
       .edit = handle_size_above_max, .write_errno = EINVAL);
BROKEN(handle_size_above_payload, LOOKUP_NEW, FUSE_LOOKUP_HANDLE,
       .edit = handle_size_above_payload, .write_errno = EINVAL);
BROKEN(handle_size_below_payload, LOOKUP_NEW, FUSE_LOOKUP_HANDLE,
       .edit = handle_size_below_payload, .write_errno = EINVAL);
BROKEN(root_nodeid_for_a_name, LOOKUP_NEW, FUSE_LOOKUP_HANDLE,
       .edit = root_nodeid, .forgets = FUSE_ROOT_ID);
BROKEN(zero_nodeid_on_creation, MAKE_DIR, FUSE_MKOBJ_HANDLE,
       .edit = zero_nodeid);
BROKEN(statx_fails_on_lookup, LOOKUP_NEW, FUSE_STATX, .error = -EIO,
       .forgets = NODE_FILE);
/* (the RELEASE is of the file the test holds open) */
BROKEN(statx_of_another_type, REVALIDATE, FUSE_STATX,
       .edit = attr_of_a_directory, .forgets = NODE_FILE, .releases = true);
BROKEN(statx_of_another_node, REVALIDATE, FUSE_STATX,
       .edit = attr_of_another_node, .forgets = NODE_FILE, .releases = true);
/* the object was made and opened, then its attributes failed */
BROKEN(statx_fails_on_create, CREATE_OPEN, FUSE_STATX, .error = -EIO,
       .forgets = 8, .releases = true);
/*
 * Made, then its open refused: the object stays (as when the OPEN after a
 * MKNOD fails), the caller gets the open's error, and there is no open
 * handle to give back
 */
FIXTURE_VARIANT_ADD(broken, open_fails_on_create) {
	.action = CREATE_OPEN, .opcode = FUSE_OPEN, .error = -EACCES,
	.call_errno = EACCES, .made_stays = true,
};

/* In the server: once the test says so, break the variant's (sub)reply */
static void break_op(struct shared *sh, struct srv_reply *r,
		     const struct op *op)
{
	const FIXTURE_VARIANT(broken) *v = sh->variant;
	struct fuse_out_header *oh = op_out(r, op);
	unsigned char payload[512];
	size_t len = oh->len - sizeof(*oh);

	if (op->opcode != v->opcode || oh->error || len > sizeof(payload))
		return;
	memcpy(payload, oh + 1, len);
	if (v->edit)
		v->edit(payload, &len);
	op_answer(r, op, v->error, payload, v->error ? 0 : len);
	EDITED(sh);
}

static void edit_broken(const struct srv_config *cfg,
			const struct fuse_in_header *req, struct srv_reply *r)
{
	struct shared *sh = (void *)(uintptr_t)cfg->edit_arg;

	if (LOAD(sh->phase))
		for_each_op(cfg, req, r, break_op);
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
	int fd, ret;

	switch (a) {
	case REVALIDATE:
		/* the inode stays: the lookup after it finds it */
		fd = open(path(m, "file"), O_RDONLY);
		if (fd < 0)
			return -errno;
		STORE(sh->phase, 1);
		ret = stat(path(m, "file"), &st) ? -errno : 0;
		close(fd);
		return ret;
	case LOOKUP_NEW:
		STORE(sh->phase, 1);
		return stat(path(m, "file"), &st) ? -errno : 0;
	case MAKE_DIR:
		STORE(sh->phase, 1);
		return mkdir(path(m, "made"), 0755) ? -errno : 0;
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
	/* a revalidation and the lookup after it: each broken */
	ASSERT_LE(1, LOAD(self->sh->edits));
	rec = compound_since(&self->m, from);
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
		EXPECT_EQ(0, LOAD(self->m.log->forgotten[8]));
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

/* --- another object behind a known nodeid --- */

static void new_handle(struct shared *sh, struct srv_reply *r,
		       const struct op *op)
{
	struct fuse_out_header *oh = op_out(r, op);

	if (op->opcode != FUSE_LOOKUP_HANDLE || oh->error)
		return;
	/* the last byte of the handle: another incarnation */
	fh_of(oh + 1)->handle[fh_of(oh + 1)->size - 1] ^= 0xff;
	EDITED(sh);
}

static void edit_new_handle(const struct srv_config *cfg,
			    const struct fuse_in_header *req,
			    struct srv_reply *r)
{
	struct shared *sh = (void *)(uintptr_t)cfg->edit_arg;

	if (LOAD(sh->phase))
		for_each_op(cfg, req, r, new_handle);
}

FIXTURE(stale) {
	struct mnt m;
	struct shared *sh;
};

FIXTURE_SETUP(stale)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, 0, LONG);

	cfg.statx = true;
	cfg.max_handle_sz = FUSE_MAX_HANDLE_SZ;
	self->sh = mnt_start_edited(&self->m, cfg, NULL, edit_new_handle);
	ASSERT_NE(NULL, self->sh);
}

FIXTURE_TEARDOWN(stale)
{
	mnt_stop(_metadata, &self->m);
}

TEST_F(stale, same_nodeid_with_another_handle_is_another_object)
{
	char buf[8];
	struct stat st;
	int fd;

	fd = open(path(&self->m, "file"), O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(6, pread(fd, buf, sizeof(buf), 0));
	STORE(self->sh->phase, 1);
	/* the entry expired: the lookup finds nodeid 2 with another handle */
	ASSERT_EQ(0, stat(path(&self->m, "file"), &st));
	if (!expect_handles())
		close(fd);	/* the books at the end want it closed */
	SKIP_WITHOUT_HANDLES(&self->m);
	EXPECT_LE(1, LOAD(self->sh->edits));
	/* the old inode is stale: I/O through it fails */
	EXPECT_EQ(-EIO, ret_of(pread(fd, buf, sizeof(buf), 0)));
	close(fd);
}

TEST_HARNESS_MAIN
