// SPDX-License-Identifier: GPL-2.0
/*
 * mutrun: run kselftest harness tests one at a time, for the mutant schema
 * runner (run-mutants).  A unit under TCG costs mostly its processes; this
 * runs each with one fork and one exec, where a shell needed four.
 *
 *   mutrun [-r REACHED] [-f] [-b CENTISECONDS] [-l SECONDS] [-s TAG] < UNITS
 *
 * UNITS: lines "N PROGRAM TEST" (TEST "*": the program run whole;
 * PROGRAM "kunit": TEST is a KUnit suite, run again through
 * /sys/kernel/debug/kunit/TEST/run, passed when its results say so).  For
 * each unit, in order: clear REACHED (-r, the schema's debugfs file), run
 * /tests/PROGRAM -r TEST in a session of its own with a time limit (-l,
 * default 90 s; 600 s whole), kill what it left running, and print
 *
 *   N STATUS SECONDS [SITES]
 *
 * STATUS: 0 passed, 4 skipped, norun (the program ran no test of that
 * name), splat (the kernel logged a WARN, BUG, KASAN... report), timeout,
 * signalN, or the exit status; SITES: what REACHED lists after it ("-":
 * none), then "t=SITES f=SITES": the condition sites it saw true and
 * false (fuse_mutant_cond, in REACHED's directory).  The
 * last line is "END" when every unit asked for ran; a run that finds a
 * kernel report logged before it prints "pending-splat" and runs nothing.
 * -f: stop after the first unit that did not pass (a skip included: only
 * units that passed unmutated are given).
 * -b: stop before a unit once the units so far took this long; the last
 * line is then "budget".
 * -s: before each unit, write "TAG N" to stderr (unbuffered: what ran when
 * the kernel died is known).
 * -x FILE:FUNCTION: a WARN at FUNCTION of FILE is not a splat of a KUnit
 * unit (the suites provoke some on purpose; repeatable).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/wait.h>
#include <dirent.h>
#include <unistd.h>

static const char *const splats[] = {
	"WARNING:", "BUG:", "Oops", "KASAN:", "UBSAN:", "KFENCE:",
	"general protection", "kernel BUG", "possible circular locking",
	"suspicious RCU", "Busy inodes after unmount", "blocked for more than",
	NULL
};

static long uptime_cs(void)
{
	FILE *f = fopen("/proc/uptime", "r");
	double up = 0;

	if (f) {
		if (fscanf(f, "%lf", &up) != 1)
			up = 0;
		fclose(f);
	}
	return (long)(up * 100 + 0.5);
}

/* kill every process of session SID but its leader */
static void kill_session(pid_t sid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		pid_t pid = atoi(e->d_name);

		if (pid > 0 && pid != sid && getsid(pid) == sid)
			kill(pid, SIGKILL);
	}
	closedir(d);
}

static const char *expected[16];
static int nr_expected;

/* whether LINE is a WARN that a KUnit suite provokes on purpose */
static int expected_warn(const char *line)
{
	char file[128], at[160], func[80];
	int i;

	if (strncmp(line, "WARNING: CPU:", 13) && !strstr(line, "] WARNING: CPU:"))
		return 0;
	for (i = 0; i < nr_expected; i++) {
		if (sscanf(expected[i], "%127[^:]:%79s", file, func) != 2)
			continue;
		snprintf(at, sizeof(at), " at %s:", file);
		strcat(func, "+");
		if (strstr(line, at) && strstr(line, func))
			return 1;
	}
	return 0;
}

/*
 * Whether the kernel logged a splat since the last call (and clear the
 * log); KUNIT: the WARNs the suites provoke on purpose are not splats.
 */
static int kernel_splat(int kunit)
{
	static char buf[1 << 17];
	char *line, *save = NULL;
	int i, n = klogctl(4 /* SYSLOG_ACTION_READ_CLEAR */, buf, sizeof(buf) - 1);

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (kunit && expected_warn(line))
			continue;
		for (i = 0; splats[i]; i++)
			if (strstr(line, splats[i]))
				return 1;
	}
	return 0;
}

/* run KUnit SUITE again; 0 when its results end "ok 1 SUITE" */
static int run_kunit(const char *suite)
{
	char path[600], line[640], want[540];
	int fd, passed = 0;
	FILE *f, *out;

	snprintf(path, sizeof(path), "/sys/kernel/debug/kunit/%s/run", suite);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, "1", 1) != 1) {
		perror(path);
		if (fd >= 0)
			close(fd);
		return 127;
	}
	close(fd);
	snprintf(path, sizeof(path), "/sys/kernel/debug/kunit/%s/results", suite);
	snprintf(want, sizeof(want), "ok 1 %s", suite);
	f = fopen(path, "r");
	out = fopen("/tmp/unit.out", "w");
	if (!f)
		return 127;
	while (fgets(line, sizeof(line), f)) {
		if (out)
			fputs(line, out);
		line[strcspn(line, "\n")] = '\0';
		if (!strcmp(line, want))
			passed = 1;
	}
	fclose(f);
	if (out)
		fclose(out);
	return passed ? 0 : 1;
}

static int ran_one(const char *out)
{
	char line[512];
	FILE *f = fopen(out, "r");
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, "ok 1 ", 5) || !strncmp(line, "not ok 1 ", 9);
	fclose(f);
	return found;
}

static void clear_reached(const char *reached)
{
	int fd = open(reached, O_WRONLY);

	if (fd >= 0) {
		if (write(fd, "\n", 1) < 0)
			perror(reached);
		close(fd);
	}
}

