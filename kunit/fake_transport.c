// SPDX-License-Identifier: GPL-2.0
/*
 * The fake FUSE transport of the compound KUnit suites: see fuse_kunit.h.
 */

#include <linux/bvec.h>
#include <linux/gfp.h>
#include <linux/uio.h>
#include "fuse_kunit.h"

MODULE_DESCRIPTION("KUnit tests for FUSE compound requests");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

static void fk_log(struct fk_ctx *ctx, const struct fuse_in_header *ih,
		   bool sub, u8 dep_index)
{
	struct fk_logged *l;

	if (ctx->nlog == FK_MAX_LOG) {
		KUNIT_FAIL(ctx->test, "request log full");
		return;
	}
	l = &ctx->log[ctx->nlog++];
	l->opcode = ih->opcode;
	l->nodeid = ih->nodeid;
	l->unique = ih->unique;
	l->len = ih->len;
	l->sub = sub;
	l->dep_index = dep_index;
}

/* Log a request and, for a compound, each subrequest it carries */
static void fk_log_request(struct fk_ctx *ctx, const u8 *buf, size_t len)
{
	const struct fuse_in_header *ih = (const void *)buf;
	size_t off;

	fk_log(ctx, ih, false, FUSE_COMPOUND_NO_DEP);
	ctx->nrequests++;
	if (ih->opcode != FUSE_COMPOUND)
		return;
	ctx->ncompounds++;

	off = sizeof(*ih) + sizeof(struct fuse_compound_in);
	while (off + sizeof(struct fuse_compound_req_in) +
	       sizeof(struct fuse_in_header) <= len) {
		const struct fuse_compound_req_in *rin = (const void *)buf + off;
		const struct fuse_in_header *sh = (const void *)(rin + 1);

		fk_log(ctx, sh, true, rin->dep_index);
		if (sh->len < sizeof(*sh))
			break;
		off += sizeof(*rin) + sh->len;
	}
}

static void fk_send_req(struct fuse_iqueue *fiq, struct fuse_req *req)
{
	struct fk_ctx *ctx = fiq->priv;
	struct bio_vec bv;
	struct iov_iter iter;
	ssize_t streamed;
	size_t reply_len;

	req->in.h.unique = fuse_get_unique(fiq);
	clear_bit(FR_PENDING, &req->flags);
	if (ctx->kernel_error) {
		req->out.h.error = ctx->kernel_error;
		goto end;
	}

	/* What the server reads */
	memset(ctx->req_buf, 0x5a, FK_BUF_SIZE);
	bvec_set_page(&bv, virt_to_page(ctx->req_buf), FK_BUF_SIZE, 0);
	iov_iter_bvec(&iter, ITER_DEST, &bv, 1, FK_BUF_SIZE);
	streamed = fuse_kunit_copy_request(req, &iter);
	if (streamed < 0) {
		KUNIT_FAIL(ctx->test, "streaming the request failed: %zd",
			   streamed);
		req->out.h.error = -EIO;
		goto end;
	}
	ctx->req_streamed = streamed;
	fk_log_request(ctx, ctx->req_buf, streamed);

	/* What the server writes back */
	memset(ctx->reply_buf, 0, FK_BUF_SIZE);
	reply_len = ctx->serve(ctx, ctx->req_buf, streamed, ctx->reply_buf);
	bvec_set_page(&bv, virt_to_page(ctx->reply_buf), reply_len, 0);
	iov_iter_bvec(&iter, ITER_SOURCE, &bv, 1, reply_len);
	ctx->write_err = fuse_kunit_copy_reply(req, &iter, reply_len);
end:
	fuse_request_end(req);
}

static void fk_send_forget(struct fuse_iqueue *fiq,
			   struct fuse_forget_link *link)
{
	kfree(link);
}

static void fk_send_interrupt(struct fuse_iqueue *fiq, struct fuse_req *req)
{
}

static const struct fuse_iqueue_ops fk_fiq_ops = {
	.send_forget	= fk_send_forget,
	.send_interrupt	= fk_send_interrupt,
	.send_req	= fk_send_req,
};

static void fk_free_buf(void *buf)
{
	free_pages_exact(buf, FK_BUF_SIZE);
}

