// SPDX-License-Identifier: GPL-2.0
/*
 * What stock FUSE already protects in the server's FUSE_INIT answer: the
 * version, the flags, the limits it may set.  Each variant is named after
 * its row of docs/stock-checks.md (sections "dir.c" and "inode.c"), or says
 * it is the control that shows the observation works; it states the INIT
 * reply it sends and what the connection must then do.  They pass on any
 * kernel that keeps those checks, with or without compounds, and fail when
 * one is removed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../../kselftest_harness.h"
#include "fuse_test.h"

/* Protocol 7.40 and 7.41, for headers that predate them */
#define PASSTHROUGH	(1ULL << 37)		/* FUSE_PASSTHROUGH */
#define ALLOW_IDMAP	(1ULL << 40)		/* FUSE_ALLOW_IDMAP */
struct backing_map { int32_t fd; uint32_t flags; uint64_t padding; };
#define BACKING_OPEN	_IOW(229, 1, struct backing_map)

/* --- the exchange kit: how a test breaks the replies its server sends --- */

/*
 * What the test and its server share beyond struct shared: the minor the
 * INIT reply gave, the largest READ and WRITE asked, the errno of
 * FUSE_DEV_IOC_BACKING_OPEN (or -1) and a regular file on tmpfs to back
 */
#define SHARED_EXTRA							\
	uint32_t minor;							\
	uint32_t read_size, write_size;					\
	uint32_t reads;							\
	int backing_errno;						\
	char backing[64];

#include "reply_edit.h"

/* --- the exchange: the INIT reply, and what later replies must follow --- */

enum ifield {
	NONE, MAX_BACKGROUND, CONGESTION, MAX_WRITE, TIME_GRAN, MAX_PAGES,
	MAX_READAHEAD, STACK_DEPTH,
};

/* The first member of every variant below */
struct exchange {
	uint32_t major, minor;		/* 0: as the core says */
	uint64_t flags_set, flags_clear;	/* flags | flags2 << 32 */
	struct { enum ifield f; uint64_t v; } set[2];
	bool drop_sys_admin;	/* the server writes the reply without it */
	bool setuid;		/* ... or as uid 1000, with no capability */
	const char *rel;	/* set[] is relative to this module parameter */
	bool direct_io;		/* OPEN: FOPEN_DIRECT_IO */
	bool backing_open;	/* STATFS: try FUSE_DEV_IOC_BACKING_OPEN */
};

static void edit_init(struct shared *sh, const struct exchange *x,
		      struct fuse_init_out *o)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct caps[2];
	uint64_t base = 0;
	unsigned int i;
	FILE *f;

	o->major = x->major ? x->major : o->major;
	o->minor = x->minor ? x->minor : o->minor;
	o->flags = (o->flags | (uint32_t)x->flags_set) &
		   ~(uint32_t)x->flags_clear;
	o->flags2 |= x->flags_set >> 32;
	if (x->rel) {
		char name[128];

		snprintf(name, sizeof(name), "/sys/module/fuse/parameters/%s", x->rel);
		f = fopen(name, "r");
		if (!f || fscanf(f, "%" SCNu64, &base) != 1)
			base = 0;
		if (f)
			fclose(f);
	}
	for (i = 0; i < 2; i++) {
		switch (x->set[i].f) {
		case MAX_BACKGROUND: o->max_background = base + x->set[i].v; break;
		case CONGESTION: o->congestion_threshold = base + x->set[i].v; break;
		case MAX_WRITE: o->max_write = x->set[i].v; break;
		case TIME_GRAN: o->time_gran = x->set[i].v; break;
		case MAX_PAGES: o->max_pages = x->set[i].v; break;
		case MAX_READAHEAD: o->max_readahead = x->set[i].v; break;
		case STACK_DEPTH: o->unused[0] = x->set[i].v; break; /* 7.40 */
		default: break;
		}
	}
	STORE(sh->minor, o->minor);
	/* capable() is asked in the context of the writer of the reply */
	if (x->drop_sys_admin && !syscall(SYS_capget, &h, caps)) {
		caps[0].effective &= ~(1u << CAP_SYS_ADMIN);
		if (syscall(SYS_capset, &h, caps))
			perror("capset");
	}
	if (x->setuid && setresuid(1000, 1000, 1000))
		perror("setresuid");
}

