// SPDX-License-Identifier: GPL-2.0
/*
 * The in-kernel user (open + getattr) and discovery by trial: what a
 * compliant server sees, when an open carries a GETATTR, revalidation
 * (one LOOKUP, as in stock 6.12), and servers that do not run compounds:
 * they must cost what the stock kernel costs once the answer is learned.
 *
 * On a kernel without FUSE_COMPOUND (FUSEGATE_EXPECT_COMPOUND=0) the
 * compound tests check that no compound reached the server and report
 * SKIP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
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

/* --- a compliant server --- */

FIXTURE(compliant) {
	struct mnt m;
};

FIXTURE_VARIANT(compliant) {
	bool writeback_cache;
};

FIXTURE_VARIANT_ADD(compliant, write_through) {
	.writeback_cache = false,
};

FIXTURE_VARIANT_ADD(compliant, writeback_cache) {
	.writeback_cache = true,
};

FIXTURE_SETUP(compliant)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG, LONG);

	cfg.writeback_cache = variant->writeback_cache;
	ASSERT_EQ(0, mnt_start(&self->m, cfg));
}

FIXTURE_TEARDOWN(compliant)
{
	mnt_stop(_metadata, &self->m);
}

TEST_F(compliant, open_append_is_one_open_getattr_compound)
{
	const struct srv_record *c, *sub0, *sub1;
	struct stat st;
	unsigned int from;

	ASSERT_EQ(0, stat(path(&self->m, "file"), &st));
	from = nreq(&self->m);
	ASSERT_EQ(0, open_append_write(&self->m, "file"));
	SKIP_WITHOUT_COMPOUND(&self->m);

	ASSERT_EQ(1, count_since(&self->m, from, FUSE_COMPOUND, false));
	c = compound_since(&self->m, from);
	ASSERT_NE(NULL, c);
	sub0 = c + 1;
	sub1 = c + 2;
	ASSERT_TRUE(sub0->sub && sub1->sub);
	EXPECT_EQ(FUSE_OPEN, sub0->opcode);
	EXPECT_EQ(FUSE_GETATTR, sub1->opcode);
	EXPECT_EQ(sub0->nodeid, sub1->nodeid);
	EXPECT_EQ(FUSE_COMPOUND_NO_DEP, sub0->dep_index);
	EXPECT_EQ(FUSE_COMPOUND_NO_DEP, sub1->dep_index);
	EXPECT_EQ(0, c->write_errno);
	/* the attributes came with the open: no GETATTR of their own */
	EXPECT_EQ(0, count_since(&self->m, from, FUSE_GETATTR, false));
	EXPECT_EQ(0, count_since(&self->m, from, FUSE_OPEN, false));
}

TEST_F(compliant, open_with_fresh_attributes_is_a_plain_open)
{
	struct stat st;
	unsigned int from;

	ASSERT_EQ(0, stat(path(&self->m, "file"), &st));
	from = nreq(&self->m);
	ASSERT_EQ(0, open_close(&self->m, "file", O_RDONLY));
	EXPECT_EQ(0, count_since(&self->m, from, FUSE_COMPOUND, false));
	EXPECT_EQ(1, count_since(&self->m, from, FUSE_OPEN, false));
	EXPECT_EQ(0, count_since(&self->m, from, FUSE_GETATTR, false));
}

/*
 * Another client appends to "growing" behind the kernel's back.  Write-
 * through only: with writeback caching the kernel owns i_size and ignores
 * the server's, by design.
 */
SERVER_FIXTURE(another_writer, SRV_COMPLIANT, LONG, LONG)

TEST_F(another_writer, appended_data_lands_at_the_size_the_server_reported)
{
	const struct srv_record *w;
	struct stat st;
	unsigned int from, i;

	/* "growing" gains 10 bytes each time the server reports attributes */
	ASSERT_EQ(0, stat(path(&self->m, "growing"), &st));
	from = nreq(&self->m);
	ASSERT_EQ(0, open_append_write(&self->m, "growing"));
	SKIP_WITHOUT_COMPOUND(&self->m);
	/* the last WRITE (write-through: the byte; writeback: the range) */
	w = NULL;
	for (i = from; i < nreq(&self->m); i++)
		if (self->m.log->rec[i].opcode == FUSE_WRITE)
			w = &self->m.log->rec[i];
	ASSERT_NE(NULL, w);
	/* the compound's GETATTR reported st_size + 10: the byte goes there */
	EXPECT_EQ(st.st_size + 11, w->arg);
}

/* --- attributes that expire at once --- */

SERVER_FIXTURE(attr_expired, SRV_COMPLIANT, LONG, 0)

TEST_F(attr_expired, open_after_attr_timeout_is_one_compound)
{
	struct stat st;
	unsigned int from;

	ASSERT_EQ(0, stat(path(&self->m, "file"), &st));
	from = nreq(&self->m);
	ASSERT_EQ(0, open_close(&self->m, "file", O_RDONLY));
	SKIP_WITHOUT_COMPOUND(&self->m);
	EXPECT_EQ(1, count_since(&self->m, from, FUSE_COMPOUND, false));
	EXPECT_EQ(0, count_since(&self->m, from, FUSE_GETATTR, false));
	EXPECT_EQ(0, count_since(&self->m, from, FUSE_OPEN, false));
}

