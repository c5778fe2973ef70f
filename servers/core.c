// SPDX-License-Identifier: GPL-2.0
/*
 * The protocol core of the fusegate test servers: the FUSE_INIT handshake,
 * the request loop, reply helpers, a small in-memory tree, and compound
 * execution as compound.md section 4 describes.  Replies broken on
 * purpose are the tests' own edits (srv_config.edit_reply).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "fuse_server.h"

#define MAX_WRITE	(128 * 1024)
#define BUF_SIZE	(MAX_WRITE + 64 * 1024)
#define MAX_NODES	SRV_MAX_NODES
#define MAX_NAME	255
#define MAX_DATA	(1024 * 1024)
#define MAX_LINKS	32

struct node {
	bool used;
	uint64_t parent;
	char name[MAX_NAME + 1];
	uint32_t mode;
	char *data;		/* a file's contents, a symlink's target */
	size_t size;
	struct timespec mtime;
	bool xattrs;		/* carries SRV_XATTR_NAME */
	uint8_t incarnation;	/* of its slot: in its handle */
};

/*
 * A node's other names (FUSE_LINK): its first name is in struct node, and
 * each hard link made to it since is here
 */
struct link {
	bool used;
	uint64_t parent;
	uint64_t node;
	char name[MAX_NAME + 1];
};

struct srv {
	const struct srv_config *cfg;
	int fd;
	unsigned char *in;
	struct node nodes[MAX_NODES];	/* index = nodeid, 1 = root */
	struct link links[MAX_LINKS];
	uint64_t next_fh;		/* each open gets a handle of its own */
};

/* --- the tree --- */

static uint64_t node_add(struct srv *s, uint64_t parent, const char *name,
			 uint32_t mode)
{
	uint64_t id;

	for (id = 2; id < MAX_NODES; id++) {
		struct node *n = &s->nodes[id];
		uint8_t incarnation = n->incarnation + 1;

		if (n->used)
			continue;
		memset(n, 0, sizeof(*n));
		n->incarnation = incarnation;
		n->used = true;
		n->parent = parent;
		snprintf(n->name, sizeof(n->name), "%s", name);
		n->mode = mode;
		clock_gettime(CLOCK_REALTIME, &n->mtime);
		return id;
	}
	return 0;
}

static struct node *node_get(struct srv *s, uint64_t id)
{
	if (id == 0 || id >= MAX_NODES || !s->nodes[id].used)
		return NULL;
	return &s->nodes[id];
}

/*
 * The node that @name in @parent names, and which of its names that is:
 * *link is -1 for its first name, else the link's slot.  0: none.
 */
static uint64_t name_lookup(struct srv *s, uint64_t parent, const char *name,
			    int *link)
{
	uint64_t id;
	int l;

	*link = -1;
	for (id = 2; id < MAX_NODES; id++)
		if (s->nodes[id].used && s->nodes[id].parent == parent &&
		    !strcmp(s->nodes[id].name, name))
			return id;
	for (l = 0; l < MAX_LINKS; l++)
		if (s->links[l].used && s->links[l].parent == parent &&
		    !strcmp(s->links[l].name, name)) {
			*link = l;
			return s->links[l].node;
		}
	return 0;
}

static uint64_t node_child(struct srv *s, uint64_t parent, const char *name)
{
	int link;

	return name_lookup(s, parent, name, &link);
}

/*
 * The @idx-th name in directory @dir: first names by nodeid, then links by
 * slot.  Its node, or 0 past the last; *name is the name.
 */
static uint64_t dir_entry(struct srv *s, uint64_t dir, uint64_t idx,
			  const char **name)
{
	uint64_t id;
	int l;

	for (id = 2; id < MAX_NODES; id++)
		if (s->nodes[id].used && s->nodes[id].parent == dir && !idx--) {
			*name = s->nodes[id].name;
			return id;
		}
	for (l = 0; l < MAX_LINKS; l++)
		if (s->links[l].used && s->links[l].parent == dir && !idx--) {
			*name = s->links[l].name;
			return s->links[l].node;
		}
	return 0;
}

/* Names of node @id: a directory has one, and "." and its children's ".." */
static uint32_t node_nlink(struct srv *s, uint64_t id)
{
	uint32_t n = 1;
	int l;

	if (S_ISDIR(s->nodes[id].mode))
		return 2;
	for (l = 0; l < MAX_LINKS; l++)
		n += s->links[l].used && s->links[l].node == id;
	return n;
}

/* Drop a name of node @id (@link as name_lookup() says); its last, the node */
static void name_drop(struct srv *s, uint64_t id, int link)
{
	struct node *n = &s->nodes[id];
	int l;

	if (link >= 0) {
		s->links[link].used = false;
		return;
	}
	for (l = 0; l < MAX_LINKS; l++)
		if (s->links[l].used && s->links[l].node == id) {
			/* a link becomes the node's first name */
			n->parent = s->links[l].parent;
			memcpy(n->name, s->links[l].name, sizeof(n->name));
			s->links[l].used = false;
			return;
		}
	n->used = false;
	free(n->data);
	n->data = NULL;
}