static void exchange_op(struct shared *sh, struct srv_reply *r,
			const struct op *op)
{
	const struct exchange *x = sh->variant;
	struct fuse_out_header *oh = op_out(r, op);
	struct backing_map map = { 0 };
	unsigned char payload[128];
	const uint32_t *size = (const uint32_t *)op->arg + 4; /* READ, WRITE */
	size_t keep = 0;
	int err;

	switch (op->opcode) {
	case FUSE_INIT:
		edit_init(sh, x, (void *)(oh + 1));
		EDITED(sh);
		return;
	case FUSE_READ:
		if (*size > sh->read_size)
			STORE(sh->read_size, *size);
		STORE(sh->reads, LOAD(sh->reads) + 1);
		return;
	case FUSE_WRITE:
		if (*size > sh->write_size)
			STORE(sh->write_size, *size);
		return;
	case FUSE_OPEN:
		if (x->direct_io && !oh->error)
			((struct fuse_open_out *)(oh + 1))->open_flags |=
				FOPEN_DIRECT_IO;
		return;
	case FUSE_STATFS:
		if (!x->backing_open || LOAD(sh->backing_errno) >= 0)
			return;
		map.fd = open(sh->backing, O_RDWR);
		err = ioctl(r->fd, BACKING_OPEN, &map) < 0 ? errno : 0;
		STORE(sh->backing_errno, err);
		return;
	case FUSE_LOOKUP:
		keep = FUSE_COMPAT_ENTRY_OUT_SIZE;
		break;
	case FUSE_GETATTR:
	case FUSE_SETATTR:
		keep = FUSE_COMPAT_ATTR_OUT_SIZE;
		break;
	}
	/* below 7.9 entries and attributes are shorter (fuse_adjust_compat()) */
	if (keep && LOAD(sh->minor) < 9 && !oh->error &&
	    oh->len - sizeof(*oh) > keep) {
		memcpy(payload, oh + 1, keep);
		op_answer(r, op, 0, payload, keep);
	}
}

static void exchange_edit(const struct srv_config *cfg,
			  const struct fuse_in_header *req, struct srv_reply *r)
{
	for_each_op(cfg, req, r, exchange_op);
}

static struct shared *start(struct mnt *m, const struct exchange *x)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG, LONG);
	struct shared *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int fd;

	if (sh == MAP_FAILED)
		return NULL;
	sh->variant = x;
	sh->backing_errno = -1;
	strcpy(sh->backing, "/tmp/fusegate-backing.XXXXXX");
	fd = mkstemp(sh->backing);
	if (fd < 0)
		return NULL;
	close(fd);
	cfg.edit_reply = exchange_edit;
	cfg.edit_arg = (uintptr_t)sh;
	return mnt_start(m, cfg) ? NULL : sh;
}

/* A fixture whose variants start with struct exchange x */
#define EXCHANGE_FIXTURE(f)						\
	FIXTURE(f) {							\
		struct mnt m;						\
		struct shared *sh;					\
	};								\
	FIXTURE_SETUP(f)						\
	{								\
		self->sh = start(&self->m, &variant->x);		\
		ASSERT_NE(NULL, self->sh);				\
	}								\
	FIXTURE_TEARDOWN(f)						\
	{								\
		mnt_stop(_metadata, &self->m);					\
		unlink(self->sh->backing);				\
	}

/* --- the connection refused: process_init_reply() --- */

FIXTURE_VARIANT(init_refused) {
	struct exchange x;
	int stat_errno;
};
EXCHANGE_FIXTURE(init_refused);

FIXTURE_VARIANT_ADD(init_refused, init_major_mismatch) {
	.x = { .major = 6 }, .stat_errno = ECONNREFUSED,
};
/* ... the next one up, and the largest */
FIXTURE_VARIANT_ADD(init_refused, init_major_mismatch_8) {
	.x = { .major = 8 }, .stat_errno = ECONNREFUSED,
};
FIXTURE_VARIANT_ADD(init_refused, init_major_mismatch_u32_max) {
	.x = { .major = 0xffffffff }, .stat_errno = ECONNREFUSED,
};
/* idmapped mounts need default_permissions, which this mount lacks */
FIXTURE_VARIANT_ADD(init_refused, init_allow_idmap) {
	.x = { .flags_set = FUSE_INIT_EXT | ALLOW_IDMAP },
	.stat_errno = ECONNREFUSED,
};
FIXTURE_VARIANT_ADD(init_refused, init_accepted_control) {
	.stat_errno = 0,
};

