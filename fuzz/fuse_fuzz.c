// SPDX-License-Identifier: GPL-2.0
/*
 * fuse_fuzz: a FUSE server that breaks its own replies, deterministically
 * from a seed, while a client drives every path that makes the kernel ask
 * for them.  Runs in the guest (run_fuzz.sh); the host counts the kernel's
 * splats.
 *
 *   fuse_fuzz [--seed S] [--replies N] [--rate PERCENT] [--procs P]
 *
 * P fuzzers run side by side (the guest's CPUs), each with its own mount:
 * fuzzer j has seed S + j and its share of the N replies.
 *
 * Reply n of seed S is mutated or not, and how, by a hash of (S, n) alone,
 * so a run of the same seed and count makes the same choices again.  A
 * mutated reply is written instead of the correct one (by write(2), or by
 * vmsplice(2) and splice(2) into /dev/fuse); the correct one follows when
 * the kernel refused it, or when the mutation changed the unique (the
 * request it answers is still waiting).  The mutations:
 *
 *   bitflip    1-8 bits anywhere in the reply
 *   hdr_len    the header's len set to a boundary (0, 15, 16, 17, n-1,
 *              n+1, 0xffffffff, ...) while n bytes are written
 *   truncate   the reply cut to a boundary length, the header telling it
 *   extend     1-4096 bytes of garbage appended, the header telling it
 *   unique     the unique moved (+1, -1, 0, the interrupt bit, random)
 *   error      an error at the edges of the range (1, -1, -511, -512,
 *              INT_MIN, ...), the payload kept or dropped
 *   field      an aligned 32- or 64-bit word of the payload set to a
 *              boundary value (sizes, name lengths, modes, nodeids)
 *   sub        a compound's subreply: its unique, len or error at a
 *              boundary, or fuse_compound_out's reserved bytes set
 *
 * INIT is never mutated: the connection is the fuzzer's workbench.  When
 * the kernel stops sending requests (the root went bad, the connection
 * was aborted), the mount is made anew, and also every 1000 replies; every
 * other mount negotiates writeback caching (the opens that send compounds
 * differ with it).
 * Every 1000 replies a "fuzz: seed S reply N" line goes to /dev/kmsg, so
 * that a splat on the console can be placed.
 *
 * After the run, when the kernel was booted with kmemleak on, a leak scan:
 * "fuzz: L leaks through FUSE".
 * Last line on stdout: "fuzz: N replies, C compound, M mutated, R refused,
 * K spliced, U remounts".
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "fuse_test.h"

#define REMOUNT_EVERY	1000	/* a fresh connection: compounds are tried again */
#define MARK_EVERY	1000
#define STUCK_OPS	200	/* client operations without a reply: remount */

enum kind { BITFLIP, HDR_LEN, TRUNCATE, EXTEND, UNIQUE, ERROR, FIELD, SUB, NKINDS };
static const char *const kind_name[NKINDS] = {
	"bitflip", "hdr_len", "truncate", "extend", "unique", "error", "field", "sub",
};

/* Counted by the server, read by the client: shared memory */
struct stats {
	uint64_t replies, compounds, mutated, refused, spliced;
	uint64_t by_kind[NKINDS];
	/* where things stand, for a stall report */
	uint32_t client_op;		/* the workload's case the client is in */
	uint32_t last_opcode;		/* of the last reply, */
	int32_t last_kind;		/* its mutation (-1: none), */
	int32_t last_ret;		/* what its write returned */
	pid_t server;			/* the server of the client's mount */
	uint32_t phase;			/* the client's: see phase_name */
};

enum phase { IN_OP, UNMOUNTING, MOUNTING };
static const char *const phase_name[] = { "in its operation", "unmounting", "mounting" };

static struct stats *st;
static uint64_t seed, first_seed, target = 100000;
static unsigned int rate = 50;

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t pick(uint64_t *x, uint64_t n)
{
	return splitmix(x) % n;
}

static const int64_t boundary[] = {
	0, 1, 2, 7, 8, 15, 16, 17, 24, 40, 80, 104, 255, 256, 511, 512, 1023,
	1024, 1025, 4095, 4096, 4097, 65535, 65536, INT32_MAX, UINT32_MAX,
	-1, -2, INT32_MIN, INT64_MAX, INT64_MIN,
};

