// SPDX-License-Identifier: GPL-2.0
/*
 * What stock FUSE already protects against a server's notifications
 * (out_header.unique 0, error = the notification code): each one broken
 * in one way, and the check of 6.12 (fuse_notify() and its callees in
 * dev.c) that holds against it.  docs/stock-checks.md lists the checks,
 * one row per check; each variant here is named after its row.
 *
 * The test writes the messages into memory shared with the server; the
 * server sends them on /dev/fuse while it answers the next STATFS (a
 * plain request with or without compounds, made with no lock held), and
 * logs what the kernel answered to each write.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "../../kselftest_harness.h"
#include "fuse_test.h"

#define OH sizeof(struct fuse_out_header)
#define NOTIFY_UNIQUE	0x4242000	/* a FUSE_NOTIFY_REPLY's unique */

/* Messages for the server to send, in memory shared with it */
struct outbox {
	uint32_t max_write;		/* its INIT reply's, if not 0 */
	unsigned int n;			/* messages waiting */
	size_t used, off[4];
	unsigned char buf[512 << 10];
};

static struct outbox *outbox;

static void post(const struct srv_config *cfg,
		 const struct fuse_in_header *req, struct srv_reply *r)
{
	unsigned int i;

	if (req->opcode == FUSE_INIT && outbox->max_write)
		((struct fuse_init_out *)(r->buf + OH))->max_write =
			outbox->max_write;
	if (req->opcode != FUSE_STATFS)
		return;
	for (i = 0; i < outbox->n; i++) {
		const struct fuse_out_header *oh = (void *)(outbox->buf +
							    outbox->off[i]);

		srv_write_raw(r, oh, oh->len);
	}
	outbox->n = outbox->used = 0;
}

static int outbox_open(struct mnt *m, uint32_t max_write)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG, LONG);

	outbox = mmap(NULL, sizeof(*outbox), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (outbox == MAP_FAILED)
		return -ENOMEM;
	outbox->max_write = max_write;
	cfg.edit_reply = post;
	return mnt_start(m, cfg);
}

static void outbox_close(struct __test_metadata *_metadata, struct mnt *m)
{
	mnt_stop(_metadata, m);
	munmap(outbox, sizeof(*outbox));
}

/* A notification of @size payload bytes, zeroed, for the next STATFS */
static void *notification(int code, size_t size)
{
	struct fuse_out_header *oh = (void *)(outbox->buf + outbox->used);

	memset(oh, 0, OH + size);
	oh->len = OH + size;
	oh->error = code;
	outbox->off[outbox->n++] = outbox->used;
	outbox->used += (OH + size + 7) & ~7UL;
	return oh + 1;
}

/*
 * Make the server send what is posted; returns the log index of the
 * first write's record, the others follow it.
 */
static unsigned int send_posted(struct __test_metadata *_metadata,
				struct mnt *m)
{
	unsigned int k = srv_log_count(m->log, FUSE_STATFS, false);
	const struct srv_record *rec;
	struct statfs st;

	EXPECT_EQ(0, statfs(m->dir, &st));
	rec = srv_log_find(m->log, FUSE_STATFS, k);
	EXPECT_NE(NULL, rec);
	if (!rec || !wait_replied(m, rec))
		return SRV_LOG_MAX;
	return rec - m->log->rec + 1;
}

/* What the kernel made of write @i: 0, an errno, or -1: no such write */
static int write_errno(struct mnt *m, unsigned int i)
{
	if (i >= nreq(m) || m->log->rec[i].opcode != SRV_RAW_WRITE)
		return -1;
	return m->log->rec[i].write_errno;
}

static uint64_t nodeid_of(struct mnt *m, const char *name)
{
	struct stat st;

	return lstat(path(m, name), &st) ? 0 : st.st_ino;
}

/* --- one message, refused or taken for what it is --- */