static void tree_init(struct srv *s)
{
	uint64_t f, d, l;

	memset(s->nodes, 0, sizeof(s->nodes));
	memset(s->links, 0, sizeof(s->links));
	s->next_fh = 1;
	s->nodes[1].used = true;
	s->nodes[1].mode = S_IFDIR | (s->cfg->root_perm ? s->cfg->root_perm : 0755);
	f = node_add(s, 1, "file", S_IFREG | 0644);
	s->nodes[f].data = strdup("hello\n");
	s->nodes[f].size = 6;
	d = node_add(s, 1, "dir", S_IFDIR | 0755);
	node_add(s, d, "inner", S_IFREG | 0644);
	node_add(s, 1, "empty", S_IFREG | 0644);
	/* another client appends 10 bytes each time attributes are asked */
	node_add(s, 1, "growing", S_IFREG | 0644);
	l = node_add(s, 1, "link", S_IFLNK | 0777);
	s->nodes[l].data = strdup(SRV_LINK_TARGET);
	s->nodes[l].size = strlen(SRV_LINK_TARGET);
	s->nodes[f].xattrs = true;
}

static bool is_growing(struct srv *s, uint64_t id)
{
	return s->nodes[id].parent == 1 && !strcmp(s->nodes[id].name, "growing");
}

static void fill_attr(struct srv *s, uint64_t id, struct fuse_attr *a)
{
	struct node *n = &s->nodes[id];

	memset(a, 0, sizeof(*a));
	a->ino = id;
	a->size = n->size;
	a->blocks = (n->size + 511) / 512;
	a->mode = n->mode;
	a->nlink = node_nlink(s, id);
	a->blksize = 4096;
	a->mtime = a->ctime = a->atime = n->mtime.tv_sec;
	a->mtimensec = a->ctimensec = a->atimensec = n->mtime.tv_nsec;
}

static size_t entry_out(struct srv *s, uint64_t id, void *out)
{
	struct fuse_entry_out *e = out;

	memset(e, 0, sizeof(*e));
	e->nodeid = id;
	e->generation = id == 1 ? 0 : 1;	/* the root's must be 0 */
	e->entry_valid = s->cfg->entry_timeout;
	e->attr_valid = s->cfg->attr_timeout;
	fill_attr(s, id, &e->attr);
	return sizeof(*e);
}

static size_t attr_out(struct srv *s, uint64_t id, void *out)
{
	struct fuse_attr_out *a = out;

	memset(a, 0, sizeof(*a));
	a->attr_valid = s->cfg->attr_timeout;
	fill_attr(s, id, &a->attr);
	return sizeof(*a);
}

/* --- one operation --- */

static int op_create_node(struct srv *s, uint64_t parent, const char *name,
			  uint32_t mode, void *out, size_t *out_len)
{
	uint64_t id;

	if (!node_get(s, parent))
		return -ENOENT;
	if (node_child(s, parent, name))
		return -EEXIST;
	id = node_add(s, parent, name, mode);
	if (!id)
		return -ENOSPC;
	*out_len = entry_out(s, id, out);
	return 0;
}

/*
 * READDIR, and with @plus READDIRPLUS: each name an entry (fuse_dirent, or
 * fuse_direntplus with the node's fuse_entry_out), from the offset asked,
 * as many as fit in the size asked
 */
static int op_readdir(struct srv *s, uint64_t id, const struct fuse_read_in *in,
		      bool plus, void *out, size_t *out_len)
{
	size_t hdr = plus ? FUSE_NAME_OFFSET_DIRENTPLUS : FUSE_NAME_OFFSET;
	const char *name;
	uint64_t idx, child;
	size_t off = 0;

	for (idx = in->offset; (child = dir_entry(s, id, idx, &name)); idx++) {
		size_t namelen = strlen(name);
		size_t entlen = FUSE_DIRENT_ALIGN(hdr + namelen);
		struct fuse_dirent *de;

		if (off + entlen > in->size)
			break;
		memset((char *)out + off, 0, entlen);
		if (plus) {
			struct fuse_direntplus *dp = (void *)((char *)out + off);

			entry_out(s, child, &dp->entry_out);
			de = &dp->dirent;
		} else {
			de = (void *)((char *)out + off);
		}
		de->ino = child;
		de->off = idx + 1;
		de->namelen = namelen;
		de->type = (s->nodes[child].mode & S_IFMT) >> 12;
		memcpy(de->name, name, namelen);
		off += entlen;
	}
	*out_len = off;
	return 0;
}

static int op_write(struct srv *s, struct node *n, const struct fuse_write_in *in,
		    void *out, size_t *out_len)
{
	struct fuse_write_out *wo = out;
	size_t end = in->offset + in->size;

	if (end > MAX_DATA)
		return -EFBIG;
	if (end > n->size) {
		char *d = realloc(n->data, end);

		if (!d)
			return -ENOMEM;
		memset(d + n->size, 0, end - n->size);
		n->data = d;
		n->size = end;
	}
	memcpy(n->data + in->offset, in + 1, in->size);
	clock_gettime(CLOCK_REALTIME, &n->mtime);
	memset(wo, 0, sizeof(*wo));
	wo->size = in->size;
	*out_len = sizeof(*wo);
	return 0;
}

static int op_setattr(struct srv *s, uint64_t id, const struct fuse_setattr_in *in,
		      void *out, size_t *out_len)
{
	struct node *n = &s->nodes[id];

	if ((in->valid & FATTR_MODE))
		n->mode = (n->mode & S_IFMT) | (in->mode & 07777);
	if ((in->valid & FATTR_SIZE)) {
		if (in->size > MAX_DATA)
			return -EFBIG;
		if (in->size > n->size) {
			char *d = realloc(n->data, in->size);

			if (!d)
				return -ENOMEM;
			memset(d + n->size, 0, in->size - n->size);
			n->data = d;
		}
		n->size = in->size;
	}
	if ((in->valid & FATTR_MTIME)) {
		n->mtime.tv_sec = in->mtime;
		n->mtime.tv_nsec = in->mtimensec;
	}
	*out_len = attr_out(s, id, out);
	return 0;
}

