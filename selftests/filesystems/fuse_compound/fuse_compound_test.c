// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE compound requests, end to end: real mounts served by the fusegate
 * test servers (servers/), one fixture per server behaviour.
 *
 * Each test is a conversation: the client makes a syscall, and the test
 * reads in the server's log what the kernel sent (opcodes, round trips,
 * subrequests and their dep_index) and whether the server's reply was
 * accepted.  Nothing waits on time: the server writes a byte to a pipe for
 * every request it logs and every reply it writes, and the test blocks on
 * that pipe until the event it needs has happened.
 *
 * On a kernel without FUSE_COMPOUND (FUSEGATE_EXPECT_COMPOUND=0 in the
 * environment), the compound tests check that no compound reached the
 * server and report SKIP.
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
	mnt_stop(&self->m);
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

TEST_F(entry_expired, revalidation_is_one_lookup_getattr_compound)
{
	const struct srv_record *c;
	struct stat st1, st2;
	unsigned int from;

	ASSERT_EQ(0, stat(path(&self->m, "file"), &st1));
	from = nreq(&self->m);
	ASSERT_EQ(0, stat(path(&self->m, "file"), &st2));
	EXPECT_EQ(st1.st_ino, st2.st_ino);
	SKIP_WITHOUT_COMPOUND(&self->m);

	EXPECT_EQ(1, round_trips_since(&self->m, from));
	c = compound_since(&self->m, from);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(FUSE_LOOKUP, c[1].opcode);
	EXPECT_EQ(FUSE_COMPOUND_NO_DEP, c[1].dep_index);
	EXPECT_EQ(1, c[1].nodeid);
	EXPECT_EQ(FUSE_GETATTR, c[2].opcode);
	EXPECT_EQ(0, c[2].dep_index);
	EXPECT_EQ(0, c[2].nodeid);
	EXPECT_EQ(0, c->write_errno);
}

TEST_F(entry_expired, attributes_after_revalidation_are_the_getattr_ones)
{
	struct stat st1, st2;

	/* "growing" gains 10 bytes on GETATTR, none on LOOKUP */
	ASSERT_EQ(0, stat(path(&self->m, "growing"), &st1));
	ASSERT_EQ(0, stat(path(&self->m, "growing"), &st2));
	SKIP_WITHOUT_COMPOUND(&self->m);
	EXPECT_EQ(st1.st_size + 10, st2.st_size);
}

/* --- servers that do not run compounds --- */

FIXTURE(refusing) {
	struct mnt m;
};

FIXTURE_VARIANT(refusing) {
	enum srv_behaviour behaviour;
	int open_errno;			/* what open() of a compound gets */
	bool keeps_trying;		/* compounds are sent again */
};

FIXTURE_VARIANT_ADD(refusing, enosys) {
	.behaviour = SRV_COMPOUND_ENOSYS,
	.open_errno = 0,
	.keeps_trying = false,
};

FIXTURE_VARIANT_ADD(refusing, eopnotsupp) {
	.behaviour = SRV_COMPOUND_EOPNOTSUPP,
	.open_errno = 0,
	.keeps_trying = true,
};

/* a server that rejects unknown opcodes with EINVAL: the error stands */
FIXTURE_VARIANT_ADD(refusing, einval) {
	.behaviour = SRV_COMPOUND_EINVAL,
	.open_errno = EINVAL,
	.keeps_trying = true,
};

FIXTURE_SETUP(refusing)
{
	ASSERT_EQ(0, mnt_start(&self->m, srv_cfg(variant->behaviour, 0, LONG)));
}

FIXTURE_TEARDOWN(refusing)
{
	mnt_stop(&self->m);
}

