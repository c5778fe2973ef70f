// SPDX-License-Identifier: GPL-2.0
/*
 * The server's books: what the kernel took from it and gave back.
 *
 * Lookups: every entry the kernel read with error 0 grants a lookup of its
 * nodeid (LOOKUP, CREATE, TMPFILE, MKNOD, MKDIR, SYMLINK, LINK,
 * LOOKUP_HANDLE, MKOBJ_HANDLE, and each READDIRPLUS record with a nonzero
 * nodeid whose name is not "." or ".."); FORGET and BATCH_FORGET give
 * nlookup back.  Open handles: every fh the kernel read (OPEN, OPENDIR,
 * CREATE, TMPFILE) is opened, and RELEASE or RELEASEDIR of it released.
 *
 * "Read" is decided from the bytes written, after the test's edit, as the
 * kernel parses them (books_read()), not from what the server meant to
 * send.  Every write of the server on /dev/fuse comes here (srv_write()),
 * and so does every request read (srv_took()), the server's own and
 * those a test reads itself.  The counts live in the shared
 * log (struct srv_log), for the test to check at its end.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuse_server.h"

/* fs/fuse: not in the UAPI header */
#define FUSE_INT_REQ_BIT	(1ULL << 0)
#define FUSE_NAME_MAX		1024
#define COMPAT_ENTRY_OUT_SIZE	120	/* FUSE_COMPAT_ENTRY_OUT_SIZE, minor < 9 */
#define COMPAT_ATTR_OUT_SIZE	96	/* FUSE_COMPAT_ATTR_OUT_SIZE, minor < 9 */
#ifndef FUSE_TMPFILE
#define FUSE_TMPFILE		51
#endif

/* A request read and not yet answered, as far as the books need it */
struct inflight {
	uint64_t unique;
	uint32_t opcode;
	uint32_t size;		/* READDIRPLUS: the size asked */
	unsigned int nsub;	/* COMPOUND: its subrequests' opcodes */
	uint32_t subop[FUSE_COMPOUND_MAX_OPS];
	uint8_t subdep[FUSE_COMPOUND_MAX_OPS];	/* and their dep_index */
};

/*
 * The last requests read, by unique (2 apart: the kernel's counter steps
 * by FUSE_REQ_ID_STEP).  A slot is reused 1024 requests later: no test
 * holds a reply that long.
 */
#define INFLIGHT	1024
static struct inflight inflight[INFLIGHT];

/* What INIT negotiated, as the kernel read the reply (process_init_reply()) */
static uint32_t minor = FUSE_KERNEL_MINOR_VERSION;
static uint16_t max_handle_sz;

static struct inflight *inflight_slot(uint64_t unique)
{
	return &inflight[(unique >> 1) % INFLIGHT];
}

/* Something the books could not place: the check reports it */
static void lost(volatile uint32_t *counter)
{
	__atomic_add_fetch(counter, 1, __ATOMIC_RELEASE);
}

/* --- the counts --- */

static struct srv_node_books *spill_node(struct srv_log *log, uint64_t nodeid)
{
	unsigned int i;

	for (i = 0; i < SRV_BOOKS_SPILL; i++) {
		struct srv_node_books *b = &log->node_spill[i];

		if (b->nodeid == nodeid)
			return b;
		if (!b->nodeid) {
			b->nodeid = nodeid;
			return b;
		}
	}
	lost(&log->books_spill_full);
	return NULL;
}

static void grant_node(struct srv_log *log, uint64_t nodeid, uint32_t opcode)
{
	struct srv_node_books *b;

	if (!nodeid)		/* no node: a negative entry, or none linked */
		return;
	if (nodeid < SRV_MAX_NODES) {
		__atomic_add_fetch(&log->granted[nodeid], 1, __ATOMIC_RELEASE);
		log->granted_by[nodeid] = opcode;
		return;
	}
	b = spill_node(log, nodeid);
	if (b) {
		__atomic_add_fetch(&b->granted, 1, __ATOMIC_RELEASE);
		b->granted_by = opcode;
	}
}

