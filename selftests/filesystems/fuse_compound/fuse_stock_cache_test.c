// SPDX-License-Identifier: GPL-2.0
/*
 * What stays in the page cache after a server's answer, in stock 6.12
 * (docs/stock-checks.md, section "page cache"): a READ that failed, a
 * WRITE acknowledged short or refused, an open without FOPEN_KEEP_CACHE,
 * attributes that say the file changed, a hole punched, a range copied
 * into the file.  A series that keeps a page it should have dropped
 * serves data the server never had; one that marks a page valid after a
 * failed READ serves memory the server never filled.
 *
 * The server here plays every regular file as the variant's: its size
 * (LOOKUP, GETATTR), its modification time, and its contents, one letter
 * per version of the file ('a', then 'b' after the test changed it behind
 * the kernel's back).  A read that sees the old letter was served from
 * the cache; the server's log says whether a READ was sent.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <linux/falloc.h>
#include <unistd.h>

#include "../../kselftest_harness.h"
#include "fuse_test.h"

#define OH		sizeof(struct fuse_out_header)
#define PG		4096
#define AUTO_INVAL	FUSE_AUTO_INVAL_DATA
#define EXPLICIT_INVAL	(1 << 25)	/* FUSE_EXPLICIT_INVAL_DATA, 7.30 */

/* The files as the server plays them, in memory shared with the test */
struct play {
	uint32_t init_flags;	/* added to INIT's */
	uint64_t size;		/* of every regular file */
	uint64_t mtime;
	char letter;		/* its contents */
	bool keep_cache;	/* the next OPEN: FOPEN_KEEP_CACHE */
	bool cache_dir;		/* the next OPENDIR: FOPEN_CACHE_DIR */
	bool dir_keep_cache;	/* ... and FOPEN_KEEP_CACHE */
	int read_errors;	/* the next READs answered -EIO */
	int write_error;	/* WRITE answered with this error, or */
	int64_t write_ack;	/*   this much more or less than asked */
	int falloc_error;	/* FALLOCATE answered with this (else 0) */
	int64_t copy_ack;	/* COPY_FILE_RANGE: bytes said copied */
	bool inval_attr;	/* at the next STATFS: INVAL_INODE(off -1) */
	uint64_t inval_nodeid;
	int inval_errno;
};

static struct play *play;

static void answer(struct srv_reply *r, int error, const void *p, size_t len)
{
	struct fuse_out_header *oh = (void *)r->buf;

	oh->error = error;
	if (!error)
		memcpy(oh + 1, p, len);
	r->len = oh->len = OH + (error ? 0 : len);
}

static void play_attr(struct fuse_attr *a)
{
	if (!S_ISREG(a->mode))
		return;
	a->size = play->size;
	a->blocks = (play->size + 511) / 512;
	a->mtime = play->mtime;
	a->mtimensec = 0;
}