static const int errors[] = {
	1, 5, -1, -2, -4, -5, -22, -38, -95, -511, -512, -513, -4095, -4096,
	INT_MIN, INT_MAX,
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Write @len bytes of @buf to /dev/fuse through a pipe; -1 if that failed */
static ssize_t splice_write(int fd, const void *buf, size_t len)
{
	static int p[2] = { -1, -1 };
	struct iovec iov = { (void *)buf, len };
	ssize_t n;

	if (p[0] < 0 && pipe(p))
		return -1;
	n = vmsplice(p[1], &iov, 1, 0);
	if (n != (ssize_t)len) {
		/* the pipe may hold a part: a new one next time */
		close(p[0]);
		close(p[1]);
		p[0] = p[1] = -1;
		errno = EAGAIN;
		return -2;
	}
	n = splice(p[0], NULL, fd, NULL, len, 0);
	if (n < 0) {
		int err = errno;

		/* the pipe may still hold what the kernel refused */
		close(p[0]);
		close(p[1]);
		p[0] = p[1] = -1;
		errno = err;
	}
	return n;
}

/*
 * Break a copy of reply @r as @kind says (a kind that does not fit the
 * reply falls back to another, and @kind tells which); its new length
 */
static size_t mutate(enum kind *kind, uint64_t *x, const struct srv_reply *r,
		     unsigned char *m)
{
	struct fuse_out_header *oh = (void *)m;
	size_t len = r->len, i, n;
	unsigned char *payload = m + sizeof(*oh);
	size_t plen = len - sizeof(*oh);

	memcpy(m, r->buf, len);
	switch (*kind) {
	case BITFLIP:
		for (n = 1 + pick(x, 8); n; n--) {
			i = pick(x, len * 8);
			m[i / 8] ^= 1 << (i % 8);
		}
		break;
	case HDR_LEN: {
		const uint32_t l[] = { 0, 15, 16, 17, len - 1, len + 1, len + 8,
				       UINT32_MAX, (uint32_t)splitmix(x) };

		oh->len = l[pick(x, ARRAY_SIZE(l))];
		break;
	}
	case TRUNCATE: {
		const size_t l[] = { 1, 8, 15, 16, 17, len - 1, len / 2,
				     sizeof(*oh) + pick(x, plen + 1) };

		len = l[pick(x, ARRAY_SIZE(l))];
		if (len >= r->len)
			len = r->len - 1;
		oh->len = len;
		break;
	}
	case EXTEND:
		n = pick(x, 8) ? 1 + pick(x, 64) : 1 + pick(x, 4096);
		for (i = 0; i < n; i++)
			m[len + i] = splitmix(x);
		len += n;
		oh->len = len;
		break;
	case UNIQUE: {
		const uint64_t u = oh->unique;
		const uint64_t v[] = { u + 1, u - 1, u + 2, 0, u | (1ULL << 63),
				       splitmix(x) };

		oh->unique = v[pick(x, ARRAY_SIZE(v))];
		break;
	}
	case ERROR:
		oh->error = errors[pick(x, ARRAY_SIZE(errors))];
		if (pick(x, 2)) {
			len = sizeof(*oh);
			oh->len = len;
		}
		break;
	case FIELD:
		if (plen < 4) {
			*kind = BITFLIP;
			return mutate(kind, x, r, m);
		}
		if (plen >= 8 && pick(x, 2)) {
			int64_t b = boundary[pick(x, ARRAY_SIZE(boundary))];

			i = pick(x, plen / 8) * 8;
			memcpy(payload + i, &b, 8);
		} else {
			uint32_t b = boundary[pick(x, ARRAY_SIZE(boundary))];

			i = pick(x, plen / 4) * 4;
			memcpy(payload + i, &b, 4);
		}
		break;
	case SUB: {
		struct fuse_out_header *sh;
		unsigned int s;

		if (!r->nsubs) {
			*kind = FIELD;
			return mutate(kind, x, r, m);
		}
		s = pick(x, r->nsubs);
		sh = (void *)(m + r->sub_off[s]);
		switch (pick(x, 4)) {
		case 0:
			sh->unique = (uint64_t)boundary[pick(x, ARRAY_SIZE(boundary))];
			break;
		case 1:
			sh->len = boundary[pick(x, ARRAY_SIZE(boundary))];
			break;
		case 2:
			sh->error = errors[pick(x, ARRAY_SIZE(errors))];
			break;
		default:
			/* fuse_compound_out follows the outer header */
			payload[pick(x, sizeof(struct fuse_compound_out))] |=
				1 + pick(x, 255);
			break;
		}
		break;
	}
	default:
		break;
	}
	return len;
}

/* A line on the console, in order with the kernel's messages (one write) */
static void mark(uint64_t n)
{
	static int fd = -1;
	char line[64];
	int len;

	if (fd < 0)
		fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	len = snprintf(line, sizeof(line), "fuzz: seed %llu reply %llu\n",
		       (unsigned long long)seed, (unsigned long long)n);
	if (fd < 0 || write(fd, line, len) != len)
		perror("fuse_fuzz: /dev/kmsg");
}

/* Runs in the server, on every reply but INIT's */
static void fuzz_reply(const struct srv_config *cfg,
		       const struct fuse_in_header *req, struct srv_reply *r)
{
	static unsigned char m[1 << 20];	/* any reply, and what extend adds */
	uint64_t n = __atomic_fetch_add(&st->replies, 1, __ATOMIC_RELAXED);
	uint64_t x = seed ^ splitmix(&(uint64_t){ n });
	struct fuse_out_header *oh = (void *)r->buf;
	enum kind kind;
	ssize_t ret;
	size_t len;

	if (n % MARK_EVERY == 0)
		mark(n);
	if (req->opcode == FUSE_COMPOUND)
		__atomic_fetch_add(&st->compounds, 1, __ATOMIC_RELAXED);
	st->last_opcode = req->opcode;
	st->last_kind = -1;
	if (req->opcode == FUSE_INIT || pick(&x, 100) >= rate)
		return;
	oh->len = r->len;
	/* a compound's reply: its subreplies half of the time */
	kind = r->nsubs && pick(&x, 2) ? SUB : pick(&x, NKINDS);
	len = mutate(&kind, &x, r, m);
	__atomic_fetch_add(&st->mutated, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&st->by_kind[kind], 1, __ATOMIC_RELAXED);
	if (pick(&x, 4) == 0) {
		ret = splice_write(r->fd, m, len);
		if (ret != -2)
			__atomic_fetch_add(&st->spliced, 1, __ATOMIC_RELAXED);
		else
			ret = write(r->fd, m, len);
	} else {
		ret = write(r->fd, m, len);
	}
	st->last_kind = kind;
	st->last_ret = ret < 0 ? -errno : ret;
	if (ret < 0)
		__atomic_fetch_add(&st->refused, 1, __ATOMIC_RELAXED);
	/* taken for the request it answers: the correct reply is not sent */
	if (ret >= 0 && ((struct fuse_out_header *)m)->unique == oh->unique)
		r->drop = true;
}

/*
 * --- the client: every path that asks for the replies above ---
 *
 * Its opens do not block: a broken LOOKUP may make "file" a FIFO (mode
 * 4096 is one of the boundary values), and a FIFO's blocking open waits
 * for a partner that never comes.
 */

static void workload_op(struct mnt *m, uint64_t *x)
{
	char buf[8192], name[32];
	struct stat sb;
	DIR *d;
	int fd;

	/* O_APPEND opens three times as often: they are our compounds */
	st->client_op = pick(x, 14);
	switch (st->client_op) {
	case 0:
		stat(path(m, "file"), &sb);
		lstat(path(m, "link"), &sb);
		break;
	case 1:
		fd = open(path(m, "file"), O_RDONLY | O_NONBLOCK);
		if (fd >= 0) {
			read(fd, buf, sizeof(buf));
			pread(fd, buf, 100, 4096);
			close(fd);
		}
		break;
	case 2:
	case 12:
	case 13:
		fd = open(path(m, "file"), O_WRONLY | O_APPEND | O_NONBLOCK);
		if (fd >= 0) {
			write(fd, "fuzz\n", 5);
			close(fd);
		}
		break;
	case 3:
		readlink(path(m, "link"), buf, sizeof(buf));
		break;
	case 4:
		getxattr(path(m, "file"), SRV_XATTR_NAME, buf, sizeof(buf));
		getxattr(path(m, "file"), SRV_XATTR_NAME, NULL, 0);
		break;
	case 5:
		listxattr(path(m, "file"), buf, sizeof(buf));
		listxattr(path(m, "file"), NULL, 0);
		break;
	case 6: {
		struct statx sx;

		statx(AT_FDCWD, path(m, "file"), 0, STATX_BASIC_STATS | STATX_BTIME, &sx);
		break;
	}
	case 7:
		d = opendir(m->dir);
		if (d) {
			while (readdir(d))
				;
			closedir(d);
		}
		break;
	case 8:
		snprintf(name, sizeof(name), "new%u", (unsigned int)pick(x, 4));
		fd = open(path(m, name), O_CREAT | O_RDWR | O_NONBLOCK, 0644);
		if (fd >= 0)
			close(fd);
		unlink(path(m, name));
		break;
	case 9:
		mkdir(path(m, "sub"), 0755);
		stat(path(m, "sub"), &sb);
		rmdir(path(m, "sub"));
		break;
	case 10:
		fd = open(path(m, "file"), O_RDWR | O_TRUNC | O_NONBLOCK);
		if (fd >= 0) {
			write(fd, "hello\n", 6);
			fsync(fd);
			close(fd);
		}
		break;
	default:
		stat(path(m, "dir"), &sb);
		rename(path(m, "dir"), path(m, "dir2"));
		rename(path(m, "dir2"), path(m, "dir"));
		break;
	}
}

/*
 * A process that watches the reply count: when it has not moved for
 * STALL_SECONDS, where the client and the server stand is printed (state,
 * system call, kernel stack), the kernel's blocked tasks go to the console (sysrq w), a line
 * says where the run stopped, and the fuzzer is killed, so that the run
 * ends with the evidence instead of at the guest's time limit.
 */
#define STALL_SECONDS	60
#define PROGRESS_SECONDS 60

/*
 * The guest's memory, for a run that slows down or grows: free memory,
 * slab, and the slab caches holding the most memory
 */
static void memory_report(const char *when)
{
	char line[512], name[64], top_name[6][64] = { { 0 } };
	unsigned long active, size, kb, top_kb[6] = { 0 }, free_kb = 0, slab_kb = 0;
	unsigned int i, j;
	FILE *f;

	f = fopen("/proc/meminfo", "r");
	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "MemFree: %lu", &free_kb);
		sscanf(line, "Slab: %lu", &slab_kb);
	}
	if (f)
		fclose(f);
	f = fopen("/proc/slabinfo", "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %lu %*u %lu", name, &active, &size) != 3)
			continue;
		kb = active * size / 1024;
		for (i = 0; i < 6 && kb <= top_kb[i]; i++)
			;
		if (i == 6)
			continue;
		for (j = 5; j > i; j--) {
			top_kb[j] = top_kb[j - 1];
			strcpy(top_name[j], top_name[j - 1]);
		}
		top_kb[i] = kb;
		strcpy(top_name[i], name);
	}
	if (f)
		fclose(f);
	printf("fuzz: memory %s: %lu kB free, %lu kB slab; most:", when, free_kb, slab_kb);
	for (i = 0; i < 6 && top_kb[i]; i++)
		printf(" %s %lu kB", top_name[i], top_kb[i]);
	printf("\n");
	fflush(stdout);
}

