// SPDX-License-Identifier: GPL-2.0
/*
 * The reply rules of compound.md section 3, end to end: a server that
 * breaks one rule in the compound of open(O_APPEND) (OPEN first, GETATTR
 * last), the kernel that must refuse the whole reply (the caller gets EIO,
 * the server's write EINVAL) and keep the mount usable.  The KUnit suite
 * fuse_compound_reply holds every rule for every subreply position; these
 * tests prove them on a real mount.
 *
 * On a kernel without FUSE_COMPOUND (FUSEGATE_EXPECT_COMPOUND=0) the tests
 * check that no compound reached the server and report SKIP.
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

/* --- servers that send a broken compound reply --- */

struct bad_variant {
	enum srv_behaviour behaviour;
	enum srv_target target;
};

/* A variant per way of breaking each rule: its name leads with the rule's */
#define BAD_REPLIES(F)							\
	F(cut_in_compound_out, SRV_CUT_IN_COMPOUND_OUT, SRV_TARGET_FIRST) \
	F(cut_in_subheader_first, SRV_CUT_IN_SUBHEADER, SRV_TARGET_FIRST) \
	F(cut_in_subheader_last, SRV_CUT_IN_SUBHEADER, SRV_TARGET_LAST)	\
	F(cut_in_subheader_one_subreply, SRV_ONE_SUBREPLY, SRV_TARGET_FIRST) \
	F(cut_in_payload_first, SRV_CUT_IN_PAYLOAD, SRV_TARGET_FIRST)	\
	F(cut_in_payload_last, SRV_CUT_IN_PAYLOAD, SRV_TARGET_LAST)	\
	F(trailing_bytes, SRV_TRAILING_BYTES, SRV_TARGET_LAST)		\
	F(trailing_bytes_three_subreplies, SRV_THREE_SUBREPLIES, SRV_TARGET_FIRST) \
	F(sub_unique_reordered, SRV_SUB_UNIQUE_REORDERED, SRV_TARGET_FIRST) \
	F(sub_unique_duplicated, SRV_SUB_UNIQUE_DUPLICATED, SRV_TARGET_FIRST) \
	F(sub_unique_skipped_first, SRV_SUB_UNIQUE_SKIPPED, SRV_TARGET_FIRST) \
	F(sub_unique_skipped_last, SRV_SUB_UNIQUE_SKIPPED, SRV_TARGET_LAST) \
	F(sublen_below_header_first, SRV_SUBLEN_BELOW_HEADER, SRV_TARGET_FIRST) \
	F(sublen_below_header_last, SRV_SUBLEN_BELOW_HEADER, SRV_TARGET_LAST) \
	F(sub_error_range_positive_first, SRV_SUB_ERROR_POSITIVE, SRV_TARGET_FIRST) \
	F(sub_error_range_positive_last, SRV_SUB_ERROR_POSITIVE, SRV_TARGET_LAST) \
	F(sub_error_range_below_first, SRV_SUB_ERROR_BELOW_RANGE, SRV_TARGET_FIRST) \
	F(sub_error_range_below_last, SRV_SUB_ERROR_BELOW_RANGE, SRV_TARGET_LAST) \
	F(error_with_payload_first, SRV_ERROR_WITH_PAYLOAD, SRV_TARGET_FIRST) \
	F(error_with_payload_last, SRV_ERROR_WITH_PAYLOAD, SRV_TARGET_LAST) \
	F(payload_mismatch_long_first, SRV_PAYLOAD_TOO_LONG, SRV_TARGET_FIRST) \
	F(payload_mismatch_long_last, SRV_PAYLOAD_TOO_LONG, SRV_TARGET_LAST) \
	F(payload_mismatch_short_first, SRV_PAYLOAD_TOO_SHORT, SRV_TARGET_FIRST) \
	F(payload_mismatch_short_last, SRV_PAYLOAD_TOO_SHORT, SRV_TARGET_LAST) \
	F(compound_out_reserved, SRV_COMPOUND_OUT_RESERVED, SRV_TARGET_FIRST)

/* A variant per broken reply; entry timeout @entry */
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

TEST_HARNESS_MAIN
