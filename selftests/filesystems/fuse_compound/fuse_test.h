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
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fuse_server.h"

/* --- helpers --- */

/* The books are written by the server process: read them as published */
#define LOAD_BOOKS(x)	__atomic_load_n(&(x), __ATOMIC_ACQUIRE)

struct mnt {
	char dir[64];
	pid_t server;
	struct srv_log *log;
	int notify;		/* read end: a byte per server event */
	int control;		/* write end: tells the server to answer */
	const char *books_why;	/* why the books are not checked at the end */
	struct books_kept {	/* what the test knows the kernel keeps */
		uint64_t nodeid;	/* 0: open handles of opcode */
		uint32_t opcode;
		uint64_t n;
		const char *why;
	} kept[4];
	unsigned int nkept;
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

	m->books_why = cfg.unwatched ? "the server keeps no books (unwatched)" :
					NULL;
	m->nkept = 0;
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

/*
 * Unmount, end the server and free the mount, without looking at its
 * books: for what has no test to fail (the fuzzer, a failed setup).  A
 * test's teardown calls mnt_stop(), which checks them first.
 */
static inline void mnt_kill(struct mnt *m)
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

/*
 * The first record of @opcode on @nodeid (any, when ~0) since @from,
 * request or subrequest
 */
static inline const struct srv_record *op_on(struct mnt *m, unsigned int from,
				      uint32_t opcode, uint64_t nodeid)
{
	unsigned int i;

	for (i = from; i < nreq(m); i++)
		if (m->log->rec[i].opcode == opcode &&
		    (nodeid == ~0ULL || m->log->rec[i].nodeid == nodeid))
			return &m->log->rec[i];
	return NULL;
}

static inline const struct srv_record *first_op(struct mnt *m, unsigned int from,
					 uint32_t opcode)
{
	return op_on(m, from, opcode, ~0ULL);
}

/* Wait until the server has read a request of @opcode since @from */
static inline bool wait_op(struct mnt *m, unsigned int from, uint32_t opcode)
{
	while (!first_op(m, from, opcode))
		if (!next_event(m))
			return false;
	return true;
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

/*
 * Abort connection @minor (the minor of its mounts' st_dev) through
 * fusectl; 0, or -errno of the open or the write
 */
static inline int fusectl_abort(unsigned int minor)
{
	char name[64];
	int fd, ret = 0;

	snprintf(name, sizeof(name), "/sys/fs/fuse/connections/%u/abort", minor);
	fd = open(name, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, "1", 1) != 1)
		ret = errno ? -errno : -EIO;
	close(fd);
	return ret;
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

/* --- the server's books, checked at the end of every test --- */

#ifdef TEST_HARNESS_MAIN	/* the books fail a test: not in fuse_fuzz */

/*
 * Say, in the test, why its books cannot be checked at its end: the
 * connection is gone (the server killed, the connection aborted, a lazy
 * unmount), or nothing can be asked of it.  Printed as a diagnostic.
 */
static inline void books_not_checked(struct mnt *m, const char *why)
{
	m->books_why = why;
}

/*
 * Say, in the test, that the kernel keeps @n lookups of @nodeid that it
 * read and never gives them back, and why (the kernel function that drops
 * them): the check then wants exactly that imbalance there, balance
 * everywhere else, and prints it as a diagnostic.
 */
static inline void books_expect_kept(struct mnt *m, uint64_t nodeid,
				     uint64_t n, const char *why)
{
	if (m->nkept < sizeof(m->kept) / sizeof(m->kept[0]))
		m->kept[m->nkept++] = (struct books_kept){ nodeid, 0, n, why };
}

/* The same for @n open handles read in replies to @opcode, never released */
static inline void books_expect_kept_fh(struct mnt *m, uint32_t opcode,
					uint64_t n, const char *why)
{
	if (m->nkept < sizeof(m->kept) / sizeof(m->kept[0]))
		m->kept[m->nkept++] = (struct books_kept){ 0, opcode, n, why };
}

/* What the test says the kernel keeps of @nodeid (or of fhs of @opcode) */
static inline const struct books_kept *books_kept(struct mnt *m, uint64_t nodeid,
						  uint32_t opcode)
{
	unsigned int i;

	for (i = 0; i < m->nkept; i++)
		if (nodeid ? m->kept[i].nodeid == nodeid :
			     !m->kept[i].nodeid && m->kept[i].opcode == opcode)
			return &m->kept[i];
	return NULL;
}

/* The books of one nodeid, wherever they are kept */
static inline bool books_node(struct mnt *m, unsigned int i, uint64_t *nodeid,
			      uint64_t *granted, uint64_t *forgotten,
			      uint32_t *by)
{
	const struct srv_node_books *b;

	if (i < SRV_MAX_NODES) {
		*nodeid = i;
		*granted = LOAD_BOOKS(m->log->granted[i]);
		*forgotten = LOAD_BOOKS(m->log->forgotten[i]);
		*by = m->log->granted_by[i];
		return true;
	}
	b = &m->log->node_spill[i - SRV_MAX_NODES];
	*nodeid = b->nodeid;
	*granted = LOAD_BOOKS(b->granted);
	*forgotten = LOAD_BOOKS(b->forgotten);
	*by = b->granted_by;
	return b->nodeid != 0;
}

static inline const struct srv_fh_books *books_fh(struct mnt *m, unsigned int i)
{
	return i < SRV_MAX_FH ? &m->log->fh[i] : &m->log->fh_spill[i - SRV_MAX_FH];
}

/*
 * Lookups granted and not given back, and open handles not released,
 * over every nodeid but the root's (the kernel holds the root until the
 * unmount, which gives nothing back: no FORGET at unmount) and every fh
 */
static inline uint64_t books_outstanding(struct mnt *m)
{
	uint64_t nodeid, granted, forgotten, n = 0;
	unsigned int i;
	uint32_t by;

	for (i = 0; i < SRV_MAX_NODES + SRV_BOOKS_SPILL; i++)
		if (books_node(m, i, &nodeid, &granted, &forgotten, &by) &&
		    nodeid != FUSE_ROOT_ID && granted > forgotten)
			n += granted - forgotten;
	for (i = 0; i < SRV_MAX_FH + SRV_BOOKS_SPILL; i++)
		if (books_fh(m, i)->opened > books_fh(m, i)->released)
			n += books_fh(m, i)->opened - books_fh(m, i)->released;
	/* what the test says the kernel keeps is no longer waited for */
	for (i = 0; i < m->nkept; i++)
		n -= n < m->kept[i].n ? n : m->kept[i].n;
	return n;
}

/* Every imbalance, each reported (with @log); their number */
static inline int books_report(struct __test_metadata *_metadata, struct mnt *m,
			       bool log)
{
	uint64_t nodeid, granted, forgotten;
	unsigned int i;
	int bad = 0;
	uint32_t by;

	const struct books_kept *k;
	uint64_t kept_fh[4] = { 0 };

	for (i = 0; i < SRV_MAX_NODES + SRV_BOOKS_SPILL; i++) {
		if (!books_node(m, i, &nodeid, &granted, &forgotten, &by) ||
		    nodeid == FUSE_ROOT_ID)
			continue;
		k = nodeid ? books_kept(m, nodeid, 0) : NULL;
		if (k && granted == forgotten + k->n) {
			if (log)
				ksft_print_msg("books: nodeid %llu: %llu of %llu lookups kept, as the test says: %s\n",
					       (unsigned long long)nodeid,
					       (unsigned long long)k->n,
					       (unsigned long long)granted, k->why);
			continue;
		}
		if (!k && granted == forgotten)
			continue;
		if (k && log)
			TH_LOG("books: nodeid %llu: the test says %llu lookups are kept (%s)",
			       (unsigned long long)nodeid,
			       (unsigned long long)k->n, k->why);
		if (log)
			TH_LOG("books: nodeid %llu: %llu lookups granted (the last by opcode %u), %llu given back%s",
		       (unsigned long long)nodeid, (unsigned long long)granted,
		       by, (unsigned long long)forgotten,
		       granted < forgotten ? ": forgotten more than granted" : "");
		bad++;
	}
	for (i = 0; i < SRV_MAX_FH + SRV_BOOKS_SPILL; i++) {
		const struct srv_fh_books *b = books_fh(m, i);

		if (b->opened == 1 && b->released == 1)
			continue;
		if (!b->opened && !b->released)
			continue;
		k = books_kept(m, 0, b->opened_by);
		if (k && b->released < b->opened) {
			kept_fh[k - m->kept] += b->opened - b->released;
			continue;
		}
		if (!log)
			;
		else if (!b->opened)
			TH_LOG("books: fh %llu: released %u times (opcode %u), never opened",
			       (unsigned long long)b->fh, b->released, b->released_by);
		else
			TH_LOG("books: fh %llu: opened %u times (opcode %u), released %u times%s",
			       (unsigned long long)b->fh, b->opened, b->opened_by,
			       b->released, b->released > b->opened ?
			       ": released more than opened" :
			       b->released < b->opened ? ": never released" :
			       ": one handle opened twice");
		bad++;
	}
	for (i = 0; i < m->nkept; i++) {
		k = &m->kept[i];
		if (k->nodeid)
			continue;
		if (kept_fh[i] == k->n) {
			if (log)
				ksft_print_msg("books: %llu handles opened by opcode %u kept, as the test says: %s\n",
					       (unsigned long long)k->n, k->opcode, k->why);
			continue;
		}
		if (log)
			TH_LOG("books: %llu handles opened by opcode %u never released; the test says %llu (%s)",
			       (unsigned long long)kept_fh[i], k->opcode,
			       (unsigned long long)k->n, k->why);
		bad++;
	}
	/* a nodeid the test says is kept, and never granted */
	for (i = 0; i < m->nkept; i++) {
		k = &m->kept[i];
		if (!k->nodeid || k->nodeid >= SRV_MAX_NODES ||
		    LOAD_BOOKS(m->log->granted[k->nodeid]))
			continue;
		if (log)
			TH_LOG("books: nodeid %llu: the test says %llu lookups are kept (%s), none was granted",
			       (unsigned long long)k->nodeid,
			       (unsigned long long)k->n, k->why);
		bad++;
	}
	if (log && m->log->books_spill_full)
		TH_LOG("books: %u nodeids or fhs beyond the spill tables",
		       m->log->books_spill_full);
	if (log && m->log->books_unknown_reply)
		TH_LOG("books: %u replies taken to requests the books never saw",
		       m->log->books_unknown_reply);
	if (log && m->log->books_model_disagrees)
		TH_LOG("books: %u replies the model (books_read()) judged unlike the kernel",
		       m->log->books_model_disagrees);
	return bad + m->log->books_spill_full + m->log->books_unknown_reply +
	       m->log->books_model_disagrees;
}

static inline int drop_dentries_and_inodes(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY), ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, "2", 1) == 1 ? 0 : -errno;
	close(fd);
	return ret;
}

