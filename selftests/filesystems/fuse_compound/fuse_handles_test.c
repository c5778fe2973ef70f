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
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <grp.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
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
 * attribute op in one compound, the attribute op depending on the
 * producer, when the server runs compounds; else the classic request
 * (@classic) alone, one round trip as in stock (handles_need_compounds)
 */
static void expect_produced(struct __test_metadata *_metadata, struct mnt *m,
			    unsigned int from, uint32_t producer,
			    uint32_t classic, bool statx, bool compound)
{
	const struct srv_record *c = compound_of(m, from, producer);

	if (!compound) {
		EXPECT_EQ(0, ops_since(m, from, producer));
		EXPECT_EQ(1, ops_since(m, from, classic));
		EXPECT_EQ(1, round_trips_since(m, from));
		return;
	}
	EXPECT_EQ(1, ops_since(m, from, producer));
	EXPECT_EQ(1, ops_since(m, from, attr_opcode(statx)));
	EXPECT_EQ(0, ops_since(m, from, classic));
	ASSERT_NE(NULL, c);
	EXPECT_EQ(producer, c[1].opcode);
	EXPECT_EQ(FUSE_COMPOUND_NO_DEP, c[1].dep_index);
	EXPECT_EQ(attr_opcode(statx), c[2].opcode);
	EXPECT_EQ(0, c[2].dep_index);
	EXPECT_EQ(0, c[2].nodeid);	/* from the dependency */
	EXPECT_EQ(1, round_trips_since(m, from));
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
			FUSE_LOOKUP, variant->statx, runs_compounds(variant));
	if (!runs_compounds(variant))
		return;
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
	if (!runs_compounds(variant))
		SKIP(return, "no compounds: classic lookups carry no handle");
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
			FUSE_LOOKUP, variant->statx, runs_compounds(variant));
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
	EXPECT_EQ(0, ops_since(&self->m, from, FUSE_MKNOD));
	/* the handle it opened is given back (after close: asynchronously) */
	ASSERT_TRUE(wait_op(&self->m, from, FUSE_RELEASE));
	if (!runs_compounds(variant)) {
		/* handles_need_compounds: the classic CREATE, one round trip */
		EXPECT_EQ(0, ops_since(&self->m, from, FUSE_MKOBJ_HANDLE));
		EXPECT_EQ(1, ops_since(&self->m, from, FUSE_CREATE));
		return;
	}
	EXPECT_EQ(0, ops_since(&self->m, from, FUSE_CREATE));
	EXPECT_EQ(1, ops_since(&self->m, from, FUSE_MKOBJ_HANDLE));
	EXPECT_EQ(1, ops_since(&self->m, from, FUSE_OPEN));
	c = compound_of(&self->m, from, FUSE_MKOBJ_HANDLE);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(FUSE_MKOBJ_HANDLE, c[1].opcode);
	EXPECT_EQ(attr_opcode(variant->statx), c[2].opcode);
	EXPECT_EQ(FUSE_OPEN, c[3].opcode);
	EXPECT_EQ(0, c[3].dep_index);
}

/*
 * handles_need_compounds: where the server refuses the creation's
 * compound (EOPNOTSUPP), the call that learned it costs the refused
 * compound and the classic CREATE, and every creation after it is the
 * CREATE alone; never MKOBJ_HANDLE, STATX and OPEN one by one
 */
TEST_F(handles, create_without_compounds_is_the_classic_create)
{
	unsigned int from = warm_up(_metadata, &self->m), second;

	if (runs_compounds(variant))
		SKIP(return, "the server runs compounds");
	ASSERT_EQ(0, open_close(&self->m, "new", O_CREAT | O_EXCL | O_RDWR));
	second = nreq(&self->m);
	ASSERT_EQ(0, open_close(&self->m, "new2", O_CREAT | O_EXCL | O_RDWR));
	SKIP_WITHOUT_HANDLES(&self->m);
	EXPECT_EQ(0, ops_since(&self->m, from, FUSE_MKOBJ_HANDLE));
	EXPECT_EQ(0, ops_since(&self->m, from, FUSE_STATX));
	EXPECT_EQ(0, ops_since(&self->m, from, FUSE_OPEN));
	EXPECT_EQ(2, ops_since(&self->m, from, FUSE_CREATE));
	/* the second: its lookup (classic), its CREATE, FLUSH, RELEASE */
	EXPECT_EQ(0, count_since(&self->m, second, FUSE_COMPOUND, false));
	EXPECT_EQ(1, count_since(&self->m, second, FUSE_LOOKUP, false));
	EXPECT_EQ(1, count_since(&self->m, second, FUSE_CREATE, false));
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
	if (runs_compounds(variant)) {
		EXPECT_EQ(3, ops_since(&self->m, from, FUSE_MKOBJ_HANDLE));
		EXPECT_EQ(0, ops_since(&self->m, from, FUSE_MKDIR) +
			     ops_since(&self->m, from, FUSE_MKNOD) +
			     ops_since(&self->m, from, FUSE_SYMLINK));
	} else {
		/* handles_need_compounds: the classic requests */
		EXPECT_EQ(0, ops_since(&self->m, from, FUSE_MKOBJ_HANDLE));
		EXPECT_EQ(1, ops_since(&self->m, from, FUSE_MKDIR));
		EXPECT_EQ(1, ops_since(&self->m, from, FUSE_MKNOD));
		EXPECT_EQ(1, ops_since(&self->m, from, FUSE_SYMLINK));
	}
	ASSERT_EQ(0, lstat(path(&self->m, "newdir"), &st));
	EXPECT_TRUE(S_ISDIR(st.st_mode));
	ASSERT_EQ(0, lstat(path(&self->m, "fifo"), &st));
	EXPECT_TRUE(S_ISFIFO(st.st_mode));
	ASSERT_EQ(4, readlink(path(&self->m, "newlink"), target, sizeof(target)));
	EXPECT_EQ(0, memcmp(target, "file", 4));
}