TEST_F(refusing, open_append_works_and_compounds_are_learned)
{
	unsigned int i, from = 0, rt_last = 0;

	for (i = 0; i < 3; i++) {
		from = nreq(&self->m);
		EXPECT_EQ(-variant->open_errno,
			  open_append_write(&self->m, "file"));
		rt_last = round_trips_since(&self->m, from);
	}
	SKIP_WITHOUT_COMPOUND(&self->m);
	if (variant->keeps_trying) {
		EXPECT_LE(3, self->m.log->compounds);
	} else {
		/* after the first refusal, never again on this mount */
		EXPECT_EQ(1, self->m.log->compounds);
		EXPECT_EQ(0, count_since(&self->m, from, FUSE_COMPOUND, false));
	}
	TH_LOG("%s: round trips of the last open(O_APPEND)+write+close: %u",
	       srv_behaviour_name(variant->behaviour), rt_last);
}

TEST_F(refusing, revalidation_works_and_compounds_are_learned)
{
	struct stat st;
	unsigned int i, from = 0;

	ASSERT_EQ(0, stat(path(&self->m, "file"), &st));
	for (i = 0; i < 3; i++) {
		from = nreq(&self->m);
		/* a failed revalidation drops the dentry: a fresh LOOKUP */
		EXPECT_EQ(0, stat(path(&self->m, "file"), &st));
		EXPECT_EQ(6, st.st_size);
	}
	SKIP_WITHOUT_COMPOUND(&self->m);
	if (!variant->keeps_trying) {
		EXPECT_EQ(1, self->m.log->compounds);
		/* learned: the stock kernel's single LOOKUP */
		EXPECT_EQ(1, round_trips_since(&self->m, from));
		EXPECT_EQ(1, count_since(&self->m, from, FUSE_LOOKUP, false));
	} else {
		EXPECT_EQ(3, self->m.log->compounds);
	}
}

/*
 * The GETATTR of both users is best effort: when the compound is refused
 * and its ops are sent one by one, it is left out, as the stock kernel
 * never sends it there (write-through O_APPEND writes and revalidations
 * take the attributes they have).
 */
TEST_F(refusing, fallback_sends_no_getattr_the_stock_kernel_would_not)
{
	struct stat st;
	unsigned int i, from;

	ASSERT_EQ(0, stat(path(&self->m, "file"), &st));
	from = nreq(&self->m);
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(-variant->open_errno,
			  open_append_write(&self->m, "file"));
		EXPECT_EQ(0, stat(path(&self->m, "file"), &st));
	}
	SKIP_WITHOUT_COMPOUND(&self->m);
	EXPECT_LE(1, self->m.log->compounds);
	EXPECT_EQ(0, count_since(&self->m, from, FUSE_GETATTR, false));
}

/* --- servers that send a broken compound reply --- */

struct bad_variant {
	enum srv_behaviour behaviour;
	enum srv_target target;
};

#define BAD_REPLIES(F)							\
	F(reordered, SRV_UNIQUE_REORDERED, SRV_TARGET_FIRST)		\
	F(duplicated, SRV_UNIQUE_DUPLICATED, SRV_TARGET_FIRST)		\
	F(skipped_first, SRV_UNIQUE_SKIPPED, SRV_TARGET_FIRST)		\
	F(skipped_last, SRV_UNIQUE_SKIPPED, SRV_TARGET_LAST)		\
	F(cut_in_compound_out, SRV_CUT_IN_COMPOUND_OUT, SRV_TARGET_FIRST) \
	F(cut_in_first_subheader, SRV_CUT_IN_SUBHEADER, SRV_TARGET_FIRST) \
	F(cut_in_last_subheader, SRV_CUT_IN_SUBHEADER, SRV_TARGET_LAST)	\
	F(cut_in_first_payload, SRV_CUT_IN_PAYLOAD, SRV_TARGET_FIRST)	\
	F(cut_in_last_payload, SRV_CUT_IN_PAYLOAD, SRV_TARGET_LAST)	\
	F(trailing_bytes, SRV_TRAILING_BYTES, SRV_TARGET_LAST)		\
	F(first_len_below_header, SRV_SUBLEN_BELOW_HEADER, SRV_TARGET_FIRST) \
	F(last_len_below_header, SRV_SUBLEN_BELOW_HEADER, SRV_TARGET_LAST) \
	F(first_payload_too_long, SRV_PAYLOAD_TOO_LONG, SRV_TARGET_FIRST) \
	F(last_payload_too_long, SRV_PAYLOAD_TOO_LONG, SRV_TARGET_LAST)	\
	F(first_payload_too_short, SRV_PAYLOAD_TOO_SHORT, SRV_TARGET_FIRST) \
	F(last_payload_too_short, SRV_PAYLOAD_TOO_SHORT, SRV_TARGET_LAST) \
	F(first_error_with_payload, SRV_ERROR_WITH_PAYLOAD, SRV_TARGET_FIRST) \
	F(last_error_with_payload, SRV_ERROR_WITH_PAYLOAD, SRV_TARGET_LAST) \
	F(first_error_positive, SRV_ERROR_POSITIVE, SRV_TARGET_FIRST)	\
	F(last_error_positive, SRV_ERROR_POSITIVE, SRV_TARGET_LAST)	\
	F(first_error_below_range, SRV_ERROR_BELOW_RANGE, SRV_TARGET_FIRST) \
	F(last_error_below_range, SRV_ERROR_BELOW_RANGE, SRV_TARGET_LAST) \
	F(one_subreply, SRV_ONE_SUBREPLY, SRV_TARGET_FIRST)		\
	F(three_subreplies, SRV_THREE_SUBREPLIES, SRV_TARGET_FIRST)