static int op_rename(struct srv *s, uint64_t dir, uint64_t newdir,
		     const char *names)
{
	const char *oldname = names, *newname = names + strlen(names) + 1;
	int link, victim_link;
	uint64_t id = name_lookup(s, dir, oldname, &link), victim;
	char *name;

	if (!id)
		return -ENOENT;
	victim = name_lookup(s, newdir, newname, &victim_link);
	if (victim == id)
		return 0;	/* two names of one node: nothing happens */
	if (victim)
		name_drop(s, victim, victim_link);
	if (link >= 0) {
		s->links[link].parent = newdir;
		name = s->links[link].name;
	} else {
		s->nodes[id].parent = newdir;
		name = s->nodes[id].name;
	}
	snprintf(name, MAX_NAME + 1, "%s", newname);
	return 0;
}

static int op_remove(struct srv *s, uint64_t dir, const char *name, bool isdir)
{
	int link;
	uint64_t id = name_lookup(s, dir, name, &link);
	const char *unused;

	if (!id)
		return -ENOENT;
	if (isdir != !!S_ISDIR(s->nodes[id].mode))
		return isdir ? -ENOTDIR : -EISDIR;
	if (isdir && dir_entry(s, id, 0, &unused))
		return -ENOTEMPTY;
	name_drop(s, id, link);
	return 0;
}

/* FUSE_LINK: another name in @dir for node @id */
static int op_link(struct srv *s, uint64_t id, uint64_t dir, const char *name,
		   void *out, size_t *out_len)
{
	struct node *n = node_get(s, id);
	int l;

	if (!n)
		return -ENOENT;
	if (S_ISDIR(n->mode))
		return -EPERM;
	if (node_child(s, dir, name))
		return -EEXIST;
	for (l = 0; l < MAX_LINKS && s->links[l].used; l++)
		;
	if (l == MAX_LINKS)
		return -EMLINK;
	s->links[l].used = true;
	s->links[l].parent = dir;
	s->links[l].node = id;
	snprintf(s->links[l].name, sizeof(s->links[l].name), "%s", name);
	*out_len = entry_out(s, id, out);
	return 0;
}

static int op_symlink(struct srv *s, uint64_t dir, const char *names,
		      size_t len, void *out, size_t *out_len)
{
	const char *target = names + strnlen(names, len) + 1;
	struct node *n;
	int err;

	if (target >= names + len || !memchr(target, 0, names + len - target))
		return -EINVAL;
	err = op_create_node(s, dir, names, S_IFLNK | 0777, out, out_len);
	if (err)
		return err;
	n = node_get(s, ((struct fuse_entry_out *)out)->nodeid);
	n->data = strdup(target);
	n->size = strlen(target);
	return 0;
}

/*
 * GETXATTR and LISTXATTR: with size 0 the caller asks how big the value
 * is; otherwise it gets the value, or ERANGE if it does not fit.
 */
static int xattr_reply(const struct fuse_getxattr_in *in, const void *value,
		       size_t len, void *out, size_t *out_len)
{
	if (!in->size) {
		struct fuse_getxattr_out *o = out;

		memset(o, 0, sizeof(*o));
		o->size = len;
		*out_len = sizeof(*o);
		return 0;
	}
	if (len > in->size)
		return -ERANGE;
	memcpy(out, value, len);
	*out_len = len;
	return 0;
}

static int op_getxattr(struct node *n, const struct fuse_getxattr_in *in,
		       size_t arglen, void *out, size_t *out_len)
{
	const char *name = (const char *)(in + 1);

	if (arglen <= sizeof(*in))
		return -EINVAL;
	if (!n->xattrs || strncmp(name, SRV_XATTR_NAME, arglen - sizeof(*in)))
		return -ENODATA;
	return xattr_reply(in, SRV_XATTR_VALUE, strlen(SRV_XATTR_VALUE), out,
			   out_len);
}

static int op_listxattr(struct node *n, const struct fuse_getxattr_in *in,
			void *out, size_t *out_len)
{
	/* the names, each with its NUL */
	static const char names[] = SRV_XATTR_NAME;

	return xattr_reply(in, names, n->xattrs ? sizeof(names) : 0, out,
			   out_len);
}

static void fill_sx_time(struct fuse_sx_time *t, const struct timespec *ts)
{
	t->tv_sec = ts->tv_sec;
	t->tv_nsec = ts->tv_nsec;
}

static int op_statx(struct srv *s, uint64_t id, void *out, size_t *out_len)
{
	struct fuse_statx_out *o = out;
	struct fuse_statx *sx = &o->stat;
	struct node *n = &s->nodes[id];
	const struct timespec btime = { .tv_sec = SRV_BTIME_SEC };

	memset(o, 0, sizeof(*o));
	o->attr_valid = s->cfg->attr_timeout;
	sx->mask = STATX_BASIC_STATS | STATX_BTIME;
	sx->blksize = 4096;
	sx->nlink = node_nlink(s, id);
	sx->mode = n->mode;
	sx->ino = id;
	sx->size = n->size;
	sx->blocks = (n->size + 511) / 512;
	fill_sx_time(&sx->atime, &n->mtime);
	fill_sx_time(&sx->mtime, &n->mtime);
	fill_sx_time(&sx->ctime, &n->mtime);
	fill_sx_time(&sx->btime, &btime);
	*out_len = sizeof(*o);
	return 0;
}

