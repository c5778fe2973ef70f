// SPDX-License-Identifier: GPL-2.0
/*
 * Many callers on one mount while the connection is shaken, and a leak
 * scan after them.
 *
 * stress: NR_WORKERS threads open, stat, read, append and list one mount.
 * The server holds its replies back while requests keep coming and writes
 * them in a shuffled order with short service delays, so several requests
 * (compounds among them) are in flight at once and their answers cross.
 * A third of the way in, each variant disturbs the run at a defined state,
 * "a worker waits on a request the server holds": a signal to that worker
 * (the kernel must send FUSE_INTERRUPT naming the request; ROUNDS times),
 * or once, an abort through fusectl, the server killed, or a lazy unmount.
 * Every caller must come back, with an errno the variant documents.
 *
 * leaks: a kmemleak scan after the runs reports no object whose allocation
 * passed through FUSE.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../kselftest_harness.h"

#include "fuse_test.h"
#include "fuse_workload.h"

#define NR_WORKERS	8
#define OPS		150	/* per worker */
#define WARM_UP		(NR_WORKERS * OPS / 3)	/* operations before the first */
#define MAX_HELD	64
#define ROUNDS		8	/* signals in the interrupted variant */

/* --- the server's side: replies held back and written shuffled --- */

struct held {
	unsigned char buf[8192];
	size_t len;
};

/* Shared between the test and its server process */
struct shake {
	/*
	 * Taken by the server while it changes the queue or writes from it,
	 * and by the test while it reads the queue or sets hold: once hold is
	 * set under it, what the test sees held stays held.
	 */
	pthread_mutex_t lock;
	int hold;			/* the test asks: write nothing yet */
	unsigned int nheld;
	pid_t held_pid[MAX_HELD];	/* the caller of each held request */
	uint64_t held_unique[MAX_HELD];
	uint32_t held_opcode[MAX_HELD];
	unsigned int workers_done;
	unsigned int ops_done;		/* by all workers */
	unsigned int max_compounds;	/* most compounds held at once */
	unsigned int compounds_held;
	uint64_t rng;
	struct held q[MAX_HELD];
	int event_fd;			/* a byte per reply held while the test
					 * holds, per batch of replies written,
					 * per stage of the workers */
};

static struct shake *sh;

static void lock_queue(void)
{
	/* robust: a server killed with the lock held leaves it usable */
	if (pthread_mutex_lock(&sh->lock) == EOWNERDEAD)
		pthread_mutex_consistent(&sh->lock);
}

static void unlock_queue(void)
{
	pthread_mutex_unlock(&sh->lock);
}

/* A byte to the test; never blocks (a full pipe has woken it already) */
static void event(char c)
{
	if (write(sh->event_fd, &c, 1) != 1 && errno != EAGAIN)
		perror("fuse_stress: event");
}

static uint64_t next_rand(void)
{
	sh->rng = sh->rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return sh->rng >> 33;
}

/*
 * Whether the caller of a request of @opcode waits for its reply in the
 * request (and can be interrupted there): not a release, which goes in
 * the background, nor a READ, which readahead may send without waiting
 */
static bool caller_waits(uint32_t opcode)
{
	return opcode != FUSE_RELEASE && opcode != FUSE_RELEASEDIR &&
	       opcode != FUSE_READ && opcode != FUSE_INIT;
}

/*
 * Write the held replies in a shuffled order, with short service delays:
 * all of them, or while the test holds, those no caller waits on (a READ
 * of readahead holds its folio locked, and an open that invalidates the
 * page cache waits for it: held, it would block callers the test does not
 * know about)
 */