static u8 *fk_alloc_buf(struct kunit *test)
{
	u8 *buf = alloc_pages_exact(FK_BUF_SIZE, GFP_KERNEL | __GFP_ZERO);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, fk_free_buf, buf));
	return buf;
}

static void fk_ctx_release(void *data)
{
	struct fk_ctx *ctx = data;

	fuse_conn_put(ctx->fc);
	kfree(ctx->fm);
}

struct fk_ctx *fk_ctx_create(struct kunit *test, fk_server_fn serve)
{
	struct fk_ctx *ctx;
	struct fuse_conn *fc;
	struct fuse_mount *fm;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->test = test;
	ctx->serve = serve;
	ctx->req_buf = fk_alloc_buf(test);
	ctx->reply_buf = fk_alloc_buf(test);

	fc = kzalloc(sizeof(*fc), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fc);
	fm = kzalloc(sizeof(*fm), GFP_KERNEL);
	if (!fm)
		kfree(fc);
	KUNIT_ASSERT_NOT_NULL(test, fm);

	fuse_conn_init(fc, fm, current_user_ns(), &fk_fiq_ops, ctx);
	fc->release = fuse_free_conn;
	fc->ch.minor = FUSE_KERNEL_MINOR_VERSION;
	/* As after a FUSE_INIT reply; pairs with smp_rmb() in fuse_get_req() */
	smp_wmb();
	fc->ch.initialized = 1;
	ctx->fc = fc;
	ctx->fm = fm;
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, fk_ctx_release, ctx));
	return ctx;
}

unsigned int fk_count(const struct fk_ctx *ctx, u32 opcode, bool sub)
{
	unsigned int i, n = 0;

	for (i = 0; i < ctx->nlog; i++)
		if (ctx->log[i].opcode == opcode && ctx->log[i].sub == sub)
			n++;
	return n;
}

const struct fk_logged *fk_find(const struct fk_ctx *ctx, u32 opcode,
				unsigned int n)
{
	unsigned int i;

	for (i = 0; i < ctx->nlog; i++) {
		if (ctx->log[i].opcode != opcode || ctx->log[i].sub)
			continue;
		if (!n--)
			return &ctx->log[i];
	}
	return NULL;
}

void fk_reply_start(struct fk_reply *r, u8 *buf, u64 unique, int error)
{
	struct fuse_out_header oh = { .unique = unique, .error = error };

	r->buf = buf;
	r->len = 0;
	fk_reply_put(r, &oh, sizeof(oh));
}

void fk_reply_compound_out(struct fk_reply *r)
{
	struct fuse_compound_out co = {};

	fk_reply_put(r, &co, sizeof(co));
}

void fk_reply_put(struct fk_reply *r, const void *data, size_t len)
{
	if (WARN_ON(r->len + len > FK_BUF_SIZE))
		return;
	memcpy(r->buf + r->len, data, len);
	r->len += len;
}

void fk_reply_sub(struct fk_reply *r, u64 unique, int error, u32 len_field,
		  size_t payload_len)
{
	struct fuse_out_header oh = {
		.len = len_field, .error = error, .unique = unique,
	};

	fk_reply_put(r, &oh, sizeof(oh));
	if (WARN_ON(r->len + payload_len > FK_BUF_SIZE))
		return;
	memset(r->buf + r->len, 0xab, payload_len);
	r->len += payload_len;
}

size_t fk_reply_finish(struct fk_reply *r)
{
	((struct fuse_out_header *)r->buf)->len = r->len;
	return r->len;
}

size_t fk_reply_simple(u8 *buf, u64 unique, int error, const void *payload,
		       size_t payload_len)
{
	struct fk_reply r;

	fk_reply_start(&r, buf, unique, error);
	if (!error)
		fk_reply_put(&r, payload, payload_len);
	return fk_reply_finish(&r);
}

static void fk_fill_attr(struct fuse_attr *attr, u64 nodeid, u32 mode)
{
	attr->ino = nodeid;
	attr->mode = mode;
	attr->nlink = 1;
	attr->size = 1000 + nodeid;
	attr->blksize = 4096;
}

