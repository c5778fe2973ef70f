// SPDX-License-Identifier: GPL-2.0
/*
 * fuse_bench: the guest half of the compound benchmark (bench/run_bench.sh).
 *
 * For every cell of writeback cache x service delay x server mode x
 * workload it mounts a fresh fusegate server (servers/), warms the mount up
 * so that the kernel has learned the server's answer to FUSE_COMPOUND, then
 * runs the workload's operation --count times, --runs times over.  Each
 * operation is timed on its own; what the kernel sent is read from the
 * server's log, so round trips and server operations are exact.  One JSON
 * object per cell is printed on stdout, prefixed with "BENCH ".
 *
 * Attributes "expired" means: before each operation (untimed) the server
 * invalidates the file's attributes with FUSE_NOTIFY_INVAL_INODE, which the
 * kernel handles like an expired attribute timeout; the attributes the
 * operation itself fetches then stay valid for the rest of the operation,
 * as they would with a 1 s timeout.  Expired dentries use entry timeout 0.
 * With writeback caching each operation starts on a fresh tick of the
 * coarse clock (next_time_tick()), so that the SETATTR of the times comes
 * after every write, whatever the mode's latency.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fuse_server.h"

#define LONG_TIMEOUT	3600
#define WARMUP_OPS	3
#define MIXED_FILES	100
#define MAX_SAMPLES	100000

/* --- a mount with its server --- */

struct bench_mnt {
	char dir[64];
	pid_t server;
	int fuse_fd;		/* kept to send notifications */
	int events;		/* a byte per request the server logs */
	struct srv_log *log;
	uint64_t file_nodeid;
};

static void die(const char *what)
{
	fprintf(stderr, "fuse_bench: %s: %s\n", what, strerror(errno));
	exit(3);
}

static void mnt_up(struct bench_mnt *m, struct srv_config cfg)
{
	struct stat st;
	int pipefd[2];

	snprintf(m->dir, sizeof(m->dir), "/tmp/bench.XXXXXX");
	if (!mkdtemp(m->dir))
		die("mkdtemp");
	m->log = srv_log_create();
	if (!m->log || pipe2(pipefd, O_CLOEXEC))
		die("log");
	fcntl(pipefd[1], F_SETFL, O_NONBLOCK);
	fcntl(pipefd[1], F_SETPIPE_SZ, 1 << 20);
	m->fuse_fd = srv_mount(m->dir);
	if (m->fuse_fd < 0) {
		errno = -m->fuse_fd;
		die("mount");
	}
	cfg.mountpoint = m->dir;
	cfg.log = m->log;
	cfg.notify_fd = pipefd[1];
	cfg.control_fd = -1;
	m->server = fork();
	if (m->server < 0)
		die("fork");
	if (m->server == 0) {
		close(pipefd[0]);
		_exit(srv_run_fd(&cfg, m->fuse_fd));
	}
	close(pipefd[1]);
	m->events = pipefd[0];
	if (stat(m->dir, &st) || !S_ISDIR(st.st_mode))
		die("the mount does not answer");
	{
		char p[128];

		snprintf(p, sizeof(p), "%s/file", m->dir);
		if (stat(p, &st))
			die("stat file");
		m->file_nodeid = st.st_ino;
	}
}

static void mnt_down(struct bench_mnt *m)
{
	if (umount2(m->dir, 0))
		umount2(m->dir, MNT_DETACH);
	kill(m->server, SIGKILL);
	waitpid(m->server, NULL, 0);
	close(m->fuse_fd);
	close(m->events);
	munmap(m->log, sizeof(*m->log));
	rmdir(m->dir);
}

static unsigned int log_n(struct bench_mnt *m)
{
	return __atomic_load_n(&m->log->n, __ATOMIC_ACQUIRE);
}

static unsigned int count_releases(struct bench_mnt *m, unsigned int from)
{
	unsigned int i, n = 0;

	for (i = from; i < log_n(m); i++)
		if (!m->log->rec[i].sub &&
		    (m->log->rec[i].opcode == FUSE_RELEASE ||
		     m->log->rec[i].opcode == FUSE_RELEASEDIR))
			n++;
	return n;
}