static void edit_play(const struct srv_config *cfg,
		      const struct fuse_in_header *req, struct srv_reply *r)
{
	struct fuse_out_header *oh = (void *)r->buf;
	static char data[128 << 10];
	const void *in = req + 1;
	void *out = oh + 1;

	switch (req->opcode) {
	case FUSE_INIT:
		((struct fuse_init_out *)out)->flags |= play->init_flags;
		return;
	case FUSE_LOOKUP:
		if (!oh->error)
			play_attr(&((struct fuse_entry_out *)out)->attr);
		return;
	case FUSE_GETATTR:
	case FUSE_SETATTR:
		if (!oh->error)
			play_attr(&((struct fuse_attr_out *)out)->attr);
		return;
	case FUSE_OPEN:
		if (!oh->error && play->keep_cache)
			((struct fuse_open_out *)out)->open_flags |= FOPEN_KEEP_CACHE;
		return;
	case FUSE_OPENDIR:
		if (!oh->error)
			((struct fuse_open_out *)out)->open_flags |=
				(play->cache_dir ? FOPEN_CACHE_DIR : 0) |
				(play->dir_keep_cache ? FOPEN_KEEP_CACHE : 0);
		return;
	case FUSE_READ: {
		const struct fuse_read_in *rd = in;
		size_t n = rd->offset < play->size ? play->size - rd->offset : 0;

		if (play->read_errors > 0) {
			play->read_errors--;
			answer(r, -EIO, NULL, 0);
			return;
		}
		if (n > rd->size)
			n = rd->size;
		memset(data, play->letter, n);
		answer(r, 0, data, n);
		return;
	}
	case FUSE_WRITE: {
		struct fuse_write_out wo = {
			.size = ((const struct fuse_write_in *)in)->size + play->write_ack,
		};

		answer(r, play->write_error, &wo, sizeof(wo));
		return;
	}
	case FUSE_FALLOCATE:
		answer(r, play->falloc_error, NULL, 0);
		return;
	case FUSE_COPY_FILE_RANGE: {
		struct fuse_write_out wo = { .size = play->copy_ack };

		answer(r, 0, &wo, sizeof(wo));
		return;
	}
	case FUSE_STATFS:
		if (play->inval_attr) {
			struct fuse_notify_inval_inode_out inval = {
				.ino = play->inval_nodeid, .off = -1,
			};

			play->inval_errno = srv_write_notify(r, FUSE_NOTIFY_INVAL_INODE,
							     &inval, sizeof(inval));
			play->inval_attr = false;
		}
		return;
	}
}

/* Mount the server that plays the files: @size bytes each, 'a' */
static int play_start(struct mnt *m, uint32_t init_flags, uint64_t size)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG, LONG);

	play = mmap(NULL, sizeof(*play), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (play == MAP_FAILED)
		return -ENOMEM;
	play->init_flags = init_flags;
	play->size = size;
	play->mtime = 1000;
	play->letter = 'a';
	play->keep_cache = true;
	cfg.edit_reply = edit_play;
	return mnt_start(m, cfg);
}

static void play_stop(struct __test_metadata *_metadata, struct mnt *m)
{
	mnt_stop(_metadata, m);
	munmap(play, sizeof(*play));
}

#define PLAY_FIXTURE(name, init_flags, size)				\
	FIXTURE(name) {							\
		struct mnt m;						\
	};								\
	FIXTURE_SETUP(name)						\
	{								\
		ASSERT_EQ(0, play_start(&self->m, init_flags, size));	\
	}								\
	FIXTURE_TEARDOWN(name)						\
	{								\
		play_stop(_metadata, &self->m);					\
	}

static long neg_errno_of(long ret)
{
	return ret < 0 ? -errno : ret;
}

/* pread(@fd, PG at page @i): its first letter, '?' if it got nothing */
static char page_letter(int fd, int i, long *ret)
{
	static char buf[PG];
	ssize_t n = pread(fd, buf, PG, (off_t)i * PG);

	*ret = n < 0 ? -errno : n;
	return n > 0 ? buf[0] : '?';
}

/*
 * Read both pages of a file of @size bytes, the test having changed it to
 * 'b' behind the kernel's back: a page the kernel had to ask for again
 * (@ask) reads 'b', one it kept reads @kept.  Pages are read ahead
 * together, so the READs are counted for both: some iff one is asked.
 */
static void check_pages(struct __test_metadata *_metadata, struct mnt *m,
			int fd, uint64_t size, const bool *ask, char kept)
{
	unsigned int i, from = nreq(m);
	long ret, want;
	char c[2];

	for (i = 0; i < 2; i++) {
		want = size > (i + 1) * PG ? PG : (long)size - i * PG;
		c[i] = page_letter(fd, i, &ret);
		EXPECT_EQ(want, ret) TH_LOG("page %u", i);
	}
	for (i = 0; i < 2; i++)
		EXPECT_EQ(ask[i] ? 'b' : kept, c[i]) TH_LOG("page %u", i);
	EXPECT_EQ(ask[0] || ask[1], count_since(m, from, FUSE_READ, false) > 0)
		TH_LOG("was a READ sent?");
}