/* Read /proc/@pid/task/@tid/@file into @buf, NUL-terminated; its length */
static ssize_t read_task_file(pid_t pid, const char *tid, const char *file,
			      char *buf, size_t size)
{
	char path[600];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%s/%s", pid, tid, file);
	fd = open(path, O_RDONLY);
	n = fd < 0 ? -1 : read(fd, buf, size - 1);
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
	return n;
}

/*
 * Where every thread of process @pid stands: its state (/proc stat), the
 * system call it is in (/proc syscall) and its kernel stack
 */
static void dump_process(const char *who, pid_t pid)
{
	char path[64], stat[512], syscall[256], stack[4096];
	struct dirent *t;
	DIR *tasks;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	tasks = opendir(path);
	if (!tasks) {
		printf("fuzz: %s %d: gone\n", who, pid);
		return;
	}
	while ((t = readdir(tasks))) {
		if (t->d_name[0] == '.')
			continue;
		read_task_file(pid, t->d_name, "stat", stat, sizeof(stat));
		read_task_file(pid, t->d_name, "syscall", syscall, sizeof(syscall));
		read_task_file(pid, t->d_name, "stack", stack, sizeof(stack));
		printf("fuzz: %s %d thread %s: stat %.60s; syscall %s%s",
		       who, pid, t->d_name, strchr(stat, ')') ? strchr(stat, ')') + 2 : stat,
		       syscall, stack);
	}
	closedir(tasks);
}