static void forget_node(struct srv_log *log, uint64_t nodeid, uint64_t nlookup)
{
	struct srv_node_books *b;

	if (nodeid < SRV_MAX_NODES) {
		__atomic_add_fetch(&log->forgotten[nodeid], nlookup, __ATOMIC_RELEASE);
		return;
	}
	b = spill_node(log, nodeid);
	if (b)
		__atomic_add_fetch(&b->forgotten, nlookup, __ATOMIC_RELEASE);
}

static struct srv_fh_books *fh_books(struct srv_log *log, uint64_t fh)
{
	unsigned int i;

	if (fh < SRV_MAX_FH)
		return &log->fh[fh];
	for (i = 0; i < SRV_BOOKS_SPILL; i++) {
		struct srv_fh_books *b = &log->fh_spill[i];

		if (b->fh == fh)
			return b;
		if (!b->fh) {
			b->fh = fh;
			return b;
		}
	}
	lost(&log->books_spill_full);
	return NULL;
}

static void open_fh(struct srv_log *log, uint64_t fh, uint32_t opcode)
{
	struct srv_fh_books *b = fh_books(log, fh);

	if (b) {
		b->fh = fh;
		b->opened_by = opcode;
		__atomic_add_fetch(&b->opened, 1, __ATOMIC_RELEASE);
	}
}

static void release_fh(struct srv_log *log, uint64_t fh, uint32_t opcode)
{
	struct srv_fh_books *b = fh_books(log, fh);

	if (b) {
		b->fh = fh;
		b->released_by = opcode;
		__atomic_add_fetch(&b->released, 1, __ATOMIC_RELEASE);
	}
}

/* --- what comes in --- */

void srv_took(struct srv_log *log, const void *req, size_t len)
{
	const struct fuse_in_header *ih = req;
	const unsigned char *p, *end = (const unsigned char *)ih + len;
	struct inflight *q;
	uint32_t i, n;

	if (len < sizeof(*ih))
		return;
	/* without a log (unwatched) nothing is counted, the rest is kept */
	switch (ih->opcode) {
	case FUSE_FORGET: {
		const struct fuse_forget_in *f = (const void *)(ih + 1);

		if (log)
			forget_node(log, ih->nodeid, f->nlookup);
		return;
	}
	case FUSE_BATCH_FORGET: {
		const struct fuse_batch_forget_in *b = (const void *)(ih + 1);
		const struct fuse_forget_one *one = (const void *)(b + 1);

		n = log ? b->count : 0;
		for (i = 0; i < n && (const unsigned char *)(one + i + 1) <= end; i++)
			forget_node(log, one[i].nodeid, one[i].nlookup);
		return;
	}
	case FUSE_RELEASE:
	case FUSE_RELEASEDIR:
		if (log)
			release_fh(log, ((const struct fuse_release_in *)(ih + 1))->fh,
				   ih->opcode);
		break;
	case FUSE_INTERRUPT:	/* it names another request; its reply is none */
	case FUSE_NOTIFY_REPLY:	/* its unique is the server's, and no reply */
		return;
	}

	q = inflight_slot(ih->unique);
	memset(q, 0, sizeof(*q));
	q->unique = ih->unique;
	q->opcode = ih->opcode;
	if (ih->opcode == FUSE_READDIRPLUS)
		q->size = ((const struct fuse_read_in *)(ih + 1))->size;
	if (ih->opcode != FUSE_COMPOUND)
		return;
	p = (const unsigned char *)(ih + 1) + sizeof(struct fuse_compound_in);
	while (q->nsub < FUSE_COMPOUND_MAX_OPS &&
	       p + sizeof(struct fuse_compound_req_in) +
	       sizeof(struct fuse_in_header) <= end) {
		const struct fuse_in_header *sh = (const void *)
			(p + sizeof(struct fuse_compound_req_in));

		if (sh->len < sizeof(*sh))
			break;
		q->subdep[q->nsub] =
			((const struct fuse_compound_req_in *)p)->dep_index;
		q->subop[q->nsub++] = sh->opcode;
		p += sizeof(struct fuse_compound_req_in) + sh->len;
	}
}