#define NODE_FILE	(~0ULL)		/* the nodeid of "file", looked up */
#define NODE_LINK	(~1ULL)		/* the nodeid of "link", looked up */

FIXTURE(message) {
	struct mnt m;
	uint64_t file, link;
};

FIXTURE_VARIANT(message) {
	int code;
	/* fill the payload of @v->size bytes; NULL: zeros */
	void (*fill)(const void *v, void *p, uint64_t file, uint64_t link);
	size_t size;
	uint64_t nodeid;		/* STORE, RETRIEVE; INVAL_ENTRY, DELETE: parent */
	uint32_t namelen;		/* INVAL_ENTRY, DELETE */
	uint32_t data;			/* STORE: outarg.size */
	int write_errno;
};

static void fill_entry(const void *variant, void *p, uint64_t file, uint64_t link)
{
	const FIXTURE_VARIANT(message) *v = variant;
	struct fuse_notify_inval_entry_out *e = p;

	e->parent = v->nodeid;
	e->namelen = v->namelen;
	memset(e + 1, 'n', v->size - sizeof(*e));
}

static void fill_delete(const void *variant, void *p, uint64_t file, uint64_t link)
{
	const FIXTURE_VARIANT(message) *v = variant;
	struct fuse_notify_delete_out *d = p;

	d->parent = v->nodeid;
	d->child = file;
	d->namelen = v->namelen;
	memset(d + 1, 'n', v->size - sizeof(*d));
}

static uint64_t node_of(uint64_t nodeid, uint64_t file, uint64_t link)
{
	return nodeid == NODE_FILE ? file : nodeid == NODE_LINK ? link : nodeid;
}

static void fill_store(const void *variant, void *p, uint64_t file, uint64_t link)
{
	const FIXTURE_VARIANT(message) *v = variant;
	struct fuse_notify_store_out *s = p;

	s->nodeid = node_of(v->nodeid, file, link);
	s->size = v->data;
	memset(s + 1, 's', v->size - sizeof(*s));
}

static void fill_retrieve(const void *variant, void *p, uint64_t file, uint64_t link)
{
	const FIXTURE_VARIANT(message) *v = variant;
	struct fuse_notify_retrieve_out *q = p;

	q->notify_unique = NOTIFY_UNIQUE;
	q->nodeid = node_of(v->nodeid, file, link);
	q->size = 4096;
}

#define ENTRY(namelen, field)	\
	(sizeof(struct fuse_notify_inval_entry_out) + (namelen) + (field))
#define DELETE(namelen, field)	\
	(sizeof(struct fuse_notify_delete_out) + (namelen) + (field))
#define STORE(data)		(sizeof(struct fuse_notify_store_out) + (data))