/*
 * The STATX that comes with a lookup asks for what an inode is made of:
 * the basic fields, not the birth time, which the inode would not keep
 */
TEST_F(handles, lookup_statx_asks_the_basic_fields_only)
{
	unsigned int from = warm_up(_metadata, &self->m);
	const struct srv_record *rec;
	struct stat st;

	ASSERT_EQ(0, stat(path(&self->m, "file"), &st));
	SKIP_WITHOUT_HANDLES(&self->m);
	if (!runs_compounds(variant) || !variant->statx)
		SKIP(return, "no STATX with the lookup here");
	rec = first_op(&self->m, from, FUSE_STATX);
	ASSERT_NE(NULL, rec);
	EXPECT_EQ(STATX_BASIC_STATS, rec->arg);
}

/* --- the ids creations carry on a superblock that allows idmapping --- */

/*
 * creation_credentials: with FUSE_ALLOW_IDMAP and default_permissions a
 * request carries the caller's ids only where a creation needs them
 * (MKNOD, MKDIR, SYMLINK, CREATE; the others carry -1).  A creation by
 * handle carries exactly what the classic one carries: the caller's ids
 * in the compound's header and in every subrequest.
 */
#define CALLER_UID	1000
#define CALLER_GID	1001

FIXTURE(creds) {
	struct mnt m;
};

FIXTURE_VARIANT(creds) {
	enum srv_behaviour behaviour;
};

FIXTURE_VARIANT_ADD(creds, compound) { .behaviour = SRV_COMPLIANT };
FIXTURE_VARIANT_ADD(creds, no_compounds) {
	.behaviour = SRV_COMPOUND_ENOSYS,
};

FIXTURE_SETUP(creds)
{
	struct srv_config cfg = srv_cfg(variant->behaviour, LONG, LONG);

	cfg.statx = true;
	cfg.max_handle_sz = 16;
	cfg.allow_idmap = true;
	cfg.mount_opts = "default_permissions";
	cfg.root_perm = 0777;
	ASSERT_EQ(0, mnt_start(&self->m, cfg));
}

FIXTURE_TEARDOWN(creds)
{
	mnt_stop(_metadata, &self->m);
}