/*
 * A fixture per in-kernel user, a variant per broken reply, the server's
 * entry timeout chosen so that the user's compound is sent.
 */
#define BAD_REPLY_FIXTURE(fixture, entry)				\
	FIXTURE(fixture) {						\
		struct mnt m;						\
	};								\
	FIXTURE_VARIANT(fixture) {					\
		struct bad_variant v;					\
	};								\
	FIXTURE_SETUP(fixture)						\
	{								\
		struct srv_config cfg =					\
			srv_cfg(variant->v.behaviour, entry, LONG);	\
									\
		cfg.target = variant->v.target;				\
		ASSERT_EQ(0, mnt_start(&self->m, cfg));			\
	}								\
	FIXTURE_TEARDOWN(fixture)					\
	{								\
		mnt_stop(&self->m);					\
	}

/* The first compound since record @from was refused: its write failed */
#define ASSERT_COMPOUND_REJECTED(m, from) do {				\
	const struct srv_record *_c = compound_since(m, from);		\
									\
	ASSERT_NE(NULL, _c);						\
	ASSERT_TRUE(wait_replied(m, _c));				\
	EXPECT_EQ(EINVAL, _c->write_errno);				\
} while (0)

/* open(O_APPEND): OPEN first, GETATTR last */
BAD_REPLY_FIXTURE(bad_open_reply, LONG)
#define BAD_OPEN_VARIANT(name, b, t)					\
	FIXTURE_VARIANT_ADD(bad_open_reply, name) { .v = { b, t } };
BAD_REPLIES(BAD_OPEN_VARIANT)

TEST_F(bad_open_reply, open_fails_with_eio_and_the_mount_stays_usable)
{
	struct stat st;
	unsigned int from;
	int ret;

	ASSERT_EQ(0, stat(path(&self->m, "file"), &st));
	from = nreq(&self->m);
	ret = open_append_write(&self->m, "file");
	SKIP_WITHOUT_COMPOUND(&self->m);
	EXPECT_EQ(-EIO, ret);
	/* the kernel refused the reply: the server's write failed */
	ASSERT_COMPOUND_REJECTED(&self->m, from);
	/* single requests still work, and compounds are still tried */
	EXPECT_EQ(0, stat(path(&self->m, "dir"), &st));
	EXPECT_EQ(-EIO, open_append_write(&self->m, "file"));
	EXPECT_EQ(2, self->m.log->compounds);
}

/* revalidation: LOOKUP first, GETATTR last */
BAD_REPLY_FIXTURE(bad_revalidate_reply, 0)
#define BAD_REVAL_VARIANT(name, b, t)					\
	FIXTURE_VARIANT_ADD(bad_revalidate_reply, name) { .v = { b, t } };
BAD_REPLIES(BAD_REVAL_VARIANT)