/* notify-unknown-code: codes 1..7 only (6.12: RESEND is the last) */
FIXTURE_VARIANT_ADD(message, notify_unknown_code) {
	.code = 8, .size = 8, .write_errno = EINVAL,
};
FIXTURE_VARIANT_ADD(message, notify_unknown_code_0) {
	.code = 0, .size = 8, .write_errno = EINVAL,
};
FIXTURE_VARIANT_ADD(message, notify_unknown_code_99) {
	.code = 99, .size = 8, .write_errno = EINVAL,
};
FIXTURE_VARIANT_ADD(message, notify_unknown_code_int_min) {
	.code = INT32_MIN, .size = 8, .write_errno = EINVAL,
};
/* ... and 7 (RESEND), the last known one, is run */
FIXTURE_VARIANT_ADD(message, notify_unknown_code_but_7_is_run) {
	.code = 7, .size = 8, .write_errno = 0,
};
/* notify-poll-size: exactly 8 bytes; with no such poll handle, 0 */
FIXTURE_VARIANT_ADD(message, notify_poll_size) {
	.code = FUSE_NOTIFY_POLL, .size = 16, .write_errno = EINVAL,
};
FIXTURE_VARIANT_ADD(message, notify_poll_size_8_is_taken) {
	.code = FUSE_NOTIFY_POLL, .size = 8, .write_errno = 0,
};
/* ... one more, one less, and nothing */
FIXTURE_VARIANT_ADD(message, notify_poll_size_9) {
	.code = FUSE_NOTIFY_POLL, .size = 9, .write_errno = EINVAL,
};
FIXTURE_VARIANT_ADD(message, notify_poll_size_7) {
	.code = FUSE_NOTIFY_POLL, .size = 7, .write_errno = EINVAL,
};
FIXTURE_VARIANT_ADD(message, notify_poll_size_0) {
	.code = FUSE_NOTIFY_POLL, .size = 0, .write_errno = EINVAL,
};
/* notify-inval-inode-size: exactly 24 bytes (here the root's) */
FIXTURE_VARIANT_ADD(message, notify_inval_inode_size) {
	.code = FUSE_NOTIFY_INVAL_INODE, .size = 32, .write_errno = EINVAL,
};
FIXTURE_VARIANT_ADD(message, notify_inval_inode_size_25) {
	.code = FUSE_NOTIFY_INVAL_INODE, .size = 25, .write_errno = EINVAL,
};
FIXTURE_VARIANT_ADD(message, notify_inval_inode_size_23) {
	.code = FUSE_NOTIFY_INVAL_INODE, .size = 23, .write_errno = EINVAL,
};
/* ... 24 bytes of zeros: nodeid 0, which is looked for and not found */
FIXTURE_VARIANT_ADD(message, notify_inval_inode_size_24_is_looked_for) {
	.code = FUSE_NOTIFY_INVAL_INODE, .size = 24, .write_errno = ENOENT,
};
/* notify-inval-entry-size-short: less than the 16-byte header */
FIXTURE_VARIANT_ADD(message, notify_inval_entry_size_short) {
	.code = FUSE_NOTIFY_INVAL_ENTRY, .size = 8, .write_errno = EINVAL,
};
FIXTURE_VARIANT_ADD(message, notify_inval_entry_size_short_15) {
	.code = FUSE_NOTIFY_INVAL_ENTRY, .size = 15, .write_errno = EINVAL,
};
/* ... the header and an empty name: looked for, not found */
FIXTURE_VARIANT_ADD(message, notify_inval_entry_size_short_but_a_header_is_looked_for) {
	.code = FUSE_NOTIFY_INVAL_ENTRY, .fill = fill_entry, .nodeid = 1,
	.namelen = 0, .size = ENTRY(0, 1), .write_errno = ENOENT,
};
/* notify-inval-entry-namelen: FUSE_NAME_MAX (1024) at most */
FIXTURE_VARIANT_ADD(message, notify_inval_entry_namelen) {
	.code = FUSE_NOTIFY_INVAL_ENTRY, .fill = fill_entry, .nodeid = 1,
	.namelen = 1025, .size = ENTRY(1025, 1), .write_errno = ENAMETOOLONG,
};
/* ... 1024 passes, and is then not found */
FIXTURE_VARIANT_ADD(message, notify_inval_entry_namelen_1024_is_looked_for) {
	.code = FUSE_NOTIFY_INVAL_ENTRY, .fill = fill_entry, .nodeid = 1,
	.namelen = 1024, .size = ENTRY(1024, 1), .write_errno = ENOENT,
};
/* ... the largest namelen (the size says 1025 bytes follow) */
FIXTURE_VARIANT_ADD(message, notify_inval_entry_namelen_u32_max) {
	.code = FUSE_NOTIFY_INVAL_ENTRY, .fill = fill_entry, .nodeid = 1,
	.namelen = 0xffffffff, .size = ENTRY(1025, 1), .write_errno = ENAMETOOLONG,
};
/* notify-inval-entry-size-mismatch: 16 + namelen + 1 exactly */
FIXTURE_VARIANT_ADD(message, notify_inval_entry_size_mismatch) {
	.code = FUSE_NOTIFY_INVAL_ENTRY, .fill = fill_entry, .nodeid = 1,
	.namelen = 1, .size = ENTRY(1, 3), .write_errno = EINVAL,
};
/* ... one byte more, one less (no NUL) */
FIXTURE_VARIANT_ADD(message, notify_inval_entry_size_mismatch_one_more) {
	.code = FUSE_NOTIFY_INVAL_ENTRY, .fill = fill_entry, .nodeid = 1,
	.namelen = 1, .size = ENTRY(1, 2), .write_errno = EINVAL,
};
FIXTURE_VARIANT_ADD(message, notify_inval_entry_size_mismatch_one_less) {
	.code = FUSE_NOTIFY_INVAL_ENTRY, .fill = fill_entry, .nodeid = 1,
	.namelen = 1, .size = ENTRY(1, 0), .write_errno = EINVAL,
};
/* notify-delete-size-short, -namelen, -size-mismatch: the same for DELETE */
FIXTURE_VARIANT_ADD(message, notify_delete_size_short) {
	.code = FUSE_NOTIFY_DELETE, .size = 8, .write_errno = EINVAL,
};
FIXTURE_VARIANT_ADD(message, notify_delete_size_short_23) {
	.code = FUSE_NOTIFY_DELETE, .size = 23, .write_errno = EINVAL,
};
FIXTURE_VARIANT_ADD(message, notify_delete_size_short_but_a_header_is_looked_for) {
	.code = FUSE_NOTIFY_DELETE, .fill = fill_delete, .nodeid = 1,
	.namelen = 0, .size = DELETE(0, 1), .write_errno = ENOENT,
};
FIXTURE_VARIANT_ADD(message, notify_delete_namelen) {
	.code = FUSE_NOTIFY_DELETE, .fill = fill_delete, .nodeid = 1,
	.namelen = 1025, .size = DELETE(1025, 1), .write_errno = ENAMETOOLONG,
};
FIXTURE_VARIANT_ADD(message, notify_delete_namelen_1024_is_looked_for) {
	.code = FUSE_NOTIFY_DELETE, .fill = fill_delete, .nodeid = 1,
	.namelen = 1024, .size = DELETE(1024, 1), .write_errno = ENOENT,
};
FIXTURE_VARIANT_ADD(message, notify_delete_namelen_u32_max) {
	.code = FUSE_NOTIFY_DELETE, .fill = fill_delete, .nodeid = 1,
	.namelen = 0xffffffff, .size = DELETE(1025, 1), .write_errno = ENAMETOOLONG,
};
FIXTURE_VARIANT_ADD(message, notify_delete_size_mismatch) {
	.code = FUSE_NOTIFY_DELETE, .fill = fill_delete, .nodeid = 1,
	.namelen = 1, .size = DELETE(1, 3), .write_errno = EINVAL,
};
FIXTURE_VARIANT_ADD(message, notify_delete_size_mismatch_one_more) {
	.code = FUSE_NOTIFY_DELETE, .fill = fill_delete, .nodeid = 1,
	.namelen = 1, .size = DELETE(1, 2), .write_errno = EINVAL,
};
FIXTURE_VARIANT_ADD(message, notify_delete_size_mismatch_one_less) {
	.code = FUSE_NOTIFY_DELETE, .fill = fill_delete, .nodeid = 1,
	.namelen = 1, .size = DELETE(1, 0), .write_errno = EINVAL,
};
/* notify-store-size-short: less than the 24-byte header */
FIXTURE_VARIANT_ADD(message, notify_store_size_short) {
	.code = FUSE_NOTIFY_STORE, .size = 8, .write_errno = EINVAL,
};
FIXTURE_VARIANT_ADD(message, notify_store_size_short_23) {
	.code = FUSE_NOTIFY_STORE, .size = STORE(0) - 1, .write_errno = EINVAL,
};
/* ... the header alone: nothing to store in nodeid 999, which is not found */
FIXTURE_VARIANT_ADD(message, notify_store_size_short_but_a_header_is_looked_for) {
	.code = FUSE_NOTIFY_STORE, .fill = fill_store, .nodeid = 999,
	.data = 0, .size = STORE(0), .write_errno = ENOENT,
};
/* notify-store-size-mismatch: outarg.size must be the data sent */
FIXTURE_VARIANT_ADD(message, notify_store_size_mismatch) {
	.code = FUSE_NOTIFY_STORE, .fill = fill_store, .nodeid = NODE_FILE,
	.data = 100, .size = STORE(200), .write_errno = EINVAL,
};
FIXTURE_VARIANT_ADD(message, notify_store_size_mismatch_none_is_taken) {
	.code = FUSE_NOTIFY_STORE, .fill = fill_store, .nodeid = NODE_FILE,
	.data = 100, .size = STORE(100), .write_errno = 0,
};
/* ... less data than it says, and one byte more */
FIXTURE_VARIANT_ADD(message, notify_store_size_mismatch_less) {
	.code = FUSE_NOTIFY_STORE, .fill = fill_store, .nodeid = NODE_FILE,
	.data = 100, .size = STORE(50), .write_errno = EINVAL,
};
FIXTURE_VARIANT_ADD(message, notify_store_size_mismatch_one_more) {
	.code = FUSE_NOTIFY_STORE, .fill = fill_store, .nodeid = NODE_FILE,
	.data = 100, .size = STORE(101), .write_errno = EINVAL,
};
/* notify-store-nodeid-unknown: a nodeid the kernel never saw */
FIXTURE_VARIANT_ADD(message, notify_store_nodeid_unknown) {
	.code = FUSE_NOTIFY_STORE, .fill = fill_store, .nodeid = 999,
	.data = 100, .size = STORE(100), .write_errno = ENOENT,
};
FIXTURE_VARIANT_ADD(message, notify_store_nodeid_unknown_zero) {
	.code = FUSE_NOTIFY_STORE, .fill = fill_store, .nodeid = 0,
	.data = 100, .size = STORE(100), .write_errno = ENOENT,
};
/* notify-store-not-regular: the root directory */
FIXTURE_VARIANT_ADD(message, notify_store_not_regular) {
	.code = FUSE_NOTIFY_STORE, .fill = fill_store, .nodeid = FUSE_ROOT_ID,
	.data = 100, .size = STORE(100), .write_errno = EINVAL,
};
/* ... a symlink */
FIXTURE_VARIANT_ADD(message, notify_store_not_regular_symlink) {
	.code = FUSE_NOTIFY_STORE, .fill = fill_store, .nodeid = NODE_LINK,
	.data = 100, .size = STORE(100), .write_errno = EINVAL,
};
/* notify-retrieve-size: exactly the 40-byte struct */
FIXTURE_VARIANT_ADD(message, notify_retrieve_size) {
	.code = FUSE_NOTIFY_RETRIEVE, .size = 16, .write_errno = EINVAL,
};
FIXTURE_VARIANT_ADD(message, notify_retrieve_size_39) {
	.code = FUSE_NOTIFY_RETRIEVE, .size = 39, .write_errno = EINVAL,
};
FIXTURE_VARIANT_ADD(message, notify_retrieve_size_41) {
	.code = FUSE_NOTIFY_RETRIEVE, .size = 41, .write_errno = EINVAL,
};
FIXTURE_VARIANT_ADD(message, notify_retrieve_nodeid_unknown) {
	.code = FUSE_NOTIFY_RETRIEVE, .fill = fill_retrieve, .nodeid = 999,
	.size = sizeof(struct fuse_notify_retrieve_out), .write_errno = ENOENT,
};
FIXTURE_VARIANT_ADD(message, notify_retrieve_nodeid_unknown_zero) {
	.code = FUSE_NOTIFY_RETRIEVE, .fill = fill_retrieve, .nodeid = 0,
	.size = sizeof(struct fuse_notify_retrieve_out), .write_errno = ENOENT,
};
FIXTURE_VARIANT_ADD(message, notify_retrieve_not_regular) {
	.code = FUSE_NOTIFY_RETRIEVE, .fill = fill_retrieve, .nodeid = 1,
	.size = sizeof(struct fuse_notify_retrieve_out), .write_errno = EINVAL,
};
FIXTURE_VARIANT_ADD(message, notify_retrieve_not_regular_symlink) {
	.code = FUSE_NOTIFY_RETRIEVE, .fill = fill_retrieve, .nodeid = NODE_LINK,
	.size = sizeof(struct fuse_notify_retrieve_out), .write_errno = EINVAL,
};
FIXTURE_VARIANT_ADD(message, notify_retrieve_not_regular_but_a_file_is_taken) {
	.code = FUSE_NOTIFY_RETRIEVE, .fill = fill_retrieve, .nodeid = NODE_FILE,
	.size = sizeof(struct fuse_notify_retrieve_out), .write_errno = 0,
};