/* --- file handles --- */

/*
 * A node's handle: "FG", its nodeid (4 bytes) and incarnation, then filler:
 * 8 bytes for odd nodeids and 24 for even ones (the kernel keeps the first
 * inline and allocates for the second), at most max_handle_sz.
 */
static size_t node_handle(struct srv *s, uint64_t id,
			  struct fuse_file_handle *fh)
{
	uint8_t b[24];
	size_t size = id % 2 ? 8 : 24, i;
	uint32_t id32 = id;

	b[0] = 'F';
	b[1] = 'G';
	memcpy(b + 2, &id32, sizeof(id32));
	b[6] = s->nodes[id].incarnation;
	for (i = 7; i < sizeof(b); i++)
		b[i] = 0xa0 + i;
	if (size > s->cfg->max_handle_sz)
		size = s->cfg->max_handle_sz;
	fh->size = size;
	memcpy(fh->handle, b, size);
	return sizeof(*fh) + size;
}

/* The reply of LOOKUP_HANDLE and MKOBJ_HANDLE: entry, then handle */
static size_t entry2_out(struct srv *s, uint64_t id, void *out)
{
	struct fuse_entry2_out *e = out;

	memset(e, 0, sizeof(*e));
	e->nodeid = id;
	e->generation = id == 1 ? 0 : 1;
	e->entry_valid = s->cfg->entry_timeout;
	return sizeof(*e) + node_handle(s, id, (void *)(e + 1));
}

/* The parent's handle a request carries in FUSE_EXT_HANDLE, or NULL */
static const struct fuse_file_handle *ext_handle(const struct fuse_in_header *ih)
{
	const unsigned char *p, *end = (const unsigned char *)ih + ih->len;

	p = end - ih->total_extlen * 8;
	while (p + sizeof(struct fuse_ext_header) <= end) {
		const struct fuse_ext_header *xh = (const void *)p;

		if (xh->size < sizeof(*xh) || p + xh->size > end)
			return NULL;
		if (xh->type == FUSE_EXT_HANDLE)
			return (const void *)(xh + 1);
		p += xh->size;
	}
	return NULL;
}

/*
 * Whether the parent's handle @ih carries, if any, is @dir's: a kernel that
 * names a directory by another handle is answered ESTALE
 */
static bool ext_handle_matches(struct srv *s, const struct fuse_in_header *ih,
			       uint64_t dir)
{
	const struct fuse_file_handle *fh = ext_handle(ih);
	unsigned char mine[sizeof(struct fuse_file_handle) + 24];
	struct fuse_file_handle *own = (void *)mine;

	if (!fh)
		return true;
	node_handle(s, dir, own);
	return fh->size == own->size && !memcmp(fh->handle, own->handle, fh->size);
}

static int op_mkobj(struct srv *s, uint64_t dir, const void *arg, size_t len,
		    void *out, size_t *out_len)
{
	const struct fuse_mkobj_handle_in *in = arg;
	const char *names = (const char *)(in + 1);
	uint32_t mode = in->mode & (S_IFMT | 07777);
	int err;

	if (len <= sizeof(*in) || !memchr(names, 0, len - sizeof(*in)))
		return -EINVAL;
	if (S_ISLNK(mode))
		err = op_symlink(s, dir, names, len - sizeof(*in), out, out_len);
	else
		err = op_create_node(s, dir, names, mode, out, out_len);
	if (err)
		return err;
	*out_len = entry2_out(s, ((struct fuse_entry_out *)out)->nodeid, out);
	return 0;
}

/*
 * Execute one operation on @nodeid with argument @arg; write its reply
 * payload to @out.  Returns 0 or a negative errno.
 */