/* the first line of PATH, without its newline ("" if none) */
static const char *first_line(const char *path)
{
	static char buf[1 << 16];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/*
 * " SITES t=SITES f=SITES": the sites reached ("-" for none), then the
 * condition sites seen true and false (fuse_mutant_cond, beside REACHED)
 */
static void print_reached(const char *reached)
{
	char cond[300];
	const char *sites = first_line(reached), *slash = strrchr(reached, '/');

	printf(" %s", *sites ? sites : "-");
	snprintf(cond, sizeof(cond), "%.*sfuse_mutant_cond",
		 slash ? (int)(slash - reached + 1) : 0, reached);
	printf(" %s", access(cond, R_OK) ? "t= f=" : first_line(cond));
}

static volatile sig_atomic_t alarmed;

static void on_alarm(int sig)
{
	(void)sig;
	alarmed = 1;
}

/*
 * Wait for PID, killing its session after LIMIT seconds.  Every 30 s a
 * heartbeat goes to stderr (the host stops a guest that writes nothing
 * for minutes: a unit that runs long is not a hang).  A unit that does not
 * die within 30 s of its kill is stuck in the kernel: it is left behind,
 * reported "timeout", and the health check that follows finds it.
 * Returns 0 when PID ended (STATUS set), 1 on timeout.
 */
static int wait_unit(pid_t pid, long limit, int *status)
{
	long waited = 0, killed_at = -1;

	for (;;) {
		alarmed = 0;
		alarm(30);
		if (waitpid(pid, status, 0) == pid) {
			alarm(0);
			return killed_at >= 0;
		}
		alarm(0);
		if (errno != EINTR)
			return 1;
		waited += 30;
		fprintf(stderr, "ALIVE %ld\n", waited);
		if (killed_at < 0 && waited >= limit) {
			kill(-pid, SIGKILL);
			killed_at = waited;
		} else if (killed_at >= 0 && waited - killed_at >= 30) {
			return 1;
		}
	}
}

/* whether any process but the leader is left in session SID */
static int session_left(pid_t sid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int left = 0;

	if (!d)
		return 0;
	while (!left && (e = readdir(d))) {
		pid_t pid = atoi(e->d_name);

		left = pid > 0 && pid != sid && getsid(pid) == sid;
	}
	closedir(d);
	return left;
}

int main(int argc, char **argv)
{
	const char *reached = NULL, *tag = NULL;
	long budget = 0, spent = 0, limit = 90;
	int stop_first = 0, opt;
	char line[1024], prog[256], test[512], path[300];
	struct sigaction sa = { .sa_handler = on_alarm };

	while ((opt = getopt(argc, argv, "r:fb:l:s:x:")) != -1) {
		switch (opt) {
		case 'r': reached = optarg; break;
		case 'f': stop_first = 1; break;
		case 'b': budget = atol(optarg); break;
		case 'l': limit = atol(optarg); break;
		case 's': tag = optarg; break;
		case 'x':
			if (nr_expected < 16)
				expected[nr_expected++] = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-r REACHED] [-f] [-b CS] [-l S] [-s TAG] < UNITS\n",
				argv[0]);
			return 2;
		}
	}
	sigaction(SIGALRM, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* a report logged before this run is not this run's: say so */
	if (kernel_splat(0)) {
		printf("pending-splat\n");
		return 3;
	}
	while (fgets(line, sizeof(line), stdin)) {
		long n, t0, cs;
		int whole, kunit, status = 0, passed, timed_out = 0, i;
		char rc[32];
		pid_t pid;

		if (sscanf(line, "%ld %255s %511s", &n, prog, test) != 3)
			continue;
		if (budget && spent >= budget) {
			printf("budget\n");
			break;
		}
		whole = !strcmp(test, "*");
		kunit = !strcmp(prog, "kunit");
		snprintf(path, sizeof(path), "/tests/%s", prog);
		if (reached)
			clear_reached(reached);
		if (tag)
			fprintf(stderr, "%s %ld\n", tag, n);
		unlink("/tmp/unit.out");
		t0 = uptime_cs();
		if (kunit) {
			status = run_kunit(test) << 8;
			pid = 0;
			goto ended;
		}
		pid = fork();
		if (pid < 0) {
			perror("fork");
			printf("%ld fork-failed 0.00\n", n);
			return 3;
		}
		if (pid == 0) {
			int fd = open("/tmp/unit.out", O_WRONLY | O_CREAT | O_TRUNC, 0644);
			int null = open("/dev/null", O_RDONLY);

			setsid();
			dup2(null, 0);
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
			close(null);
			if (whole)
				execl(path, prog, (char *)NULL);
			else
				execl(path, prog, "-r", test, (char *)NULL);
			_exit(127);
		}
		timed_out = wait_unit(pid, whole ? 600 : limit, &status);
ended:
		/* what the unit left (a server): killed, and gone before the next */
		for (i = 0; pid && i < 50 && session_left(pid); i++) {
			kill_session(pid);
			usleep(100000);
		}
		cs = uptime_cs() - t0;
		spent += cs;
		if (timed_out)
			snprintf(rc, sizeof(rc), "timeout");
		else if (WIFSIGNALED(status))
			snprintf(rc, sizeof(rc), "signal%d", WTERMSIG(status));
		else
			snprintf(rc, sizeof(rc), "%d", WEXITSTATUS(status));
		if (!strcmp(rc, "0") && !whole && !kunit && !ran_one("/tmp/unit.out"))
			snprintf(rc, sizeof(rc), "norun");
		if (kernel_splat(kunit))
			snprintf(rc, sizeof(rc), "splat");
		printf("%ld %s %ld.%02ld", n, rc, cs / 100, cs % 100);
		if (reached)
			print_reached(reached);
		printf("\n");
		passed = !strcmp(rc, "0");
		if (stop_first && !passed)
			break;
	}
	printf("END\n");
	return 0;
}