TEST_F(init_refused, a_foreign_answer_refuses_the_connection)
{
	struct stat st;

	if (variant->stat_errno)
		books_not_checked(&self->m, "INIT refused: the connection takes no request, the barrier's neither");
	EXPECT_EQ(variant->stat_errno, stat(self->m.dir, &st) ? errno : 0);
	EXPECT_EQ(1, LOAD(self->sh->edits));
}

/* --- limits and readahead: process_init_limits(), process_init_reply() --- */

FIXTURE_VARIANT(init_sysfs) {
	struct exchange x;
	const char *file;	/* a format: %u is the connection's minor */
	unsigned long value;
	const char *cap;	/* a module parameter that caps the value */
};
EXCHANGE_FIXTURE(init_sysfs);

#define FUSECTL(name)	"/sys/fs/fuse/connections/%u/" name
#define BDI(name)	"/sys/class/bdi/0:%u/" name

/* 7.12 knows no limits: the defaults 12 and 9 stay */
FIXTURE_VARIANT_ADD(init_sysfs, init_minor_lt_13_limits) {
	.x = { .minor = 12, .set = { { MAX_BACKGROUND, 5 } } },
	.file = FUSECTL("max_background"), .value = 12,
};
/* ... 7.13 does */
FIXTURE_VARIANT_ADD(init_sysfs, init_minor_lt_13_limits_but_13_takes_them) {
	.x = { .minor = 13, .set = { { MAX_BACKGROUND, 5 } } },
	.file = FUSECTL("max_background"), .value = 5,
};
FIXTURE_VARIANT_ADD(init_sysfs, init_max_background_zero) {
	.x = { .set = { { MAX_BACKGROUND, 0 } } },
	.file = FUSECTL("max_background"), .value = 12,
};
FIXTURE_VARIANT_ADD(init_sysfs, init_max_background_zero_but_1_is_taken) {
	.x = { .set = { { MAX_BACKGROUND, 1 } } },
	.file = FUSECTL("max_background"), .value = 1,
};
FIXTURE_VARIANT_ADD(init_sysfs, init_max_background_taken_control) {
	.x = { .set = { { MAX_BACKGROUND, 5 } } },
	.file = FUSECTL("max_background"), .value = 5,
};
FIXTURE_VARIANT_ADD(init_sysfs, init_congestion_zero) {
	.x = { .set = { { CONGESTION, 0 } } },
	.file = FUSECTL("congestion_threshold"), .value = 9,
};
FIXTURE_VARIANT_ADD(init_sysfs, init_congestion_zero_but_1_is_taken) {
	.x = { .set = { { CONGESTION, 1 } } },
	.file = FUSECTL("congestion_threshold"), .value = 1,
};
/* a server without CAP_SYS_ADMIN is held to the module's limits */
FIXTURE_VARIANT_ADD(init_sysfs, init_max_background_cap) {
	.x = { .drop_sys_admin = true, .set = { { MAX_BACKGROUND, 65535 } } },
	.file = FUSECTL("max_background"), .value = 65535,
	.cap = "max_user_bgreq",
};
FIXTURE_VARIANT_ADD(init_sysfs, init_congestion_cap) {
	.x = { .drop_sys_admin = true, .set = { { CONGESTION, 65535 } } },
	.file = FUSECTL("congestion_threshold"), .value = 65535,
	.cap = "max_user_congthresh",
};
/*
 * ... each side of the limit (values relative to it): one above is cut
 * to it, the limit itself is kept; a server of another uid is held the
 * same; CAP_SYS_ADMIN is not held to it
 */
