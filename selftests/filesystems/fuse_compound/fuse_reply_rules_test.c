// SPDX-License-Identifier: GPL-2.0
/*
 * The reply rules of compound.md section 3, end to end: a server whose
 * reply to the compound of open(O_APPEND) (OPEN first, GETATTR last)
 * breaks one rule, as the edit beside each variant says, and the kernel
 * that must refuse the whole reply (the caller gets EIO, the server's
 * write EINVAL) and keep the mount usable.  The KUnit suite
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

/*
 * --- the broken replies ---
 *
 * Each edit takes the correct reply to the compound of open(O_APPEND), as
 * the server's core built it (subreply 0 answers OPEN, 1 GETATTR), and
 * breaks one rule in subreply @t.  Its name is the rule's.
 */
#define FIRST	0
#define LAST	1

static struct fuse_out_header *sub(struct srv_reply *r, unsigned int i)
{
	return (struct fuse_out_header *)(r->buf + r->sub_off[i]);
}

/* Make subreply @t carry @delta more (or fewer) payload bytes */
static void resize_payload(struct srv_reply *r, unsigned int t, int delta)
{
	struct fuse_out_header *oh = sub(r, t);
	unsigned char *tail = (unsigned char *)oh + oh->len;

	memmove(tail + delta, tail, r->buf + r->len - tail);
	if (delta > 0)
		memset(tail, 0xab, delta);
	oh->len += delta;
	r->len += delta;
	if (t + 1 < r->nsubs)
		r->sub_off[t + 1] += delta;
}

/* rule 1: the reply ends inside what it announces */
static void cut_in_compound_out(struct srv_reply *r, unsigned int t)
{
	r->len = sizeof(struct fuse_out_header) + 8;
}

static void cut_in_subheader(struct srv_reply *r, unsigned int t)
{
	r->len = r->sub_off[t] + 8;
}

/* ... after the first subreply: the GETATTR's is missing */
static void cut_in_subheader_one_subreply(struct srv_reply *r, unsigned int t)
{
	r->len = r->sub_off[1];
}

static void cut_in_payload(struct srv_reply *r, unsigned int t)
{
	struct fuse_out_header *oh = sub(r, t);

	r->len = r->sub_off[t] + sizeof(*oh) + (oh->len - sizeof(*oh)) / 2;
}

/* rule 2: nothing after the last subreply */
static void trailing_bytes(struct srv_reply *r, unsigned int t)
{
	memset(r->buf + r->len, 0, 8);
	r->len += 8;
}

/* ... not even a well-formed third subreply */
static void trailing_bytes_three_subreplies(struct srv_reply *r, unsigned int t)
{
	struct fuse_out_header *extra = (void *)(r->buf + r->len);

	memset(extra, 0, sizeof(*extra));
	extra->len = sizeof(*extra);
	extra->error = -ENOENT;
	extra->unique = r->nsubs;
	r->len += sizeof(*extra);
}

/* rule 3: subreply i carries unique i */
static void sub_unique_reordered(struct srv_reply *r, unsigned int t)
{
	sub(r, 0)->unique = 1;
	sub(r, 1)->unique = 0;
}

static void sub_unique_duplicated(struct srv_reply *r, unsigned int t)
{
	sub(r, 1)->unique = 0;
}

static void sub_unique_skipped(struct srv_reply *r, unsigned int t)
{
	sub(r, t)->unique = t + 1;
}

/* rule 4: a subreply is at least its header (the bytes stay) */
static void sublen_below_header(struct srv_reply *r, unsigned int t)
{
	sub(r, t)->len = sizeof(struct fuse_out_header) - 8;
}

/* rule 5: a subreply's error is 0 or in -1..-511 */
static void sub_error_range(struct srv_reply *r, unsigned int t, int error)
{
	resize_payload(r, t, sizeof(struct fuse_out_header) - (int)sub(r, t)->len);
	sub(r, t)->error = error;
}

static void sub_error_range_positive(struct srv_reply *r, unsigned int t)
{
	sub_error_range(r, t, 5);
}

static void sub_error_range_below(struct srv_reply *r, unsigned int t)
{
	sub_error_range(r, t, -600);
}

