// SPDX-License-Identifier: GPL-2.0
/*
 * What stock FUSE already protects: a server's plain replies, INIT answer
 * and notifications, each broken in one way, and the check of 6.12 that
 * holds against it (docs/stock-checks.md lists them, one row per check,
 * named as the variants here are).  These tests pass on any kernel that
 * keeps those checks, with or without compounds, and fail when one of them
 * is removed.
 *
 * Each variant states the broken exchange itself: the request it answers
 * (opcode), the edit made to the correct reply, and what the caller and
 * the server's write(2) must see.
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

/* --- the reply header: fuse_dev_do_write() --- */

/*
 * Before the reply it answers a request with, the server writes a copy
 * with its error set to edit_arg: refused (EINVAL) or accepted, as the
 * variant says.  A refused copy leaves the request pending, so the real
 * reply is written after it.
 */
static void copy_with_error_first(const struct srv_config *cfg,
				  const struct fuse_in_header *req, struct srv_reply *r)
{
	struct fuse_out_header bad = {
		.len = sizeof(bad),
		.error = (int32_t)cfg->edit_arg,
		.unique = req->unique,
	};

	if (req->opcode != FUSE_LOOKUP)
		return;
	if (!srv_write_raw(r, &bad, sizeof(bad)))
		r->drop = true;		/* accepted: the request is answered */
}

FIXTURE(reply_error) {
	struct mnt m;
};

FIXTURE_VARIANT(reply_error) {
	int32_t error;
	int write_errno;	/* of the server's write of that reply */
	int call_errno;		/* what stat() of a new name gets */
};

/* reply-error-range: 0 or -1..-511 only (fuse_dev_do_write) */
FIXTURE_VARIANT_ADD(reply_error, positive) {
	.error = 1, .write_errno = EINVAL, .call_errno = 0,
};
FIXTURE_VARIANT_ADD(reply_error, minus_512) {
	.error = -512, .write_errno = EINVAL, .call_errno = 0,
};
FIXTURE_VARIANT_ADD(reply_error, int_min) {
	.error = INT32_MIN, .write_errno = EINVAL, .call_errno = 0,
};
/* the edge that is accepted: the caller gets it */
FIXTURE_VARIANT_ADD(reply_error, minus_511) {
	.error = -511, .write_errno = 0, .call_errno = 511,
};

FIXTURE_SETUP(reply_error)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG, LONG);

	cfg.edit_reply = copy_with_error_first;
	cfg.edit_arg = (uint32_t)variant->error;
	ASSERT_EQ(0, mnt_start(&self->m, cfg));
}

FIXTURE_TEARDOWN(reply_error)
{
	mnt_stop(&self->m);
}

TEST_F(reply_error, out_of_range_error_is_refused_and_the_call_goes_on)
{
	const struct srv_record *lookup, *raw;
	struct stat st;
	int ret;

	ret = stat(path(&self->m, "file"), &st);
	EXPECT_EQ(variant->call_errno ? -1 : 0, ret);
	if (variant->call_errno)
		EXPECT_EQ(variant->call_errno, errno);
	/* the server is done with the LOOKUP once it has logged its reply */
	lookup = srv_log_find(self->m.log, FUSE_LOOKUP, 0);
	ASSERT_NE(NULL, lookup);
	ASSERT_TRUE(wait_replied(&self->m, lookup));
	raw = srv_log_find_raw(self->m.log, 0);
	ASSERT_NE(NULL, raw);
	EXPECT_EQ(variant->write_errno, raw->write_errno);
	EXPECT_EQ((uint32_t)variant->error, (uint32_t)raw->arg);
}

TEST_HARNESS_MAIN