static pid_t start_watchdog(void)
{
	pid_t pid = fork();
	uint64_t seen = ~0ULL, now;
	unsigned int still = 0, ticks = 0;
	int fd;

	if (pid)
		return pid;
	for (;;) {
		sleep(1);
		now = __atomic_load_n(&st->replies, __ATOMIC_RELAXED);
		/* the first fuzzer's watchdog shows the run's progress */
		if (++ticks % PROGRESS_SECONDS == 0 && seed == first_seed) {
			char when[64];

			snprintf(when, sizeof(when), "after %u s, %llu replies of seed %llu",
				 ticks, (unsigned long long)now, (unsigned long long)seed);
			memory_report(when);
		}
		still = now == seen ? still + 1 : 0;
		seen = now;
		if (still < STALL_SECONDS)
			continue;
		fd = open("/proc/sysrq-trigger", O_WRONLY);
		if (fd >= 0 && write(fd, "w", 1) == 1)
			close(fd);
		dump_process("client", getppid());
		dump_process("server", st->server);
		printf("fuzz: stalled at reply %llu of seed %llu: no reply for %u s "
		       "(client %s, case %u; last reply: opcode %u, mutation %d, write %d)\n",
		       (unsigned long long)now, (unsigned long long)seed, STALL_SECONDS,
		       phase_name[st->phase], st->client_op, st->last_opcode,
		       st->last_kind, st->last_ret);
		fflush(stdout);
		kill(getppid(), SIGKILL);
		_exit(1);
	}
}