/* --- what the kernel read --- */

/* The out-args of a request, as the kernel set them up */
struct outargs {
	uint32_t size;		/* their total */
	uint32_t var;		/* the variable one's size, 0: none */
};

/*
 * The out-args of @opcode (fuse_lookup_init(), create_new_entry(),
 * fuse_create_open(), fuse_open_args_fill(), fuse_getattr_args_fill(),
 * fuse_statx_args_fill(), fuse_handle_lookup_init(), fuse_read_args_fill()
 * for READDIRPLUS, resized by fuse_adjust_compat()); false for an opcode
 * the books do not model.
 */
static bool outargs_of(uint32_t opcode, uint32_t size, struct outargs *o)
{
	uint32_t entry = minor < 9 ? COMPAT_ENTRY_OUT_SIZE :
				     sizeof(struct fuse_entry_out);

	o->var = 0;
	switch (opcode) {
	case FUSE_LOOKUP:
	case FUSE_MKNOD:
	case FUSE_MKDIR:
	case FUSE_SYMLINK:
	case FUSE_LINK:
		o->size = entry;
		return true;
	case FUSE_CREATE:
	case FUSE_TMPFILE:
		o->size = entry + sizeof(struct fuse_open_out);
		return true;
	case FUSE_OPEN:
	case FUSE_OPENDIR:
		o->size = sizeof(struct fuse_open_out);
		return true;
	case FUSE_GETATTR:
	case FUSE_SETATTR:
		o->size = minor < 9 ? COMPAT_ATTR_OUT_SIZE :
				      sizeof(struct fuse_attr_out);
		return true;
	case FUSE_STATX:
		o->size = sizeof(struct fuse_statx_out);
		return true;
	case FUSE_LOOKUP_HANDLE:
	case FUSE_MKOBJ_HANDLE:
		o->var = sizeof(struct fuse_file_handle) + max_handle_sz;
		o->size = sizeof(struct fuse_entry2_out) + o->var;
		return true;
	case FUSE_READDIRPLUS:
		o->size = o->var = size;
		return true;
	default:
		return false;
	}
}

/* Whether a reply to @opcode can grant anything */
static bool grants(uint32_t opcode)
{
	switch (opcode) {
	case FUSE_LOOKUP: case FUSE_MKNOD: case FUSE_MKDIR: case FUSE_SYMLINK:
	case FUSE_LINK: case FUSE_CREATE: case FUSE_TMPFILE: case FUSE_OPEN:
	case FUSE_OPENDIR: case FUSE_LOOKUP_HANDLE: case FUSE_MKOBJ_HANDLE:
	case FUSE_READDIRPLUS:
		return true;
	default:
		return false;
	}
}

/* copy_out_args()'s and fuse_compound_check_payload()'s length check */
static bool payload_fits(const struct outargs *o, uint32_t payload)
{
	return payload == o->size ||
	       (payload < o->size && o->var && o->size - payload <= o->var);
}

/* fuse_out_handle_fits(): no handle, or one whose size is what it holds */
static bool handle_fits(uint32_t opcode, const unsigned char *p, uint32_t payload)
{
	uint32_t var = payload - sizeof(struct fuse_entry2_out);
	uint16_t size;

	if (opcode != FUSE_LOOKUP_HANDLE && opcode != FUSE_MKOBJ_HANDLE)
		return true;
	if (!var)
		return true;
	memcpy(&size, p + sizeof(struct fuse_entry2_out), sizeof(size));
	return var > sizeof(struct fuse_file_handle) &&
	       var == sizeof(struct fuse_file_handle) + size;
}

/*
 * The READDIRPLUS records the kernel links or forgets: parse_dirplusfile()
 * walks them until a name it refuses (empty, too long, with a '/') or a
 * record cut by the end; fuse_direntplus_link() takes a lookup of each
 * with a nonzero nodeid that is not "." or ".." (or forgets it at once).
 */
