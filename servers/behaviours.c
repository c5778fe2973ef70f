// SPDX-License-Identifier: GPL-2.0
/*
 * The misbehaviours of the fusegate test servers.  Each one takes the
 * correct reply to a compound, built by core.c, and breaks exactly one rule
 * of compound.md section 3, in the first or the last subreply; its name
 * leads with the rule's name, as the kernel check, the KUnit case, the
 * selftest variant and the mutant of that rule do.
 */
#include <errno.h>
#include <string.h>

#include "fuse_server.h"

static const struct {
	const char *name;
	enum srv_behaviour b;
} names[] = {
	{ "compliant", SRV_COMPLIANT },
	{ "compound-enosys", SRV_COMPOUND_ENOSYS },
	{ "compound-eopnotsupp", SRV_COMPOUND_EOPNOTSUPP },
	{ "compound-einval", SRV_COMPOUND_EINVAL },
	{ "sub_unique_reordered", SRV_SUB_UNIQUE_REORDERED },
	{ "sub_unique_duplicated", SRV_SUB_UNIQUE_DUPLICATED },
	{ "sub_unique_skipped", SRV_SUB_UNIQUE_SKIPPED },
	{ "cut_in_compound_out", SRV_CUT_IN_COMPOUND_OUT },
	{ "cut_in_subheader", SRV_CUT_IN_SUBHEADER },
	{ "cut_in_payload", SRV_CUT_IN_PAYLOAD },
	{ "trailing_bytes", SRV_TRAILING_BYTES },
	{ "sublen_below_header", SRV_SUBLEN_BELOW_HEADER },
	{ "payload_mismatch_long", SRV_PAYLOAD_TOO_LONG },
	{ "payload_mismatch_short", SRV_PAYLOAD_TOO_SHORT },
	{ "error_with_payload", SRV_ERROR_WITH_PAYLOAD },
	{ "sub_error_range_positive", SRV_SUB_ERROR_POSITIVE },
	{ "sub_error_range_below", SRV_SUB_ERROR_BELOW_RANGE },
	{ "cut_in_subheader_one_subreply", SRV_ONE_SUBREPLY },
	{ "trailing_bytes_three_subreplies", SRV_THREE_SUBREPLIES },
	{ "compound_out_reserved", SRV_COMPOUND_OUT_RESERVED },
	{ "ignores-dep", SRV_IGNORES_DEP },
	{ "dies-mid-compound", SRV_DIES_MID_COMPOUND },
	{ "stalls-answers-interrupt", SRV_STALLS_ANSWERS_INTERRUPT },
	{ "stalls-ignores-interrupt", SRV_STALLS_IGNORES_INTERRUPT },
};

const char *srv_behaviour_name(enum srv_behaviour b)
{
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].b == b)
			return names[i].name;
	return "?";
}

int srv_behaviour_from_name(const char *name)
{
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i].name, name))
			return names[i].b;
	return -1;
}

static struct fuse_out_header *sub(struct srv_reply *r, unsigned int i)
{
	return (struct fuse_out_header *)(r->buf + r->sub_off[i]);
}

/* Make subreply @i carry @delta more (or fewer) payload bytes */
static void resize_payload(struct srv_reply *r, unsigned int i, int delta)
{
	struct fuse_out_header *oh = sub(r, i);
	unsigned char *tail = (unsigned char *)oh + oh->len;
	size_t tail_len = r->buf + r->len - tail;

	memmove(tail + delta, tail, tail_len);
	if (delta > 0)
		memset(tail, 0xab, delta);
	oh->len += delta;
	r->len += delta;
	if (i + 1 < r->nsubs)
		r->sub_off[i + 1] += delta;
}

bool srv_break_reply(const struct srv_config *cfg, struct srv_reply *r)
{
	unsigned int t;
	struct fuse_out_header *oh;

	if (!r->nsubs)
		return false;
	t = cfg->target == SRV_TARGET_LAST ? r->nsubs - 1 : 0;
	oh = sub(r, t);

	switch (cfg->behaviour) {
	case SRV_SUB_UNIQUE_REORDERED:
		if (r->nsubs < 2)
			return false;
		sub(r, 0)->unique = 1;
		sub(r, 1)->unique = 0;
		return true;
	case SRV_SUB_UNIQUE_DUPLICATED:
		if (r->nsubs < 2)
			return false;
		sub(r, 1)->unique = 0;
		return true;
	case SRV_SUB_UNIQUE_SKIPPED:
		/* the target's unique jumps one ahead */
		oh->unique = t + 1;
		return true;
	case SRV_CUT_IN_COMPOUND_OUT:
		r->len = sizeof(struct fuse_out_header) + 8;
		return true;
	case SRV_CUT_IN_SUBHEADER:
		r->len = r->sub_off[t] + 8;
		return true;
	case SRV_CUT_IN_PAYLOAD:
		if (oh->len <= sizeof(*oh) + 1)
			return false;
		r->len = r->sub_off[t] + sizeof(*oh) + (oh->len - sizeof(*oh)) / 2;
		return true;
	case SRV_TRAILING_BYTES:
		memset(r->buf + r->len, 0, 8);
		r->len += 8;
		return true;
	case SRV_SUBLEN_BELOW_HEADER:
		/* the bytes stay; the header claims less than itself */
		oh->len = sizeof(*oh) - 8;
		return true;
	case SRV_PAYLOAD_TOO_LONG:
		if (oh->error)
			return false;
		resize_payload(r, t, 8);
		return true;
	case SRV_PAYLOAD_TOO_SHORT:
		if (oh->error || oh->len < sizeof(*oh) + 8)
			return false;
		resize_payload(r, t, -8);
		return true;
	case SRV_ERROR_WITH_PAYLOAD:
		if (oh->error || oh->len == sizeof(*oh))
			return false;
		oh->error = -ENOENT;
		return true;
	case SRV_SUB_ERROR_POSITIVE:
	case SRV_SUB_ERROR_BELOW_RANGE:
		resize_payload(r, t, sizeof(*oh) - (int)oh->len);
		oh->error = cfg->behaviour == SRV_SUB_ERROR_POSITIVE ? 5 : -600;
		return true;
	case SRV_ONE_SUBREPLY:
		if (r->nsubs < 2)
			return false;
		r->len = r->sub_off[1];
		return true;
	case SRV_COMPOUND_OUT_RESERVED: {
		struct fuse_compound_out *co =
			(void *)(r->buf + sizeof(struct fuse_out_header));

		co->reserved[0] = 1;
		return true;
	}
	case SRV_THREE_SUBREPLIES: {
		struct fuse_out_header *extra = (void *)(r->buf + r->len);

		memset(extra, 0, sizeof(*extra));
		extra->len = sizeof(*extra);
		extra->error = -ENOENT;
		extra->unique = r->nsubs;
		r->len += sizeof(*extra);
		return true;
	}
	default:
		return false;
	}
}