TEST_F(bad_revalidate_reply, rejected_revalidation_falls_back_to_lookup)
{
	struct stat st;
	unsigned int from;

	ASSERT_EQ(0, stat(path(&self->m, "file"), &st));
	from = nreq(&self->m);
	/* the compound is rejected, the dentry dropped, the name looked up */
	EXPECT_EQ(0, stat(path(&self->m, "file"), &st));
	EXPECT_EQ(6, st.st_size);
	SKIP_WITHOUT_COMPOUND(&self->m);
	ASSERT_COMPOUND_REJECTED(&self->m, from);
	EXPECT_EQ(1, count_since(&self->m, from, FUSE_LOOKUP, false));
}

/* --- a server that ignores dep_index: GETATTR on nodeid 0 --- */

SERVER_FIXTURE(ignores_dep, SRV_IGNORES_DEP, 0, LONG)

TEST_F(ignores_dep, revalidation_keeps_the_lookup_attributes)
{
	const struct srv_record *c;
	struct stat st;
	unsigned int from;

	ASSERT_EQ(0, stat(path(&self->m, "file"), &st));
	from = nreq(&self->m);
	EXPECT_EQ(0, stat(path(&self->m, "file"), &st));
	EXPECT_EQ(6, st.st_size);
	SKIP_WITHOUT_COMPOUND(&self->m);
	/* a valid reply: the GETATTR failed, the LOOKUP's attributes hold */
	EXPECT_EQ(1, round_trips_since(&self->m, from));
	c = compound_since(&self->m, from);
	ASSERT_NE(NULL, c);
	ASSERT_TRUE(wait_replied(&self->m, c));
	EXPECT_EQ(0, c->write_errno);
}

/* --- a server that dies with a compound in flight --- */

SERVER_FIXTURE(dies, SRV_DIES_MID_COMPOUND, LONG, LONG)

TEST_F(dies, call_in_flight_gets_econnaborted_later_calls_enotconn)
{
	struct stat st;
	int ret;

	ASSERT_EQ(0, stat(path(&self->m, "file"), &st));
	ret = open_append_write(&self->m, "file");
	SKIP_WITHOUT_COMPOUND(&self->m);
	EXPECT_EQ(-ECONNABORTED, ret);
	/*
	 * The call in flight ends when the server's /dev/fuse is released,
	 * a moment before the connection is marked gone.  Once the server has
	 * exited, its release (and the abort in it) is over.
	 */
	ASSERT_EQ(self->m.server, waitpid(self->m.server, NULL, 0));
	self->m.server = 0;
	EXPECT_EQ(-1, stat(path(&self->m, "dir"), &st));
	EXPECT_EQ(ENOTCONN, errno);
	ASSERT_EQ(0, umount2(self->m.dir, 0));
}

/* --- a server that never answers the compound --- */

FIXTURE(stalled) {
	struct mnt m;
};

FIXTURE_VARIANT(stalled) {
	enum srv_behaviour behaviour;
	int expected_errno;
};

/* the server answers the FUSE_INTERRUPT by failing the compound */
FIXTURE_VARIANT_ADD(stalled, interrupt_answered) {
	.behaviour = SRV_STALLS_ANSWERS_INTERRUPT,
	.expected_errno = EINTR,
};

/* the server ignores it: only an abort ends the call */
FIXTURE_VARIANT_ADD(stalled, aborted) {
	.behaviour = SRV_STALLS_IGNORES_INTERRUPT,
	.expected_errno = ECONNABORTED,
};

FIXTURE_SETUP(stalled)
{
	ASSERT_EQ(0, mnt_start(&self->m, srv_cfg(variant->behaviour, LONG, LONG)));
}

FIXTURE_TEARDOWN(stalled)
{
	mnt_stop(&self->m);
}

static void on_signal(int sig)
{
}