FIXTURE_SETUP(message)
{
	ASSERT_EQ(0, outbox_open(&self->m, 0));
	self->file = nodeid_of(&self->m, "file");
	ASSERT_NE(0, self->file);
	self->link = nodeid_of(&self->m, "link");
	ASSERT_NE(0, self->link);
}

FIXTURE_TEARDOWN(message)
{
	outbox_close(_metadata, &self->m);
}

TEST_F(message, is_refused_or_taken_as_the_check_says)
{
	void *p = notification(variant->code, variant->size);
	unsigned int first;

	if (variant->fill)
		variant->fill(variant, p, self->file, self->link);
	first = send_posted(_metadata, &self->m);
	EXPECT_EQ(variant->write_errno, write_errno(&self->m, first));
}

/* --- NOTIFY_STORE: what lands in the page cache --- */

FIXTURE(store) {
	struct mnt m;
};

FIXTURE_VARIANT(store) {
	const char *file;
	off_t truncate;			/* made this long first (0: not) */
	uint32_t offset, size;		/* stored: 's' bytes */
	size_t read;			/* then read(2) from offset 0 */
	const char *expect;		/* what it starts with; NULL: all stored bytes */
	ssize_t expect_len;
	bool asks_server;		/* with a READ */
};

/* notify-store-extends-size: a store past EOF makes the file longer */
FIXTURE_VARIANT_ADD(store, notify_store_extends_size) {
	.file = "empty", .offset = 0, .size = 4096, .read = 4096,
	.expect = NULL, .expect_len = 4096, .asks_server = false,
};
/*
 * ... by one byte: the page up to the new EOF is valid (read up to EOF
 * only: a read past it asks for the attributes again)
 */
