/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the file handle tests share: the expectation (does the kernel
 * offer handles), the tree's nodeids, and helpers that find requests in
 * the server's log and wait for what the kernel sends on its own (FORGET,
 * RELEASE).  Include after fuse_test.h and reply_edit.h.
 */
#ifndef FUSEGATE_HANDLES_H
#define FUSEGATE_HANDLES_H

/* The tree's nodeids (servers/core.c tree_init()) */
#define NODE_FILE	2
#define NODE_DIR	3
/* The server's handles: 8 bytes for odd nodeids, 24 for even ones */
#define DIR_HANDLE_SZ	8

static inline bool expect_handles(void)
{
	const char *e = getenv("FUSEGATE_EXPECT_HANDLES");

	return expect_compound() && (!e || strcmp(e, "0"));
}

/* On a kernel without handles: no handle op reached the server; SKIP */
#define SKIP_WITHOUT_HANDLES(m) do {					\
	if (!expect_handles()) {					\
		ASSERT_EQ(0, ops_since(m, 0, FUSE_LOOKUP_HANDLE));	\
		ASSERT_EQ(0, ops_since(m, 0, FUSE_MKOBJ_HANDLE));	\
		SKIP(return, "kernel without FUSE_HAS_LOOKUP_HANDLE");	\
	}								\
} while (0)

/* The opcode that fetches attributes: STATX where the server has it */
static inline uint32_t attr_opcode(bool statx)
{
	return statx ? FUSE_STATX : FUSE_GETATTR;
}

/* The records since @from, for a failure's report */
static inline void dump_log(struct __test_metadata *_metadata, struct mnt *m,
		     unsigned int from)
{
	unsigned int i;

	for (i = from; i < nreq(m); i++) {
		const struct srv_record *r = &m->log->rec[i];

		TH_LOG("rec %u: %s op %u nodeid %llu dep %u arg %llu write %d", i,
		       r->sub ? "  sub" : "req", r->opcode,
		       (unsigned long long)r->nodeid, r->dep_index,
		       (unsigned long long)r->arg, r->write_errno);
	}
}

/* The first compound since @from whose first op is @opcode, or NULL */
static inline const struct srv_record *compound_of(struct mnt *m, unsigned int from,
					    uint32_t opcode)
{
	unsigned int i;

	for (i = from; i + 1 < nreq(m); i++)
		if (m->log->rec[i].opcode == FUSE_COMPOUND &&
		    !m->log->rec[i].sub && m->log->rec[i + 1].sub &&
		    m->log->rec[i + 1].opcode == opcode)
			return &m->log->rec[i];
	return NULL;
}

/*
 * A first lookup, so that what is measured after it is what the kernel
 * does once it knows the server's answers (compounds, STATX)
 */
static inline unsigned int warm_up(struct __test_metadata *_metadata, struct mnt *m)
{
	struct stat st;

	EXPECT_EQ(0, stat(path(m, "dir"), &st));
	return nreq(m);
}

/* Wait until the kernel has given back @n lookups of @nodeid */
static inline bool wait_forgotten(struct mnt *m, uint64_t nodeid, uint64_t n)
{
	while (LOAD(m->log->forgotten[nodeid]) < n)
		if (!next_event(m))
			return false;
	return true;
}

#endif