#define BG_REL(d)	.rel = "max_user_bgreq", .set = { { MAX_BACKGROUND, d } }
#define CONG_REL(d)	.rel = "max_user_congthresh", .set = { { CONGESTION, d } }
FIXTURE_VARIANT_ADD(init_sysfs, init_max_background_cap_one_above) {
	.x = { .drop_sys_admin = true, BG_REL(1) },
	.file = FUSECTL("max_background"), .value = 0,
};
FIXTURE_VARIANT_ADD(init_sysfs, init_max_background_cap_but_the_limit_is_kept) {
	.x = { .drop_sys_admin = true, BG_REL(0) },
	.file = FUSECTL("max_background"), .value = 0,
};
FIXTURE_VARIANT_ADD(init_sysfs, init_max_background_cap_another_uid) {
	.x = { .setuid = true, BG_REL(1) },
	.file = FUSECTL("max_background"), .value = 0,
};
FIXTURE_VARIANT_ADD(init_sysfs, init_max_background_cap_but_not_cap_sys_admin) {
	.x = { BG_REL(1) }, .file = FUSECTL("max_background"), .value = 1,
};
FIXTURE_VARIANT_ADD(init_sysfs, init_congestion_cap_one_above) {
	.x = { .drop_sys_admin = true, CONG_REL(1) },
	.file = FUSECTL("congestion_threshold"), .value = 0,
};
FIXTURE_VARIANT_ADD(init_sysfs, init_congestion_cap_but_the_limit_is_kept) {
	.x = { .drop_sys_admin = true, CONG_REL(0) },
	.file = FUSECTL("congestion_threshold"), .value = 0,
};
FIXTURE_VARIANT_ADD(init_sysfs, init_congestion_cap_another_uid) {
	.x = { .setuid = true, CONG_REL(1) },
	.file = FUSECTL("congestion_threshold"), .value = 0,
};
FIXTURE_VARIANT_ADD(init_sysfs, init_congestion_cap_but_not_cap_sys_admin) {
	.x = { CONG_REL(1) }, .file = FUSECTL("congestion_threshold"), .value = 1,
};
/* max_readahead can only lower the 128 KiB the kernel offered */
FIXTURE_VARIANT_ADD(init_sysfs, init_max_readahead) {
	.x = { .set = { { MAX_READAHEAD, 1 << 20 } } },
	.file = BDI("read_ahead_kb"), .value = 128,
};
FIXTURE_VARIANT_ADD(init_sysfs, init_max_readahead_lowered_control) {
	.x = { .set = { { MAX_READAHEAD, 64 << 10 } } },
	.file = BDI("read_ahead_kb"), .value = 64,
};
/* ... one page more than offered, and exactly what was offered */
FIXTURE_VARIANT_ADD(init_sysfs, init_max_readahead_one_page_more) {
	.x = { .set = { { MAX_READAHEAD, (128 << 10) + 4096 } } },
	.file = BDI("read_ahead_kb"), .value = 128,
};
FIXTURE_VARIANT_ADD(init_sysfs, init_max_readahead_but_the_offer_is_taken) {
	.x = { .set = { { MAX_READAHEAD, 128 << 10 } } },
	.file = BDI("read_ahead_kb"), .value = 128,
};

static unsigned long number(const char *fmt, ...)
{
	unsigned long n = ~0ul;
	char file[128];
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(file, sizeof(file), fmt, ap);
	va_end(ap);
	f = fopen(file, "r");
	if (f && fscanf(f, "%lu", &n) != 1)
		n = ~0ul;
	if (f)
		fclose(f);
	return n;
}

TEST_F(init_sysfs, the_limit_is_what_the_kernel_allows)
{
	unsigned long value = variant->value;
	struct stat st;

	ASSERT_EQ(0, stat(self->m.dir, &st));
	if (variant->x.rel)
		value += number("/sys/module/fuse/parameters/%s", variant->x.rel);
	if (variant->cap) {
		value = number("/sys/module/fuse/parameters/%s", variant->cap);
		ASSERT_GT(variant->value, value)
			TH_LOG("%s is %lu: no cap to see", variant->cap, value);
	}
	EXPECT_EQ(value, number(variant->file, minor(st.st_dev)));
}

/* --- passthrough: what FUSE_DEV_IOC_BACKING_OPEN says afterwards --- */

FIXTURE_VARIANT(init_passthrough) {
	struct exchange x;
	int backing_errno;
};
EXCHANGE_FIXTURE(init_passthrough);

#define WITH_PASSTHROUGH	.backing_open = true, \
	.flags_set = FUSE_INIT_EXT | PASSTHROUGH