/*
 * Opens whose attributes nothing would use before they are fetched again
 * send no compound: a directory, a write-only open without writeback
 * caching (writes then take no attributes), a truncating open (it
 * invalidates them itself).
 */
TEST_F(attr_expired, opens_that_cannot_use_the_attributes_send_no_compound)
{
	struct stat st;
	unsigned int from;
	DIR *d;
	int fd;

	ASSERT_EQ(0, stat(path(&self->m, "empty"), &st));
	ASSERT_EQ(0, stat(path(&self->m, "dir"), &st));
	from = nreq(&self->m);
	d = opendir(path(&self->m, "dir"));
	ASSERT_NE(NULL, d);
	closedir(d);
	fd = open(path(&self->m, "empty"), O_WRONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, write(fd, "x", 1));
	close(fd);
	ASSERT_EQ(0, open_close(&self->m, "empty", O_RDWR | O_TRUNC));
	EXPECT_EQ(1, count_since(&self->m, from, FUSE_OPENDIR, false));
	EXPECT_EQ(2, count_since(&self->m, from, FUSE_OPEN, false));
	EXPECT_EQ(0, count_since(&self->m, from, FUSE_COMPOUND, false));
	SKIP_WITHOUT_COMPOUND(&self->m);
	/* while a reader still gets its attributes with the open */
	from = nreq(&self->m);
	ASSERT_EQ(0, open_close(&self->m, "empty", O_RDONLY));
	EXPECT_EQ(1, count_since(&self->m, from, FUSE_COMPOUND, false));
}

/* --- entries that expire at once: revalidation --- */

SERVER_FIXTURE(entry_expired, SRV_COMPLIANT, 0, LONG)

/*
 * A LOOKUP reply carries the attributes: revalidating with LOOKUP and a
 * GETATTR would save no round trip and double the server's work.  So an
 * expired dentry costs exactly what it costs on stock 6.12: one LOOKUP.
 */
TEST_F(entry_expired, revalidation_is_one_lookup_as_in_stock)
{
	struct stat st1, st2;
	unsigned int from;

	ASSERT_EQ(0, stat(path(&self->m, "file"), &st1));
	from = nreq(&self->m);
	ASSERT_EQ(0, stat(path(&self->m, "file"), &st2));
	EXPECT_EQ(st1.st_ino, st2.st_ino);
	EXPECT_EQ(1, round_trips_since(&self->m, from));
	EXPECT_EQ(1, count_since(&self->m, from, FUSE_LOOKUP, false));
	EXPECT_EQ(0, self->m.log->compounds);
}

/* --- servers that do not run compounds --- */

FIXTURE(refusing) {
	struct mnt m;
};

FIXTURE_VARIANT(refusing) {
	enum srv_behaviour behaviour;
	int32_t outer_error;		/* nonzero: the answer to compounds */
};

FIXTURE_VARIANT_ADD(refusing, enosys) {
	.behaviour = SRV_COMPOUND_ENOSYS,
};

/* knows compounds, not this combination: remembered per combination */
FIXTURE_VARIANT_ADD(refusing, eopnotsupp) {
	.behaviour = SRV_COMPOUND_EOPNOTSUPP,
};

/* servers that answer an unknown opcode with another error than ENOSYS */
FIXTURE_VARIANT_ADD(refusing, einval) {
	.behaviour = SRV_COMPOUND_EINVAL,
};

FIXTURE_VARIANT_ADD(refusing, eio) {
	.behaviour = SRV_COMPLIANT, .outer_error = -EIO,
};

FIXTURE_VARIANT_ADD(refusing, eperm) {
	.behaviour = SRV_COMPLIANT, .outer_error = -EPERM,
};

/* Answer every compound with the variant's outer error (edit_arg) */
static void answer_compounds_with(const struct srv_config *cfg,
				  const struct fuse_in_header *req,
				  struct srv_reply *r)
{
	struct fuse_out_header *oh = (void *)r->buf;

	if (req->opcode != FUSE_COMPOUND)
		return;
	oh->error = (int32_t)cfg->edit_arg;
	r->len = sizeof(*oh);
	r->nsubs = 0;
}

FIXTURE_SETUP(refusing)
{
	struct srv_config cfg = srv_cfg(variant->behaviour, LONG, 0);

	if (variant->outer_error) {
		cfg.edit_reply = answer_compounds_with;
		cfg.edit_arg = (uint32_t)variant->outer_error;
	}
	ASSERT_EQ(0, mnt_start(&self->m, cfg));
}

FIXTURE_TEARDOWN(refusing)
{
	mnt_stop(_metadata, &self->m);
}