TEST_F(stalled, signal_sends_interrupt_naming_the_outer_unique)
{
	struct sigaction sa = { .sa_handler = on_signal };
	const struct srv_record *c;
	unsigned int i, interrupts;
	struct stat st;
	char abort_path[64];
	pid_t client;
	int status, fd;

	ASSERT_EQ(0, stat(path(&self->m, "file"), &st));
	client = fork();
	ASSERT_LE(0, client);
	if (client == 0) {
		/* no SA_RESTART: the open must come back with the error */
		sigaction(SIGUSR1, &sa, NULL);
		fd = open(path(&self->m, "file"), O_WRONLY | O_APPEND);
		_exit(fd < 0 ? errno : 0);
	}
	if (!expect_compound()) {
		waitpid(client, &status, 0);
		SKIP_WITHOUT_COMPOUND(&self->m);
	}
	ASSERT_TRUE(wait_compounds(&self->m, 1));
	c = compound_since(&self->m, 0);
	ASSERT_NE(NULL, c);
	TH_LOG("compound %llu stalled; signalling the client",
	       (unsigned long long)c->unique);
	ASSERT_EQ(0, kill(client, SIGUSR1));

	/* the kernel sends FUSE_INTERRUPT for the outer request */
	do {
		interrupts = count_since(&self->m, 0, FUSE_INTERRUPT, false);
		if (!interrupts)
			ASSERT_TRUE(next_event(&self->m));
	} while (!interrupts);
	for (i = 0; i < nreq(&self->m); i++)
		if (self->m.log->rec[i].opcode == FUSE_INTERRUPT)
			break;
	EXPECT_EQ(c->unique, self->m.log->rec[i].arg);
	TH_LOG("FUSE_INTERRUPT for %llu",
	       (unsigned long long)self->m.log->rec[i].arg);

	/* the interrupt is queued, nothing answered: the client is blocked */
	ASSERT_EQ(0, waitpid(client, &status, WNOHANG));
	if (variant->behaviour == SRV_STALLS_ANSWERS_INTERRUPT) {
		/* now the server fails the compound */
		ASSERT_EQ(1, write(self->m.control, "a", 1));
	} else {
		/* no answer will come: only an abort ends the call */
		snprintf(abort_path, sizeof(abort_path),
			 "/sys/fs/fuse/connections/%u/abort", minor(st.st_dev));
		fd = open(abort_path, O_WRONLY);
		ASSERT_LE(0, fd) TH_LOG("%s: %s", abort_path, strerror(errno));
		ASSERT_EQ(1, write(fd, "1", 1));
		close(fd);
	}
	ASSERT_EQ(client, waitpid(client, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(variant->expected_errno, WEXITSTATUS(status));
}

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
	mnt_stop(&self->m);
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
	mnt_stop(&self->m);
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
FIXTURE(export_support) {
	struct mnt m;
};

FIXTURE_SETUP(export_support)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG, LONG);

	cfg.export_support = true;
	ASSERT_EQ(0, mnt_start(&self->m, cfg));
}

FIXTURE_TEARDOWN(export_support)
{
	mnt_stop(&self->m);
}

/* Evict every unused dentry and inode; true when the kernel did */
static bool drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, "2", 1) == 1;
	close(fd);
	return ok;
}

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

/* --- the real-world peer: libfuse 3.14's passthrough_ll --- */

FIXTURE(passthrough_ll) {
	char src[64];
	char mnt[64];
	char log[80];
	pid_t daemon;
};

static bool is_mounted(const char *dir)
{
	struct stat a, b;
	char parent[80];

	snprintf(parent, sizeof(parent), "%s/..", dir);
	return !stat(dir, &a) && !stat(parent, &b) && a.st_dev != b.st_dev;
}

/* Block until @dir is a mount point: the mount table changing wakes poll */
static bool wait_mounted(const char *dir, pid_t daemon)
{
	struct pollfd p = { .events = POLLPRI };
	bool ok = false;

	p.fd = open("/proc/self/mountinfo", O_RDONLY);
	if (p.fd < 0)
		return false;
	while (!(ok = is_mounted(dir))) {
		char buf[4096];

		/* re-arm: read the table, then wait for its next change */
		lseek(p.fd, 0, SEEK_SET);
		while (read(p.fd, buf, sizeof(buf)) > 0)
			;
		if (is_mounted(dir)) {
			ok = true;
			break;
		}
		if (waitpid(daemon, NULL, WNOHANG) != 0)
			break;
		if (poll(&p, 1, -1) < 0)
			break;
	}
	close(p.fd);
	return ok;
}