FIXTURE_VARIANT_ADD(init_passthrough, init_passthrough_taken_control) {
	.x = { WITH_PASSTHROUGH, .set = { { STACK_DEPTH, 1 } } },
	.backing_errno = 0,
};
/* flags2 counts only with FUSE_INIT_EXT */
FIXTURE_VARIANT_ADD(init_passthrough, init_flags2_needs_init_ext) {
	.x = { WITH_PASSTHROUGH, .flags_clear = FUSE_INIT_EXT,
	       .set = { { STACK_DEPTH, 1 } } },
	.backing_errno = EPERM,
};
FIXTURE_VARIANT_ADD(init_passthrough, init_passthrough_depth_zero) {
	.x = { WITH_PASSTHROUGH, .set = { { STACK_DEPTH, 0 } } },
	.backing_errno = EPERM,
};
FIXTURE_VARIANT_ADD(init_passthrough, init_passthrough_depth_too_big) {
	.x = { WITH_PASSTHROUGH, .set = { { STACK_DEPTH, 3 } } },
	.backing_errno = EPERM,
};
FIXTURE_VARIANT_ADD(init_passthrough, init_passthrough_depth_too_big_u32_max) {
	.x = { WITH_PASSTHROUGH, .set = { { STACK_DEPTH, 0xffffffff } } },
	.backing_errno = EPERM,
};
/* ... FILESYSTEM_MAX_STACK_DEPTH (2) is the most */
FIXTURE_VARIANT_ADD(init_passthrough, init_passthrough_depth_too_big_but_2_is_taken) {
	.x = { WITH_PASSTHROUGH, .set = { { STACK_DEPTH, 2 } } },
	.backing_errno = 0,
};
FIXTURE_VARIANT_ADD(init_passthrough, init_passthrough_writeback) {
	.x = { .backing_open = true,
	       .flags_set = FUSE_INIT_EXT | PASSTHROUGH | FUSE_WRITEBACK_CACHE,
	       .set = { { STACK_DEPTH, 1 } } },
	.backing_errno = EPERM,
};

TEST_F(init_passthrough, passthrough_is_on_only_when_all_its_terms_hold)
{
	struct statfs sfs;

	ASSERT_EQ(0, statfs(self->m.dir, &sfs));
	EXPECT_EQ(variant->backing_errno, LOAD(self->sh->backing_errno));
}

/* --- time granularity: utimensat() and what reaches the server --- */

FIXTURE_VARIANT(init_time_gran) {
	struct exchange x;
	long nsec;		/* of mtime 123456789 after the round trip */
};
EXCHANGE_FIXTURE(init_time_gran);

FIXTURE_VARIANT_ADD(init_time_gran, init_time_gran_zero) {
	.x = { .set = { { TIME_GRAN, 0 } } }, .nsec = 123456789,
};
FIXTURE_VARIANT_ADD(init_time_gran, init_time_gran_too_big) {
	.x = { .set = { { TIME_GRAN, 2000000000 } } }, .nsec = 123456789,
};
FIXTURE_VARIANT_ADD(init_time_gran, init_time_gran_1000_control) {
	.x = { .set = { { TIME_GRAN, 1000 } } }, .nsec = 123456000,
};
/* ... a second is the coarsest; a nanosecond more is too coarse */
FIXTURE_VARIANT_ADD(init_time_gran, init_time_gran_too_big_but_1e9_is_taken) {
	.x = { .set = { { TIME_GRAN, 1000000000 } } }, .nsec = 0,
};
FIXTURE_VARIANT_ADD(init_time_gran, init_time_gran_too_big_by_one) {
	.x = { .set = { { TIME_GRAN, 1000000001 } } }, .nsec = 123456789,
};

TEST_F(init_time_gran, timestamps_are_truncated_only_to_a_sane_granularity)
{
	struct timespec times[2] = {
		{ .tv_nsec = UTIME_OMIT }, { .tv_sec = 1000, .tv_nsec = 123456789 },
	};
	struct stat st;

	ASSERT_EQ(0, utimensat(AT_FDCWD, path(&self->m, "file"), times, 0));
	ASSERT_EQ(0, stat(path(&self->m, "file"), &st));
	EXPECT_EQ(variant->nsec, st.st_mtim.tv_nsec);
}

/* --- request sizes: max_pages, max_write (FOPEN_DIRECT_IO on "file") --- */

FIXTURE_VARIANT(init_io) {
	struct exchange x;
	bool write;
	size_t len;		/* read or written at once */
	uint32_t largest;	/* the largest READ or WRITE the server sees */
};
EXCHANGE_FIXTURE(init_io);

#define MAX_PAGES_TO(n)	.direct_io = true, .flags_set = FUSE_MAX_PAGES, \
	.set = { { MAX_PAGES, n } }

