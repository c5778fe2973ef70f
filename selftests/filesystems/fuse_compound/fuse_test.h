/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every FUSE selftest of this directory shares: a mount served by a
 * fusegate test server (servers/) in a child process, the server's request
 * log in shared memory, and waits on the server's events (a byte on a pipe
 * per request logged and per reply written).  Nothing waits on time.
 *
 * Include after kselftest_harness.h.
 */
#ifndef FUSEGATE_FUSE_TEST_H
#define FUSEGATE_FUSE_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fuse_server.h"

/* --- helpers --- */

struct mnt {
	char dir[64];
	pid_t server;
	struct srv_log *log;
	int notify;		/* read end: a byte per server event */
	int control;		/* write end: tells the server to answer */
};

static inline bool expect_compound(void)
{
	const char *e = getenv("FUSEGATE_EXPECT_COMPOUND");

	return !e || strcmp(e, "0");
}

/* The server's stdout and stderr: the console in the guest, else nowhere */
static inline void quiet_server_output(void)
{
	int fd = open("/dev/console", O_WRONLY | O_NOCTTY);

	if (fd < 0)
		fd = open("/dev/null", O_WRONLY);
	if (fd < 0)
		return;
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	close(fd);
}

/* Mount a server with @cfg on a fresh directory; the server runs in a child */
static inline int mnt_start(struct mnt *m, struct srv_config cfg)
{
	int pipefd[2], ctl[2], fd;

	snprintf(m->dir, sizeof(m->dir), "/tmp/fusegate.XXXXXX");
	if (!mkdtemp(m->dir))
		return -errno;
	m->log = srv_log_create();
	if (!m->log || pipe2(pipefd, O_CLOEXEC) || pipe2(ctl, O_CLOEXEC))
		return -ENOMEM;
	fcntl(pipefd[1], F_SETFL, O_NONBLOCK);
	fcntl(pipefd[1], F_SETPIPE_SZ, 1 << 20);
	fd = srv_mount_owner(m->dir, cfg.mount_opts, !cfg.owner_only);
	if (fd < 0)
		return fd;
	cfg.mountpoint = m->dir;
	cfg.log = cfg.unwatched ? NULL : m->log;
	cfg.notify_fd = cfg.unwatched ? -1 : pipefd[1];
	cfg.control_fd = cfg.unwatched ? -1 : ctl[0];
	m->server = fork();
	if (m->server < 0)
		return -errno;
	if (m->server == 0) {
		/*
		 * The server goes with the test: a test that ends without its
		 * teardown (a failed setup) leaves nothing running.
		 */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/*
		 * Nor does it hold the test's output: a server stuck in the
		 * kernel (a mutant that oopses under it) must not keep the
		 * test driver waiting for the end of the output.
		 */
		quiet_server_output();
		close(pipefd[0]);
		close(ctl[1]);
		_exit(srv_run_fd(&cfg, fd));
	}
	/* only the server may hold /dev/fuse: its death must abort */
	close(fd);
	close(pipefd[1]);
	close(ctl[0]);
	m->notify = pipefd[0];
	m->control = ctl[1];
	return 0;
}

static inline void mnt_stop(struct mnt *m)
{
	if (umount2(m->dir, 0))
		umount2(m->dir, MNT_DETACH);
	if (m->server > 0) {
		kill(m->server, SIGKILL);
		waitpid(m->server, NULL, 0);
	}
	rmdir(m->dir);
	munmap(m->log, sizeof(*m->log));
	close(m->notify);
	close(m->control);
}

static inline char *path(struct mnt *m, const char *name)
{
	static char buf[2][128];
	static int i;

	i ^= 1;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", m->dir, name);
	return buf[i];
}

/* Block until the server reports its next event; false if it is gone */
static inline bool next_event(struct mnt *m)
{
	char c;

	return read(m->notify, &c, 1) == 1;
}

/* Block until the server has logged @n compounds */
static inline bool wait_compounds(struct mnt *m, unsigned int n)
{
	while (__atomic_load_n(&m->log->compounds, __ATOMIC_ACQUIRE) < n)
		if (!next_event(m))
			return false;
	return true;
}

/* Block until the server has written the reply to @rec */
static inline bool wait_replied(struct mnt *m, const struct srv_record *rec)
{
	while (!__atomic_load_n(&rec->replied, __ATOMIC_ACQUIRE))
		if (!next_event(m))
			return false;
	return true;
}

static inline unsigned int nreq(struct mnt *m)
{
	return __atomic_load_n(&m->log->n, __ATOMIC_ACQUIRE);
}

/* Requests (not subrequests) logged since record @from */
static inline unsigned int round_trips_since(struct mnt *m, unsigned int from)
{
	unsigned int i, n = 0;

	for (i = from; i < nreq(m); i++)
		if (!m->log->rec[i].sub && m->log->rec[i].opcode != FUSE_INTERRUPT)
			n++;
	return n;
}

static inline unsigned int count_since(struct mnt *m, unsigned int from,
				uint32_t opcode, bool sub)
{
	unsigned int i, n = 0;

	for (i = from; i < nreq(m); i++)
		if (m->log->rec[i].opcode == opcode && m->log->rec[i].sub == sub)
			n++;
	return n;
}

/* Requests of @opcode since record @from, alone or inside a compound */
static inline unsigned int ops_since(struct mnt *m, unsigned int from, uint32_t opcode)
{
	return count_since(m, from, opcode, false) +
	       count_since(m, from, opcode, true);
}