static int start(struct mnt *m, uint64_t nth)
{
	/* no caching: every access asks the server again */
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, 0, 0);

	cfg.writeback_cache = nth % 2;
	cfg.statx = true;
	cfg.xattrs = true;
	cfg.edit_reply = fuzz_reply;
	cfg.unwatched = true;	/* the fuzzer counts for itself (struct stats) */
	return mnt_start(m, cfg);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: fuse_fuzz [--seed S] [--replies N] [--rate PERCENT] [--procs P]\n");
}

/*
 * One fuzzer: its own mount, server and watchdog, seed @seed, until
 * @target replies; the remount count, or -1 when it could not mount
 */
static long run_one(void)
{
	uint64_t x, last = 0, remounts = 0, since_remount = 0;
	unsigned int stuck = 0;
	struct mnt m;
	pid_t watchdog;

	if (start(&m, 0)) {
		perror("fuse_fuzz: mount");
		return -1;
	}
	st->server = m.server;
	watchdog = start_watchdog();
	x = seed;
	while (__atomic_load_n(&st->replies, __ATOMIC_RELAXED) < target) {
		uint64_t now;

		workload_op(&m, &x);
		now = __atomic_load_n(&st->replies, __ATOMIC_RELAXED);
		stuck = now == last ? stuck + 1 : 0;
		since_remount += now - last;
		last = now;
		if (stuck < STUCK_OPS && since_remount < REMOUNT_EVERY)
			continue;
		st->phase = UNMOUNTING;
		mnt_kill(&m);
		st->phase = MOUNTING;
		if (start(&m, remounts + 1)) {
			perror("fuse_fuzz: mount again");
			return -1;
		}
		st->server = m.server;
		st->phase = IN_OP;
		remounts++;
		stuck = 0;
		since_remount = 0;
	}
	kill(watchdog, SIGKILL);
	waitpid(watchdog, NULL, 0);
	mnt_kill(&m);
	return remounts;
}