FIXTURE_VARIANT_ADD(init_io, init_max_pages_low) {
	.x = { MAX_PAGES_TO(0) }, .len = 8192, .largest = 4096,
};
FIXTURE_VARIANT_ADD(init_io, init_max_pages_low_but_1_is_taken) {
	.x = { MAX_PAGES_TO(1) }, .len = 8192, .largest = 4096,
};
FIXTURE_VARIANT_ADD(init_io, init_max_pages_high) {
	.x = { MAX_PAGES_TO(65535) }, .len = 4 << 20, .largest = 1 << 20,
};
/* ... one page above the limit (256), and the limit */
FIXTURE_VARIANT_ADD(init_io, init_max_pages_high_257) {
	.x = { MAX_PAGES_TO(257) }, .len = 4 << 20, .largest = 1 << 20,
};
FIXTURE_VARIANT_ADD(init_io, init_max_pages_high_but_256_is_taken) {
	.x = { MAX_PAGES_TO(256) }, .len = 4 << 20, .largest = 1 << 20,
};
FIXTURE_VARIANT_ADD(init_io, init_max_pages_taken_control) {
	.x = { MAX_PAGES_TO(2) }, .len = 16384, .largest = 8192,
};
/* before 7.5 there was no max_write: 4096 */
FIXTURE_VARIANT_ADD(init_io, init_minor_lt_5_max_write) {
	.x = { .direct_io = true, .minor = 4,
	       .set = { { MAX_WRITE, 65536 } } },
	.write = true, .len = 65536, .largest = 4096,
};
/* ... 7.5 has it */
FIXTURE_VARIANT_ADD(init_io, init_minor_lt_5_max_write_but_5_takes_it) {
	.x = { .direct_io = true, .minor = 5,
	       .set = { { MAX_WRITE, 65536 } } },
	.write = true, .len = 65536, .largest = 65536,
};
FIXTURE_VARIANT_ADD(init_io, init_max_write_floor) {
	.x = { .direct_io = true, .set = { { MAX_WRITE, 0 } } },
	.write = true, .len = 8192, .largest = 4096,
};
/* ... a byte below the floor; a byte above it is taken */
FIXTURE_VARIANT_ADD(init_io, init_max_write_floor_4095) {
	.x = { .direct_io = true, .set = { { MAX_WRITE, 4095 } } },
	.write = true, .len = 8192, .largest = 4096,
};
FIXTURE_VARIANT_ADD(init_io, init_max_write_floor_but_4097_is_taken) {
	.x = { .direct_io = true, .set = { { MAX_WRITE, 4097 } } },
	.write = true, .len = 8192, .largest = 4097,
};
FIXTURE_VARIANT_ADD(init_io, init_max_write_taken_control) {
	.x = { .direct_io = true, .set = { { MAX_WRITE, 65536 } } },
	.write = true, .len = 65536, .largest = 65536,
};