static int do_op(struct srv *s, uint32_t opcode, uint64_t nodeid,
		 const void *arg, size_t arglen, void *out, size_t *out_len)
{
	struct node *n = node_get(s, nodeid);

	*out_len = 0;
	if (opcode == s->cfg->unknown_opcode)
		return s->cfg->unknown_error ? s->cfg->unknown_error : -ENOSYS;
	if (!n)
		return -ENOENT;	/* also nodeid 0: an unresolved dependency */

	switch (opcode) {
	case FUSE_LOOKUP_HANDLE:
		if (!s->cfg->max_handle_sz)
			return -ENOSYS;
		/* fall through */
	case FUSE_LOOKUP: {
		uint64_t id;

		if (!arglen || ((const char *)arg)[arglen - 1])
			return -EINVAL;
		/* "." and "..": sent only with FUSE_EXPORT_SUPPORT */
		if (!strcmp(arg, "."))
			id = nodeid;
		else if (!strcmp(arg, ".."))
			id = nodeid == 1 ? 1 : n->parent;
		else
			id = node_child(s, nodeid, arg);
		if (!id)
			return -ENOENT;
		if (opcode == FUSE_LOOKUP_HANDLE)
			*out_len = entry2_out(s, id, out);
		else
			*out_len = entry_out(s, id, out);
		return 0;
	}
	case FUSE_MKOBJ_HANDLE:
		if (!s->cfg->max_handle_sz)
			return -ENOSYS;
		return op_mkobj(s, nodeid, arg, arglen, out, out_len);
	case FUSE_GETATTR:
		if (is_growing(s, nodeid)) {
			char *d = realloc(n->data, n->size + 10);

			if (!d)
				return -ENOMEM;
			memset(d + n->size, '-', 10);
			n->data = d;
			n->size += 10;
		}
		*out_len = attr_out(s, nodeid, out);
		return 0;
	case FUSE_SETATTR:
		return op_setattr(s, nodeid, arg, out, out_len);
	case FUSE_OPEN:
	case FUSE_OPENDIR: {
		struct fuse_open_out *o = out;

		if ((opcode == FUSE_OPENDIR) != !!S_ISDIR(n->mode))
			return opcode == FUSE_OPENDIR ? -ENOTDIR : -EISDIR;
		memset(o, 0, sizeof(*o));
		o->fh = s->next_fh++;
		*out_len = sizeof(*o);
		return 0;
	}
	case FUSE_READ: {
		const struct fuse_read_in *in = arg;

		if (in->offset < n->size) {
			*out_len = n->size - in->offset;
			if (*out_len > in->size)
				*out_len = in->size;
			memcpy(out, n->data + in->offset, *out_len);
		}
		return 0;
	}
	case FUSE_WRITE:
		return op_write(s, n, arg, out, out_len);
	case FUSE_READDIR:
	case FUSE_READDIRPLUS:
		if (!S_ISDIR(n->mode))
			return -ENOTDIR;
		return op_readdir(s, nodeid, arg, opcode == FUSE_READDIRPLUS,
				  out, out_len);
	case FUSE_CREATE: {
		const struct fuse_create_in *in = arg;
		struct fuse_open_out *o;
		int err = op_create_node(s, nodeid, (const char *)(in + 1),
					 S_IFREG | (in->mode & 07777), out, out_len);

		if (err)
			return err;
		o = (void *)((char *)out + *out_len);
		memset(o, 0, sizeof(*o));
		o->fh = s->next_fh++;
		*out_len += sizeof(*o);
		return 0;
	}
	case FUSE_MKNOD: {
		const struct fuse_mknod_in *in = arg;

		return op_create_node(s, nodeid, (const char *)(in + 1),
				      in->mode, out, out_len);
	}
	case FUSE_MKDIR: {
		const struct fuse_mkdir_in *in = arg;

		return op_create_node(s, nodeid, (const char *)(in + 1),
				      S_IFDIR | (in->mode & 07777), out, out_len);
	}
	case FUSE_LINK: {
		const struct fuse_link_in *in = arg;

		return op_link(s, in->oldnodeid, nodeid, (const char *)(in + 1),
			       out, out_len);
	}
	case FUSE_UNLINK:
		return op_remove(s, nodeid, arg, false);
	case FUSE_RMDIR:
		return op_remove(s, nodeid, arg, true);
	case FUSE_RENAME: {
		const struct fuse_rename_in *in = arg;

		return op_rename(s, nodeid, in->newdir, (const char *)(in + 1));
	}
	case FUSE_RENAME2: {
		const struct fuse_rename2_in *in = arg;

		if (in->flags)
			return -EINVAL;
		return op_rename(s, nodeid, in->newdir, (const char *)(in + 1));
	}
	case FUSE_STATFS: {
		struct fuse_statfs_out *st = out;

		memset(st, 0, sizeof(*st));
		st->st.bsize = 4096;
		st->st.frsize = 4096;
		st->st.namelen = MAX_NAME;
		/* the size of the minor INIT agreed on (fuse_adjust_compat()) */
		*out_len = srv_minor() < 4 ? FUSE_COMPAT_STATFS_SIZE : sizeof(*st);
		return 0;
	}
	case FUSE_READLINK:
		if (!S_ISLNK(n->mode))
			return -EINVAL;
		memcpy(out, n->data, n->size);
		*out_len = n->size;
		return 0;
	case FUSE_SYMLINK:
		return op_symlink(s, nodeid, arg, arglen, out, out_len);
	case FUSE_GETXATTR:
		if (!s->cfg->xattrs)
			return -ENOSYS;
		return op_getxattr(n, arg, arglen, out, out_len);
	case FUSE_LISTXATTR:
		if (!s->cfg->xattrs)
			return -ENOSYS;
		return op_listxattr(n, arg, out, out_len);
	case FUSE_STATX:
		if (!s->cfg->statx)
			return -ENOSYS;
		return op_statx(s, nodeid, out, out_len);
	case FUSE_FLUSH:
	case FUSE_RELEASE:
	case FUSE_RELEASEDIR:
	case FUSE_FSYNC:
	case FUSE_FSYNCDIR:
		return 0;
	default:
		return -ENOSYS;
	}
}

/*
 * Execute request @ih on @nodeid (its own, or the one its dependency
 * resolved to): its arguments without the extensions, and for the handle
 * operations the parent's handle checked first.
 */
static int do_request(struct srv *s, const struct fuse_in_header *ih,
		      uint64_t nodeid, void *out, size_t *out_len)
{
	size_t arglen = ih->len - sizeof(*ih) - ih->total_extlen * 8;

	*out_len = 0;
	if (ih->len < sizeof(*ih) + ih->total_extlen * 8)
		return -EINVAL;
	if ((ih->opcode == FUSE_LOOKUP_HANDLE || ih->opcode == FUSE_MKOBJ_HANDLE) &&
	    s->cfg->max_handle_sz && node_get(s, nodeid) &&
	    !ext_handle_matches(s, ih, nodeid))
		return -ESTALE;
	return do_op(s, ih->opcode, nodeid, ih + 1, arglen, out, out_len);
}

/* --- the log --- */