FIXTURE_SETUP(passthrough_ll)
{
	const char *bin = getenv("FUSEGATE_PASSTHROUGH_LL");
	char opt[96];

	if (!bin || access(bin, X_OK))
		SKIP(return, "passthrough_ll not available (FUSEGATE_PASSTHROUGH_LL)");
	snprintf(self->src, sizeof(self->src), "/tmp/pt-src.XXXXXX");
	snprintf(self->mnt, sizeof(self->mnt), "/tmp/pt-mnt.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->src));
	ASSERT_NE(NULL, mkdtemp(self->mnt));
	snprintf(self->log, sizeof(self->log), "%s.log", self->mnt);
	snprintf(opt, sizeof(opt), "source=%s", self->src);
	self->daemon = fork();
	ASSERT_LE(0, self->daemon);
	if (self->daemon == 0) {
		int fd = open(self->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(fd, 1);
		dup2(fd, 2);
		/* -d: log every request, in the foreground */
		execl(bin, bin, "-d", "-o", opt, self->mnt, (char *)NULL);
		_exit(127);
	}
	ASSERT_TRUE(wait_mounted(self->mnt, self->daemon));
}

FIXTURE_TEARDOWN(passthrough_ll)
{
	if (self->daemon > 0) {
		umount2(self->mnt, MNT_DETACH);
		kill(self->daemon, SIGTERM);
		waitpid(self->daemon, NULL, 0);
	}
}

/* Count the requests with @opcode in a libfuse debug log */
static int count_libfuse_opcode(const char *log, int opcode)
{
	char line[512], needle[32];
	int n = 0;
	FILE *f = fopen(log, "r");

	if (!f)
		return -1;
	snprintf(needle, sizeof(needle), "(%d), nodeid:", opcode);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "opcode: ") && strstr(line, needle))
			n++;
	fclose(f);
	return n;
}

TEST_F(passthrough_ll, short_workload_passes_with_one_refused_compound_at_most)
{
	char a[96], b[96], buf[16] = {};
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd, entries = 0, compounds, status;

	snprintf(a, sizeof(a), "%s/a", self->mnt);
	snprintf(b, sizeof(b), "%s/b", self->mnt);
	fd = open(a, O_CREAT | O_WRONLY | O_EXCL, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(3, write(fd, "abc", 3));
	ASSERT_EQ(0, close(fd));
	fd = open(a, O_WRONLY | O_APPEND);
	ASSERT_LE(0, fd);
	ASSERT_EQ(2, write(fd, "de", 2));
	ASSERT_EQ(0, close(fd));
	fd = open(a, O_WRONLY | O_APPEND);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, write(fd, "f", 1));
	ASSERT_EQ(0, close(fd));
	ASSERT_EQ(0, stat(a, &st));
	EXPECT_EQ(6, st.st_size);
	d = opendir(self->mnt);
	ASSERT_NE(NULL, d);
	while ((de = readdir(d)))
		entries++;
	closedir(d);
	EXPECT_EQ(3, entries);	/* ".", ".." and "a" */
	ASSERT_EQ(0, rename(a, b));
	fd = open(b, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(6, read(fd, buf, sizeof(buf)));
	close(fd);
	EXPECT_STREQ("abcdef", buf);
	ASSERT_EQ(0, unlink(b));
	EXPECT_EQ(-1, stat(b, &st));

	/* unmount: the daemon ends and its log is complete */
	ASSERT_EQ(0, umount2(self->mnt, 0));
	ASSERT_EQ(self->daemon, waitpid(self->daemon, &status, 0));
	self->daemon = 0;
	compounds = count_libfuse_opcode(self->log, FUSE_COMPOUND);
	ASSERT_LE(0, compounds);
	TH_LOG("passthrough_ll saw %d FUSE_COMPOUND request(s)", compounds);
	if (!expect_compound()) {
		ASSERT_EQ(0, compounds);
		return;
	}
	/* one, answered ENOSYS; never another on this mount */
	EXPECT_EQ(1, compounds);
}

TEST_HARNESS_MAIN
