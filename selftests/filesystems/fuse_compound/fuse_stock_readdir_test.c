// SPDX-License-Identifier: GPL-2.0
/*
 * What stock FUSE already checks in a directory listing (fs/fuse/readdir.c):
 * READDIR and READDIRPLUS replies broken in one way each, and the outcome
 * stock 6.12 guarantees.  docs/stock-checks.md lists the checks, one row
 * per check, named as the variants here are (row dirent-namelen-zero is
 * variant dirent_namelen_zero).
 *
 * Each variant states the broken exchange: the entries the server answers
 * the first READDIR[PLUS] (offset 0) with, what it answers every later one
 * with, and what getdents64(2), a later stat(2) and the server see.
 *
 * The tree of the test server: "file" is nodeid 2, "dir" 3, "empty" 5,
 * "growing" 6; the root is 1.
 *
 * The kernel sends a FORGET for a READDIRPLUS entry it rejects after
 * looking at it.  The server does not log FORGETs, but each takes a
 * unique from the kernel's counter (2 apart): the uniques that are
 * missing between the READDIRPLUS and the next logged request count them.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../../kselftest_harness.h"
#include "fuse_test.h"

#define NODE_FILE	2
#define NODE_EMPTY	5
#define NODE_GROWING	6

/* One entry of a reply; a name longer than its string repeats name[0] */
struct ent {
	const char *name;	/* NULL: the list ends */
	unsigned int len;	/* 0: strlen(name) */
	uint64_t nodeid;	/* READDIRPLUS: entry_out.nodeid */
	uint32_t generation;	/* 0: 1 */
	uint32_t mode;		/* 0: S_IFREG | 0644; ~0: 0 (no type) */
	uint64_t size;
	bool attr_expired;	/* attr_valid 0 instead of LONG */
};

/* What to do before the listing, to have the kernel hold an inode */
enum prep {
	PREP_NONE,
	PREP_LOOKUP,	/* stat("empty"): nodeid 5 cached */
	PREP_OPEN,	/* open("empty") and keep the fd */
	PREP_BAD,	/* stat("empty"): its GETATTR changes the type: EIO,
			 * the inode is bad and the dentry stays cached */
	PREP_NEGATIVE,	/* stat("x"): ENOENT, a negative dentry cached */
};

struct dir_case {
	bool plus;		/* INIT FUSE_DO_READDIRPLUS: READDIRPLUS only */
	bool cache;		/* OPENDIR answered FOPEN_CACHE_DIR */
	struct ent first[3];	/* the answer at offset 0 */
	struct ent rest[3];	/* the answer at any later offset */
	unsigned int tail;	/* zero bytes after each answer's entries */
	unsigned int cut;	/* >0: the offset-0 answer has only this many bytes */
	enum prep prep;
	/* what the caller sees */
	int err;		/* errno of the getdents64 that ends the listing */
	const char *names;	/* every name listed, ',' after each */
	size_t names_len;	/* ... or (names NULL) their length only */
	int forgets;		/* FORGETs after the READDIRPLUS; -1: not checked */
	const char *stat_name;	/* then stat()ed (must succeed) ... */
	int lookups;		/* ... with this many LOOKUPs */
	uint64_t getattr_nodeid; /* ... and a GETATTR of this nodeid (0: none) */
	bool fstat_eio;		/* fstat of the PREP_OPEN fd: EIO */
};