static int fk_fs_entry(u64 nodeid, u32 mode, u8 *out, size_t *out_len)
{
	struct fuse_entry_out *e = (void *)out;

	memset(e, 0, sizeof(*e));
	e->nodeid = nodeid;
	if (nodeid)
		fk_fill_attr(&e->attr, nodeid, mode);
	*out_len = sizeof(*e);
	return 0;
}

int fk_fs_op(u32 opcode, u64 nodeid, const u8 *payload, size_t len,
	     u8 *out, size_t *out_len)
{
	*out_len = 0;
	switch (opcode) {
	case FUSE_LOOKUP:
		if (!len || payload[len - 1])
			return -EINVAL;
		if (!strcmp((const char *)payload, "missing"))
			return -ENOENT;
		if (!strcmp((const char *)payload, "denied"))
			return -EACCES;
		if (!strcmp((const char *)payload, "broken"))
			return -EIO;
		if (!strcmp((const char *)payload, "negative"))
			return fk_fs_entry(0, 0, out, out_len);
		return fk_fs_entry(FK_CHILD_NODEID, S_IFREG | 0644, out,
				   out_len);
	case FUSE_MKDIR:
		return fk_fs_entry(FK_NEW_NODEID, S_IFDIR | 0755, out, out_len);
	case FUSE_MKNOD:
	case FUSE_SYMLINK:
	case FUSE_LINK:
	case FUSE_TMPFILE:
		return fk_fs_entry(FK_NEW_NODEID, S_IFREG | 0644, out, out_len);
	case FUSE_CREATE: {
		struct fuse_open_out *o;

		fk_fs_entry(FK_NEW_NODEID, S_IFREG | 0644, out, out_len);
		o = (void *)(out + *out_len);
		memset(o, 0, sizeof(*o));
		o->fh = 7;
		*out_len += sizeof(*o);
		return 0;
	}
	case FUSE_LOOKUP_HANDLE:
	case FUSE_MKOBJ_HANDLE: {
		struct fuse_entry2_out *e = (void *)out;
		struct fuse_file_handle *fh = (void *)(e + 1);

		memset(e, 0, sizeof(*e));
		e->nodeid = opcode == FUSE_LOOKUP_HANDLE ? FK_CHILD_NODEID :
							   FK_NEW_NODEID;
		e->generation = 1;
		fh->size = sizeof(FK_HANDLE) - 1;
		memcpy(fh->handle, FK_HANDLE, fh->size);
		*out_len = sizeof(*e) + sizeof(*fh) + fh->size;
		return 0;
	}
	case FUSE_GETATTR: {
		struct fuse_attr_out *a = (void *)out;

		/* nodeid 0 is never valid: a dependency was not resolved */
		if (!nodeid)
			return -EINVAL;
		memset(a, 0, sizeof(*a));
		fk_fill_attr(&a->attr, nodeid, S_IFREG | 0644);
		*out_len = sizeof(*a);
		return 0;
	}
	case FUSE_OPEN:
	case FUSE_OPENDIR: {
		struct fuse_open_out *o = (void *)out;

		memset(o, 0, sizeof(*o));
		o->fh = 7;
		*out_len = sizeof(*o);
		return 0;
	}
	default:
		return FK_UNKNOWN_OPCODE;
	}
}

size_t fk_serve_single(const u8 *req, u8 *reply)
{
	const struct fuse_in_header *ih = (const void *)req;
	u8 out[256];
	size_t out_len;
	int err;

	err = fk_fs_op(ih->opcode, ih->nodeid, req + sizeof(*ih),
		       ih->len - sizeof(*ih), out, &out_len);
	return fk_reply_simple(reply, ih->unique, err, out, out_len);
}