/* Fill the cache of @fd: both pages read from the server once, 'a' */
static void fill_cache(struct __test_metadata *_metadata, struct mnt *m, int fd)
{
	unsigned int from;
	long ret;

	EXPECT_EQ('a', page_letter(fd, 0, &ret));
	EXPECT_EQ('a', page_letter(fd, 1, &ret));
	from = nreq(m);
	EXPECT_EQ('a', page_letter(fd, 0, &ret));
	EXPECT_EQ('a', page_letter(fd, 1, &ret));
	ASSERT_EQ(0, count_since(m, from, FUSE_READ, false)) TH_LOG("not cached");
}

/* --- READ errors: a page is valid only when a READ filled it --- */

PLAY_FIXTURE(read_fail, 0, PG)

FIXTURE_VARIANT(read_fail) {
	int errors;		/* the first READs answered -EIO */
};

/*
 * read-error-not-uptodate: the readahead READ of a one-page file fails;
 * read(2) asks for the page again (->read_folio) and gets it
 */
FIXTURE_VARIANT_ADD(read_fail, read_error_not_uptodate) { .errors = 1 };
/* the control: nothing fails, one READ */
FIXTURE_VARIANT_ADD(read_fail, read_error_not_uptodate_none_failed) { .errors = 0 };
/*
 * read-folio-error: that READ fails too: read(2) gets EIO, the size is
 * what it was, and the next read asks again
 */
FIXTURE_VARIANT_ADD(read_fail, read_folio_error) { .errors = 2 };

TEST_F(read_fail, a_failed_read_leaves_nothing_cached)
{
	char buf[2 * PG];
	struct stat st;
	ssize_t n;
	int fd;

	play->read_errors = variant->errors;
	play->letter = 'b';
	fd = open(path(&self->m, "file"), O_RDONLY);
	ASSERT_LE(0, fd);
	n = read(fd, buf, sizeof(buf));
	if (variant->errors >= 2) {
		EXPECT_EQ(-EIO, n < 0 ? -errno : n);
		EXPECT_EQ(2, srv_log_count(self->m.log, FUSE_READ, false));
		EXPECT_EQ(0, fstat(fd, &st));
		EXPECT_EQ(PG, st.st_size);
		n = pread(fd, buf, sizeof(buf), 0);
		EXPECT_EQ(3, srv_log_count(self->m.log, FUSE_READ, false));
	} else {
		EXPECT_EQ(1 + variant->errors,
			  srv_log_count(self->m.log, FUSE_READ, false));
	}
	ASSERT_EQ(PG, n);
	EXPECT_EQ('b', buf[0]);
	EXPECT_EQ('b', buf[PG - 1]);
	close(fd);
}

/* --- WRITE acks: a page the server did not take is not valid --- */

PLAY_FIXTURE(write_fail, 0, 2 * PG)

FIXTURE_VARIANT(write_fail) {
	size_t len;		/* written at offset 0: 'W' */
	int error;		/* the WRITE's answer, or */
	int64_t ack;		/*   this more (less) than asked */
	long ret;		/* what write(2) returns */
	bool ask[2];		/* pages 0 and 1 read afterwards: a READ? */
};