TEST_F(init_io, requests_are_cut_to_the_sizes_the_kernel_allows)
{
	/* page aligned: a request is cut at the pages the buffer spans */
	char *buf = mmap(NULL, variant->len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = open(path(&self->m, "file"), O_RDWR);
	ssize_t n;

	ASSERT_NE(MAP_FAILED, buf);
	ASSERT_LE(0, fd);
	if (variant->write) {
		n = write(fd, buf, variant->len);
		EXPECT_EQ(variant->len, n);
	} else {
		n = read(fd, buf, variant->len);
		EXPECT_EQ(6, n);	/* "hello\n": one READ, cut short */
	}
	close(fd);
	munmap(buf, variant->len);
	EXPECT_EQ(variant->largest, variant->write ? LOAD(self->sh->write_size) :
						     LOAD(self->sh->read_size));
}

/*
 * --- the background queue: a full queue blocks, its end unblocks ---
 *
 * Reads go out as background requests (the core negotiates
 * FUSE_ASYNC_READ) and every open drops the cached pages (no
 * FOPEN_KEEP_CACHE), so each open-read-close sends a READ in the
 * background, and its RELEASE too.  With max_background 1 each of them
 * fills the queue (fc->blocked); its end must clear it
 * (fuse_request_end(): num_background == max_background), or the next
 * read waits forever for a slot nobody holds.
 */

FIXTURE_VARIANT(init_background) {
	struct exchange x;
};
EXCHANGE_FIXTURE(init_background);

FIXTURE_VARIANT_ADD(init_background, max_background_unblocks) {
	.x = { .set = { { MAX_BACKGROUND, 1 } } },
};
/* ... the queue never full: nothing to unblock */
FIXTURE_VARIANT_ADD(init_background, max_background_unblocks_but_2_never_blocks) {
	.x = { .set = { { MAX_BACKGROUND, 2 } } },
};

TEST_F(init_background, each_read_finds_a_slot_after_the_last_one_ended)
{
	char buf[64];
	int i, fd;

	for (i = 0; i < 3; i++) {
		fd = open(path(&self->m, "file"), O_RDONLY);
		ASSERT_LE(0, fd);
		/* a read that never gets a slot: the harness's timeout fails it */
		ASSERT_EQ(6, read(fd, buf, sizeof(buf))) TH_LOG("read %d", i + 1);
		EXPECT_EQ(0, memcmp(buf, "hello\n", 6));
		close(fd);
	}
	EXPECT_EQ(3, LOAD(self->sh->reads));
}

/* --- old protocol minors: what the kernel no longer sends --- */

enum call { DO_SETLK, DO_RENAME2, DO_DIR_IOCTL };

FIXTURE_VARIANT(old_minor) {
	struct exchange x;
	enum call call;
	uint32_t opcode;
	unsigned int sent;
	int call_errno;		/* -1: any */
};
EXCHANGE_FIXTURE(old_minor);

FIXTURE_VARIANT_ADD(old_minor, init_minor_lt_6_flags) {
	.x = { .minor = 5, .flags_set = FUSE_POSIX_LOCKS }, .call = DO_SETLK,
	.opcode = FUSE_SETLK, .sent = 0, .call_errno = 0,
};
FIXTURE_VARIANT_ADD(old_minor, init_minor_6_flags_control) {
	.x = { .minor = 6, .flags_set = FUSE_POSIX_LOCKS }, .call = DO_SETLK,
	.opcode = FUSE_SETLK, .sent = 1, .call_errno = -1,
};
FIXTURE_VARIANT_ADD(old_minor, rename2_minor_lt_23) {
	.x = { .minor = 22 }, .call = DO_RENAME2, .opcode = FUSE_RENAME2,
	.sent = 0, .call_errno = EINVAL,
};
FIXTURE_VARIANT_ADD(old_minor, rename2_minor_23_control) {
	.x = { .minor = 23 }, .call = DO_RENAME2, .opcode = FUSE_RENAME2,
	.sent = 1, .call_errno = EINVAL,
};
FIXTURE_VARIANT_ADD(old_minor, dir_ioctl_minor_lt_18) {
	.x = { .minor = 17 }, .call = DO_DIR_IOCTL, .opcode = FUSE_IOCTL,
	.sent = 0, .call_errno = ENOTTY,
};
FIXTURE_VARIANT_ADD(old_minor, dir_ioctl_minor_18_control) {
	.x = { .minor = 18 }, .call = DO_DIR_IOCTL, .opcode = FUSE_IOCTL,
	.sent = 1, .call_errno = ENOTTY,
};

static int old_minor_call(struct mnt *m, enum call c)
{
	struct flock lk = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd, ret, arg = 0;

	if (c == DO_RENAME2)
		return renameat2(AT_FDCWD, path(m, "file"), AT_FDCWD,
				 path(m, "file2"), RENAME_NOREPLACE) ? errno : 0;
	fd = open(path(m, c == DO_SETLK ? "file" : "dir"),
		  c == DO_SETLK ? O_RDWR : O_RDONLY);
	if (fd < 0)
		return -2;
	if (c == DO_SETLK)
		ret = fcntl(fd, F_SETLK, &lk);
	else
		ret = ioctl(fd, _IOR('X', 1, int), &arg);
	ret = ret ? errno : 0;
	close(fd);
	return ret;
}

TEST_F(old_minor, an_old_server_is_not_sent_what_it_does_not_know)
{
	unsigned int from = nreq(&self->m);
	int ret = old_minor_call(&self->m, variant->call);

	if (variant->call_errno >= 0)
		EXPECT_EQ(variant->call_errno, ret);
	EXPECT_EQ(variant->sent, ops_since(&self->m, from, variant->opcode));
}

TEST_HARNESS_MAIN