static void write_held(const struct srv_config *cfg, int fd)
{
	unsigned int i, n, may[MAX_HELD], last, written = 0;
	bool hold;
	int err;

	lock_queue();
	for (;;) {
		/* what may go now: everything, or what no caller waits on */
		hold = __atomic_load_n(&sh->hold, __ATOMIC_ACQUIRE);
		for (i = 0, n = 0; i < sh->nheld; i++)
			if (!hold || !caller_waits(sh->held_opcode[i]))
				may[n++] = i;
		if (!n)
			break;
		i = may[next_rand() % n];
		usleep(next_rand() % 200);	/* models service time */
		err = srv_write(cfg->log, fd, sh->q[i].buf, sh->q[i].len);
		if (err && err != ENOENT)
			break;			/* the connection is gone */
		written++;
		last = --sh->nheld;
		sh->q[i] = sh->q[last];
		sh->held_pid[i] = sh->held_pid[last];
		sh->held_unique[i] = sh->held_unique[last];
		sh->held_opcode[i] = sh->held_opcode[last];
	}
	if (!sh->nheld)
		sh->compounds_held = 0;
	unlock_queue();
	if (written)
		event('r');
}

static void hold_reply(const struct srv_config *cfg,
		       const struct fuse_in_header *req, struct srv_reply *r)
{
	unsigned int i;

	lock_queue();
	if (sh->nheld == MAX_HELD || r->len > sizeof(sh->q[0].buf)) {
		unlock_queue();
		return;			/* written now, in order */
	}
	i = sh->nheld;
	memcpy(sh->q[i].buf, r->buf, r->len);
	((struct fuse_out_header *)sh->q[i].buf)->len = r->len;
	sh->q[i].len = r->len;
	sh->held_pid[i] = req->pid;
	sh->held_unique[i] = req->unique;
	sh->held_opcode[i] = req->opcode;
	if (req->opcode == FUSE_COMPOUND && ++sh->compounds_held > sh->max_compounds)
		sh->max_compounds = sh->compounds_held;
	__atomic_store_n(&sh->nheld, i + 1, __ATOMIC_RELEASE);
	r->drop = true;
	unlock_queue();
	if (__atomic_load_n(&sh->hold, __ATOMIC_ACQUIRE))
		event('h');
}

/* --- the callers --- */

enum shake_kind { SHAKE_NONE, SHAKE_SIGNAL, SHAKE_ABORT, SHAKE_KILL, SHAKE_LAZY_UMOUNT };

struct worker {
	pthread_t thread;
	pid_t tid;
	struct mnt *m;
	unsigned int seed;
	struct calls c;
};

static void on_signal(int sig)
{
}

static void *worker_run(void *arg)
{
	/* no SA_RESTART: a call the signal ends returns EINTR */
	struct sigaction sa = { .sa_handler = on_signal };
	struct worker *w = arg;
	unsigned int i;

	w->tid = syscall(SYS_gettid);
	sigaction(SIGUSR1, &sa, NULL);
	for (i = 0; i < OPS; i++) {
		workload_op(w->m, &w->c, w->seed + i * 7 + i / 5);
		if (__atomic_add_fetch(&sh->ops_done, 1, __ATOMIC_RELEASE) == WARM_UP)
			event('w');
	}
	__atomic_add_fetch(&sh->workers_done, 1, __ATOMIC_RELEASE);
	event('d');
	return NULL;
}

FIXTURE(stress) {
	struct mnt m;
	struct worker w[NR_WORKERS];
	int events[2];		/* a byte per reply the server held */
	unsigned int conn;	/* the fusectl connection number */
};

FIXTURE_VARIANT(stress) {
	enum shake_kind shake;
	int allowed[4];		/* the errnos a call may end with, but 0 */
	int expected;		/* an errno that must be seen, or 0 */
};

/* nothing but the server's own shuffling: every call succeeds */
FIXTURE_VARIANT_ADD(stress, shuffled_replies) {
	.shake = SHAKE_NONE,
};

/*
 * a worker waiting on a held request gets a signal: the kernel sends
 * FUSE_INTERRUPT naming that request, which the server then answers as it
 * would have (a call the signal ends before its request was read: EINTR)
 */