/*
 * A leak scan after the run: kmemleak reports an object once it is 5 s
 * old, and only when the kernel was booted with it on
 */
static void leak_scan(void)
{
	struct timespec now;
	int leaks;

	if (fuse_leaks(NULL)) {
		printf("fuzz: no leak scan (kmemleak is off)\n");
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	wait_leak_age(now.tv_sec);
	leaks = fuse_leaks(stdout);
	if (leaks < 0)
		printf("fuzz: the leak scan failed: %s\n", strerror(-leaks));
	else
		printf("fuzz: %d leaks through FUSE\n", leaks);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "replies", required_argument, NULL, 'n' },
		{ "rate", required_argument, NULL, 'r' },
		{ "procs", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct job {
		struct stats st;
		long remounts;
	} *all;
	uint64_t total, remounts = 0;
	struct stats sum = { 0 };
	unsigned int jobs = 1, j, k;
	struct timespec t0, t1;
	double secs;
	pid_t pid[64];
	int c, status, failed = 0;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'n': target = strtoull(optarg, NULL, 0); break;
		case 'r': rate = strtoul(optarg, NULL, 0); break;
		case 'j': jobs = strtoul(optarg, NULL, 0); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc || rate > 100 || !target || !jobs || jobs > 64 ||
	    target < jobs) {
		usage(stderr);
		return 2;
	}
	all = mmap(NULL, jobs * sizeof(*all), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (all == MAP_FAILED) {
		perror("fuse_fuzz: mmap");
		return 1;
	}
	printf("fuzz: seed %llu, %llu replies, %u%% mutated, %u fuzzer(s)\n",
	       (unsigned long long)seed, (unsigned long long)target, rate, jobs);
	fflush(stdout);
	/* fuzzer j: seed S + j, its share of the replies */
	first_seed = seed;
	total = target;
	memory_report("before");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (j = 0; j < jobs; j++) {
		pid[j] = fork();
		if (pid[j] < 0) {
			perror("fuse_fuzz: fork");
			return 1;
		}
		if (pid[j] == 0) {
			st = &all[j].st;
			seed = first_seed + j;
			target = total / jobs + (j < total % jobs);
			all[j].remounts = run_one();
			fflush(stdout);
			_exit(all[j].remounts < 0);
		}
	}
	for (j = 0; j < jobs; j++) {
		if (waitpid(pid[j], &status, 0) != pid[j] || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			failed = 1;
		remounts += all[j].remounts > 0 ? all[j].remounts : 0;
		sum.replies += all[j].st.replies;
		sum.compounds += all[j].st.compounds;
		sum.mutated += all[j].st.mutated;
		sum.refused += all[j].st.refused;
		sum.spliced += all[j].st.spliced;
		for (k = 0; k < NKINDS; k++)
			sum.by_kind[k] += all[j].st.by_kind[k];
	}
	if (failed)
		return 1;	/* a fuzzer stalled or could not mount: it said so */
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("fuzz: %.0f s, %.0f replies/s, %.0f mutated/s\n", secs,
	       sum.replies / secs, sum.mutated / secs);
	for (k = 0; k < NKINDS; k++)
		printf("fuzz: %-8s %llu\n", kind_name[k],
		       (unsigned long long)sum.by_kind[k]);
	memory_report("after");
	leak_scan();
	printf("fuzz: %llu replies, %llu compound, %llu mutated, %llu refused, %llu spliced, %llu remounts\n",
	       (unsigned long long)sum.replies, (unsigned long long)sum.compounds,
	       (unsigned long long)sum.mutated,
	       (unsigned long long)sum.refused, (unsigned long long)sum.spliced,
	       (unsigned long long)remounts);
	return 0;
}