/* write-short-not-uptodate: 100 bytes of a whole page acked: read again */
FIXTURE_VARIANT_ADD(write_fail, write_short_not_uptodate) {
	.len = PG, .ack = 100 - PG, .ret = 100, .ask = { true, true },
};
FIXTURE_VARIANT_ADD(write_fail, write_short_not_uptodate_one_byte_short) {
	.len = PG, .ack = -1, .ret = PG - 1, .ask = { true, true },
};
/* ... a page acked whole stays: page 0 of two */
FIXTURE_VARIANT_ADD(write_fail, write_short_not_uptodate_but_a_page_acked_whole_stays) {
	.len = 2 * PG, .ack = -PG, .ret = PG, .ask = { false, true },
};
FIXTURE_VARIANT_ADD(write_fail, write_short_not_uptodate_all_acked_control) {
	.len = 2 * PG, .ack = 0, .ret = 2 * PG, .ask = { false, false },
};
/* write-error-not-uptodate: a refused WRITE leaves its page to be read again */
FIXTURE_VARIANT_ADD(write_fail, write_error_not_uptodate) {
	.len = PG, .error = -EIO, .ret = -EIO, .ask = { true, true },
};
/* ... and so does an ack of more than was written (write-buffered-too-long) */
FIXTURE_VARIANT_ADD(write_fail, write_error_not_uptodate_acked_too_long) {
	.len = PG, .ack = 1, .ret = -EIO, .ask = { true, true },
};

TEST_F(write_fail, a_page_the_server_did_not_take_is_read_again)
{
	static char buf[2 * PG];
	int fd = open(path(&self->m, "file"), O_RDWR);

	ASSERT_LE(0, fd);
	play->write_error = variant->error;
	play->write_ack = variant->ack;
	play->letter = 'b';
	memset(buf, 'W', sizeof(buf));
	EXPECT_EQ(variant->ret, neg_errno_of(write(fd, buf, variant->len)));
	check_pages(_metadata, &self->m, fd, 2 * PG, variant->ask, 'W');
	close(fd);
}

/* --- opens: FOPEN_KEEP_CACHE or not --- */

PLAY_FIXTURE(reopen, 0, 2 * PG)

FIXTURE_VARIANT(reopen) {
	bool keep_cache;	/* the second OPEN */
};

/* open-without-keep-cache: the cache of the first open is dropped */
FIXTURE_VARIANT_ADD(reopen, open_without_keep_cache) { .keep_cache = false };
FIXTURE_VARIANT_ADD(reopen, open_without_keep_cache_but_the_flag_keeps) {
	.keep_cache = true,
};

TEST_F(reopen, an_open_keeps_the_cache_only_when_told)
{
	bool ask[2] = { !variant->keep_cache, !variant->keep_cache };
	int fd = open(path(&self->m, "file"), O_RDONLY);

	ASSERT_LE(0, fd);
	fill_cache(_metadata, &self->m, fd);
	close(fd);
	play->letter = 'b';
	play->keep_cache = variant->keep_cache;
	fd = open(path(&self->m, "file"), O_RDONLY);
	ASSERT_LE(0, fd);
	check_pages(_metadata, &self->m, fd, 2 * PG, ask, 'a');
	close(fd);
}

/* --- attributes that say the file changed (fuse_change_attributes) --- */

FIXTURE(attrs) {
	struct mnt m;
};

FIXTURE_VARIANT(attrs) {
	uint32_t init_flags;
	uint64_t size;		/* GETATTR says, after the file was cached */
	uint64_t mtime;		/* (1000 before) */
	bool ask[2];
};

FIXTURE_SETUP(attrs)
{
	ASSERT_EQ(0, play_start(&self->m, variant->init_flags, 2 * PG));
}

FIXTURE_TEARDOWN(attrs)
{
	play_stop(_metadata, &self->m);
}