/*
 * RELEASE is sent asynchronously after close(): block until the server
 * has logged one for every open since @from, so that counts are exact.
 */
static void settle(struct bench_mnt *m, unsigned int from, unsigned int opens)
{
	char c;

	while (count_releases(m, from) < opens) {
		if (log_n(m) >= SRV_LOG_MAX) {
			errno = ENOSPC;
			die("the server's log is full");
		}
		if (read(m->events, &c, 1) != 1)
			die("the server went away");
	}
}

/* --- workloads --- */

struct workload {
	const char *name;
	const char *what;
	uint64_t entry_timeout, attr_timeout;
	bool inval_attr;	/* attributes expired before each operation */
	bool drop_dentries;	/* the dentry cache emptied before each one */
	bool by_name;		/* looks names up or makes them: a handle
				 * mode must show LOOKUP_HANDLE or
				 * MKOBJ_HANDLE in its log */
	unsigned int per_op;	/* operations per call of op() */
	/* one operation; returns the number of opens it made, or -1 */
	int (*op)(struct bench_mnt *m);
};

static char *mpath(struct bench_mnt *m, const char *name)
{
	static char buf[2][400];
	static int i;

	i ^= 1;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", m->dir, name);
	return buf[i];
}

static int open_close(struct bench_mnt *m, int flags)
{
	int fd = open(mpath(m, "file"), flags);

	if (fd < 0)
		return -1;
	return close(fd) ? -1 : 1;
}

static int op_append_write(struct bench_mnt *m)
{
	int fd = open(mpath(m, "file"), O_WRONLY | O_APPEND);

	if (fd < 0)
		return -1;
	if (write(fd, "x", 1) != 1) {
		close(fd);
		return -1;
	}
	return close(fd) ? -1 : 1;
}

static int op_open_close(struct bench_mnt *m)
{
	return open_close(m, O_RDONLY);
}

/* cat: read to the end, past the cached size */
static int op_read(struct bench_mnt *m)
{
	char buf[4096];
	int fd = open(mpath(m, "file"), O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	if (n < 0) {
		close(fd);
		return -1;
	}
	return close(fd) ? -1 : 1;
}

static int op_append_open_close(struct bench_mnt *m)
{
	return open_close(m, O_WRONLY | O_APPEND);
}

static int op_stat(struct bench_mnt *m)
{
	struct stat st;

	return stat(mpath(m, "file"), &st) ? -1 : 0;
}

/* creat(), close() and unlink(): the unlink is the same in every mode */
static int op_create(struct bench_mnt *m)
{
	int fd = open(mpath(m, "new"), O_WRONLY | O_CREAT | O_EXCL, 0644);

	if (fd < 0 || close(fd))
		return -1;
	return unlink(mpath(m, "new")) ? -1 : 1;
}

/*
 * Untimed, before a cold lookup: drop every unused dentry (and so the
 * inode of "file", whose FORGET the server counts but does not log).
 */
static void drop_dentries(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);

	if (fd < 0 || write(fd, "2", 1) != 1 || close(fd))
		die("drop_caches");
}

/* "untar" MIXED_FILES small files, find + stat them, remove them */
static int op_mixed(struct bench_mnt *m)
{
	static const char payload[64] = "a small file of a tarball";
	char name[300];
	struct dirent *de;
	struct stat st;
	int i, fd, opens = 0, seen = 0;
	DIR *d;

	for (i = 0; i < MIXED_FILES; i++) {
		snprintf(name, sizeof(name), "tree/f%03d", i);
		fd = open(mpath(m, name), O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0)
			return -1;
		opens++;
		if (write(fd, payload, sizeof(payload)) != sizeof(payload) ||
		    close(fd))
			return -1;
	}
	d = opendir(mpath(m, "tree"));
	if (!d)
		return -1;
	opens++;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(name, sizeof(name), "tree/%s", de->d_name);
		if (stat(mpath(m, name), &st) || !S_ISREG(st.st_mode))
			return -1;
		seen++;
	}
	closedir(d);
	if (seen != MIXED_FILES)
		return -1;
	for (i = 0; i < MIXED_FILES; i++) {
		snprintf(name, sizeof(name), "tree/f%03d", i);
		if (unlink(mpath(m, name)))
			return -1;
	}
	return opens;
}

