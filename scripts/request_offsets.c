// SPDX-License-Identifier: GPL-2.0
/*
 * Where a FUSE request keeps its opcode, unique and answer, in the kernel
 * being tested: compiled (never linked, never loaded) with the flags of
 * that kernel's fs/fuse/dev.o by scripts/request_probes.py, which reads
 * the offsets from the assembly and writes the guest's kprobe events on
 * fuse_request_end().  Any tree: stock 6.12 keeps struct fuse_req in
 * fuse_i.h, a tree with upstream's transport split in fuse_dev_i.h.
 */
#include "fuse_i.h"
#if __has_include("fuse_dev_i.h")
#include "fuse_dev_i.h"
#endif

#define FUSEGATE_OFFSET(name, member)					\
	asm volatile("\n.ascii \"@fusegate " name " %c0@\""		\
		     : : "i" (offsetof(struct fuse_req, member)))

void fusegate_request_offsets(void);
void fusegate_request_offsets(void)
{
	FUSEGATE_OFFSET("opcode", in.h.opcode);
	FUSEGATE_OFFSET("unique", in.h.unique);
	FUSEGATE_OFFSET("error", out.h.error);
}