/* Execute a compound as spec section 4 says: in order, resolving deps */
size_t fk_serve_compliant(struct fk_ctx *ctx, const u8 *req, size_t len,
			  u8 *reply)
{
	const struct fuse_in_header *ih = (const void *)req;
	u64 entry_nodeid[FUSE_COMPOUND_MAX_OPS] = {};
	int errors[FUSE_COMPOUND_MAX_OPS] = {};
	struct fk_reply r;
	unsigned int i = 0;
	size_t off;

	if (ih->opcode != FUSE_COMPOUND)
		return fk_serve_single(req, reply);

	fk_reply_start(&r, reply, ih->unique, 0);
	fk_reply_compound_out(&r);
	off = sizeof(*ih) + sizeof(struct fuse_compound_in);
	while (off < len && i < FUSE_COMPOUND_MAX_OPS) {
		const struct fuse_compound_req_in *rin = (const void *)req + off;
		const struct fuse_in_header *sh = (const void *)(rin + 1);
		u64 nodeid = sh->nodeid;
		u8 out[256];
		size_t out_len = 0;
		int err;

		if (rin->dep_index != FUSE_COMPOUND_NO_DEP &&
		    rin->dep_index < i) {
			err = errors[rin->dep_index];
			nodeid = entry_nodeid[rin->dep_index];
		} else {
			err = 0;
		}
		if (!err)
			err = fk_fs_op(sh->opcode, nodeid, (const u8 *)(sh + 1),
				       sh->len - sizeof(*sh), out, &out_len);
		if (!err && (out_len >= sizeof(struct fuse_entry_out) ||
			     sh->opcode == FUSE_LOOKUP_HANDLE ||
			     sh->opcode == FUSE_MKOBJ_HANDLE))
			entry_nodeid[i] = ((struct fuse_entry_out *)out)->nodeid;
		errors[i] = err;

		fk_reply_sub(&r, i, err,
			     sizeof(struct fuse_out_header) + (err ? 0 : out_len),
			     0);
		if (!err)
			fk_reply_put(&r, out, out_len);
		off += sizeof(*rin) + sh->len;
		i++;
	}
	return fk_reply_finish(&r);
}

size_t fk_serve_refuse_compound(struct fk_ctx *ctx, const u8 *req, size_t len,
				u8 *reply)
{
	const struct fuse_in_header *ih = (const void *)req;
	int *outer_error = ctx->priv;

	if (ih->opcode == FUSE_COMPOUND)
		return fk_reply_simple(reply, ih->unique, *outer_error, NULL, 0);
	return fk_serve_single(req, reply);
}

struct fk_ctx *fk_ctx_refusing(struct kunit *test, int compound_answer)
{
	struct fk_ctx *ctx = fk_ctx_create(test, fk_serve_refuse_compound);
	int *answer = kunit_kzalloc(test, sizeof(*answer), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, answer);
	*answer = compound_answer;
	ctx->priv = answer;
	return ctx;
}

struct fk_batch *fk_batch_create(struct kunit *test, const struct fk_op *d,
				 unsigned int n)
{
	struct fk_batch *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_LE(test, n, FK_BATCH_MAX);
	b->n = n;
	for (i = 0; i < n; i++) {
		struct fuse_args *a = &b->args[i];

		a->opcode = d[i].opcode;
		a->nodeid = d[i].nodeid;
		a->in_numargs = 1;
		if (d[i].name) {
			a->in_args[0].size = strlen(d[i].name) + 1;
			a->in_args[0].value = d[i].name;
		} else {
			a->in_args[0].size = sizeof(b->getattr_in[i]);
			a->in_args[0].value = &b->getattr_in[i];
		}
		a->out_numargs = 1;
		a->out_args[0].value = &b->out[i];
		switch (d[i].opcode) {
		case FUSE_GETATTR:
			a->out_args[0].size = sizeof(struct fuse_attr_out);
			break;
		case FUSE_OPEN:
		case FUSE_OPENDIR:
			a->out_args[0].size = sizeof(struct fuse_open_out);
			break;
		case FUSE_CREATE:
			a->out_numargs = 2;
			a->out_args[1].size = sizeof(struct fuse_open_out);
			a->out_args[1].value = &b->create_open[i];
			fallthrough;
		default:
			a->out_args[0].size = sizeof(struct fuse_entry_out);
			break;
		}
		b->ops[i].args = a;
		b->ops[i].error = &b->errors[i];
		b->ops[i].dep_index = d[i].dep_index;
		b->errors[i] = 1;	/* must be overwritten */
	}
	return b;
}