/* rule 6: an error subreply has no payload */
static void error_with_payload(struct srv_reply *r, unsigned int t)
{
	sub(r, t)->error = -ENOENT;
}

/* ... while one without a payload is a well-formed reply (the control) */
static void error_without_payload(struct srv_reply *r, unsigned int t)
{
	sub_error_range(r, t, -ENOENT);
}

/* rule 7: a payload is the size the operation's out-args allow */
static void payload_mismatch_long(struct srv_reply *r, unsigned int t)
{
	resize_payload(r, t, 8);
}

static void payload_mismatch_short(struct srv_reply *r, unsigned int t)
{
	resize_payload(r, t, -8);
}

/* rule 8: fuse_compound_out's reserved bytes are 0 */
static void compound_out_reserved(struct srv_reply *r, unsigned int t)
{
	struct fuse_compound_out *co =
		(void *)(r->buf + sizeof(struct fuse_out_header));

	co->reserved[0] = 1;
}

struct bad_variant {
	void (*edit)(struct srv_reply *r, unsigned int t);
	unsigned int t;		/* the subreply it breaks: FIRST or LAST */
	bool taken;		/* a control: the reply is well-formed */
	/*
	 * refused_reply_gives_back: the fault comes after the OPEN subreply,
	 * which the kernel read whole: the file the server opened is
	 * released, though the open fails
	 */
	bool opened;
};

/* Runs in the server: every compound's reply is broken as the variant says */
static void edit_bad(const struct srv_config *cfg,
		     const struct fuse_in_header *req, struct srv_reply *r)
{
	const struct bad_variant *v = (const void *)(uintptr_t)cfg->edit_arg;

	if (req->opcode == FUSE_COMPOUND && r->nsubs == 2)
		v->edit(r, v->t);
}

FIXTURE(bad_open_reply) {
	struct mnt m;
};

FIXTURE_VARIANT(bad_open_reply) {
	struct bad_variant v;
};

/* A variant per way of breaking each rule: its name leads with the rule's */
FIXTURE_VARIANT_ADD(bad_open_reply, cut_in_compound_out) { { cut_in_compound_out, FIRST } };
FIXTURE_VARIANT_ADD(bad_open_reply, cut_in_subheader_first) { { cut_in_subheader, FIRST } };
FIXTURE_VARIANT_ADD(bad_open_reply, cut_in_subheader_last) {
	{ cut_in_subheader, LAST, .opened = true } };
FIXTURE_VARIANT_ADD(bad_open_reply, cut_in_subheader_one_subreply) {
	{ cut_in_subheader_one_subreply, FIRST, .opened = true } };
FIXTURE_VARIANT_ADD(bad_open_reply, cut_in_payload_first) { { cut_in_payload, FIRST } };
FIXTURE_VARIANT_ADD(bad_open_reply, cut_in_payload_last) {
	{ cut_in_payload, LAST, .opened = true } };
FIXTURE_VARIANT_ADD(bad_open_reply, trailing_bytes) {
	{ trailing_bytes, LAST, .opened = true } };
FIXTURE_VARIANT_ADD(bad_open_reply, trailing_bytes_three_subreplies) {
	{ trailing_bytes_three_subreplies, FIRST, .opened = true } };
FIXTURE_VARIANT_ADD(bad_open_reply, sub_unique_reordered) { { sub_unique_reordered, FIRST } };
FIXTURE_VARIANT_ADD(bad_open_reply, sub_unique_duplicated) {
	{ sub_unique_duplicated, FIRST, .opened = true } };
FIXTURE_VARIANT_ADD(bad_open_reply, sub_unique_skipped_first) { { sub_unique_skipped, FIRST } };
FIXTURE_VARIANT_ADD(bad_open_reply, sub_unique_skipped_last) {
	{ sub_unique_skipped, LAST, .opened = true } };
FIXTURE_VARIANT_ADD(bad_open_reply, sublen_below_header_first) { { sublen_below_header, FIRST } };
FIXTURE_VARIANT_ADD(bad_open_reply, sublen_below_header_last) {
	{ sublen_below_header, LAST, .opened = true } };