FIXTURE_VARIANT_ADD(stress, interrupted) {
	.shake = SHAKE_SIGNAL,
	.allowed = { EINTR },
};

/* fusectl's abort with requests held: in flight ECONNABORTED, after ENOTCONN */
FIXTURE_VARIANT_ADD(stress, connection_aborted) {
	.shake = SHAKE_ABORT,
	.allowed = { ECONNABORTED, ENOTCONN },
	.expected = ECONNABORTED,
};

/* the server is killed with requests held: as an abort */
FIXTURE_VARIANT_ADD(stress, server_killed) {
	.shake = SHAKE_KILL,
	.allowed = { ECONNABORTED, ENOTCONN },
	.expected = ECONNABORTED,
};

/*
 * umount -l with requests held: they complete, and new lookups of the
 * mount's names miss (the directory underneath is empty)
 */
FIXTURE_VARIANT_ADD(stress, lazy_umount) {
	.shake = SHAKE_LAZY_UMOUNT,
	.allowed = { ENOENT },
	.expected = ENOENT,
};

FIXTURE_SETUP(stress)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, 0, 0);
	pthread_mutexattr_t attr;
	struct stat st;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	ASSERT_EQ(0, pipe2(self->events, O_CLOEXEC));
	/* the server may be gone when the test wakes it */
	signal(SIGPIPE, SIG_IGN);
	sh->event_fd = self->events[1];
	fcntl(self->events[1], F_SETFL, O_NONBLOCK);
	fcntl(self->events[1], F_SETPIPE_SZ, 1 << 20);
	ASSERT_EQ(0, pthread_mutexattr_init(&attr));
	ASSERT_EQ(0, pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED));
	ASSERT_EQ(0, pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST));
	ASSERT_EQ(0, pthread_mutex_init(&sh->lock, &attr));
	sh->rng = 0x5eed;
	cfg.edit_reply = hold_reply;
	cfg.idle = write_held;
	ASSERT_EQ(0, mnt_start(&self->m, cfg));
	ASSERT_EQ(0, stat(self->m.dir, &st));
	self->conn = minor(st.st_dev);
}

FIXTURE_TEARDOWN(stress)
{
	__atomic_store_n(&sh->hold, 0, __ATOMIC_RELEASE);
	mnt_stop(_metadata, &self->m);
	mark_fuse_activity();
}

/* Print a task's state, wait channel and kernel stack */
static void dump_task(const char *who, pid_t pid, pid_t tid)
{
	static const char *const files[] = { "stat", "wchan", "stack" };
	char name[96], buf[2048];
	unsigned int k;
	ssize_t n;
	int fd;

	for (k = 0; k < 3; k++) {
		snprintf(name, sizeof(name), "/proc/%d/task/%d/%s", pid, tid, files[k]);
		fd = open(name, O_RDONLY);
		n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		if (fd >= 0)
			close(fd);
		buf[n > 0 ? n : 0] = 0;
		fprintf(stderr, "# %s %d %s: %s\n", who, tid, files[k], buf);
	}
}

/*
 * Wait for a byte on @fd; after STALL_REPORT seconds without one, print
 * where everything stands (once) and wait on: the harness's time limit
 * ends the test, and the report says why
 */
#define STALL_REPORT	30
static ssize_t wait_byte(FIXTURE_DATA(stress) *self, int fd, const char *what)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	unsigned int i;
	char c;

	if (poll(&p, 1, STALL_REPORT * 1000) == 0) {
		fprintf(stderr, "# no progress for %d s while %s; hold %d, %u held:\n",
			STALL_REPORT, what, sh->hold, sh->nheld);
		for (i = 0; i < sh->nheld; i++)
			fprintf(stderr, "#   pid %d unique %" PRIu64 " opcode %u\n",
				sh->held_pid[i], sh->held_unique[i], sh->held_opcode[i]);
		for (i = 0; i < NR_WORKERS; i++)
			dump_task("worker", getpid(), self->w[i].tid);
		if (self->m.server)
			dump_task("server", self->m.server, self->m.server);
	}
	return read(fd, &c, 1);
}