FIXTURE_VARIANT_ADD(store, notify_store_extends_size_by_one) {
	.file = "file", .offset = 0, .size = 7, .read = 7,
	.expect = NULL, .expect_len = 7, .asks_server = false,
};
/* notify-store-partial-page: a part of a page is not a page to read from */
FIXTURE_VARIANT_ADD(store, notify_store_partial_page) {
	.file = "file", .offset = 0, .size = 3, .read = 4096,
	.expect = "hello\n", .expect_len = 6, .asks_server = true,
};
/*
 * ... each term of the rule: from offset 0, a whole page, or up to EOF
 * (which is "file"'s 6 bytes, or 8192 after a truncate)
 */
FIXTURE_VARIANT_ADD(store, notify_store_partial_page_but_up_to_eof_is_valid) {
	.file = "file", .offset = 0, .size = 6, .read = 4096,
	.expect = NULL, .expect_len = 6, .asks_server = false,
};
FIXTURE_VARIANT_ADD(store, notify_store_partial_page_one_short_of_eof) {
	.file = "file", .offset = 0, .size = 5, .read = 4096,
	.expect = "hello\n", .expect_len = 6, .asks_server = true,
};
FIXTURE_VARIANT_ADD(store, notify_store_partial_page_not_from_offset_0) {
	.file = "file", .offset = 1, .size = 5, .read = 4096,
	.expect = "hello\n", .expect_len = 6, .asks_server = true,
};
FIXTURE_VARIANT_ADD(store, notify_store_partial_page_but_a_whole_page_is_valid) {
	.file = "file", .truncate = 8192, .offset = 0, .size = 4096, .read = 4096,
	.expect = NULL, .expect_len = 4096, .asks_server = false,
};
FIXTURE_VARIANT_ADD(store, notify_store_partial_page_one_short_of_a_page) {
	.file = "file", .truncate = 8192, .offset = 0, .size = 4095, .read = 4096,
	.expect = "hello\n", .expect_len = 4096, .asks_server = true,
};