static const struct workload workloads[] = {
	{ "append_write_attr_expired",
	  "open(O_APPEND)+write(1)+close, attributes expired",
	  LONG_TIMEOUT, LONG_TIMEOUT, true, false, false, 1, op_append_write },
	{ "open_close_attr_expired", "open+close, attributes expired",
	  LONG_TIMEOUT, LONG_TIMEOUT, true, false, false, 1, op_open_close },
	{ "read_attr_expired", "open+read to EOF+close, attributes expired",
	  LONG_TIMEOUT, LONG_TIMEOUT, true, false, false, 1, op_read },
	{ "stat_entry_expired", "stat(), dentry expired",
	  0, LONG_TIMEOUT, false, false, true, 1, op_stat },
	{ "append_open_close", "open(O_APPEND)+close, attributes fresh",
	  LONG_TIMEOUT, LONG_TIMEOUT, false, false, false, 1,
	  op_append_open_close },
	{ "open_close_fresh", "open+close, attributes fresh",
	  LONG_TIMEOUT, LONG_TIMEOUT, false, false, false, 1, op_open_close },
	{ "mixed_untar_find_stat",
	  "per file: create+write+close, readdir+stat, unlink (timeouts 0)",
	  0, 0, false, false, true, MIXED_FILES, op_mixed },
	{ "lookup_cold", "stat(), the dentry and inode evicted (drop_caches)",
	  LONG_TIMEOUT, LONG_TIMEOUT, false, true, true, 1, op_stat },
	{ "create_open_close", "creat()+close+unlink, a new file each time",
	  LONG_TIMEOUT, LONG_TIMEOUT, false, false, true, 1, op_create },
};

/*
 * The modes: the server answering compounds, refusing them (ENOSYS,
 * EOPNOTSUPP), the same with file handles negotiated (handles of 24
 * bytes: nodeid and incarnation; such a server answers STATX, which
 * carries the attributes a handle reply does not), and on the stock
 * kernel the compliant server (the kernel offers neither).
 */
#define HANDLE_SZ	24
static const struct {
	const char *name;
	enum srv_behaviour behaviour;
	uint16_t max_handle_sz;
	bool statx;
} modes[] = {
	{ "compound", SRV_COMPLIANT },
	{ "enosys", SRV_COMPOUND_ENOSYS },
	{ "eopnotsupp", SRV_COMPOUND_EOPNOTSUPP },
	{ "stock", SRV_COMPLIANT },
	{ "handles", SRV_COMPLIANT, HANDLE_SZ, true },
	{ "handles_enosys", SRV_COMPOUND_ENOSYS, HANDLE_SZ, true },
};
#define NMODES	(sizeof(modes) / sizeof(modes[0]))

/* the kernel sends handle requests: negotiated, and compounds answered */
static bool handles_in_compounds(unsigned int mode)
{
	return modes[mode].max_handle_sz &&
		modes[mode].behaviour == SRV_COMPLIANT;
}

/* --- measuring --- */

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * With writeback caching the kernel keeps mtime and ctime itself and sends
 * them to the server in a SETATTR when a write changed them.  A write
 * changes them only when the coarse clock (current_time()) has ticked
 * since the last one, so how often that SETATTR comes depends on how long
 * the operations take, not on what the kernel decides: a slower mode would
 * count more round trips for the same requests.  Before each operation
 * (untimed) wait for the next tick: every write then changes the times and
 * every mode sends its SETATTR.
 */