/*
 * Wait until a worker waits on a held request (hold is set); the worker
 * and the request's unique (a compound's when one is held), or NULL if all
 * workers are done
 */
static struct worker *held_worker(FIXTURE_DATA(stress) *self, uint64_t *unique)
{
	struct worker *w = NULL;
	unsigned int i, j, any;

	for (;;) {
		lock_queue();
		for (any = 0; any < 2 && !w; any++)
			for (i = 0; i < sh->nheld && !w; i++)
				for (j = 0; j < NR_WORKERS && !w; j++)
					if (sh->held_pid[i] == self->w[j].tid &&
					    caller_waits(sh->held_opcode[i]) &&
					    (any || sh->held_opcode[i] == FUSE_COMPOUND)) {
						w = &self->w[j];
						*unique = sh->held_unique[i];
					}
		unlock_queue();
		if (w)
			return w;
		if (__atomic_load_n(&sh->workers_done, __ATOMIC_ACQUIRE) == NR_WORKERS)
			return NULL;
		/* the next reply held, flush, or worker done */
		if (wait_byte(self, self->events[0], "looking for a held caller") != 1)
			return NULL;
	}
}

/* From now on, the server holds its replies, those it is writing excepted */
static void hold(void)
{
	lock_queue();
	__atomic_store_n(&sh->hold, 1, __ATOMIC_RELEASE);
	unlock_queue();
}

/* Let the server write what it holds (it may be gone) */
static void release(FIXTURE_DATA(stress) *self)
{
	__atomic_store_n(&sh->hold, 0, __ATOMIC_RELEASE);
	if (self->m.server && write(self->m.control, "g", 1) != 1)
		perror("fuse_stress: wake the server");
}

/* Wait until the server has written the reply to @unique; false if it is gone */
static bool wait_written(FIXTURE_DATA(stress) *self, uint64_t unique)
{
	bool held;
	unsigned int i;

	for (;;) {
		lock_queue();
		for (i = 0, held = false; i < sh->nheld; i++)
			held |= sh->held_unique[i] == unique;
		unlock_queue();
		if (!held)
			return true;
		if (wait_byte(self, self->events[0], "waiting for a reply to be written") != 1)
			return false;
	}
}

/* The opcode of the request the server logged with @unique */
static uint32_t opcode_of(struct mnt *m, uint64_t unique)
{
	unsigned int i;

	for (i = 0; i < nreq(m); i++)
		if (m->log->rec[i].unique == unique && !m->log->rec[i].sub)
			return m->log->rec[i].opcode;
	return 0;
}

static void shake(struct __test_metadata *_metadata, FIXTURE_DATA(stress) *self,
		  enum shake_kind kind, struct worker *w, uint64_t unique)
{
	unsigned int i;

	switch (kind) {
	case SHAKE_SIGNAL:
		TH_LOG("a signal to worker %d, waiting on request %" PRIu64 " (opcode %u)",
		       w->tid, unique, opcode_of(&self->m, unique));
		ASSERT_EQ(0, pthread_kill(w->thread, SIGUSR1));
		/*
		 * The server reads FUSE_INTERRUPT naming the held request.  It
		 * may be in the log already: the signal of an earlier round
		 * stays pending while its system call goes on, and the kernel
		 * interrupts the caller's next request as soon as it is read.
		 */
		for (;;) {
			for (i = 0; i < nreq(&self->m); i++)
				if (self->m.log->rec[i].opcode == FUSE_INTERRUPT &&
				    self->m.log->rec[i].arg == unique)
					return;
			ASSERT_EQ(1, wait_byte(self, self->m.notify, "waiting for FUSE_INTERRUPT"))
				TH_LOG("no FUSE_INTERRUPT for unique %" PRIu64, unique);
		}
	case SHAKE_ABORT:
		books_not_checked(&self->m, "the connection is aborted: the kernel gives nothing back after it");
		ASSERT_EQ(0, fusectl_abort(self->conn))
			TH_LOG("fusectl abort of connection %u: %s", self->conn, strerror(errno));
		break;
	case SHAKE_KILL:
		books_not_checked(&self->m, "the server is killed: nobody to give back to");
		ASSERT_EQ(0, kill(self->m.server, SIGKILL));
		ASSERT_EQ(self->m.server, waitpid(self->m.server, NULL, 0));
		self->m.server = 0;
		break;
	case SHAKE_LAZY_UMOUNT:
		books_not_checked(&self->m, "a lazy unmount: the mount is gone, and an unmount gives nothing back");
		ASSERT_EQ(0, umount2(self->m.dir, MNT_DETACH));
		break;
	default:
		break;
	}
}