FIXTURE_SETUP(store)
{
	ASSERT_EQ(0, outbox_open(&self->m, 0));
}

FIXTURE_TEARDOWN(store)
{
	outbox_close(_metadata, &self->m);
}

TEST_F(store, reads_see_what_was_stored_where_it_counts)
{
	uint64_t nodeid = nodeid_of(&self->m, variant->file);
	struct fuse_notify_store_out *s;
	unsigned int first, reads;
	char buf[8192], want[8192];
	ssize_t n;
	int fd;

	ASSERT_NE(0, nodeid);
	if (variant->truncate)
		ASSERT_EQ(0, truncate(path(&self->m, variant->file), variant->truncate));
	/* opened first: an open without FOPEN_KEEP_CACHE drops the cache */
	fd = open(path(&self->m, variant->file), O_RDONLY);
	ASSERT_LE(0, fd);
	s = notification(FUSE_NOTIFY_STORE, sizeof(*s) + variant->size);
	s->nodeid = nodeid;
	s->offset = variant->offset;
	s->size = variant->size;
	memset(s + 1, 's', variant->size);
	first = send_posted(_metadata, &self->m);
	EXPECT_EQ(0, write_errno(&self->m, first));

	reads = srv_log_count(self->m.log, FUSE_READ, false);
	n = read(fd, buf, variant->read);
	close(fd);
	ASSERT_EQ(variant->expect_len, n);
	if (variant->expect) {
		n = strlen(variant->expect);
		memcpy(want, variant->expect, n);
	} else {
		memset(want, 's', n);
	}
	EXPECT_EQ(0, memcmp(want, buf, n));
	EXPECT_EQ(variant->asks_server,
		  srv_log_count(self->m.log, FUSE_READ, false) > reads);
}