static inline const struct srv_record *compound_since(struct mnt *m, unsigned int from)
{
	unsigned int i;

	for (i = from; i < nreq(m); i++)
		if (m->log->rec[i].opcode == FUSE_COMPOUND && !m->log->rec[i].sub)
			return &m->log->rec[i];
	return NULL;
}

/*
 * The server's write of its own (srv_write_raw) while it answered the
 * first STATFS: wait for that reply; the write's record, or NULL
 */
static inline const struct srv_record *raw_write_in_statfs(struct mnt *m)
{
	const struct srv_record *rec = srv_log_find(m->log, FUSE_STATFS, 0);

	if (!rec || !wait_replied(m, rec))
		return NULL;
	return srv_log_find_raw(m->log, 0);
}

/* Evict every unused dentry and inode; true when the kernel did */
static inline bool drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, "2", 1) == 1;
	close(fd);
	return ok;
}

/* A syscall's result, or -errno when it failed */
static inline long ret_of(long ret)
{
	return ret < 0 ? -errno : ret;
}

/* Load the byte at @p in a child process: the byte, or -N for signal N */
static inline int load_in_child(const volatile char *p)
{
	pid_t pid = fork();
	int status;

	if (pid == 0)
		_exit((unsigned char)*p);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1000;
	return WIFSIGNALED(status) ? -WTERMSIG(status) : WEXITSTATUS(status);
}

/* open(@name, @flags) and close it; 0 or -errno */
static inline int open_close(struct mnt *m, const char *name, int flags)
{
	int fd = open(path(m, name), flags);

	if (fd < 0)
		return -errno;
	return close(fd) ? -errno : 0;
}

static inline int open_append_write(struct mnt *m, const char *name)
{
	int fd = open(path(m, name), O_WRONLY | O_APPEND);

	if (fd < 0)
		return -errno;
	if (write(fd, "x", 1) != 1) {
		close(fd);
		return -EIO;
	}
	return close(fd) ? -errno : 0;
}

/* --- kmemleak --- */

#define KMEMLEAK "/sys/kernel/debug/kmemleak"

/*
 * kmemleak reports only objects older than 5 s (MSECS_MIN_AGE): wait until
 * what was allocated by CLOCK_MONOTONIC second @last is that old
 */
static inline void wait_leak_age(long long last)
{
	struct timespec until = { .tv_sec = last + 6 };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR)
		;
}

static inline int kmemleak_cmd(const char *cmd)
{
	int fd = open(KMEMLEAK, O_WRONLY), ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, cmd, strlen(cmd)) < 0 ? -errno : 0;
	close(fd);
	return ret;
}

/*
 * Scan for leaks (twice, as kmemleak's documentation advises against
 * pointers in flight) and count the unreferenced objects whose allocation
 * passed through FUSE, printing each to @out; -ENOENT without kmemleak.
 * With @out NULL, only tell whether kmemleak is there (0 or -ENOENT).
 */
static inline int fuse_leaks(FILE *out)
{
	char line[512], entry[4096] = "";
	bool in_fuse = false;
	int leaks = 0, err;
	FILE *f;

	if (access(KMEMLEAK, F_OK))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	if (access(KMEMLEAK, F_OK))
		return -ENOENT;
	if (!out)
		return 0;
	err = kmemleak_cmd("scan");
	if (!err)
		err = kmemleak_cmd("scan");
	f = err ? NULL : fopen(KMEMLEAK, "r");
	if (!f)
		return err ? err : -errno;
	/* an entry starts with "unreferenced object", its backtrace follows */
	for (;;) {
		bool eof = !fgets(line, sizeof(line), f);

		if (eof || !strncmp(line, "unreferenced object", 19)) {
			if (in_fuse)
				fprintf(out, "# %s", entry);
			leaks += in_fuse;
			in_fuse = false;
			entry[0] = 0;
		}
		if (eof)
			break;
		if (strlen(entry) + strlen(line) < sizeof(entry))
			strcat(entry, line);
		if (strstr(line, " fuse_"))
			in_fuse = true;
	}
	fclose(f);
	return leaks;
}

static inline struct srv_config srv_cfg(enum srv_behaviour b, uint64_t entry,
				 uint64_t attr)
{
	struct srv_config cfg = {
		.behaviour = b, .entry_timeout = entry, .attr_timeout = attr,
		.notify_fd = -1, .control_fd = -1,
	};
	return cfg;
}

/* On a kernel without compounds: none must have been sent; then SKIP */
#define SKIP_WITHOUT_COMPOUND(m) do {					\
	if (!expect_compound()) {					\
		ASSERT_EQ(0, (m)->log->compounds);			\
		SKIP(return, "kernel without FUSE_COMPOUND");		\
	}								\
} while (0)

#define LONG 3600

/*
 * A fixture whose server has one behaviour and fixed timeouts (seconds),
 * its config (cfg) then changed by the statement @tweak: the mount is made
 * before each test and undone after it.
 */
#define SERVER_FIXTURE_CFG(name, behaviour, entry, attr, tweak)	\
	FIXTURE(name) {							\
		struct mnt m;						\
	};								\
	FIXTURE_SETUP(name)						\
	{								\
		struct srv_config cfg = srv_cfg(behaviour, entry, attr); \
									\
		tweak;							\
		ASSERT_EQ(0, mnt_start(&self->m, cfg));			\
	}								\
	FIXTURE_TEARDOWN(name)						\
	{								\
		mnt_stop(&self->m);					\
	}

#define SERVER_FIXTURE(name, behaviour, entry, attr)			\
	SERVER_FIXTURE_CFG(name, behaviour, entry, attr, (void)cfg)

#endif
