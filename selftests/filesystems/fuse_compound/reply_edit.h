/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Editing a reply the server is about to write, operation by operation:
 * a plain reply answers one request, a compound's reply one per
 * subrequest.  A test says in its struct shared (memory both processes
 * see) what its server's edit is to do, and the edit walks the reply.
 *
 * Include after fuse_test.h.  A test that shares more with its server than
 * struct shared below names its own members in SHARED_EXTRA first.
 */
#ifndef FUSEGATE_REPLY_EDIT_H
#define FUSEGATE_REPLY_EDIT_H

/* Shared by the test and its server: the test says, the server's edit does */
struct shared {
	const void *variant;	/* the test's FIXTURE_VARIANT */
	int phase;		/* 0: replies as the core built them */
	unsigned int edits;	/* replies the server's edit changed */
	uint64_t nodeid;	/* a nodeid the test or the edit learned */
#ifdef SHARED_EXTRA
	SHARED_EXTRA
#endif
};

/* Both processes read and write struct shared */
#define LOAD(x)		__atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define STORE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELEASE)
/* The server's edit counts the replies it changed: a test must change one */
#define EDITED(sh)	__atomic_add_fetch(&(sh)->edits, 1, __ATOMIC_RELEASE)

/* One operation a reply answers: a plain request or a compound's subrequest */
struct op {
	uint32_t opcode;
	uint64_t nodeid;
	const void *arg;
	int idx;		/* index of the subreply; -1: a plain reply */
};

static inline struct fuse_out_header *op_out(struct srv_reply *r, const struct op *op)
{
	return (void *)(r->buf + (op->idx < 0 ? 0 : r->sub_off[op->idx]));
}

/* Replace the reply to @op by @error and a copy of @payload */
static inline void op_answer(struct srv_reply *r, const struct op *op, int error,
		      const void *payload, size_t len)
{
	size_t off = op->idx < 0 ? 0 : r->sub_off[op->idx];
	struct fuse_out_header *oh = (void *)(r->buf + off);
	size_t old = op->idx < 0 ? r->len : oh->len, new = sizeof(*oh) + len;
	unsigned int i;

	memmove(r->buf + off + new, r->buf + off + old, r->len - off - old);
	if (len)
		memcpy(oh + 1, payload, len);
	oh->error = error;
	oh->len = new;
	r->len = r->len - old + new;
	for (i = op->idx + 1; op->idx >= 0 && i < r->nsubs; i++)
		r->sub_off[i] += new - old;
	((struct fuse_out_header *)r->buf)->len = r->len;
}

static inline void for_each_op(const struct srv_config *cfg,
			const struct fuse_in_header *req, struct srv_reply *r,
			void (*fn)(struct shared *sh, struct srv_reply *r,
				   const struct op *op))
{
	struct shared *sh = (void *)(uintptr_t)cfg->edit_arg;
	const unsigned char *p = (const void *)(req + 1);
	unsigned int i;

	if (req->opcode != FUSE_COMPOUND) {
		struct op op = { req->opcode, req->nodeid, req + 1, -1 };

		fn(sh, r, &op);
		return;
	}
	p += sizeof(struct fuse_compound_in);
	for (i = 0; i < r->nsubs; i++) {
		const struct fuse_in_header *h = (const void *)
			(p + sizeof(struct fuse_compound_req_in));
		struct op op = { h->opcode, h->nodeid, h + 1, i };

		fn(sh, r, &op);
		p += sizeof(struct fuse_compound_req_in) + h->len;
	}
}

static inline struct shared *mnt_start_edited(struct mnt *m, struct srv_config cfg,
				       const void *variant,
				       void (*edit)(const struct srv_config *,
						    const struct fuse_in_header *,
						    struct srv_reply *))
{
	struct shared *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (sh == MAP_FAILED)
		return NULL;
	sh->variant = variant;
	cfg.edit_reply = edit;
	cfg.edit_arg = (uintptr_t)sh;
	return mnt_start(m, cfg) ? NULL : sh;
}

#endif