/*
 * A barrier: a STATFS the server answers, and its reply in the log.  The
 * server reads its requests one at a time, in the order the kernel hands
 * them out, and counts a FORGET or a RELEASE when it reads it: once the
 * STATFS is answered, everything handed out before it is in the books.
 */
static inline int books_barrier(struct mnt *m)
{
	unsigned int i, from = nreq(m);
	struct statfs st;

	if (statfs(m->dir, &st))
		return -errno;
	for (i = from; i < nreq(m); i++)
		if (m->log->rec[i].opcode == FUSE_STATFS && !m->log->rec[i].sub)
			return wait_replied(m, &m->log->rec[i]) ? 0 : -EPIPE;
	return 0;	/* a full log: the statfs() returned, that is the barrier */
}

/* A child's dentry holds its parent's: the deepest tree a test makes */
#define BOOKS_DEPTH	4

/*
 * Bring the books to where they stand once the kernel has given back all
 * it can: the test's files closed, the connection up, the test's
 * conversation over (its edit has no say from now).  Returns 0 or the
 * errno of drop_caches or of a barrier; *barriers: how many it took.
 *
 * The kernel gives lookups back when it evicts an inode, and an unmount
 * evicts without telling the server: so the check drops the dentries and
 * inodes first (drop_caches 2; fuse evicts an inode at its last iput,
 * generic_delete_inode, and queues its FORGET then, before drop_caches
 * returns).  A RELEASE is queued at the close that dropped the file, in the
 * background (fuse_file_put()), and its reply puts the inode it held
 * (fuse_prepare_release()'s igrab): that inode goes at the next drop.
 *
 * Then it waits for what was queued with barriers, never on time, and
 * looks at the books after each.  How many, at most: in
 * fuse_dev_do_read(), with forgets and requests both pending, forgets go
 * first while forget_batch is positive, then up to 8 requests (it counts
 * down from 0 to -8, where it is set to 16 again), then up to 16 forgets.
 * So of 9 barriers in a row, at least one has a forget read before it
 * (a BATCH_FORGET holds every one queued; a single FORGET, minor < 16,
 * one nodeid, 16 of them a turn): 9 * (1 + N / 16) barriers give back N
 * outstanding lookups and handles.  BOOKS_DEPTH more let a tree go one
 * level a round, and one more a RELEASE's inode.
 */