/* attr-size-change-invalidates: another size: the cache goes */
FIXTURE_VARIANT_ADD(attrs, attr_size_change_invalidates) {
	.size = 2 * PG + 1, .mtime = 1000, .ask = { true, true },
};
FIXTURE_VARIANT_ADD(attrs, attr_size_change_invalidates_shrunk) {
	.size = PG + 1, .mtime = 1000, .ask = { true, true },
};
FIXTURE_VARIANT_ADD(attrs, attr_size_change_invalidates_but_the_same_size_keeps) {
	.size = 2 * PG, .mtime = 2000, .ask = { false, false },
};
/* attr-explicit-inval-data: the server invalidates itself: only the tail goes */
FIXTURE_VARIANT_ADD(attrs, attr_explicit_inval_data) {
	.init_flags = EXPLICIT_INVAL, .size = 2 * PG + 1, .mtime = 1000,
	.ask = { false, false },
};
FIXTURE_VARIANT_ADD(attrs, attr_explicit_inval_data_shrunk) {
	.init_flags = EXPLICIT_INVAL, .size = PG + 1, .mtime = 1000,
	.ask = { false, false },
};
/* attr-mtime-auto-inval: with FUSE_AUTO_INVAL_DATA a new mtime is a change */
FIXTURE_VARIANT_ADD(attrs, attr_mtime_auto_inval) {
	.init_flags = AUTO_INVAL, .size = 2 * PG, .mtime = 2000,
	.ask = { true, true },
};
FIXTURE_VARIANT_ADD(attrs, attr_mtime_auto_inval_but_the_same_mtime_keeps) {
	.init_flags = AUTO_INVAL, .size = 2 * PG, .mtime = 1000,
	.ask = { false, false },
};
FIXTURE_VARIANT_ADD(attrs, attr_mtime_auto_inval_not_without_the_flag) {
	.init_flags = 0, .size = 2 * PG, .mtime = 2000, .ask = { false, false },
};

TEST_F(attrs, the_cache_goes_when_the_attributes_say_the_file_changed)
{
	int fd = open(path(&self->m, "file"), O_RDONLY);
	unsigned int from;
	struct statfs sfs;
	struct stat st;

	ASSERT_LE(0, fd);
	fill_cache(_metadata, &self->m, fd);
	ASSERT_EQ(0, fstat(fd, &st));
	/* changed behind the kernel's back, which the server then says */
	play->letter = 'b';
	play->size = variant->size;
	play->mtime = variant->mtime;
	play->inval_nodeid = st.st_ino;
	play->inval_attr = true;
	ASSERT_EQ(0, statfs(self->m.dir, &sfs));
	EXPECT_EQ(0, play->inval_errno);
	from = nreq(&self->m);
	ASSERT_EQ(0, fstat(fd, &st));
	EXPECT_EQ(1, count_since(&self->m, from, FUSE_GETATTR, false));
	EXPECT_EQ(variant->size, st.st_size);
	check_pages(_metadata, &self->m, fd, variant->size, variant->ask, 'a');
	close(fd);
}

/* --- FALLOCATE: a hole punched, a range zeroed --- */

PLAY_FIXTURE(punch, 0, 2 * PG)

FIXTURE_VARIANT(punch) {
	int mode;
	off_t off;		/* of the one page */
	int error;		/* the server's answer */
	bool ask[2];
};

#define PUNCH	(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)

/* fallocate-punch-drops-cache: the pages of the range go, and only them */
FIXTURE_VARIANT_ADD(punch, fallocate_punch_drops_cache) {
	.mode = PUNCH, .off = 0, .ask = { true, false },
};
FIXTURE_VARIANT_ADD(punch, fallocate_punch_drops_cache_second_page) {
	.mode = PUNCH, .off = PG, .ask = { false, true },
};
FIXTURE_VARIANT_ADD(punch, fallocate_punch_drops_cache_zero_range) {
	.mode = FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, .off = 0,
	.ask = { true, false },
};
FIXTURE_VARIANT_ADD(punch, fallocate_punch_drops_cache_but_not_when_it_failed) {
	.mode = PUNCH, .off = 0, .error = -EIO, .ask = { false, false },
};