static void next_time_tick(void)
{
	const struct timespec pause = { .tv_nsec = 200000 };
	uint64_t t0 = now_ns(CLOCK_REALTIME_COARSE);

	while (now_ns(CLOCK_REALTIME_COARSE) == t0)
		nanosleep(&pause, NULL);
}

static const char *opname(uint32_t op)
{
	switch (op) {
	case FUSE_LOOKUP: return "LOOKUP";
	case FUSE_GETATTR: return "GETATTR";
	case FUSE_SETATTR: return "SETATTR";
	case FUSE_OPEN: return "OPEN";
	case FUSE_OPENDIR: return "OPENDIR";
	case FUSE_READDIR: return "READDIR";
	case FUSE_READDIRPLUS: return "READDIRPLUS";
	case FUSE_READ: return "READ";
	case FUSE_WRITE: return "WRITE";
	case FUSE_FLUSH: return "FLUSH";
	case FUSE_RELEASE: return "RELEASE";
	case FUSE_RELEASEDIR: return "RELEASEDIR";
	case FUSE_GETXATTR: return "GETXATTR";
	case FUSE_CREATE: return "CREATE";
	case FUSE_UNLINK: return "UNLINK";
	case FUSE_COMPOUND: return "COMPOUND";
	case FUSE_STATX: return "STATX";
	case FUSE_LOOKUP_HANDLE: return "LOOKUP_HANDLE";
	case FUSE_MKOBJ_HANDLE: return "MKOBJ_HANDLE";
	default: return NULL;
	}
}

/* The requests of the last operation, "COMPOUND[OPEN+GETATTR] WRITE ..." */
static void describe(struct bench_mnt *m, unsigned int from, char *buf,
		     size_t size)
{
	unsigned int i;
	size_t len = 0;

	buf[0] = 0;
	for (i = from; i < log_n(m) && len + 32 < size; i++) {
		const struct srv_record *r = &m->log->rec[i];
		const char *name = opname(r->opcode);
		char num[16];
		bool next_sub = i + 1 < log_n(m) && m->log->rec[i + 1].sub;

		if (!name) {
			snprintf(num, sizeof(num), "op%u", r->opcode);
			name = num;
		}
		if (r->sub)
			len += snprintf(buf + len, size - len, "%s%s", name,
					next_sub ? "+" : "]");
		else
			len += snprintf(buf + len, size - len, "%s%s%s",
					len ? " " : "", name,
					r->opcode != FUSE_COMPOUND ? "" :
					next_sub ? "[" : "(refused)");
	}
}

struct cell_result {
	unsigned int round_trips, server_ops, ops;
	uint64_t client_cpu_ns, server_cpu_ns;
	char sequence[256];
};

static void print_samples(const char *key, const uint64_t *v, unsigned int n)
{
	unsigned int i;

	printf(", \"%s\": [", key);
	for (i = 0; i < n; i++)
		printf("%s%llu", i ? "," : "", (unsigned long long)v[i]);
	printf("]");
}

static uint64_t lat[MAX_SAMPLES];
static uint64_t run_ns[1000];