/* --- NOTIFY_RETRIEVE: how much of the cache comes back --- */

FIXTURE(retrieve) {
	struct mnt m;
};

FIXTURE_VARIANT(retrieve) {
	uint32_t max_write;		/* negotiated */
	uint32_t cached;		/* bytes stored into "empty" first */
	uint32_t offset, size;		/* asked back */
	uint32_t expect;		/* what the NOTIFY_REPLY carries */
};

/* notify-retrieve-clamp-eof: no further than the file size */
FIXTURE_VARIANT_ADD(retrieve, notify_retrieve_clamp_eof) {
	.max_write = 0, .cached = 100, .size = 4096, .expect = 100,
};
/* ... from EOF, from one byte before it, to exactly EOF, from beyond it */
FIXTURE_VARIANT_ADD(retrieve, notify_retrieve_clamp_eof_from_eof) {
	.max_write = 0, .cached = 100, .offset = 100, .size = 4096, .expect = 0,
};
FIXTURE_VARIANT_ADD(retrieve, notify_retrieve_clamp_eof_from_one_before_eof) {
	.max_write = 0, .cached = 100, .offset = 99, .size = 4096, .expect = 1,
};
FIXTURE_VARIANT_ADD(retrieve, notify_retrieve_clamp_eof_but_exactly_to_eof_is_all) {
	.max_write = 0, .cached = 100, .offset = 0, .size = 100, .expect = 100,
};
FIXTURE_VARIANT_ADD(retrieve, notify_retrieve_clamp_eof_from_beyond_eof) {
	.max_write = 0, .cached = 100, .offset = 200, .size = 4096, .expect = 0,
};
/* notify-retrieve-clamp-max-write: no more than max_write */
FIXTURE_VARIANT_ADD(retrieve, notify_retrieve_clamp_max_write) {
	.max_write = 4096, .cached = 12288, .size = 12288, .expect = 4096,
};
FIXTURE_VARIANT_ADD(retrieve, notify_retrieve_clamp_max_write_by_one) {
	.max_write = 4096, .cached = 12288, .size = 4097, .expect = 4096,
};
FIXTURE_VARIANT_ADD(retrieve, notify_retrieve_clamp_max_write_but_max_write_is_all) {
	.max_write = 4096, .cached = 12288, .size = 4096, .expect = 4096,
};
/* notify-retrieve-clamp-max-pages: no more than max_pages (32 by default) */
FIXTURE_VARIANT_ADD(retrieve, notify_retrieve_clamp_max_pages) {
	.max_write = 33 * 4096, .cached = 33 * 4096, .size = 33 * 4096,
	.expect = 32 * 4096,
};
/* ... 32 pages' worth from offset 1 spans 33 pages: 32 come back */
FIXTURE_VARIANT_ADD(retrieve, notify_retrieve_clamp_max_pages_unaligned) {
	.max_write = 33 * 4096, .cached = 33 * 4096, .offset = 1, .size = 32 * 4096,
	.expect = 32 * 4096 - 1,
};
FIXTURE_VARIANT_ADD(retrieve, notify_retrieve_clamp_max_pages_but_32_are_all) {
	.max_write = 33 * 4096, .cached = 33 * 4096, .size = 32 * 4096,
	.expect = 32 * 4096,
};