static size_t put_ents(unsigned char *p, const struct ent *e, uint64_t pos,
		       bool plus)
{
	size_t off = 0, i, j;

	for (i = 0; e[i].name; i++) {
		size_t slen = strlen(e[i].name);
		size_t nl = e[i].len ? e[i].len : slen;
		struct fuse_dirent *d;

		if (plus) {
			struct fuse_entry_out *o = (void *)(p + off);

			memset(o, 0, sizeof(*o));
			o->nodeid = e[i].nodeid;
			o->generation = e[i].generation ?: 1;
			o->entry_valid = LONG;
			o->attr_valid = e[i].attr_expired ? 0 : LONG;
			o->attr.ino = e[i].nodeid;
			o->attr.mode = e[i].mode == ~0u ? 0 :
				       e[i].mode ?: S_IFREG | 0644;
			o->attr.size = e[i].size;
			o->attr.nlink = 1;
			o->attr.blksize = 4096;
			off += sizeof(*o);
		}
		d = (void *)(p + off);
		memset(d, 0, FUSE_DIRENT_ALIGN(FUSE_NAME_OFFSET + nl));
		d->ino = e[i].nodeid ?: 100 + i;
		d->off = pos + i + 1;
		d->namelen = nl;
		d->type = DT_REG;
		for (j = 0; j < nl; j++)
			d->name[j] = e[i].name[j < slen ? j : 0];
		off += FUSE_DIRENT_SIZE(d);
	}
	return off;
}

/* Runs in the server: the variant's answers, in place of the core's */
static void edit_dir(const struct srv_config *cfg,
		     const struct fuse_in_header *req, struct srv_reply *r)
{
	const struct dir_case *c = (const void *)(uintptr_t)cfg->edit_arg;
	struct fuse_out_header *oh = (void *)r->buf;
	void *out = oh + 1;

	switch (req->opcode) {
	case FUSE_INIT:
		if (c->plus)
			((struct fuse_init_out *)out)->flags |= FUSE_DO_READDIRPLUS;
		break;
	case FUSE_OPENDIR:
		if (c->cache && !oh->error)
			((struct fuse_open_out *)out)->open_flags |= FOPEN_CACHE_DIR;
		break;
	case FUSE_READDIR:
	case FUSE_READDIRPLUS: {
		const struct fuse_read_in *in = (const void *)(req + 1);
		size_t len;

		len = put_ents(out, in->offset ? c->rest : c->first,
			       in->offset, c->plus);
		memset((char *)out + len, 0, c->tail);
		len += c->tail;
		if (!in->offset && c->cut)
			len = c->cut;
		oh->error = 0;
		r->len = oh->len = sizeof(*oh) + len;
		break;
	}
	case FUSE_LOOKUP:
		if (c->prep == PREP_BAD && !oh->error &&
		    ((struct fuse_entry_out *)out)->nodeid == NODE_EMPTY)
			((struct fuse_entry_out *)out)->attr_valid = 0;
		break;
	case FUSE_GETATTR:
		if (c->prep == PREP_BAD && req->nodeid == NODE_EMPTY)
			((struct fuse_attr_out *)out)->attr.mode = S_IFDIR | 0755;
		break;
	}
}

static int mount_case(struct mnt *m, const struct dir_case *c)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG, LONG);

	cfg.edit_reply = edit_dir;
	cfg.edit_arg = (uintptr_t)c;
	return mnt_start(m, cfg);
}

/* getdents64 once: 0 at the end, -errno, or the number of names added */
static int getdents_once(int fd, char *names, size_t size)
{
	static char buf[16384];
	long n = syscall(SYS_getdents64, fd, buf, sizeof(buf)), off;
	int count = 0;

	if (n < 0)
		return -errno;
	for (off = 0; off < n; count++) {
		struct dirent64 *d = (void *)(buf + off);
		size_t used = strlen(names);

		snprintf(names + used, size - used, "%s,", d->d_name);
		off += d->d_reclen;
	}
	return count;
}

/* List @fd to the end: 0, or the errno of the call that failed */
static int list_dir(int fd, char *names, size_t size)
{
	int calls, ret;

	names[0] = 0;
	for (calls = 0; calls < 8; calls++) {
		ret = getdents_once(fd, names, size);
		if (ret <= 0)
			return -ret;
	}
	return ELOOP;		/* the listing does not end */
}

