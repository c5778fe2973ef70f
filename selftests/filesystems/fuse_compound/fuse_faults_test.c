// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation failures inside FUSE, systematically: for each operation of
 * the workload (fuse_workload.h), fail its first allocation through
 * fs/fuse, then its second, and so on until the operation completes with
 * none failed (/proc/thread-self/fail-nth, failslab and fail_page_alloc
 * filtered to stacks that pass through fs/fuse), under compounds and under
 * their fallback.  Every failed call must fail with ENOMEM, and after each
 * failure the mount works as before, compounds included; a leak scan ends
 * the program.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../kselftest_harness.h"

#include "fuse_test.h"
#include "fuse_workload.h"

#define FAULT_DIR	"/sys/kernel/debug"
#define MAX_NTH		64	/* allocations through FUSE of one operation */

static int write_knob(const char *attr, const char *file, const char *value)
{
	char name[128];
	int fd, ret;

	snprintf(name, sizeof(name), FAULT_DIR "/%s/%s", attr, file);
	fd = open(name, O_WRONLY);
	if (fd < 0)
		return -errno;
	ret = write(fd, value, strlen(value)) < 0 ? -errno : 0;
	close(fd);
	return ret;
}

static int cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/*
 * The addresses of fs/fuse's code: the run of text symbols named fuse_*
 * around fuse_request_end (dev.c), apart from those of init and exit
 * code, which sit elsewhere
 */
static bool fuse_text(unsigned long *start, unsigned long *end)
{
	static unsigned long a[8192];
	unsigned long center = 0;
	char line[256], type, name[200];
	unsigned int n = 0, i, c;
	FILE *f = fopen("/proc/kallsyms", "r");

	while (f && n < 8192 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx %c %199s", &a[n], &type, name) != 3 ||
		    (type != 't' && type != 'T') || strncmp(name, "fuse_", 5) ||
		    !a[n])
			continue;
		if (!strcmp(name, "fuse_request_end"))
			center = a[n];
		n++;
	}
	if (f)
		fclose(f);
	if (!center)
		return false;
	qsort(a, n, sizeof(a[0]), cmp_ulong);
	for (c = 0; a[c] != center; c++)
		;
	for (i = c; i > 0 && a[i] - a[i - 1] < (64 << 10); i--)
		;
	*start = a[i];
	for (i = c; i + 1 < n && a[i + 1] - a[i] < (64 << 10); i++)
		;
	*end = a[i] + 4096;	/* the last function's body */
	return true;
}

static void setup_faults(struct __test_metadata *_metadata, const char *attr,
			 unsigned long start, unsigned long end)
{
	char v[32];

	/* nothing fails but the n-th allocation fail-nth names */
	ASSERT_EQ(0, write_knob(attr, "probability", "0"));
	ASSERT_EQ(0, write_knob(attr, "ignore-gfp-wait", "N"));
	ASSERT_EQ(0, write_knob(attr, "verbose", "0"));
	ASSERT_EQ(0, write_knob(attr, "stacktrace-depth", "32"));
	snprintf(v, sizeof(v), "%lu", start);
	ASSERT_EQ(0, write_knob(attr, "require-start", v));
	snprintf(v, sizeof(v), "%lu", end);
	ASSERT_EQ(0, write_knob(attr, "require-end", v));
}

/* Fail the @n-th allocation through FUSE this thread makes from now on */
static int set_fail_nth(unsigned int n)
{
	char v[16];
	int fd = open("/proc/thread-self/fail-nth", O_WRONLY), ret;

	if (fd < 0)
		return -errno;
	snprintf(v, sizeof(v), "%u", n);
	ret = write(fd, v, strlen(v)) < 0 ? -errno : 0;
	close(fd);
	return ret;
}

/* Whether the failure set_fail_nth() asked for was injected; clears it */
static bool fail_nth_injected(void)
{
	char v[16] = "";
	int fd = open("/proc/thread-self/fail-nth", O_RDONLY);
	bool done = fd >= 0 && read(fd, v, sizeof(v) - 1) > 0 && atoi(v) == 0;

	if (fd >= 0)
		close(fd);
	set_fail_nth(0);
	return done;
}

FIXTURE(faults) {
	struct mnt m;
};

FIXTURE_VARIANT(faults) {
	enum srv_behaviour behaviour;
};

FIXTURE_VARIANT_ADD(faults, compound) {
	.behaviour = SRV_COMPLIANT,
};

FIXTURE_VARIANT_ADD(faults, fallback) {
	.behaviour = SRV_COMPOUND_ENOSYS,
};

FIXTURE_SETUP(faults)
{
	unsigned long start, end;

	if (access(FAULT_DIR "/failslab", F_OK))
		mount("debugfs", FAULT_DIR, "debugfs", 0, NULL);
	if (access(FAULT_DIR "/failslab", F_OK))
		SKIP(return, "kernel without failslab");
	ASSERT_TRUE(fuse_text(&start, &end));
	setup_faults(_metadata, "failslab", start, end);
	setup_faults(_metadata, "fail_page_alloc", start, end);
	ASSERT_EQ(0, mnt_start(&self->m, srv_cfg(variant->behaviour, 0, 0)));
}

FIXTURE_TEARDOWN(faults)
{
	set_fail_nth(0);
	mnt_stop(_metadata, &self->m);
	mark_fuse_activity();
}

TEST_F_TIMEOUT(faults, every_allocation_failure_is_a_clean_error, 240)
{
	unsigned int op, n, e, compounds, injected = 0, failed = 0;
	struct calls c = { 0 };

	for (op = 0; op < 5; op++) {
		for (n = 1; n <= MAX_NTH; n++) {
			ASSERT_EQ(0, set_fail_nth(n));
			workload_op(&self->m, &c, op);
			if (!fail_nth_injected())
				break;		/* it made fewer than n */
			injected++;
			/* after each failure, the mount works as before */
			compounds = self->m.log->compounds;
			ASSERT_EQ(0, open_append_write(&self->m, "file"))
				TH_LOG("operation %u, allocation %u failed", op, n);
			if (variant->behaviour == SRV_COMPLIANT && expect_compound())
				ASSERT_EQ(compounds + 1, self->m.log->compounds)
					TH_LOG("allocation %u of operation %u failed: compounds are off",
					       n, op);
		}
		EXPECT_GT(MAX_NTH + 1, n) TH_LOG("operation %u never completed", op);
		TH_LOG("operation %u: %u allocations through FUSE, each failed once",
		       op, n - 1);
	}
	for (e = 0; e < MAX_ERRNO; e++) {
		failed += c.errors[e];
		if (c.errors[e] && e != ENOMEM)
			TH_LOG("%u calls failed with %s", c.errors[e], strerror(e));
		EXPECT_TRUE(!c.errors[e] || e == ENOMEM);
	}
	TH_LOG("%u allocations failed in FUSE; %u calls failed", injected, failed);
	EXPECT_LT(0, injected);
}

FUSE_LEAKS_TEST()

TEST_HARNESS_MAIN
