// SPDX-License-Identifier: GPL-2.0
/*
 * The paths the LOOKUP_HANDLE preparation patches (6-11) touch, with and
 * without compounds: variable-length out-args (readlink, getxattr,
 * listxattr), statx, and the export path of fuse_lookup_name().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "../../kselftest_harness.h"

#include "fuse_test.h"

/*
 * --- paths the LOOKUP_HANDLE preparation patches touch ---
 *
 * READLINK, GETXATTR and LISTXATTR replies have a variable-length out-arg
 * (the one named by out_argvar_idx), whose size becomes the syscall's
 * result; STATX goes through the split fuse_do_statx().  These tests hold
 * with and without compounds.  The export path of fuse_lookup_name()
 * (fuse_get_dentry(), fuse_get_parent()) needs FUSE_EXPORT_SUPPORT and
 * open_by_handle_at() on an evicted inode: the fixture export_support below.
 */

static struct srv_config srv_cfg_xattrs(bool statx)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG, LONG);

	cfg.xattrs = true;
	cfg.statx = statx;
	return cfg;
}

FIXTURE(links_and_xattrs) {
	struct mnt m;
};

FIXTURE_SETUP(links_and_xattrs)
{
	ASSERT_EQ(0, mnt_start(&self->m, srv_cfg_xattrs(false)));
}

FIXTURE_TEARDOWN(links_and_xattrs)
{
	mnt_stop(_metadata, &self->m);
}

TEST_F(links_and_xattrs, readlink_returns_the_target_and_its_length)
{
	char buf[PATH_MAX];
	unsigned int from = nreq(&self->m);
	ssize_t n;

	memset(buf, 'z', sizeof(buf));
	n = readlink(path(&self->m, "link"), buf, sizeof(buf));
	ASSERT_EQ(strlen(SRV_LINK_TARGET), n);
	EXPECT_EQ(0, memcmp(buf, SRV_LINK_TARGET, n));
	EXPECT_EQ('z', buf[n]);
	EXPECT_EQ(1, count_since(&self->m, from, FUSE_READLINK, false));
	/* a buffer shorter than the target gets its start */
	n = readlink(path(&self->m, "link"), buf, 2);
	ASSERT_EQ(2, n);
	EXPECT_EQ(0, memcmp(buf, SRV_LINK_TARGET, 2));
	/* and the link leads to the file */
	EXPECT_EQ(0, access(path(&self->m, "link"), R_OK));
}