/*
 * Messages the kernel sent that the server does not log (FORGETs) from
 * the first @opcode request at or after record @from to the last request
 * logged.
 */
static int unlogged_since(struct mnt *m, unsigned int from, uint32_t opcode)
{
	unsigned int i, first = ~0u, last = 0, logged = 0;

	for (i = from; i < nreq(m); i++) {
		const struct srv_record *r = &m->log->rec[i];

		if (r->sub || r->opcode == SRV_RAW_WRITE ||
		    r->opcode == FUSE_INTERRUPT)
			continue;
		if (first == ~0u && r->opcode != opcode)
			continue;
		if (first == ~0u)
			first = i;
		else
			logged++;
		last = i;
	}
	if (first == ~0u || last == first)
		return -1;
	return (m->log->rec[last].unique - m->log->rec[first].unique) / 2 -
	       logged;
}

static void check_listing(struct __test_metadata *_metadata, struct mnt *m,
			  const struct dir_case *c)
{
	unsigned int from, before;
	const struct srv_record *rec;
	char names[8192];
	struct stat st;
	int keep = -1, dfd;

	switch (c->prep) {
	case PREP_NONE:
		break;
	case PREP_LOOKUP:
		ASSERT_EQ(0, stat(path(m, "empty"), &st));
		break;
	case PREP_OPEN:
		keep = open(path(m, "empty"), O_RDONLY);
		ASSERT_LE(0, keep);
		break;
	case PREP_BAD:
		ASSERT_EQ(-1, stat(path(m, "empty"), &st));
		ASSERT_EQ(EIO, errno);
		break;
	case PREP_NEGATIVE:
		ASSERT_EQ(-1, stat(path(m, "x"), &st));
		ASSERT_EQ(ENOENT, errno);
		break;
	}
	from = nreq(m);
	dfd = open(m->dir, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, dfd);
	EXPECT_EQ(c->err, list_dir(dfd, names, sizeof(names)));
	if (c->names) {
		EXPECT_STREQ(c->names, names);
	} else {
		EXPECT_EQ(c->names_len, strlen(names));
	}
	/* a LOOKUP that fails: the next request logged after the listing */
	EXPECT_EQ(-1, stat(path(m, "probe"), &st));
	EXPECT_EQ(ENOENT, errno);
	if (c->forgets >= 0)
		EXPECT_EQ(c->forgets, unlogged_since(m, from, FUSE_READDIRPLUS));
	if (c->fstat_eio) {
		EXPECT_EQ(-1, fstat(keep, &st));
		EXPECT_EQ(EIO, errno);
	}
	if (c->stat_name) {
		before = nreq(m);
		EXPECT_EQ(0, stat(path(m, c->stat_name), &st));
		EXPECT_EQ(c->lookups, count_since(m, before, FUSE_LOOKUP, false));
		for (rec = NULL; before < nreq(m) && !rec; before++)
			if (m->log->rec[before].opcode == FUSE_GETATTR)
				rec = &m->log->rec[before];
		EXPECT_EQ(c->getattr_nodeid, rec ? rec->nodeid : 0);
	}
	/* the root is sound */
	EXPECT_EQ(0, stat(m->dir, &st));
	EXPECT_TRUE(S_ISDIR(st.st_mode));
	close(dfd);
	if (keep >= 0)
		close(keep);
}

/* --- READDIR: parse_dirfile() --- */

FIXTURE(readdir) {
	struct mnt m;
};

FIXTURE_VARIANT(readdir) {
	struct dir_case c;
};