/* What a request's log record keeps besides its header (srv_record.arg) */
static uint64_t record_arg(const struct fuse_in_header *ih)
{
	const struct fuse_file_handle *fh;

	switch (ih->opcode) {
	case FUSE_WRITE: {
		const struct fuse_write_in *w = (const void *)(ih + 1);

		return w->offset + w->size;
	}
	case FUSE_INTERRUPT:
		return ((const struct fuse_interrupt_in *)(ih + 1))->unique;
	case FUSE_GETXATTR:
	case FUSE_LISTXATTR:
		return ((const struct fuse_getxattr_in *)(ih + 1))->size;
	case FUSE_LOOKUP_HANDLE:
	case FUSE_MKOBJ_HANDLE:
		fh = ext_handle(ih);
		return fh ? fh->size : 0;
	case FUSE_STATX:
		return ((const struct fuse_statx_in *)(ih + 1))->sx_mask;
	default:
		return 0;
	}
}

struct srv_log *srv_log_create(void)
{
	struct srv_log *log = mmap(NULL, sizeof(*log), PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return log == MAP_FAILED ? NULL : log;
}

static void notify(struct srv *s)
{
	char c = 1;

	if (s->cfg->notify_fd >= 0 && write(s->cfg->notify_fd, &c, 1) < 0 &&
	    errno != EAGAIN)
		perror("fusegate server: notify");
}

/*
 * Append a record; every field is written before the count that publishes
 * it to the test is raised.
 */
static struct srv_record *log_request(struct srv *s,
				      const struct fuse_in_header *ih,
				      bool sub, uint8_t dep_index, uint64_t arg)
{
	struct srv_log *log = s->cfg->log;
	struct srv_record *r;

	if (!log)
		return NULL;
	if (log->n >= SRV_LOG_MAX) {
		notify(s);	/* a reader waiting for a record must see it is full */
		return NULL;
	}
	r = &log->rec[log->n];
	memset(r, 0, sizeof(*r));
	r->opcode = ih->opcode;
	r->len = ih->len;
	r->unique = ih->unique;
	r->nodeid = ih->nodeid;
	r->uid = ih->uid;
	r->gid = ih->gid;
	r->pid = ih->pid;
	r->sub = sub;
	r->dep_index = dep_index;
	r->arg = arg;
	__atomic_add_fetch(&log->n, 1, __ATOMIC_RELEASE);
	if (!sub && ih->opcode == FUSE_COMPOUND)
		__atomic_add_fetch(&log->compounds, 1, __ATOMIC_RELEASE);
	if (!sub)
		notify(s);
	return r;
}

unsigned int srv_log_count(const struct srv_log *log, uint32_t opcode,
			   bool sub)
{
	unsigned int i, n = 0, total = __atomic_load_n(&log->n, __ATOMIC_ACQUIRE);

	for (i = 0; i < total; i++)
		if (log->rec[i].opcode == opcode && log->rec[i].sub == sub)
			n++;
	return n;
}

const struct srv_record *srv_log_find(const struct srv_log *log,
				      uint32_t opcode, unsigned int nth)
{
	unsigned int i, total = __atomic_load_n(&log->n, __ATOMIC_ACQUIRE);

	for (i = 0; i < total; i++)
		if (log->rec[i].opcode == opcode && !log->rec[i].sub && !nth--)
			return &log->rec[i];
	return NULL;
}

const struct srv_record *srv_log_find_raw(const struct srv_log *log,
					  unsigned int nth)
{
	unsigned int i, total = __atomic_load_n(&log->n, __ATOMIC_ACQUIRE);

	for (i = 0; i < total; i++)
		if (log->rec[i].opcode == SRV_RAW_WRITE && !nth--)
			return &log->rec[i];
	return NULL;
}

/* --- replies --- */

/* Whether the test's conversation is over: its edit has no say any more */
static bool books_closed(struct srv *s)
{
	return s->cfg->log &&
	       __atomic_load_n(&s->cfg->log->books_closed, __ATOMIC_ACQUIRE);
}

/*
 * Write a reply the server built, after the test's own edit_reply has had
 * its say; log what the kernel made of the write.
 */
static void send_reply(struct srv *s, struct srv_record *rec,
		       const struct fuse_in_header *req, struct srv_reply *r)
{
	struct fuse_out_header *oh = (void *)r->buf;
	int err;

	r->fd = s->fd;
	r->log = s->cfg->log;
	oh->len = r->len;
	if (s->cfg->edit_reply && req && !books_closed(s)) {
		s->cfg->edit_reply(s->cfg, req, r);
		oh->len = r->len;	/* the header always tells the length */
	}
	if (r->drop) {
		if (rec)
			__atomic_store_n(&rec->replied, true, __ATOMIC_RELEASE);
		notify(s);
		return;
	}
	err = srv_write(s->cfg->log, s->fd, r->buf, r->len);
	if (rec) {
		rec->write_errno = err;
		__atomic_store_n(&rec->replied, true, __ATOMIC_RELEASE);
	}
	notify(s);
}

/* A plain reply: the header, and the payload unless it is an error */
static void reply(struct srv *s, struct srv_record *rec,
		  const struct fuse_in_header *req, uint64_t unique, int error,
		  const void *payload, size_t len)
{
	static unsigned char out[BUF_SIZE];
	struct fuse_out_header *oh = (void *)out;
	struct srv_reply r = { .buf = out };

	if (error)
		len = 0;
	memset(oh, 0, sizeof(*oh));
	oh->error = error;
	oh->unique = unique;
	memcpy(out + sizeof(*oh), payload, len);
	r.len = sizeof(*oh) + len;
	send_reply(s, rec, req, &r);
}

int srv_write_raw(struct srv_reply *r, const void *buf, size_t len)
{
	const struct fuse_out_header *oh = buf;
	struct srv_log *log = r->log;
	int err = srv_write(log, r->fd, buf, len);

	if (log && log->n < SRV_LOG_MAX) {
		struct srv_record *rec = &log->rec[log->n];

		memset(rec, 0, sizeof(*rec));
		rec->opcode = SRV_RAW_WRITE;
		rec->len = len;
		rec->unique = len >= sizeof(*oh) ? oh->unique : 0;
		rec->arg = len >= sizeof(*oh) ? (uint32_t)oh->error : 0;
		rec->write_errno = err;
		rec->replied = true;
		__atomic_add_fetch(&log->n, 1, __ATOMIC_RELEASE);
	}
	return err;
}

int srv_write_notify(struct srv_reply *r, int code, const void *payload,
		     size_t len)
{
	unsigned char buf[sizeof(struct fuse_out_header) + 8192];
	struct fuse_out_header *oh = (void *)buf;

	if (len > sizeof(buf) - sizeof(*oh))
		return EINVAL;
	memset(oh, 0, sizeof(*oh));
	oh->len = sizeof(*oh) + len;
	oh->error = code;
	memcpy(oh + 1, payload, len);
	return srv_write_raw(r, buf, oh->len);
}

/* --- compounds --- */

static void do_compound(struct srv *s, struct srv_record *rec,
			const struct fuse_in_header *ih, size_t len)
{
	const unsigned char *p = (const unsigned char *)(ih + 1) +
				 sizeof(struct fuse_compound_in);
	const unsigned char *end = (const unsigned char *)ih + len;
	static unsigned char out[BUF_SIZE];
	uint64_t entry_nodeid[FUSE_COMPOUND_MAX_OPS] = { 0 };
	int errors[FUSE_COMPOUND_MAX_OPS] = { 0 };
	struct srv_reply r = { .buf = out };
	struct fuse_out_header *oh = (void *)out;
	unsigned int i = 0;

	switch (s->cfg->behaviour) {
	case SRV_COMPOUND_ENOSYS:
		return reply(s, rec, ih, ih->unique, -ENOSYS, NULL, 0);
	case SRV_COMPOUND_EOPNOTSUPP:
		return reply(s, rec, ih, ih->unique, -EOPNOTSUPP, NULL, 0);
	case SRV_COMPOUND_EINVAL:
		return reply(s, rec, ih, ih->unique, -EINVAL, NULL, 0);
	default:
		break;
	}

	memset(oh, 0, sizeof(*oh));
	oh->unique = ih->unique;
	r.len = sizeof(*oh) + sizeof(struct fuse_compound_out);
	memset(out + sizeof(*oh), 0, sizeof(struct fuse_compound_out));

	while (p + sizeof(struct fuse_compound_req_in) +
	       sizeof(struct fuse_in_header) <= end && i < FUSE_COMPOUND_MAX_OPS) {
		const struct fuse_compound_req_in *rin = (const void *)p;
		const struct fuse_in_header *sh = (const void *)(rin + 1);
		struct fuse_out_header *so = (void *)(out + r.len);
		uint64_t nodeid = sh->nodeid;
		size_t out_len = 0;
		int err = 0;

		if (sh->len < sizeof(*sh) || (const unsigned char *)sh + sh->len > end)
			break;
		log_request(s, sh, true, rin->dep_index, record_arg(sh));
		if (rin->dep_index != FUSE_COMPOUND_NO_DEP) {
			if (rin->dep_index >= i)
				err = -EINVAL;
			else if (errors[rin->dep_index])
				err = errors[rin->dep_index];
			else
				nodeid = entry_nodeid[rin->dep_index];
		}
		if (!err)
			err = do_request(s, sh, nodeid, so + 1, &out_len);
		if (!err && (sh->opcode == FUSE_LOOKUP || sh->opcode == FUSE_MKNOD ||
			     sh->opcode == FUSE_MKDIR || sh->opcode == FUSE_CREATE ||
			     sh->opcode == FUSE_LOOKUP_HANDLE ||
			     sh->opcode == FUSE_MKOBJ_HANDLE))
			entry_nodeid[i] = ((struct fuse_entry_out *)(so + 1))->nodeid;
		errors[i] = err;
		so->unique = i;
		so->error = err;
		so->len = sizeof(*so) + (err ? 0 : out_len);
		r.sub_off[i] = r.len;
		r.len += so->len;
		p += sizeof(*rin) + sh->len;
		i++;
	}
	r.nsubs = i;
	send_reply(s, rec, ih, &r);
}

/* --- the loop --- */

static int do_init(struct srv *s, const struct fuse_in_header *ih)
{
	const struct fuse_init_in *in = (const void *)(ih + 1);
	struct fuse_init_out out;

	memset(&out, 0, sizeof(out));
	out.major = FUSE_KERNEL_VERSION;
	out.minor = in->minor < FUSE_KERNEL_MINOR_VERSION ? in->minor :
							    FUSE_KERNEL_MINOR_VERSION;
	out.max_readahead = in->max_readahead;
	out.flags = FUSE_ASYNC_READ | FUSE_BIG_WRITES | FUSE_ATOMIC_O_TRUNC;
	if (s->cfg->writeback_cache)
		out.flags |= FUSE_WRITEBACK_CACHE;
	if (s->cfg->export_support)
		out.flags |= FUSE_EXPORT_SUPPORT;
	if (s->cfg->allow_idmap && (in->flags & FUSE_INIT_EXT) &&
	    (in->flags2 & (FUSE_ALLOW_IDMAP >> 32))) {
		out.flags |= FUSE_INIT_EXT;
		out.flags2 |= FUSE_ALLOW_IDMAP >> 32;
	}
	if (s->cfg->readdirplus)
		out.flags |= FUSE_DO_READDIRPLUS;
	if (s->cfg->max_handle_sz && (in->flags & FUSE_INIT_EXT) &&
	    (in->flags2 & (FUSE_HAS_LOOKUP_HANDLE >> 32))) {
		out.flags |= FUSE_INIT_EXT;
		out.flags2 |= FUSE_HAS_LOOKUP_HANDLE >> 32;
		memcpy((char *)&out + SRV_INIT_MAX_HANDLE_SZ_OFF,
		       &s->cfg->max_handle_sz, sizeof(s->cfg->max_handle_sz));
	}
	out.max_background = 16;
	out.congestion_threshold = 12;
	out.max_write = MAX_WRITE;
	out.time_gran = 1;
	reply(s, log_request(s, ih, false, FUSE_COMPOUND_NO_DEP, 0), ih, ih->unique,
	      0, &out, sizeof(out));
	return in->major == FUSE_KERNEL_VERSION ? 0 : -EPROTO;
}

static void handle(struct srv *s, const struct fuse_in_header *ih, size_t len)
{
	static unsigned char out[BUF_SIZE];
	struct srv_record *rec;
	size_t out_len;
	int err;

	if (ih->opcode == FUSE_FORGET || ih->opcode == FUSE_BATCH_FORGET)
		return notify(s);	/* the books counted them: no reply */
	rec = log_request(s, ih, false, FUSE_COMPOUND_NO_DEP, record_arg(ih));
	if (s->cfg->delay_us)
		usleep(s->cfg->delay_us);	/* models service time, not sync */

	switch (ih->opcode) {
	case FUSE_COMPOUND:
		return do_compound(s, rec, ih, len);
	case FUSE_INTERRUPT:
		return;		/* logged: a test's edit_reply may act on it */
	case FUSE_DESTROY:
		reply(s, rec, ih, ih->unique, 0, NULL, 0);
		return;
	default:
		err = do_request(s, ih, ih->nodeid, out, &out_len);
		reply(s, rec, ih, ih->unique, err, out, out_len);
	}
}

int srv_notify_inval_attr(int fd, uint64_t nodeid)
{
	struct {
		struct fuse_out_header oh;
		struct fuse_notify_inval_inode_out in;
	} msg = {
		.oh = { .len = sizeof(msg), .error = FUSE_NOTIFY_INVAL_INODE },
		.in = { .ino = nodeid, .off = -1 },	/* attributes only */
	};

	return write(fd, &msg, sizeof(msg)) == sizeof(msg) ? 0 : -errno;
}

int srv_mount(const char *mountpoint)
{
	return srv_mount_opts(mountpoint, NULL);
}

int srv_mount_opts(const char *mountpoint, const char *extra)
{
	return srv_mount_owner(mountpoint, extra, true);
}

int srv_mount_owner(const char *mountpoint, const char *extra,
		    bool allow_other)
{
	char opts[256];
	int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	snprintf(opts, sizeof(opts),
		 "fd=%d,rootmode=40000,user_id=0,group_id=0%s%s%s",
		 fd, allow_other ? ",allow_other" : "", extra ? "," : "",
		 extra ? extra : "");
	if (mount("fusegate", mountpoint, "fuse", MS_NOSUID | MS_NODEV, opts)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

int srv_run_fd(const struct srv_config *cfg, int fd)
{
	static struct srv s;
	int control = cfg->control_fd;
	ssize_t n;

	memset(&s, 0, sizeof(s));
	s.cfg = cfg;
	s.fd = fd;
	s.in = malloc(BUF_SIZE);
	if (!s.in)
		return 1;
	tree_init(&s);

	for (;;) {
		if (cfg->idle) {
			struct pollfd p = { .fd = fd, .events = POLLIN };

			if (poll(&p, 1, 0) == 0)
				cfg->idle(cfg, fd);
		}
		if (control >= 0) {
			struct pollfd p[2] = {
				{ .fd = fd, .events = POLLIN },
				{ .fd = control, .events = POLLIN },
			};
			char c;

			if (poll(p, 2, -1) < 0 && errno != EINTR)
				return 1;
			/* a byte wakes the loop (and the idle hook) */
			if ((p[1].revents & POLLIN) && read(control, &c, 1) == 1)
				continue;
			if (p[1].revents)
				control = -1;	/* the test is gone: stop listening */
			if (!p[0].revents)
				continue;
		}
		n = read(fd, s.in, BUF_SIZE);
		if (n < 0) {
			if (errno == EINTR || errno == ENOENT || errno == EAGAIN)
				continue;
			/* ENODEV: unmounted; ECONNABORTED: aborted */
			return errno == ENODEV || errno == ECONNABORTED ? 0 : 1;
		}
		if ((size_t)n < sizeof(struct fuse_in_header))
			return 1;
		srv_took(cfg->log, s.in, n);
		if (((struct fuse_in_header *)s.in)->opcode == FUSE_INIT) {
			if (do_init(&s, (void *)s.in))
				return 1;
			continue;
		}
		handle(&s, (void *)s.in, n);
	}
}