static inline int books_settle(struct mnt *m, unsigned int *barriers)
{
	unsigned int round, rounds;
	int err = 0;

	/* the test's conversation is over: no edit of the test's from now */
	__atomic_store_n(&m->log->books_closed, 1, __ATOMIC_RELEASE);
	rounds = 9 * (1 + books_outstanding(m) / 16) + BOOKS_DEPTH + 1;
	for (round = 0; round < rounds && !err; round++) {
		err = drop_dentries_and_inodes();
		if (!err)
			err = books_barrier(m);
		if (!err && !books_outstanding(m)) {
			round++;
			break;
		}
	}
	*barriers = round;
	return err;
}

/*
 * The check at the end of every test: nothing granted leaked (every
 * nodeid but the root was given back what it was granted, every fh read
 * was released), nothing was given back that was not granted, nothing
 * twice.  Each imbalance is reported and fails the test.
 */
static inline void books_check(struct __test_metadata *_metadata, struct mnt *m)
{
	unsigned int barriers;
	int err;

	if (m->books_why) {
		ksft_print_msg("books not checked: %s\n", m->books_why);
		return;
	}
	if (_metadata->exit_code == KSFT_FAIL) {
		ksft_print_msg("books not checked: the test failed before its end\n");
		return;
	}
	if (m->server <= 0 || waitpid(m->server, NULL, WNOHANG) != 0) {
		m->server = 0;
		EXPECT_TRUE(false) TH_LOG("books: the server is gone, and the test does not say why (books_not_checked())");
		return;
	}
	err = books_settle(m, &barriers);
	EXPECT_EQ(0, err) TH_LOG("books: drop_caches or the barrier failed: %s (the connection is not up? then say books_not_checked())",
				 strerror(-err));
	EXPECT_EQ(0, books_report(_metadata, m, true))
		TH_LOG("books: the server's books do not balance after %u barriers",
		       barriers);
}

/* The end of a test: its server's books checked, then the mount undone */
static inline void mnt_stop(struct __test_metadata *_metadata, struct mnt *m)
{
	books_check(_metadata, m);
	mnt_kill(m);
}

#endif

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
		mnt_stop(_metadata, &self->m);				\
	}

#define SERVER_FIXTURE(name, behaviour, entry, attr)			\
	SERVER_FIXTURE_CFG(name, behaviour, entry, attr, (void)cfg)

#endif