/* a 23-byte tail (namelen 0) after the entries is no entry */
FIXTURE_VARIANT_ADD(readdir, dirent_short_tail) {
	.c = { .first = { { "good" } }, .tail = 23,
	       .err = 0, .names = "good,", .forgets = -1 },
};
/* ... a tail of 24 (a header, namelen 0) is an entry: EIO; so is a tail of 1 not */
FIXTURE_VARIANT_ADD(readdir, dirent_short_tail_24_is_an_entry) {
	.c = { .first = { { "good" } }, .tail = 24,
	       .err = EIO, .names = "good,", .forgets = -1 },
};
FIXTURE_VARIANT_ADD(readdir, dirent_short_tail_1) {
	.c = { .first = { { "good" } }, .tail = 1,
	       .err = 0, .names = "good,", .forgets = -1 },
};
/* namelen 1025 > FUSE_NAME_MAX: EIO (the VFS would take it) */
FIXTURE_VARIANT_ADD(readdir, dirent_namelen_too_long) {
	.c = { .first = { { "n", 1025 } },
	       .err = EIO, .names = "", .forgets = -1 },
};
/* ... 1024 is a name */
FIXTURE_VARIANT_ADD(readdir, dirent_namelen_too_long_but_1024_is_taken) {
	.c = { .first = { { "n", 1024 } },
	       .err = 0, .names = NULL, .names_len = 1025, .forgets = -1 },
};
/* a 48-byte reply whose entry claims a 200-byte name: dropped */
FIXTURE_VARIANT_ADD(readdir, dirent_reclen_beyond_reply) {
	.c = { .first = { { "r", 200 } }, .cut = 48,
	       .err = 0, .names = "", .forgets = -1 },
};
/* ... its record is 224 bytes: 223 are not enough, 224 are */
FIXTURE_VARIANT_ADD(readdir, dirent_reclen_beyond_reply_by_one) {
	.c = { .first = { { "r", 200 } }, .cut = 223,
	       .err = 0, .names = "", .forgets = -1 },
};
FIXTURE_VARIANT_ADD(readdir, dirent_reclen_beyond_reply_but_exact_is_taken) {
	.c = { .first = { { "r", 200 } }, .cut = 224,
	       .err = 0, .names = NULL, .names_len = 201, .forgets = -1 },
};

FIXTURE_SETUP(readdir)
{
	ASSERT_EQ(0, mount_case(&self->m, &variant->c));
}

FIXTURE_TEARDOWN(readdir)
{
	mnt_stop(_metadata, &self->m);
}

TEST_F(readdir, getdents_lists_what_the_row_says)
{
	check_listing(_metadata, &self->m, &variant->c);
}

/*
 * --- READDIR into the readdir cache (FOPEN_CACHE_DIR) ---
 *
 * An empty name or one with '/' is refused by the VFS too, once it is
 * emitted; but fuse caches an entry before it emits it.  Only the check of
 * parse_dirfile() keeps the bad entry out of the cache: list "good" (the
 * bad entry after it fails), seek to 2 past the bad entry and read the
 * end (0 bytes): a cache that ends at 2 is complete only if the bad entry
 * went in.  After a rewind, stock asks the server again; a complete cache
 * would be read instead (and a cached "a/b" WARNs).
 */
FIXTURE(readdir_cache) {
	struct mnt m;
};

FIXTURE_VARIANT(readdir_cache) {
	struct dir_case c;
};

FIXTURE_VARIANT_ADD(readdir_cache, dirent_namelen_zero) {
	.c = { .cache = true, .first = { { "good" }, { "" } } },
};
FIXTURE_VARIANT_ADD(readdir_cache, dirent_slash_in_name) {
	.c = { .cache = true, .first = { { "good" }, { "a/b" } } },
};
FIXTURE_VARIANT_ADD(readdir_cache, dirent_slash_in_name_at_the_end) {
	.c = { .cache = true, .first = { { "good" }, { "ab/" } } },
};

FIXTURE_SETUP(readdir_cache)
{
	ASSERT_EQ(0, mount_case(&self->m, &variant->c));
}

FIXTURE_TEARDOWN(readdir_cache)
{
	mnt_stop(_metadata, &self->m);
}