TEST_F(punch, the_range_changed_is_read_again)
{
	int fd = open(path(&self->m, "file"), O_RDWR);

	ASSERT_LE(0, fd);
	fill_cache(_metadata, &self->m, fd);
	play->letter = 'b';
	play->falloc_error = variant->error;
	EXPECT_EQ(variant->error, neg_errno_of(fallocate(fd, variant->mode,
							  variant->off, PG)));
	EXPECT_EQ(1, srv_log_count(self->m.log, FUSE_FALLOCATE, false));
	check_pages(_metadata, &self->m, fd, 2 * PG, variant->ask, 'a');
	close(fd);
}

/* --- COPY_FILE_RANGE into a cached file --- */

PLAY_FIXTURE(copy_into, 0, 2 * PG)

FIXTURE_VARIANT(copy_into) {
	size_t len;		/* asked, from "empty" at 0 to "file" at 0 */
	int64_t ack;		/* the server says it copied */
	bool ask[2];
};

/* copy-file-range-drops-cache: the pages copied into go */
FIXTURE_VARIANT_ADD(copy_into, copy_file_range_drops_cache) {
	.len = 100, .ack = 100, .ask = { true, false },
};
FIXTURE_VARIANT_ADD(copy_into, copy_file_range_drops_cache_into_two_pages) {
	.len = PG + 1, .ack = PG + 1, .ask = { true, true },
};
FIXTURE_VARIANT_ADD(copy_into, copy_file_range_drops_cache_but_nothing_copied_keeps) {
	.len = 100, .ack = 0, .ask = { false, false },
};

TEST_F(copy_into, the_pages_copied_into_are_read_again)
{
	int dst = open(path(&self->m, "file"), O_RDWR);
	int src = open(path(&self->m, "empty"), O_RDONLY);
	loff_t in = 0, out = 0;

	ASSERT_LE(0, dst);
	ASSERT_LE(0, src);
	fill_cache(_metadata, &self->m, dst);
	play->letter = 'b';
	play->copy_ack = variant->ack;
	EXPECT_EQ(variant->ack, neg_errno_of(copy_file_range(src, &in, dst, &out,
							      variant->len, 0)));
	EXPECT_EQ(1, srv_log_count(self->m.log, FUSE_COPY_FILE_RANGE, false));
	check_pages(_metadata, &self->m, dst, 2 * PG, variant->ask, 'a');
	close(src);
	close(dst);
}

/* --- OPENDIR: the readdir cache, FOPEN_KEEP_CACHE or not --- */

PLAY_FIXTURE(reopendir, 0, 2 * PG)

FIXTURE_VARIANT(reopendir) {
	bool keep_cache;	/* the second OPENDIR */
};

/* opendir-without-keep-cache: the cached listing is dropped */
FIXTURE_VARIANT_ADD(reopendir, opendir_without_keep_cache) { .keep_cache = false };
FIXTURE_VARIANT_ADD(reopendir, opendir_without_keep_cache_but_the_flag_keeps) {
	.keep_cache = true,
};

/* List the root to its end; the READDIRs it took */
static unsigned int list_root(struct __test_metadata *_metadata, struct mnt *m)
{
	unsigned int from = nreq(m);
	char buf[4096];
	long n;
	int fd = open(m->dir, O_RDONLY | O_DIRECTORY);

	EXPECT_LE(0, fd);
	do
		n = syscall(SYS_getdents64, fd, buf, sizeof(buf));
	while (n > 0);
	EXPECT_EQ(0, n);
	close(fd);
	return count_since(m, from, FUSE_READDIR, false);
}

TEST_F(reopendir, a_listing_stays_cached_only_when_told)
{
	play->cache_dir = true;
	play->dir_keep_cache = true;
	EXPECT_LT(0, list_root(_metadata, &self->m));
	EXPECT_EQ(0, list_root(_metadata, &self->m)) TH_LOG("not cached");
	play->dir_keep_cache = variant->keep_cache;
	if (variant->keep_cache) {
		EXPECT_EQ(0, list_root(_metadata, &self->m));
	} else {
		EXPECT_LT(0, list_root(_metadata, &self->m));
	}
}

TEST_HARNESS_MAIN
