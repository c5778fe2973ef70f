/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What fuse_stress and fuse_faults share: the operations every caller runs
 * on the mount (stat, open and read, the O_APPEND open and write that
 * sends a compound, a directory listing, open and fstat of a directory),
 * each call's outcome counted by errno, and the leak scan that ends both
 * programs.  Include after fuse_test.h.
 */
#ifndef FUSEGATE_FUSE_WORKLOAD_H
#define FUSEGATE_FUSE_WORKLOAD_H

#include <dirent.h>

#define MAX_ERRNO	256

struct calls {
	unsigned int n;
	unsigned int errors[MAX_ERRNO];	/* calls that failed, by errno */
};

/* One call's outcome: @ret < 0 counts errno */
static inline void count(struct calls *c, long ret)
{
	c->n++;
	if (ret < 0)
		c->errors[errno < MAX_ERRNO ? errno : 0]++;
}

/*
 * Operation @op (any number: taken modulo 5) of the workload.  Threads run
 * it side by side: its paths are its own (path() shares two buffers).
 */
static inline void workload_op(struct mnt *m, struct calls *c, unsigned int op)
{
	char buf[4096], file[sizeof(m->dir) + 8], dir[sizeof(m->dir) + 8];
	struct stat st;
	DIR *d;
	int fd;

	snprintf(file, sizeof(file), "%s/file", m->dir);
	snprintf(dir, sizeof(dir), "%s/dir", m->dir);

	switch (op % 5) {
	case 0:
		count(c, stat(file, &st));
		break;
	case 1:
		fd = open(file, O_RDONLY);
		count(c, fd);
		if (fd >= 0) {
			count(c, read(fd, buf, sizeof(buf)));
			count(c, close(fd));
		}
		break;
	case 2:
		/* the open that sends a compound */
		fd = open(file, O_WRONLY | O_APPEND);
		count(c, fd);
		if (fd >= 0) {
			count(c, write(fd, "0123456789abcdef", 16));
			count(c, close(fd));
		}
		break;
	case 3:
		d = opendir(m->dir);
		count(c, d ? 0 : -1);
		if (d) {
			errno = 0;
			while (readdir(d))
				;
			count(c, errno ? -1 : 0);
			count(c, closedir(d));
		}
		break;
	default:
		fd = open(dir, O_RDONLY | O_DIRECTORY);
		count(c, fd);
		if (fd >= 0) {
			count(c, fstat(fd, &st));
			count(c, close(fd));
		}
		break;
	}
}

/* --- the leak scan after the runs --- */

#define LEAK_MARK	"/tmp/fuse_workload.last"

/* Note when FUSE last allocated for this program: at a run's teardown */
static inline void mark_fuse_activity(void)
{
	struct timespec now;
	FILE *f = fopen(LEAK_MARK, "w");

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (f) {
		fprintf(f, "%lld\n", (long long)now.tv_sec);
		fclose(f);
	}
}

/*
 * The last test of a program (the harness keeps the order of definition):
 * every object allocated through FUSE in the runs above and not freed is
 * reported and fails it.
 */
#define FUSE_LEAKS_TEST()						\
	FIXTURE(leaks) {						\
	};								\
	FIXTURE_SETUP(leaks)						\
	{								\
	}								\
	FIXTURE_TEARDOWN(leaks)						\
	{								\
	}								\
	TEST_F_TIMEOUT(leaks, no_object_allocated_through_fuse_is_leaked, 240) \
	{								\
		long long last = 0;					\
		FILE *f;						\
		int leaks;						\
									\
		if (fuse_leaks(NULL) == -ENOENT)			\
			SKIP(return, "kernel without kmemleak");	\
		f = fopen(LEAK_MARK, "r");				\
		ASSERT_NE(NULL, f) TH_LOG("no run before the leak scan"); \
		ASSERT_EQ(1, fscanf(f, "%lld", &last));			\
		fclose(f);						\
		wait_leak_age(last);					\
		leaks = fuse_leaks(stderr);				\
		ASSERT_LE(0, leaks) TH_LOG("kmemleak: %s", strerror(-leaks)); \
		EXPECT_EQ(0, leaks);					\
	}

#endif