static int run_cell(const struct workload *w, unsigned int mode,
		    unsigned int delay_us, bool wb, unsigned int count,
		    unsigned int runs)
{
	struct srv_config cfg = {
		.behaviour = modes[mode].behaviour,
		.entry_timeout = w->entry_timeout,
		.attr_timeout = w->attr_timeout,
		.writeback_cache = wb,
		.delay_us = delay_us,
		.max_handle_sz = modes[mode].max_handle_sz,
		.statx = modes[mode].statx,
	};
	struct cell_result res = { 0 };
	unsigned int r, i, nlat = 0, from, start, opens, by_handle = 0;
	struct bench_mnt m;
	clockid_t server_clk;
	uint64_t c0, s0, t0, t1, r0;
	int ret;

	if (w->op == op_mixed)
		count = 1;
	mnt_up(&m, cfg);
	if (w->op == op_mixed && mkdir(mpath(&m, "tree"), 0755))
		die("mkdir tree");
	if (clock_getcpuclockid(m.server, &server_clk))
		die("server cpu clock");

	/* warm up: the kernel learns the server's answer, caches dentries */
	from = log_n(&m);
	for (i = 0, opens = 0; i < WARMUP_OPS; i++) {
		if (w->inval_attr && srv_notify_inval_attr(m.fuse_fd,
							   m.file_nodeid))
			die("notify");
		if (w->drop_dentries)
			drop_dentries();
		if (wb)
			next_time_tick();
		ret = w->op(&m);
		if (ret < 0)
			die(w->name);
		opens += ret;
	}
	settle(&m, from, opens);

	start = log_n(&m);
	c0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	s0 = now_ns(server_clk);
	for (r = 0; r < runs; r++) {
		from = log_n(&m);
		r0 = 0;
		for (i = 0, opens = 0; i < count; i++) {
			unsigned int op_from;

			if (w->inval_attr &&
			    srv_notify_inval_attr(m.fuse_fd, m.file_nodeid))
				die("notify");
			if (w->drop_dentries)
				drop_dentries();
			if (wb)
				next_time_tick();
			if (r == runs - 1 && i == count - 1)
				settle(&m, from, opens);	/* a clean log */
			op_from = log_n(&m);
			t0 = now_ns(CLOCK_MONOTONIC);
			ret = w->op(&m);
			t1 = now_ns(CLOCK_MONOTONIC);
			if (ret < 0)
				die(w->name);
			opens += ret;
			r0 += t1 - t0;
			if (nlat < MAX_SAMPLES)
				lat[nlat++] = (t1 - t0) / w->per_op;
			if (r == runs - 1 && i == count - 1) {
				settle(&m, from, opens);
				describe(&m, op_from, res.sequence,
					 sizeof(res.sequence));
			}
		}
		settle(&m, from, opens);
		run_ns[r] = r0;
	}
	res.client_cpu_ns = now_ns(CLOCK_PROCESS_CPUTIME_ID) - c0;
	res.server_cpu_ns = now_ns(server_clk) - s0;

	for (i = start; i < log_n(&m); i++) {
		const struct srv_record *rec = &m.log->rec[i];

		if (rec->opcode == FUSE_INTERRUPT)
			continue;
		if (!rec->sub)
			res.round_trips++;
		if (rec->opcode != FUSE_COMPOUND)
			res.server_ops++;
		if (rec->opcode == FUSE_LOOKUP_HANDLE ||
		    rec->opcode == FUSE_MKOBJ_HANDLE)
			by_handle++;
	}
	/*
	 * a handle mode that measured the classic requests measured nothing;
	 * but handle requests go in compounds only, so a server that refuses
	 * compounds (handles_enosys) gets the classic ones
	 */
	if (w->by_name && !by_handle != !handles_in_compounds(mode)) {
		errno = EPROTO;
		die(by_handle ? "handle requests without handles negotiated" :
				"handles negotiated, yet no handle request");
	}
	if (log_n(&m) >= SRV_LOG_MAX) {
		errno = ENOSPC;
		die("the server's log is full");
	}
	res.ops = runs * count * w->per_op;
	mnt_down(&m);

	printf("BENCH {\"workload\": \"%s\", \"what\": \"%s\", \"mode\": \"%s\", "
	       "\"delay_us\": %u, \"writeback_cache\": %s, \"ops\": %u, "
	       "\"runs\": %u, \"round_trips\": %u, \"server_ops\": %u, "
	       "\"client_cpu_ns\": %llu, \"server_cpu_ns\": %llu, "
	       "\"sequence\": \"%s\"",
	       w->name, w->what, modes[mode].name, delay_us, wb ? "true" : "false",
	       res.ops, runs, res.round_trips, res.server_ops,
	       (unsigned long long)res.client_cpu_ns,
	       (unsigned long long)res.server_cpu_ns, res.sequence);
	print_samples("latency_ns", lat, nlat);
	print_samples("run_ns", run_ns, runs);
	printf("}\n");
	fflush(stdout);
	return 0;
}

