// SPDX-License-Identifier: GPL-2.0
/*
 * The real-world peer: libfuse 3.14's passthrough_ll, which knows nothing
 * of FUSE_COMPOUND and answers it ENOSYS, serves a short workload.
 *
 * No books are checked here: the server is libfuse's, not ours, and keeps
 * no ledger of lookups and handles the kernel took (fuse_test.h's
 * mnt_stop() checks only the servers of servers/).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "../../kselftest_harness.h"

#include "fuse_test.h"

/* --- the real-world peer: libfuse 3.14's passthrough_ll --- */

FIXTURE(passthrough_ll) {
	char src[64];
	char mnt[64];
	char log[80];
	pid_t daemon;
};

static bool is_mounted(const char *dir)
{
	struct stat a, b;
	char parent[80];

	snprintf(parent, sizeof(parent), "%s/..", dir);
	return !stat(dir, &a) && !stat(parent, &b) && a.st_dev != b.st_dev;
}

/* Block until @dir is a mount point: the mount table changing wakes poll */
static bool wait_mounted(const char *dir, pid_t daemon)
{
	struct pollfd p = { .events = POLLPRI };
	bool ok = false;

	p.fd = open("/proc/self/mountinfo", O_RDONLY);
	if (p.fd < 0)
		return false;
	while (!(ok = is_mounted(dir))) {
		char buf[4096];

		/* re-arm: read the table, then wait for its next change */
		lseek(p.fd, 0, SEEK_SET);
		while (read(p.fd, buf, sizeof(buf)) > 0)
			;
		if (is_mounted(dir)) {
			ok = true;
			break;
		}
		if (waitpid(daemon, NULL, WNOHANG) != 0)
			break;
		if (poll(&p, 1, -1) < 0)
			break;
	}
	close(p.fd);
	return ok;
}

FIXTURE_SETUP(passthrough_ll)
{
	const char *bin = getenv("FUSEGATE_PASSTHROUGH_LL");
	char opt[96];

	if (!bin || access(bin, X_OK))
		SKIP(return, "passthrough_ll not available (FUSEGATE_PASSTHROUGH_LL)");
	snprintf(self->src, sizeof(self->src), "/tmp/pt-src.XXXXXX");
	snprintf(self->mnt, sizeof(self->mnt), "/tmp/pt-mnt.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->src));
	ASSERT_NE(NULL, mkdtemp(self->mnt));
	snprintf(self->log, sizeof(self->log), "%s.log", self->mnt);
	snprintf(opt, sizeof(opt), "source=%s", self->src);
	self->daemon = fork();
	ASSERT_LE(0, self->daemon);
	if (self->daemon == 0) {
		int fd = open(self->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(fd, 1);
		dup2(fd, 2);
		/* -d: log every request, in the foreground */
		execl(bin, bin, "-d", "-o", opt, self->mnt, (char *)NULL);
		_exit(127);
	}
	ASSERT_TRUE(wait_mounted(self->mnt, self->daemon));
}

FIXTURE_TEARDOWN(passthrough_ll)
{
	if (self->daemon > 0) {
		umount2(self->mnt, MNT_DETACH);
		kill(self->daemon, SIGTERM);
		waitpid(self->daemon, NULL, 0);
	}
}

/* Count the requests with @opcode in a libfuse debug log */
static int count_libfuse_opcode(const char *log, int opcode)
{
	char line[512], needle[32];
	int n = 0;
	FILE *f = fopen(log, "r");

	if (!f)
		return -1;
	snprintf(needle, sizeof(needle), "(%d), nodeid:", opcode);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "opcode: ") && strstr(line, needle))
			n++;
	fclose(f);
	return n;
}

TEST_F(passthrough_ll, short_workload_passes_with_one_refused_compound_at_most)
{
	char a[96], b[96], buf[16] = {};
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd, entries = 0, compounds, status;

	snprintf(a, sizeof(a), "%s/a", self->mnt);
	snprintf(b, sizeof(b), "%s/b", self->mnt);
	fd = open(a, O_CREAT | O_WRONLY | O_EXCL, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(3, write(fd, "abc", 3));
	ASSERT_EQ(0, close(fd));
	fd = open(a, O_WRONLY | O_APPEND);
	ASSERT_LE(0, fd);
	ASSERT_EQ(2, write(fd, "de", 2));
	ASSERT_EQ(0, close(fd));
	fd = open(a, O_WRONLY | O_APPEND);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, write(fd, "f", 1));
	ASSERT_EQ(0, close(fd));
	ASSERT_EQ(0, stat(a, &st));
	EXPECT_EQ(6, st.st_size);
	d = opendir(self->mnt);
	ASSERT_NE(NULL, d);
	while ((de = readdir(d)))
		entries++;
	closedir(d);
	EXPECT_EQ(3, entries);	/* ".", ".." and "a" */
	ASSERT_EQ(0, rename(a, b));
	fd = open(b, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(6, read(fd, buf, sizeof(buf)));
	close(fd);
	EXPECT_STREQ("abcdef", buf);
	ASSERT_EQ(0, unlink(b));
	EXPECT_EQ(-1, stat(b, &st));

	/* unmount: the daemon ends and its log is complete */
	ASSERT_EQ(0, umount2(self->mnt, 0));
	ASSERT_EQ(self->daemon, waitpid(self->daemon, &status, 0));
	self->daemon = 0;
	compounds = count_libfuse_opcode(self->log, FUSE_COMPOUND);
	ASSERT_LE(0, compounds);
	TH_LOG("passthrough_ll saw %d FUSE_COMPOUND request(s)", compounds);
	/*
	 * libfuse 3.14 does not negotiate file handles: on every kernel its
	 * names are looked up with LOOKUP and its file created with CREATE,
	 * never by handle
	 */
	EXPECT_EQ(0, count_libfuse_opcode(self->log, FUSE_LOOKUP_HANDLE));
	EXPECT_EQ(0, count_libfuse_opcode(self->log, FUSE_MKOBJ_HANDLE));
	EXPECT_LE(1, count_libfuse_opcode(self->log, FUSE_LOOKUP));
	EXPECT_EQ(1, count_libfuse_opcode(self->log, FUSE_CREATE));
	if (!expect_compound()) {
		ASSERT_EQ(0, compounds);
		return;
	}
	/* one, answered ENOSYS; never another on this mount */
	EXPECT_EQ(1, compounds);
}

TEST_HARNESS_MAIN