TEST_F(links_and_xattrs, symlink_then_readlink_gives_the_new_target)
{
	static const char target[] = "dir/inner/../inner";
	char buf[PATH_MAX];
	ssize_t n;

	ASSERT_EQ(0, symlink(target, path(&self->m, "newlink")));
	n = readlink(path(&self->m, "newlink"), buf, sizeof(buf));
	ASSERT_EQ(strlen(target), n);
	EXPECT_EQ(0, memcmp(buf, target, n));
	EXPECT_EQ(-1, readlink(path(&self->m, "file"), buf, sizeof(buf)));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(links_and_xattrs, getxattr_sizes_and_values)
{
	const size_t len = strlen(SRV_XATTR_VALUE);
	const struct srv_record *r;
	char buf[64];
	unsigned int from = nreq(&self->m);

	/* without a buffer: the size, and the server was asked for size 0 */
	ASSERT_EQ(len, getxattr(path(&self->m, "file"), SRV_XATTR_NAME,
				NULL, 0));
	r = &self->m.log->rec[nreq(&self->m) - 1];
	EXPECT_EQ(FUSE_GETXATTR, r->opcode);
	EXPECT_EQ(0, r->arg);
	/* with one: the value, exactly */
	memset(buf, 'z', sizeof(buf));
	ASSERT_EQ(len, getxattr(path(&self->m, "file"), SRV_XATTR_NAME,
				buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, SRV_XATTR_VALUE, len));
	EXPECT_EQ('z', buf[len]);
	r = &self->m.log->rec[nreq(&self->m) - 1];
	EXPECT_EQ(FUSE_GETXATTR, r->opcode);
	EXPECT_EQ(sizeof(buf), r->arg);
	EXPECT_EQ(2, count_since(&self->m, from, FUSE_GETXATTR, false));
	/* too small a buffer, and a name the file does not have */
	EXPECT_EQ(-1, getxattr(path(&self->m, "file"), SRV_XATTR_NAME, buf, 3));
	EXPECT_EQ(ERANGE, errno);
	EXPECT_EQ(-1, getxattr(path(&self->m, "empty"), SRV_XATTR_NAME,
			       buf, sizeof(buf)));
	EXPECT_EQ(ENODATA, errno);
}

TEST_F(links_and_xattrs, listxattr_sizes_and_names)
{
	static const char names[] = SRV_XATTR_NAME;	/* with its NUL */
	char buf[64];

	ASSERT_EQ(sizeof(names), listxattr(path(&self->m, "file"), NULL, 0));
	memset(buf, 'z', sizeof(buf));
	ASSERT_EQ(sizeof(names), listxattr(path(&self->m, "file"), buf,
					   sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, names, sizeof(names)));
	EXPECT_EQ('z', buf[sizeof(names)]);
	EXPECT_EQ(-1, listxattr(path(&self->m, "file"), buf, 4));
	EXPECT_EQ(ERANGE, errno);
	EXPECT_EQ(0, listxattr(path(&self->m, "empty"), NULL, 0));
	EXPECT_EQ(0, listxattr(path(&self->m, "empty"), buf, sizeof(buf)));
}

/* statx() of the birth time, which only FUSE_STATX carries */
FIXTURE(statx) {
	struct mnt m;
};

FIXTURE_VARIANT(statx) {
	bool server_statx;	/* else the server answers ENOSYS */
};

FIXTURE_VARIANT_ADD(statx, supported) {
	.server_statx = true,
};

FIXTURE_VARIANT_ADD(statx, enosys) {
	.server_statx = false,
};

FIXTURE_SETUP(statx)
{
	ASSERT_EQ(0, mnt_start(&self->m,
			       srv_cfg_xattrs(variant->server_statx)));
}

FIXTURE_TEARDOWN(statx)
{
	mnt_stop(_metadata, &self->m);
}

TEST_F(statx, btime_comes_from_statx_or_is_left_out)
{
	const unsigned int mask = STATX_BASIC_STATS | STATX_BTIME;
	struct statx stx;
	struct stat st;
	unsigned int from, i;

	ASSERT_EQ(0, stat(path(&self->m, "file"), &st));
	for (i = 0; i < 2; i++) {
		from = nreq(&self->m);
		ASSERT_EQ(0, statx(AT_FDCWD, path(&self->m, "file"),
				   AT_STATX_FORCE_SYNC, mask, &stx));
		EXPECT_EQ(st.st_ino, stx.stx_ino);
		EXPECT_EQ(st.st_size, stx.stx_size);
		EXPECT_EQ(st.st_mode, stx.stx_mode);
		EXPECT_EQ(STATX_BASIC_STATS, stx.stx_mask & STATX_BASIC_STATS);
		if (variant->server_statx) {
			EXPECT_EQ(STATX_BTIME, stx.stx_mask & STATX_BTIME);
			EXPECT_EQ(SRV_BTIME_SEC, stx.stx_btime.tv_sec);
			EXPECT_EQ(1, count_since(&self->m, from, FUSE_STATX,
						 false));
			EXPECT_EQ(0, count_since(&self->m, from, FUSE_GETATTR,
						 false));
		} else {
			EXPECT_EQ(0, stx.stx_mask & STATX_BTIME);
			/* ENOSYS is learned: STATX is tried once, ever */
			EXPECT_EQ(i == 0, count_since(&self->m, from,
						      FUSE_STATX, false));
			EXPECT_EQ(1, count_since(&self->m, from, FUSE_GETATTR,
						 false));
		}
	}
}

TEST_F(statx, directories_keep_their_type_and_link_count)
{
	struct statx stx;

	ASSERT_EQ(0, statx(AT_FDCWD, path(&self->m, "dir"),
			   AT_STATX_FORCE_SYNC,
			   STATX_BASIC_STATS | STATX_BTIME, &stx));
	EXPECT_TRUE(S_ISDIR(stx.stx_mode));
	EXPECT_EQ(2, stx.stx_nlink);
	EXPECT_EQ(variant->server_statx ? STATX_BTIME : 0,
		  stx.stx_mask & STATX_BTIME);
}

/*
 * The export path of fuse_lookup_name(): a file handle opened after its
 * inode was evicted is looked up as "." in its own nodeid, and a directory
 * is reconnected to its parent with a lookup of "..".
 */
SERVER_FIXTURE_CFG(export_support, SRV_COMPLIANT, LONG, LONG, cfg.export_support = true)

static unsigned int lookups_in(struct mnt *m, unsigned int from, uint64_t nodeid)
{
	unsigned int i, n = 0;

	for (i = from; i < nreq(m); i++)
		if (m->log->rec[i].opcode == FUSE_LOOKUP &&
		    m->log->rec[i].nodeid == nodeid)
			n++;
	return n;
}

TEST_F(export_support, handles_open_after_eviction)
{
	char buf[64];
	struct {
		struct file_handle fh;
		unsigned char bytes[MAX_HANDLE_SZ];
	} file_h, dir_h;
	struct stat file_st, dir_st;
	unsigned int from;
	int mount_id, mfd, fd;
	ssize_t n;

	ASSERT_EQ(0, stat(path(&self->m, "file"), &file_st));
	ASSERT_EQ(0, stat(path(&self->m, "dir"), &dir_st));
	file_h.fh.handle_bytes = MAX_HANDLE_SZ;
	dir_h.fh.handle_bytes = MAX_HANDLE_SZ;
	ASSERT_EQ(0, name_to_handle_at(AT_FDCWD, path(&self->m, "file"),
				       &file_h.fh, &mount_id, 0));
	ASSERT_EQ(0, name_to_handle_at(AT_FDCWD, path(&self->m, "dir"),
				       &dir_h.fh, &mount_id, 0));
	mfd = open(self->m.dir, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, mfd);

	/* the file: LOOKUP "." in its own nodeid, then it reads as before */
	ASSERT_TRUE(drop_caches());
	from = nreq(&self->m);
	fd = open_by_handle_at(mfd, &file_h.fh, O_RDONLY);
	ASSERT_LE(0, fd);
	n = read(fd, buf, sizeof(buf));
	close(fd);
	ASSERT_EQ(6, n);
	EXPECT_EQ(0, memcmp(buf, "hello\n", 6));
	EXPECT_EQ(1, lookups_in(&self->m, from, file_st.st_ino));

	/* the directory: "." in its nodeid, then ".." to reconnect it */
	ASSERT_TRUE(drop_caches());
	from = nreq(&self->m);
	fd = open_by_handle_at(mfd, &dir_h.fh, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, fd);
	close(fd);
	EXPECT_EQ(2, lookups_in(&self->m, from, dir_st.st_ino));
	close(mfd);
}

TEST_HARNESS_MAIN