/* --- options --- */

static unsigned int parse_list(char *arg, unsigned int *out, unsigned int max)
{
	unsigned int n = 0;
	char *tok;

	for (tok = strtok(arg, ","); tok && n < max; tok = strtok(NULL, ","))
		out[n++] = strtoul(tok, NULL, 0);
	return n;
}

static int find_mode(const char *name)
{
	unsigned int i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(modes[i].name, name))
			return i;
	return -1;
}

#define NWORKLOADS (sizeof(workloads) / sizeof(workloads[0]))

/* Whether one of the comma-separated substrings of @only is in @name */
static bool workload_selected(const char *only, const char *name)
{
	const char *tok = only;
	size_t len;
	char part[64];

	if (!only)
		return true;
	while (*tok) {
		len = strcspn(tok, ",");
		if (len && len < sizeof(part)) {
			memcpy(part, tok, len);
			part[len] = '\0';
			if (strstr(name, part))
				return true;
		}
		tok += len + (tok[len] == ',');
	}
	return false;
}

/* Every substring of @only names a workload: 0, or -1 with a message */
static int check_workloads(const char *only)
{
	const char *tok = only;
	unsigned int w;
	size_t len;
	char part[64];

	while (only && *tok) {
		len = strcspn(tok, ",");
		if (!len || len >= sizeof(part)) {
			fprintf(stderr, "bad --workloads: %s\n", only);
			return -1;
		}
		memcpy(part, tok, len);
		part[len] = '\0';
		for (w = 0; w < NWORKLOADS; w++)
			if (strstr(workloads[w].name, part))
				break;
		if (w == NWORKLOADS) {
			fprintf(stderr, "no workload's name contains %s\n", part);
			return -1;
		}
		tok += len + (tok[len] == ',');
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: fuse_bench [--modes m,...] [--delays us,...] "
		   "[--count N] [--runs R]\n"
		   "                  [--workloads w,...] [--writeback 0,1]\n"
		   "modes: compound enosys eopnotsupp stock handles "
		   "handles_enosys\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "modes", required_argument, NULL, 'm' },
		{ "delays", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, 'c' },
		{ "runs", required_argument, NULL, 'r' },
		{ "workloads", required_argument, NULL, 'w' },
		{ "writeback", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	unsigned int delays[8] = { 0, 100, 1000 }, ndelays = 3;
	unsigned int wbs[2] = { 0, 1 }, nwbs = 2;
	int mode_idx[NMODES] = { 0, 1, 2 }, nmodes = 3;
	const char *only = NULL;
	unsigned int count = 40, runs = 5, b, d, w;
	int c, i;
	char *tok;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			nmodes = 0;
			for (tok = strtok(optarg, ","); tok && nmodes < (int)NMODES;
			     tok = strtok(NULL, ",")) {
				mode_idx[nmodes] = find_mode(tok);
				if (mode_idx[nmodes++] < 0) {
					fprintf(stderr, "unknown mode %s\n", tok);
					return 2;
				}
			}
			break;
		case 'd': ndelays = parse_list(optarg, delays, 8); break;
		case 'b': nwbs = parse_list(optarg, wbs, 2); break;
		case 'c': count = strtoul(optarg, NULL, 0); break;
		case 'r': runs = strtoul(optarg, NULL, 0); break;
		case 'w': only = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!count || !runs || runs > 1000 || !ndelays || !nmodes) {
		usage(stderr);
		return 2;
	}
	if (check_workloads(only))
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (b = 0; b < nwbs; b++)
		for (d = 0; d < ndelays; d++)
			for (i = 0; i < nmodes; i++)
				for (w = 0; w < NWORKLOADS; w++) {
					if (!workload_selected(only,
							       workloads[w].name))
						continue;
					run_cell(&workloads[w], mode_idx[i],
						 delays[d], wbs[b], count, runs);
				}
	printf("BENCH-DONE\n");
	return 0;
}
