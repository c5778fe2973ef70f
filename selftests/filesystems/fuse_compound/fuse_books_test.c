// SPDX-License-Identifier: GPL-2.0
/*
 * The server's books (servers/books.c), which every test checks at its
 * end (fuse_test.h, mnt_stop()): that they see what the kernel keeps, and
 * what the server gives them to count: READDIRPLUS entries, hard links.
 *
 * The tree of the test server: "file" is nodeid 2, "dir" 3 ("dir/inner"
 * 4), "empty" 5, "growing" 6, "link" 7; the root is 1.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../kselftest_harness.h"
#include "fuse_test.h"

#define NODE_FILE	2

SERVER_FIXTURE_CFG(books, SRV_COMPLIANT, LONG, LONG, cfg.readdirplus = true)

/* The names a listing of @dir gives, each followed by ',' */
static int list(struct mnt *m, const char *dir, char *names, size_t size)
{
	DIR *d = opendir(path(m, dir));
	struct dirent *e;

	if (!d)
		return -errno;
	names[0] = 0;
	while ((e = readdir(d))) {
		size_t used = strlen(names);

		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			snprintf(names + used, size - used, "%s,", e->d_name);
	}
	closedir(d);
	return 0;
}

/*
 * What the kernel holds is what the books say it holds: an open file is a
 * lookup and a handle not given back, until it is closed.  (This is the
 * check of every test's end, made twice.)
 */
TEST_F(books, an_open_file_is_outstanding_until_closed)
{
	unsigned int barriers;
	int fd = open(path(&self->m, "file"), O_RDONLY);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, books_settle(&self->m, &barriers));
	/* a lookup of nodeid 2, and an fh: both held */
	EXPECT_EQ(2, books_report(_metadata, &self->m, false));
	EXPECT_EQ(1, LOAD_BOOKS(self->m.log->granted[NODE_FILE]));
	EXPECT_EQ(0, LOAD_BOOKS(self->m.log->forgotten[NODE_FILE]));
	TH_LOG("held through %u barriers", barriers);
	close(fd);
	ASSERT_EQ(0, books_settle(&self->m, &barriers));
	EXPECT_EQ(0, books_report(_metadata, &self->m, true));
	EXPECT_EQ(1, LOAD_BOOKS(self->m.log->forgotten[NODE_FILE]));
	TH_LOG("given back after %u barriers", barriers);
}

/* READDIRPLUS: every name listed is a lookup granted, and given back */
TEST_F(books, readdirplus_lists_and_grants_every_name)
{
	char names[512];
	struct stat st;

	ASSERT_EQ(0, list(&self->m, "", names, sizeof(names)));
	EXPECT_STREQ("file,dir,empty,growing,link,", names);
	EXPECT_LE(1, srv_log_count(self->m.log, FUSE_READDIRPLUS, false));
	EXPECT_EQ(0, srv_log_count(self->m.log, FUSE_READDIR, false));
	/* the entries were linked: a stat asks nothing */
	EXPECT_LE(1, LOAD_BOOKS(self->m.log->granted[NODE_FILE]));
	EXPECT_EQ(0, srv_log_count(self->m.log, FUSE_LOOKUP, false));
	EXPECT_EQ(0, stat(path(&self->m, "file"), &st));
	EXPECT_EQ(0, srv_log_count(self->m.log, FUSE_LOOKUP, false));
}

/* Hard links: two names of one node, and the node stays with either */
TEST_F(books, a_hard_link_is_another_name_of_the_node)
{
	char names[512], buf[16];
	struct stat a, b;
	int fd;

	ASSERT_EQ(0, link(path(&self->m, "file"), path(&self->m, "dir/second")));
	ASSERT_EQ(1, srv_log_count(self->m.log, FUSE_LINK, false));
	ASSERT_EQ(0, stat(path(&self->m, "file"), &a));
	ASSERT_EQ(0, stat(path(&self->m, "dir/second"), &b));
	EXPECT_EQ(a.st_ino, b.st_ino);
	EXPECT_EQ(2, b.st_nlink);
	ASSERT_EQ(0, list(&self->m, "dir", names, sizeof(names)));
	EXPECT_STREQ("inner,second,", names);

	/* the first name goes; the node, its contents and the link stay */
	ASSERT_EQ(0, unlink(path(&self->m, "file")));
	EXPECT_EQ(-1, stat(path(&self->m, "file"), &a));
	EXPECT_EQ(ENOENT, errno);
	fd = open(path(&self->m, "dir/second"), O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(6, read(fd, buf, sizeof(buf)));
	EXPECT_EQ(0, fstat(fd, &b));
	EXPECT_EQ(1, b.st_nlink);
	close(fd);
	ASSERT_EQ(0, list(&self->m, "", names, sizeof(names)));
	EXPECT_STREQ("dir,empty,growing,link,", names);
	/* the last name goes: so does the node */
	ASSERT_EQ(0, unlink(path(&self->m, "dir/second")));
	EXPECT_EQ(-1, stat(path(&self->m, "dir/second"), &b));
	ASSERT_EQ(0, list(&self->m, "dir", names, sizeof(names)));
	EXPECT_STREQ("inner,", names);
}

TEST_HARNESS_MAIN