TEST_F(readdir_cache, bad_entry_never_enters_the_cache)
{
	unsigned int from;
	char names[256] = "";
	int dfd = open(self->m.dir, O_RDONLY | O_DIRECTORY);

	ASSERT_LE(0, dfd);
	EXPECT_EQ(1, getdents_once(dfd, names, sizeof(names)));
	EXPECT_STREQ("good,", names);
	ASSERT_EQ(2, lseek(dfd, 2, SEEK_SET));
	names[0] = 0;
	EXPECT_EQ(0, getdents_once(dfd, names, sizeof(names)));
	ASSERT_EQ(0, lseek(dfd, 0, SEEK_SET));
	from = nreq(&self->m);
	EXPECT_EQ(1, getdents_once(dfd, names, sizeof(names)));
	EXPECT_STREQ("good,", names);
	/* stock: the cache is incomplete, the server is asked again */
	EXPECT_EQ(1, count_since(&self->m, from, FUSE_READDIR, false));
	close(dfd);
}

/* --- READDIRPLUS: parse_dirplusfile(), fuse_direntplus_link() --- */

FIXTURE(readdirplus) {
	struct mnt m;
};

FIXTURE_VARIANT(readdirplus) {
	struct dir_case c;
};

/* a 151-byte tail is no entry */
FIXTURE_VARIANT_ADD(readdirplus, direntplus_short_tail) {
	.c = { .plus = true, .first = { { "file", .nodeid = NODE_FILE } },
	       .tail = 151, .err = 0, .names = "file,", .forgets = 0 },
};
/* ... 152 bytes (entry_out and a dirent header) are an entry: namelen 0, EIO */
FIXTURE_VARIANT_ADD(readdirplus, direntplus_short_tail_152_is_an_entry) {
	.c = { .plus = true, .first = { { "file", .nodeid = NODE_FILE } },
	       .tail = 152, .err = EIO, .names = "file,", .forgets = 0 },
};
/* an empty name: EIO, and the entry after it is not linked */
FIXTURE_VARIANT_ADD(readdirplus, direntplus_namelen_zero) {
	.c = { .plus = true,
	       .first = { { "" }, { "empty", .nodeid = NODE_EMPTY } },
	       .err = EIO, .names = "", .forgets = 0,
	       .stat_name = "empty", .lookups = 1 },
};
FIXTURE_VARIANT_ADD(readdirplus, direntplus_namelen_too_long) {
	.c = { .plus = true, .first = { { "n", 1025, .nodeid = NODE_EMPTY } },
	       .err = EIO, .names = "", .forgets = 0 },
};
FIXTURE_VARIANT_ADD(readdirplus, direntplus_namelen_too_long_but_1024_is_taken) {
	.c = { .plus = true, .first = { { "n", 1024, .nodeid = NODE_EMPTY } },
	       .err = 0, .names = NULL, .names_len = 1025, .forgets = 0 },
};
/* a 160-byte reply whose entry claims a 200-byte name: dropped */
FIXTURE_VARIANT_ADD(readdirplus, direntplus_reclen_beyond_reply) {
	.c = { .plus = true, .first = { { "r", 200, .nodeid = NODE_EMPTY } },
	       .cut = 160, .err = 0, .names = "", .forgets = 0 },
};
/* ... its record is 128 + 224 bytes: one less is not enough */
FIXTURE_VARIANT_ADD(readdirplus, direntplus_reclen_beyond_reply_by_one) {
	.c = { .plus = true, .first = { { "r", 200, .nodeid = NODE_EMPTY } },
	       .cut = 351, .err = 0, .names = "", .forgets = 0 },
};
FIXTURE_VARIANT_ADD(readdirplus, direntplus_reclen_beyond_reply_but_exact_is_taken) {
	.c = { .plus = true, .first = { { "r", 200, .nodeid = NODE_EMPTY } },
	       .cut = 352, .err = 0, .names = NULL, .names_len = 201, .forgets = 0 },
};
FIXTURE_VARIANT_ADD(readdirplus, direntplus_slash_in_name) {
	.c = { .plus = true,
	       .first = { { "a/b" }, { "empty", .nodeid = NODE_EMPTY } },
	       .err = EIO, .names = "", .forgets = 0,
	       .stat_name = "empty", .lookups = 1 },
};
FIXTURE_VARIANT_ADD(readdirplus, direntplus_slash_in_name_at_the_end) {
	.c = { .plus = true,
	       .first = { { "ab/" }, { "empty", .nodeid = NODE_EMPTY } },
	       .err = EIO, .names = "", .forgets = 0,
	       .stat_name = "empty", .lookups = 1 },
};
/* nodeid 0: listed, nothing linked, nothing to forget */
FIXTURE_VARIANT_ADD(readdirplus, direntplus_nodeid_zero) {
	.c = { .plus = true, .first = { { "file", .nodeid = 0 } },
	       .names = "file,", .forgets = 0,
	       .stat_name = "file", .lookups = 1 },
};
FIXTURE_VARIANT_ADD(readdirplus, direntplus_dot) {
	.c = { .plus = true,
	       .first = { { ".", .nodeid = 1, .mode = S_IFDIR | 0755 } },
	       .names = ".,", .forgets = 0 },
};
FIXTURE_VARIANT_ADD(readdirplus, direntplus_dotdot) {
	.c = { .plus = true,
	       .first = { { "..", .nodeid = 1, .mode = S_IFDIR | 0755 } },
	       .names = "..,", .forgets = 0 },
};
/* ... ".a" and "..." are names: linked (stat() needs no LOOKUP) */
FIXTURE_VARIANT_ADD(readdirplus, direntplus_dot_but_dot_a_is_a_name) {
	.c = { .plus = true, .first = { { ".a", .nodeid = NODE_EMPTY } },
	       .names = ".a,", .forgets = 0, .stat_name = ".a", .lookups = 0 },
};
FIXTURE_VARIANT_ADD(readdirplus, direntplus_dotdot_but_three_dots_are_a_name) {
	.c = { .plus = true, .first = { { "...", .nodeid = NODE_EMPTY } },
	       .names = "...,", .forgets = 0, .stat_name = "...", .lookups = 0 },
};
/* the root's nodeid for a file: listed, forgotten, the root unharmed */
FIXTURE_VARIANT_ADD(readdirplus, direntplus_invalid_nodeid) {
	.c = { .plus = true, .first = { { "x", .nodeid = 1 } },
	       .names = "x,", .forgets = 1 },
};
/* size 1<<63: listed, forgotten, not linked */
FIXTURE_VARIANT_ADD(readdirplus, direntplus_invalid_attr) {
	.c = { .plus = true,
	       .first = { { "empty", .nodeid = NODE_EMPTY, .size = 1ULL << 63 } },
	       .names = "empty,", .forgets = 1,
	       .stat_name = "empty", .lookups = 1 },
};
/* ... a size of U64_MAX, and S_IFMT bits that name no type */
FIXTURE_VARIANT_ADD(readdirplus, direntplus_invalid_attr_u64_max) {
	.c = { .plus = true,
	       .first = { { "empty", .nodeid = NODE_EMPTY, .size = ~0ULL } },
	       .names = "empty,", .forgets = 1,
	       .stat_name = "empty", .lookups = 1 },
};
FIXTURE_VARIANT_ADD(readdirplus, direntplus_invalid_attr_invalid_type) {
	.c = { .plus = true,
	       .first = { { "empty", .nodeid = NODE_EMPTY, .mode = 0170644 } },
	       .names = "empty,", .forgets = 1,
	       .stat_name = "empty", .lookups = 1 },
};
/* ... LLONG_MAX is a size: linked */
FIXTURE_VARIANT_ADD(readdirplus, direntplus_invalid_attr_but_llong_max_is_taken) {
	.c = { .plus = true,
	       .first = { { "empty", .nodeid = NODE_EMPTY,
			    .size = 0x7fffffffffffffffULL } },
	       .names = "empty,", .forgets = 0,
	       .stat_name = "empty", .lookups = 0 },
};
/* any rejected entry (here: no file type) is forgotten */
FIXTURE_VARIANT_ADD(readdirplus, direntplus_forget_on_error) {
	.c = { .plus = true,
	       .first = { { "empty", .nodeid = NODE_EMPTY, .mode = ~0u } },
	       .names = "empty,", .forgets = 1,
	       .stat_name = "empty", .lookups = 1 },
};
/* "empty" (nodeid 5) is cached; now it is nodeid 6: a new inode */
FIXTURE_VARIANT_ADD(readdirplus, direntplus_nodeid_change) {
	.c = { .plus = true, .prep = PREP_LOOKUP,
	       .first = { { "empty", .nodeid = NODE_GROWING,
			    .attr_expired = true } },
	       .names = "empty,", .forgets = -1,
	       .stat_name = "empty", .lookups = 0,
	       .getattr_nodeid = NODE_GROWING },
};
/*
 * ... "x" is a negative dentry (its LOOKUP said ENOENT), and the listing
 * names it nodeid 5: the negative dentry is dropped and "x" linked
 */