static void grant_direntplus(struct srv_log *log, const unsigned char *p,
			     uint32_t n)
{
	while (n >= FUSE_NAME_OFFSET_DIRENTPLUS) {
		struct fuse_direntplus d;
		size_t reclen;
		const char *name = (const char *)p + FUSE_NAME_OFFSET_DIRENTPLUS;

		memcpy(&d, p, sizeof(d));
		reclen = FUSE_DIRENTPLUS_SIZE(&d);
		if (!d.dirent.namelen || d.dirent.namelen > FUSE_NAME_MAX)
			return;
		if (reclen > n)
			return;
		if (memchr(name, '/', d.dirent.namelen))
			return;
		if (!(d.dirent.namelen == 1 && name[0] == '.') &&
		    !(d.dirent.namelen == 2 && name[0] == '.' && name[1] == '.'))
			grant_node(log, d.entry_out.nodeid, FUSE_READDIRPLUS);
		p += reclen;
		n -= reclen;
	}
}

/* What a successful reply of @payload bytes to @opcode grants */
static void grant(struct srv_log *log, uint32_t opcode, const unsigned char *p,
		  uint32_t payload)
{
	uint64_t fh, nodeid;
	uint32_t entry = minor < 9 ? COMPAT_ENTRY_OUT_SIZE :
				     sizeof(struct fuse_entry_out);

	switch (opcode) {
	case FUSE_READDIRPLUS:
		grant_direntplus(log, p, payload);
		return;
	case FUSE_OPEN:
	case FUSE_OPENDIR:
		memcpy(&fh, p, sizeof(fh));	/* fuse_open_out.fh leads */
		open_fh(log, fh, opcode);
		return;
	case FUSE_CREATE:
	case FUSE_TMPFILE:
		memcpy(&fh, p + entry, sizeof(fh));
		open_fh(log, fh, opcode);
		break;
	case FUSE_LOOKUP: case FUSE_MKNOD: case FUSE_MKDIR: case FUSE_SYMLINK:
	case FUSE_LINK: case FUSE_LOOKUP_HANDLE: case FUSE_MKOBJ_HANDLE:
		break;
	default:
		return;
	}
	/* the nodeid leads fuse_entry_out and fuse_entry2_out alike */
	memcpy(&nodeid, p, sizeof(nodeid));
	grant_node(log, nodeid, opcode);
}

static bool error_valid(int32_t error)
{
	return error <= 0 && error > -512;	/* fuse_reply_error_valid() */
}

/*
 * The model of the kernel's reply parser, in one place: which entries and
 * open handles of the reply @buf (@len bytes, written with result
 * @write_errno) the kernel read.  It mirrors fs/fuse/dev.c:
 * fuse_dev_do_write() (length, notification, error range, the request
 * found by unique), fuse_copy_reply() (an error reply carries nothing),
 * copy_out_args() and fuse_out_handle_fits() for a plain reply, and
 * fuse_compound_copy_out() with fuse_compound_check_payload() for a
 * compound's (compound.md section 3).
 *
 * An entry is read once its bytes passed every check before them: a handle
 * whose size disagrees with its payload is refused after the entry was
 * copied (the entry counts), and a compound's subreplies are read in order
 * until the first fault.  A write refused with an errno other than EINVAL
 * (ENOENT: the request is gone or was never there; ENODEV, ECONNABORTED:
 * the connection is) read nothing.  Returns whether the model found a
 * fault, which the kernel must have answered with EINVAL; -1 when the
 * reply is none the model judges (a notification, an interrupt reply, an
 * operation that grants nothing).
 */