/* As the caller: mkdir, creat, mknod, symlink; 0 or the first errno */
static int create_all_as_caller(struct mnt *m)
{
	pid_t pid = fork();
	int status, fd;

	if (pid < 0)
		return errno;
	if (pid == 0) {
		if (setgroups(0, NULL) || setresgid(CALLER_GID, CALLER_GID, CALLER_GID) ||
		    setresuid(CALLER_UID, CALLER_UID, CALLER_UID))
			_exit(100);
		if (mkdir(path(m, "d"), 0755))
			_exit(errno);
		fd = open(path(m, "f"), O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0)
			_exit(errno);
		close(fd);
		if (mknod(path(m, "p"), S_IFIFO | 0600, 0))
			_exit(errno);
		if (symlink("f", path(m, "l")))
			_exit(errno);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static bool is_creation(uint32_t opcode)
{
	return opcode == FUSE_MKNOD || opcode == FUSE_MKDIR ||
		opcode == FUSE_SYMLINK || opcode == FUSE_CREATE ||
		opcode == FUSE_MKOBJ_HANDLE;
}

TEST_F(creds, creation_credentials_are_the_callers)
{
	unsigned int i, from = warm_up(_metadata, &self->m), seen = 0;
	bool in_creation = false;

	ASSERT_EQ(0, create_all_as_caller(&self->m));
	dump_log(_metadata, &self->m, from);
	/*
	 * every creation, and every subrequest of a compound that creates
	 * (its first op MKOBJ_HANDLE), and that compound's own header
	 */
	for (i = from; i < nreq(&self->m); i++) {
		const struct srv_record *r = &self->m.log->rec[i];

		if (!r->sub)
			in_creation = r->opcode == FUSE_COMPOUND &&
				i + 1 < nreq(&self->m) &&
				self->m.log->rec[i + 1].sub &&
				self->m.log->rec[i + 1].opcode == FUSE_MKOBJ_HANDLE;
		if (!in_creation && !is_creation(r->opcode))
			continue;
		seen++;
		EXPECT_EQ(CALLER_UID, r->uid) TH_LOG("record %u, op %u", i, r->opcode);
		EXPECT_EQ(CALLER_GID, r->gid) TH_LOG("record %u, op %u", i, r->opcode);
	}
	EXPECT_LE(4, seen);
	if (!expect_handles())
		return;
	/* with compounds, by handle; without, the classic requests */
	EXPECT_EQ(variant->behaviour == SRV_COMPLIANT ? 4 : 0,
		  ops_since(&self->m, from, FUSE_MKOBJ_HANDLE));
}

/*
 * Through an idmapped mount the creations stay classic, and carry the
 * mount's mapping of the caller's ids: here the caller's uid and gid
 * appear to the server as IDMAP_UID and IDMAP_GID (a user namespace that
 * maps them to the caller's, attached to a clone of the mount)
 */
#define IDMAP_UID	2000
#define IDMAP_GID	2001

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY), ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, text, strlen(text)) == (ssize_t)strlen(text) ? 0 : -errno;
	close(fd);
	return ret;
}

/*
 * A user namespace mapping IDMAP_UID/GID to the caller's ids: its fd, or
 * -errno (the child could not unshare: a kernel without user namespaces)
 */
static int idmap_userns(void)
{
	char path[64], map[64], c;
	int up[2], down[2], fd = -EINVAL;
	pid_t pid;

	if (pipe(up) || pipe(down))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		close(up[0]);
		close(down[1]);
		if (unshare(CLONE_NEWUSER))
			_exit(1);
		/* unshared: the parent maps it, takes it, then lets go */
		if (write(up[1], "u", 1) != 1)
			_exit(1);
		_exit(read(down[0], &c, 1) < 0);
	}
	close(up[1]);
	close(down[0]);
	if (read(up[0], &c, 1) == 1) {
		snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
		snprintf(map, sizeof(map), "%d %d 1\n", IDMAP_UID, CALLER_UID);
		fd = write_file(path, map);
		snprintf(path, sizeof(path), "/proc/%d/setgroups", pid);
		if (!fd)
			fd = write_file(path, "deny");
		snprintf(path, sizeof(path), "/proc/%d/gid_map", pid);
		snprintf(map, sizeof(map), "%d %d 1\n", IDMAP_GID, CALLER_GID);
		if (!fd)
			fd = write_file(path, map);
		snprintf(path, sizeof(path), "/proc/%d/ns/user", pid);
		if (!fd) {
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				fd = -errno;
		}
	}
	close(up[0]);
	close(down[1]);
	waitpid(pid, NULL, 0);
	return fd;
}

TEST_F(creds, creation_credentials_through_an_idmapped_mount)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_IDMAP };
	char idmapped[sizeof(self->m.dir) + 8];
	unsigned int i, from = warm_up(_metadata, &self->m), seen = 0;
	struct mnt through;
	int tree;

	snprintf(idmapped, sizeof(idmapped), "%s.idmap", self->m.dir);
	ASSERT_EQ(0, mkdir(idmapped, 0755));
	attr.userns_fd = idmap_userns();
	ASSERT_LE(0, (int)attr.userns_fd)
		TH_LOG("a user namespace for the idmapping: %s",
		       strerror(-(int)attr.userns_fd));
	tree = open_tree(AT_FDCWD, self->m.dir, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	ASSERT_LE(0, tree);
	ASSERT_EQ(0, mount_setattr(tree, "", AT_EMPTY_PATH, &attr, sizeof(attr)))
		TH_LOG("mount_setattr(MOUNT_ATTR_IDMAP): %s", strerror(errno));
	ASSERT_EQ(0, move_mount(tree, "", AT_FDCWD, idmapped,
				MOVE_MOUNT_F_EMPTY_PATH));
	close(tree);
	close(attr.userns_fd);
	/* the same creations, by the same caller, through the idmapped mount */
	through = self->m;
	memcpy(through.dir, idmapped, sizeof(through.dir));
	EXPECT_EQ(0, create_all_as_caller(&through));
	umount2(idmapped, MNT_DETACH);
	rmdir(idmapped);
	dump_log(_metadata, &self->m, from);
	for (i = from; i < nreq(&self->m); i++) {
		const struct srv_record *r = &self->m.log->rec[i];

		if (!is_creation(r->opcode))
			continue;
		seen++;
		EXPECT_NE(FUSE_MKOBJ_HANDLE, r->opcode);
		EXPECT_EQ(IDMAP_UID, r->uid) TH_LOG("record %u, op %u", i, r->opcode);
		EXPECT_EQ(IDMAP_GID, r->gid) TH_LOG("record %u, op %u", i, r->opcode);
	}
	EXPECT_EQ(4, seen);
}