FIXTURE_VARIANT_ADD(readdirplus, direntplus_nodeid_change_over_a_negative_dentry) {
	.c = { .plus = true, .prep = PREP_NEGATIVE,
	       .first = { { "x", .nodeid = NODE_EMPTY } },
	       .names = "x,", .forgets = 0,
	       .stat_name = "x", .lookups = 0 },
};
/* "empty" is open; its generation changes: the old inode goes bad */
FIXTURE_VARIANT_ADD(readdirplus, direntplus_stale_inode) {
	.c = { .plus = true, .prep = PREP_OPEN,
	       .first = { { "empty", .nodeid = NODE_EMPTY, .generation = 2 } },
	       .names = "empty,", .forgets = -1, .fstat_eio = true,
	       .stat_name = "empty", .lookups = 0 },
};
/* ... or its type: the same */
FIXTURE_VARIANT_ADD(readdirplus, direntplus_stale_inode_type) {
	.c = { .plus = true, .prep = PREP_OPEN,
	       .first = { { "empty", .nodeid = NODE_EMPTY, .mode = S_IFDIR | 0755 } },
	       .names = "empty,", .forgets = -1, .fstat_eio = true,
	       .stat_name = "empty", .lookups = 0 },
};
/* ... the same generation and type: the same inode, which stays good */
FIXTURE_VARIANT_ADD(readdirplus, direntplus_stale_inode_but_the_same_one_stays) {
	.c = { .plus = true, .prep = PREP_OPEN,
	       .first = { { "empty", .nodeid = NODE_EMPTY } },
	       .names = "empty,", .forgets = -1, .fstat_eio = false,
	       .stat_name = "empty", .lookups = 0 },
};
/* "empty" is bad, its dentry cached: the entry is forgotten */
FIXTURE_VARIANT_ADD(readdirplus, direntplus_bad_inode) {
	.c = { .plus = true, .prep = PREP_BAD,
	       .first = { { "empty", .nodeid = NODE_EMPTY } },
	       .names = "empty,", .forgets = 1 },
};

FIXTURE_SETUP(readdirplus)
{
	ASSERT_EQ(0, mount_case(&self->m, &variant->c));
}

FIXTURE_TEARDOWN(readdirplus)
{
	mnt_stop(_metadata, &self->m);
}

TEST_F(readdirplus, entries_are_listed_linked_and_forgotten_as_the_row_says)
{
	check_listing(_metadata, &self->m, &variant->c);
	/* every listing was READDIRPLUS */
	EXPECT_EQ(0, srv_log_count(self->m.log, FUSE_READDIR, false));
}

TEST_HARNESS_MAIN