FIXTURE_VARIANT_ADD(bad_open_reply, sub_error_range_positive_first) {
	{ sub_error_range_positive, FIRST } };
FIXTURE_VARIANT_ADD(bad_open_reply, sub_error_range_positive_last) {
	{ sub_error_range_positive, LAST, .opened = true } };
FIXTURE_VARIANT_ADD(bad_open_reply, sub_error_range_below_first) {
	{ sub_error_range_below, FIRST } };
FIXTURE_VARIANT_ADD(bad_open_reply, sub_error_range_below_last) {
	{ sub_error_range_below, LAST, .opened = true } };
FIXTURE_VARIANT_ADD(bad_open_reply, error_with_payload_first) { { error_with_payload, FIRST } };
FIXTURE_VARIANT_ADD(bad_open_reply, error_with_payload_last) {
	{ error_with_payload, LAST, .opened = true } };
FIXTURE_VARIANT_ADD(bad_open_reply, error_with_payload_none_is_taken) {
	{ error_without_payload, LAST, .taken = true } };
FIXTURE_VARIANT_ADD(bad_open_reply, payload_mismatch_long_first) {
	{ payload_mismatch_long, FIRST } };
FIXTURE_VARIANT_ADD(bad_open_reply, payload_mismatch_long_last) {
	{ payload_mismatch_long, LAST, .opened = true } };
FIXTURE_VARIANT_ADD(bad_open_reply, payload_mismatch_short_first) {
	{ payload_mismatch_short, FIRST } };
FIXTURE_VARIANT_ADD(bad_open_reply, payload_mismatch_short_last) {
	{ payload_mismatch_short, LAST, .opened = true } };
FIXTURE_VARIANT_ADD(bad_open_reply, compound_out_reserved) { { compound_out_reserved, FIRST } };

FIXTURE_SETUP(bad_open_reply)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG, LONG);

	cfg.edit_reply = edit_bad;
	cfg.edit_arg = (uintptr_t)&variant->v;
	ASSERT_EQ(0, mnt_start(&self->m, cfg));
}

FIXTURE_TEARDOWN(bad_open_reply)
{
	mnt_stop(_metadata, &self->m);
}

/* The first compound since record @from was refused: its write failed */
#define ASSERT_COMPOUND_REJECTED(m, from) do {				\
	const struct srv_record *_c = compound_since(m, from);		\
									\
	ASSERT_NE(NULL, _c);						\
	ASSERT_TRUE(wait_replied(m, _c));				\
	EXPECT_EQ(EINVAL, _c->write_errno);				\
} while (0)

/* A broken reply: EIO, the write refused; the control: the write taken */
TEST_F(bad_open_reply, a_broken_reply_fails_the_open_and_the_mount_stays_usable)
{
	struct stat st;
	unsigned int from;
	int ret;

	ASSERT_EQ(0, stat(path(&self->m, "file"), &st));
	from = nreq(&self->m);
	ret = open_append_write(&self->m, "file");
	SKIP_WITHOUT_COMPOUND(&self->m);
	if (variant->v.taken) {
		/* the kernel takes it, whatever the open then makes of it */
		const struct srv_record *c = compound_since(&self->m, from);

		ASSERT_NE(NULL, c);
		ASSERT_TRUE(wait_replied(&self->m, c));
		EXPECT_EQ(0, c->write_errno);
		EXPECT_EQ(0, stat(path(&self->m, "dir"), &st));
		return;
	}
	EXPECT_EQ(-EIO, ret);
	/* the kernel refused the reply: the server's write failed */
	ASSERT_COMPOUND_REJECTED(&self->m, from);
	/* single requests still work, and compounds are still tried */
	EXPECT_EQ(0, stat(path(&self->m, "dir"), &st));
	EXPECT_EQ(-EIO, open_append_write(&self->m, "file"));
	EXPECT_EQ(2, self->m.log->compounds);
	/*
	 * refused_reply_gives_back: each failed open released the file the
	 * kernel read (before the open returned: the release is synchronous)
	 */
	EXPECT_EQ(variant->v.opened ? 2 : 0,
		  count_since(&self->m, from, FUSE_RELEASE, false));
}

TEST_HARNESS_MAIN
