// SPDX-License-Identifier: GPL-2.0
/*
 * File handles (FUSE_HAS_LOOKUP_HANDLE, lookup-handle.md), what a server
 * that negotiates them sees: lookups, revalidations and creations as
 * LOOKUP_HANDLE or MKOBJ_HANDLE with their attributes (and the open) in
 * the same compound, or one by one when it does not run compounds, and
 * the parent named by its handle.
 *
 * On a kernel that does not offer handles (FUSEGATE_EXPECT_HANDLES=0) the
 * tests check that the server saw no handle request and report SKIP.
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

/* --- a server that negotiates handles: what it sees --- */

FIXTURE(handles) {
	struct mnt m;
};

/* How the server answers FUSE_COMPOUND, and whether it has STATX */
FIXTURE_VARIANT(handles) {
	enum srv_behaviour behaviour;
	bool statx;
	uint64_t entry_timeout;
};

FIXTURE_VARIANT_ADD(handles, compound_statx) {
	.behaviour = SRV_COMPLIANT, .statx = true, .entry_timeout = LONG,
};
FIXTURE_VARIANT_ADD(handles, compound_getattr) {
	.behaviour = SRV_COMPLIANT, .statx = false, .entry_timeout = LONG,
};
FIXTURE_VARIANT_ADD(handles, compound_expired) {
	.behaviour = SRV_COMPLIANT, .statx = true, .entry_timeout = 0,
};
FIXTURE_VARIANT_ADD(handles, enosys_statx) {
	.behaviour = SRV_COMPOUND_ENOSYS, .statx = true, .entry_timeout = LONG,
};
FIXTURE_VARIANT_ADD(handles, eopnotsupp_statx) {
	.behaviour = SRV_COMPOUND_EOPNOTSUPP, .statx = true,
	.entry_timeout = LONG,
};
FIXTURE_VARIANT_ADD(handles, eopnotsupp_expired) {
	.behaviour = SRV_COMPOUND_EOPNOTSUPP, .statx = true, .entry_timeout = 0,
};

FIXTURE_SETUP(handles)
{
	struct srv_config cfg = srv_cfg(variant->behaviour,
					variant->entry_timeout, LONG);

	cfg.statx = variant->statx;
	cfg.max_handle_sz = FUSE_MAX_HANDLE_SZ;
	ASSERT_EQ(0, mnt_start(&self->m, cfg));
}

FIXTURE_TEARDOWN(handles)
{
	mnt_stop(_metadata, &self->m);
}

/*
 * Since @from: one LOOKUP_HANDLE or MKOBJ_HANDLE (@producer) and one
 * attribute op; in one compound, with the attribute op depending on the
 * producer, when the server runs compounds
 */
static void expect_produced(struct __test_metadata *_metadata, struct mnt *m,
			    unsigned int from, uint32_t producer, bool statx,
			    bool compound)
{
	const struct srv_record *c = compound_of(m, from, producer);

	EXPECT_EQ(1, ops_since(m, from, producer));
	EXPECT_EQ(1, ops_since(m, from, attr_opcode(statx)));
	EXPECT_EQ(0, ops_since(m, from, FUSE_LOOKUP));
	if (compound) {
		ASSERT_NE(NULL, c);
		EXPECT_EQ(producer, c[1].opcode);
		EXPECT_EQ(FUSE_COMPOUND_NO_DEP, c[1].dep_index);
		EXPECT_EQ(attr_opcode(statx), c[2].opcode);
		EXPECT_EQ(0, c[2].dep_index);
		EXPECT_EQ(0, c[2].nodeid);	/* from the dependency */
	} else {
		/* the two one by one: the attributes of the node found */
		EXPECT_EQ(2, count_since(m, from, producer, false) +
			     count_since(m, from, attr_opcode(statx), false));
	}
}

static bool runs_compounds(const FIXTURE_VARIANT(handles) *variant)
{
	return variant->behaviour == SRV_COMPLIANT;
}

TEST_F(handles, lookup_is_lookup_handle_with_its_attributes)
{
	unsigned int from = warm_up(_metadata, &self->m);
	const struct srv_record *rec;
	struct stat st;

	ASSERT_EQ(0, stat(path(&self->m, "file"), &st));
	SKIP_WITHOUT_HANDLES(&self->m);
	EXPECT_EQ(NODE_FILE, st.st_ino);
	EXPECT_EQ(6, st.st_size);
	expect_produced(_metadata, &self->m, from, FUSE_LOOKUP_HANDLE,
			variant->statx, runs_compounds(variant));
	/* the root has no handle: none named it */
	rec = first_op(&self->m, from, FUSE_LOOKUP_HANDLE);
	ASSERT_NE(NULL, rec);
	EXPECT_EQ(0, rec->arg);
}