/* --- what has no handle request stays classic --- */

/*
 * handles_keep_classic_ops: on a connection with handles, the requests
 * fuse.h says a handle server still answers the classic way, none with the
 * parent's handle: O_TMPFILE is TMPFILE; open_by_handle_at() of an inode
 * the kernel no longer has looks up "." (FUSE_EXPORT_SUPPORT)
 */
FIXTURE(classic_ops) {
	struct mnt m;
};

FIXTURE_SETUP(classic_ops)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG, LONG);

	cfg.statx = true;
	cfg.max_handle_sz = 16;
	cfg.export_support = true;
	cfg.readdirplus = true;
	ASSERT_EQ(0, mnt_start(&self->m, cfg));
}

FIXTURE_TEARDOWN(classic_ops)
{
	mnt_stop(_metadata, &self->m);
}

TEST_F(classic_ops, handles_keep_classic_ops_tmpfile)
{
	unsigned int from = warm_up(_metadata, &self->m);
	int fd;

	/* the server has no TMPFILE: the kernel then says EOPNOTSUPP */
	fd = open(path(&self->m, "dir"), O_TMPFILE | O_RDWR, 0600);
	EXPECT_GT(0, fd);
	if (fd >= 0)
		close(fd);
	SKIP_WITHOUT_HANDLES(&self->m);
	EXPECT_EQ(1, ops_since(&self->m, from, FUSE_TMPFILE));
	EXPECT_EQ(0, ops_since(&self->m, from, FUSE_MKOBJ_HANDLE));
}

TEST_F(classic_ops, handles_keep_classic_ops_link)
{
	unsigned int from = warm_up(_metadata, &self->m);
	const struct srv_record *rec;
	struct stat st;

	ASSERT_EQ(0, link(path(&self->m, "file"), path(&self->m, "file2")));
	ASSERT_EQ(0, stat(path(&self->m, "file2"), &st));
	EXPECT_EQ(NODE_FILE, st.st_ino);
	SKIP_WITHOUT_HANDLES(&self->m);
	rec = first_op(&self->m, from, FUSE_LINK);
	ASSERT_NE(NULL, rec);
	EXPECT_EQ(0, rec->sub);
	EXPECT_EQ(0, ops_since(&self->m, from, FUSE_MKOBJ_HANDLE));
}

TEST_F(classic_ops, handles_keep_classic_ops_readdirplus)
{
	unsigned int from = warm_up(_metadata, &self->m);
	struct dirent *de;
	int names = 0;
	DIR *d;

	d = opendir(self->m.dir);
	ASSERT_NE(NULL, d);
	while ((de = readdir(d)))
		names++;
	closedir(d);
	EXPECT_LE(6, names);
	SKIP_WITHOUT_HANDLES(&self->m);
	EXPECT_LE(1, ops_since(&self->m, from, FUSE_READDIRPLUS));
	EXPECT_EQ(0, ops_since(&self->m, from, FUSE_READDIR));
	EXPECT_EQ(0, ops_since(&self->m, from, FUSE_LOOKUP_HANDLE));
}

TEST_F(classic_ops, handles_keep_classic_ops_open_by_handle)
{
	struct {
		struct file_handle fh;
		unsigned char bytes[MAX_HANDLE_SZ];
	} h = { .fh.handle_bytes = MAX_HANDLE_SZ };
	unsigned int from;
	const struct srv_record *rec;
	int mount_id, mfd, fd;
	char buf[8];

	ASSERT_EQ(0, name_to_handle_at(AT_FDCWD, path(&self->m, "file"),
				       &h.fh, &mount_id, 0));
	mfd = open(self->m.dir, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, mfd);
	/* the kernel forgets the inode: only the server can find it again */
	ASSERT_TRUE(drop_caches());
	from = nreq(&self->m);
	fd = open_by_handle_at(mfd, &h.fh, O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(6, read(fd, buf, sizeof(buf)));
	close(fd);
	close(mfd);
	SKIP_WITHOUT_HANDLES(&self->m);
	dump_log(_metadata, &self->m, from);
	rec = op_on(&self->m, from, FUSE_LOOKUP, NODE_FILE);
	ASSERT_NE(NULL, rec);
	EXPECT_EQ(0, ops_since(&self->m, from, FUSE_LOOKUP_HANDLE));
}

TEST_HARNESS_MAIN