FIXTURE_SETUP(retrieve)
{
	ASSERT_EQ(0, outbox_open(&self->m, variant->max_write));
}

FIXTURE_TEARDOWN(retrieve)
{
	outbox_close(_metadata, &self->m);
}

TEST_F(retrieve, brings_back_no_more_than_the_limits)
{
	uint64_t nodeid = nodeid_of(&self->m, "empty");
	const size_t head = sizeof(struct fuse_in_header) +
			    sizeof(struct fuse_notify_retrieve_in);
	struct fuse_notify_retrieve_out *q;
	struct fuse_notify_store_out *s;
	const struct srv_record *reply;
	unsigned int first;

	ASSERT_NE(0, nodeid);
	/* whole pages up to EOF: stored as up to date */
	s = notification(FUSE_NOTIFY_STORE, sizeof(*s) + variant->cached);
	s->nodeid = nodeid;
	s->size = variant->cached;
	memset(s + 1, 's', variant->cached);
	q = notification(FUSE_NOTIFY_RETRIEVE, sizeof(*q));
	q->notify_unique = NOTIFY_UNIQUE;
	q->nodeid = nodeid;
	q->offset = variant->offset;
	q->size = variant->size;
	first = send_posted(_metadata, &self->m);
	EXPECT_EQ(0, write_errno(&self->m, first));
	EXPECT_EQ(0, write_errno(&self->m, first + 1));

	/* queued before the STATFS reply: the server reads it next */
	while (!(reply = srv_log_find(self->m.log, FUSE_NOTIFY_REPLY, 0)))
		ASSERT_TRUE(next_event(&self->m));
	EXPECT_EQ(NOTIFY_UNIQUE, reply->unique);
	EXPECT_EQ(nodeid, reply->nodeid);
	EXPECT_EQ(head + variant->expect, reply->len);
}

TEST_HARNESS_MAIN