TEST_F(handles, lookup_in_a_directory_names_it_by_its_handle)
{
	unsigned int from = warm_up(_metadata, &self->m);
	const struct srv_record *rec;
	struct stat st;

	/* the server answers ESTALE to a parent handle that is not the dir's */
	ASSERT_EQ(0, stat(path(&self->m, "dir/inner"), &st));
	SKIP_WITHOUT_HANDLES(&self->m);
	/* the lookup of "inner" (with short timeouts "dir" is revalidated too) */
	rec = op_on(&self->m, from, FUSE_LOOKUP_HANDLE, NODE_DIR);
	ASSERT_NE(NULL, rec);
	EXPECT_EQ(DIR_HANDLE_SZ, rec->arg);
}

TEST_F(handles, expired_entry_is_revalidated_by_handle)
{
	struct stat st1, st2;
	unsigned int from;

	if (variant->entry_timeout)
		SKIP(return, "entries do not expire here");
	warm_up(_metadata, &self->m);
	ASSERT_EQ(0, stat(path(&self->m, "file"), &st1));
	from = nreq(&self->m);
	ASSERT_EQ(0, stat(path(&self->m, "file"), &st2));
	SKIP_WITHOUT_HANDLES(&self->m);
	EXPECT_EQ(st1.st_ino, st2.st_ino);
	expect_produced(_metadata, &self->m, from, FUSE_LOOKUP_HANDLE,
			variant->statx, runs_compounds(variant));
}

TEST_F(handles, create_makes_stats_and_opens_in_one_round_trip)
{
	unsigned int from = warm_up(_metadata, &self->m);
	const struct srv_record *c;
	struct stat st;
	int fd;

	fd = open(path(&self->m, "new"), O_CREAT | O_EXCL | O_RDWR, 0640);
	ASSERT_LE(0, fd);
	ASSERT_EQ(3, write(fd, "abc", 3));
	ASSERT_EQ(0, fstat(fd, &st));
	ASSERT_EQ(0, close(fd));
	SKIP_WITHOUT_HANDLES(&self->m);
	EXPECT_TRUE(S_ISREG(st.st_mode));
	EXPECT_EQ(3, st.st_size);
	EXPECT_EQ(0, ops_since(&self->m, from, FUSE_CREATE));
	EXPECT_EQ(0, ops_since(&self->m, from, FUSE_MKNOD));
	EXPECT_EQ(1, ops_since(&self->m, from, FUSE_MKOBJ_HANDLE));
	EXPECT_EQ(1, ops_since(&self->m, from, FUSE_OPEN));
	/* the handle it opened is given back (after close: asynchronously) */
	ASSERT_TRUE(wait_op(&self->m, from, FUSE_RELEASE));
	c = compound_of(&self->m, from, FUSE_MKOBJ_HANDLE);
	if (runs_compounds(variant)) {
		ASSERT_NE(NULL, c);
		EXPECT_EQ(FUSE_MKOBJ_HANDLE, c[1].opcode);
		EXPECT_EQ(attr_opcode(variant->statx), c[2].opcode);
		EXPECT_EQ(FUSE_OPEN, c[3].opcode);
		EXPECT_EQ(0, c[3].dep_index);
	}
}

/* mkdir, mknod and symlink: MKOBJ_HANDLE of the right type */
TEST_F(handles, mkdir_mknod_and_symlink_are_mkobj_handle)
{
	unsigned int from = warm_up(_metadata, &self->m);
	char target[16] = "";
	struct stat st;

	ASSERT_EQ(0, mkdir(path(&self->m, "newdir"), 0750));
	ASSERT_EQ(0, mknod(path(&self->m, "fifo"), S_IFIFO | 0600, 0));
	ASSERT_EQ(0, symlink("file", path(&self->m, "newlink")));
	SKIP_WITHOUT_HANDLES(&self->m);
	EXPECT_EQ(3, ops_since(&self->m, from, FUSE_MKOBJ_HANDLE));
	EXPECT_EQ(0, ops_since(&self->m, from, FUSE_MKDIR) +
		     ops_since(&self->m, from, FUSE_MKNOD) +
		     ops_since(&self->m, from, FUSE_SYMLINK));
	ASSERT_EQ(0, lstat(path(&self->m, "newdir"), &st));
	EXPECT_TRUE(S_ISDIR(st.st_mode));
	ASSERT_EQ(0, lstat(path(&self->m, "fifo"), &st));
	EXPECT_TRUE(S_ISFIFO(st.st_mode));
	ASSERT_EQ(4, readlink(path(&self->m, "newlink"), target, sizeof(target)));
	EXPECT_EQ(0, memcmp(target, "file", 4));
}

TEST_HARNESS_MAIN