static int books_read(struct srv_log *log, const unsigned char *buf, size_t len,
		      int write_errno)
{
	struct fuse_out_header oh;
	const struct inflight *q;
	const unsigned char *p;
	struct outargs o;
	int32_t suberr[FUSE_COMPOUND_MAX_OPS];
	uint32_t left, i;

	if (len < sizeof(oh))
		return -1;
	memcpy(&oh, buf, sizeof(oh));
	if (oh.len != len || !oh.unique || !error_valid(oh.error) ||
	    (oh.unique & FUSE_INT_REQ_BIT))
		return -1;	/* refused before any request, or none's reply */
	q = inflight_slot(oh.unique);
	if (q->unique != oh.unique) {
		if (!write_errno)	/* the kernel took a reply to what? */
			lost(&log->books_unknown_reply);
		return -1;
	}
	if (q->opcode != FUSE_COMPOUND && !grants(q->opcode))
		return -1;
	if (write_errno && write_errno != EINVAL)
		return -1;
	if (oh.error)
		return len != sizeof(oh);

	p = buf + sizeof(oh);
	left = len - sizeof(oh);
	if (q->opcode != FUSE_COMPOUND) {
		outargs_of(q->opcode, q->size, &o);
		if (!payload_fits(&o, left))
			return 1;
		grant(log, q->opcode, p, left);
		return !handle_fits(q->opcode, p, left);
	}

	/* rule 1 (cut_in_compound_out), rule 8 (compound_out_reserved) */
	if (left < sizeof(struct fuse_compound_out))
		return 1;
	for (i = 0; i < sizeof(struct fuse_compound_out); i++)
		if (p[i])
			return 1;
	p += sizeof(struct fuse_compound_out);
	left -= sizeof(struct fuse_compound_out);
	for (i = 0; i < q->nsub; i++) {
		struct fuse_out_header so;
		uint32_t payload;

		if (left < sizeof(so))		/* rule 1, cut_in_subheader */
			return 1;
		memcpy(&so, p, sizeof(so));
		p += sizeof(so);
		left -= sizeof(so);
		if (so.unique != i || so.len < sizeof(so))	/* rules 3, 4 */
			return 1;
		payload = so.len - sizeof(so);
		if (payload > left)		/* rule 1, cut_in_payload */
			return 1;
		suberr[i] = so.error;
		if (so.error) {			/* rules 5, 6 */
			if (!error_valid(so.error) || payload)
				return 1;
			continue;
		}
		/* rule 9, ok_after_failed_dep */
		if (q->subdep[i] < i && suberr[q->subdep[i]])
			return 1;
		if (!outargs_of(q->subop[i], 0, &o)) {
			lost(&log->books_unknown_reply);
			return -1;
		}
		if (!payload_fits(&o, payload))	/* rule 7, payload_mismatch */
			return 1;
		grant(log, q->subop[i], p, payload);
		if (!handle_fits(q->subop[i], p, payload))
			return 1;
		p += payload;
		left -= payload;
	}
	return left != 0;			/* rule 2, trailing_bytes */
}

/* What INIT negotiated, from the reply the kernel took */
static void books_init(const unsigned char *buf, size_t len)
{
	struct fuse_init_out out;
	uint64_t flags;
	uint16_t max;

	memset(&out, 0, sizeof(out));
	if (len <= sizeof(struct fuse_out_header))
		return;
	len -= sizeof(struct fuse_out_header);
	memcpy(&out, buf + sizeof(struct fuse_out_header),
	       len < sizeof(out) ? len : sizeof(out));
	minor = out.minor;
	flags = out.flags;
	if (flags & FUSE_INIT_EXT)
		flags |= (uint64_t)out.flags2 << 32;
	memcpy(&max, (char *)&out + SRV_INIT_MAX_HANDLE_SZ_OFF, sizeof(max));
	if ((flags & FUSE_HAS_LOOKUP_HANDLE) && max && max <= FUSE_MAX_HANDLE_SZ)
		max_handle_sz = max;
}

uint32_t srv_minor(void)
{
	return minor;
}

int srv_write(struct srv_log *log, int fd, const void *buf, size_t len)
{
	const struct fuse_out_header *oh = buf;
	ssize_t ret = write(fd, buf, len);
	int err = ret < 0 ? errno : 0, fault;

	if (len < sizeof(*oh))
		return err;
	if (!err && inflight_slot(oh->unique)->unique == oh->unique &&
	    inflight_slot(oh->unique)->opcode == FUSE_INIT)
		books_init(buf, len);
	if (!log)		/* unwatched: no books, the minor all the same */
		return err;
	fault = books_read(log, buf, len, err);
	if (fault >= 0 && fault != (err == EINVAL))
		lost(&log->books_model_disagrees);
	return err;
}