/*
 * The first compound is refused and its ops go one by one; after that the
 * kernel sends what the stock kernel sends: a plain OPEN (the connection
 * has learned, or for EOPNOTSUPP this combination has).
 */
TEST_F(refusing, open_append_works_and_the_answer_is_learned)
{
	unsigned int i, from = 0;

	for (i = 0; i < 3; i++) {
		from = nreq(&self->m);
		EXPECT_EQ(0, open_append_write(&self->m, "file"));
	}
	SKIP_WITHOUT_COMPOUND(&self->m);
	EXPECT_EQ(1, self->m.log->compounds);
	/* the last open: no compound, one OPEN */
	EXPECT_EQ(0, count_since(&self->m, from, FUSE_COMPOUND, false));
	EXPECT_EQ(1, count_since(&self->m, from, FUSE_OPEN, false));
}

/*
 * The GETATTR of the open is best effort: when the compound is refused
 * and its ops are sent one by one, it is left out, as the stock kernel
 * never sends it there (a write-through O_APPEND write takes the size the
 * kernel has).
 */
TEST_F(refusing, fallback_sends_no_getattr_the_stock_kernel_would_not)
{
	struct stat st;
	unsigned int i, from;

	ASSERT_EQ(0, stat(path(&self->m, "file"), &st));
	from = nreq(&self->m);
	for (i = 0; i < 3; i++)
		EXPECT_EQ(0, open_append_write(&self->m, "file"));
	SKIP_WITHOUT_COMPOUND(&self->m);
	EXPECT_EQ(1, self->m.log->compounds);
	EXPECT_EQ(0, count_since(&self->m, from, FUSE_GETATTR, false));
}

/* --- a server that answered compounds, then an error --- */

/* The first compound is run; every later one gets edit_arg */
static void error_after_first_compound(const struct srv_config *cfg,
				       const struct fuse_in_header *req,
				       struct srv_reply *r)
{
	struct fuse_out_header *oh = (void *)r->buf;

	if (req->opcode != FUSE_COMPOUND || cfg->log->compounds < 2)
		return;
	oh->error = (int32_t)cfg->edit_arg;
	r->len = sizeof(*oh);
	r->nsubs = 0;
}

FIXTURE(error_once_known) {
	struct mnt m;
};

FIXTURE_VARIANT(error_once_known) {
	int32_t error;
	int open_errno;		/* what the second open gets */
	unsigned int compounds;	/* sent over three opens */
};

/* once compounds are known to work, an error is the compound's result */
FIXTURE_VARIANT_ADD(error_once_known, einval) {
	.error = -EINVAL, .open_errno = EINVAL, .compounds = 3,
};

/* but ENOSYS still means the server does not run them */
FIXTURE_VARIANT_ADD(error_once_known, enosys) {
	.error = -ENOSYS, .open_errno = 0, .compounds = 2,
};

FIXTURE_SETUP(error_once_known)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG, 0);

	cfg.edit_reply = error_after_first_compound;
	cfg.edit_arg = (uint32_t)variant->error;
	ASSERT_EQ(0, mnt_start(&self->m, cfg));
}

FIXTURE_TEARDOWN(error_once_known)
{
	mnt_stop(_metadata, &self->m);
}

TEST_F(error_once_known, later_errors_are_judged_by_what_was_learned)
{
	EXPECT_EQ(0, open_append_write(&self->m, "file"));
	SKIP_WITHOUT_COMPOUND(&self->m);
	EXPECT_EQ(-variant->open_errno, open_append_write(&self->m, "file"));
	EXPECT_EQ(-variant->open_errno, open_append_write(&self->m, "file"));
	EXPECT_EQ(variant->compounds, self->m.log->compounds);
}

/* --- the caller's credentials in every subrequest --- */

SERVER_FIXTURE(credentials, SRV_COMPLIANT, LONG, 0)

#define OTHER_UID 1234
#define OTHER_GID 5678

/*
 * A server that checks permissions per subrequest relies on each
 * subrequest header naming the caller: the uid, gid and pid of the
 * process that made the call, never 0 or the mount's owner.
 */
TEST_F(credentials, every_subrequest_names_a_non_root_caller)
{
	const struct srv_record *c;
	unsigned int from, i;
	pid_t client;
	int status;

	from = nreq(&self->m);
	client = fork();
	ASSERT_LE(0, client);
	if (client == 0) {
		if (setgroups(0, NULL) || setgid(OTHER_GID) || setuid(OTHER_UID))
			_exit(2);
		_exit(open_append_write(&self->m, "file") ? 1 : 0);
	}
	ASSERT_EQ(client, waitpid(client, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	SKIP_WITHOUT_COMPOUND(&self->m);
	c = compound_since(&self->m, from);
	ASSERT_NE(NULL, c);
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(i > 0, c[i].sub);
		EXPECT_EQ(OTHER_UID, c[i].uid);
		EXPECT_EQ(OTHER_GID, c[i].gid);
		EXPECT_EQ(client, c[i].pid);
	}
}

TEST_HARNESS_MAIN