TEST_F_TIMEOUT(stress, every_caller_returns_with_a_documented_errno, 240)
{
	unsigned int i, e, k, shaken = 0, rounds, calls = 0, failed = 0;
	uint64_t unique = 0;
	struct worker *w;

	for (i = 0; i < NR_WORKERS; i++) {
		self->w[i].m = &self->m;
		self->w[i].seed = i;
	}
	for (i = 0; i < NR_WORKERS; i++)
		ASSERT_EQ(0, pthread_create(&self->w[i].thread, NULL, worker_run,
					    &self->w[i]));
	/* a third of the way in, the server starts holding its replies */
	while (__atomic_load_n(&sh->ops_done, __ATOMIC_ACQUIRE) < WARM_UP) {
		char c;

		ASSERT_EQ(1, read(self->events[0], &c, 1));
	}
	/* a disturbance, or ROUNDS signals, each to a fresh held request */
	rounds = variant->shake == SHAKE_SIGNAL ? ROUNDS : variant->shake != SHAKE_NONE;
	for (; shaken < rounds; shaken++) {
		hold();
		w = held_worker(self, &unique);
		if (w)
			shake(_metadata, self, variant->shake, w, unique);
		release(self);
		if (!w)
			break;
		/*
		 * The interrupted request is answered before the next hold:
		 * held again, it would keep its caller asleep (a FLUSH's
		 * caller cannot even be killed), and with it every caller
		 * that waits on its locks.
		 */
		if (variant->shake == SHAKE_SIGNAL)
			ASSERT_TRUE(wait_written(self, unique));
	}
	for (i = 0; i < NR_WORKERS; i++)
		ASSERT_EQ(0, pthread_join(self->w[i].thread, NULL));

	for (i = 0; i < NR_WORKERS; i++) {
		calls += self->w[i].c.n;
		for (e = 0; e < MAX_ERRNO; e++) {
			if (!self->w[i].c.errors[e])
				continue;
			failed += self->w[i].c.errors[e];
			for (k = 0; k < 4 && variant->allowed[k] != e; k++)
				;
			EXPECT_LT(k, 4) TH_LOG("worker %u: %u calls failed with %s",
					       i, self->w[i].c.errors[e], strerror(e));
		}
	}
	TH_LOG("%u calls, %u failed, %u disturbances, at most %u compounds held at once",
	       calls, failed, shaken, sh->max_compounds);
	EXPECT_EQ(rounds, shaken);
	if (variant->expected) {
		for (i = 0, k = 0; i < NR_WORKERS; i++)
			k += self->w[i].c.errors[variant->expected];
		EXPECT_LT(0, k) TH_LOG("no call ended with %s", strerror(variant->expected));
	}
	/* the mount works on when nothing happened to it */
	if (variant->shake == SHAKE_NONE) {
		struct stat st;

		EXPECT_EQ(0, stat(path(&self->m, "file"), &st));
		EXPECT_EQ(0, open_append_write(&self->m, "file"));
	}
}

FUSE_LEAKS_TEST()

TEST_HARNESS_MAIN
