// SPDX-License-Identifier: GPL-2.0
/*
 * mutrun: run kselftest harness tests one at a time, for the mutant schema
 * runner (run-mutants).  A unit under TCG costs mostly its processes; this
 * runs each with one fork and one exec, where a shell needed four.
 *
 *   mutrun [-r REACHED] [-f] [-b CENTISECONDS] [-l SECONDS] [-s TAG] < UNITS
 *
 * UNITS: lines "N PROGRAM TEST" (TEST "*": the program run whole).  For
 * each unit, in order: clear REACHED (-r, the schema's debugfs file), run
 * /tests/PROGRAM -r TEST in a session of its own with a time limit (-l,
 * default 90 s; 600 s whole), kill what it left running, and print
 *
 *   N STATUS SECONDS [SITES]
 *
 * STATUS: 0 passed, 4 skipped, norun (the program ran no test of that
 * name), splat (the kernel logged a WARN, BUG, KASAN... report), timeout,
 * or the exit status; SITES: what REACHED lists after it.
 * -f: stop after the first unit that neither passed nor skipped.
 * -b: stop before a unit once the units so far took this long; the last
 * line is then "budget".
 * -s: before each unit, write "TAG N" to stderr (unbuffered: what ran when
 * the kernel died is known).
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

/* whether the kernel logged a splat since the last call (and clear it) */
static int kernel_splat(void)
{
	static char buf[1 << 17];
	int i, n = klogctl(4 /* SYSLOG_ACTION_READ_CLEAR */, buf, sizeof(buf) - 1);

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (i = 0; splats[i]; i++)
		if (strstr(buf, splats[i]))
			return 1;
	return 0;
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

static void print_reached(const char *reached)
{
	char buf[8192] = "";
	int fd = open(reached, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	printf(" %s", buf);
}

static volatile sig_atomic_t timed_out;

static void on_alarm(int sig)
{
	(void)sig;
	timed_out = 1;
}

int main(int argc, char **argv)
{
	const char *reached = NULL, *tag = NULL;
	long budget = 0, spent = 0, limit = 90;
	int stop_first = 0, opt;
	char line[1024], prog[256], test[512], path[300];
	struct sigaction sa = { .sa_handler = on_alarm };

	while ((opt = getopt(argc, argv, "r:fb:l:s:")) != -1) {
		switch (opt) {
		case 'r': reached = optarg; break;
		case 'f': stop_first = 1; break;
		case 'b': budget = atol(optarg); break;
		case 'l': limit = atol(optarg); break;
		case 's': tag = optarg; break;
		default:
			fprintf(stderr, "usage: %s [-r REACHED] [-f] [-b CS] [-l S] [-s TAG] < UNITS\n",
				argv[0]);
			return 2;
		}
	}
	sigaction(SIGALRM, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	kernel_splat();
	while (fgets(line, sizeof(line), stdin)) {
		long n, t0, cs;
		int whole, status = 0, passed;
		char rc[32];
		pid_t pid;

		if (sscanf(line, "%ld %255s %511s", &n, prog, test) != 3)
			continue;
		if (budget && spent >= budget) {
			printf("budget\n");
			break;
		}
		whole = !strcmp(test, "*");
		snprintf(path, sizeof(path), "/tests/%s", prog);
		if (reached)
			clear_reached(reached);
		if (tag)
			fprintf(stderr, "%s %ld\n", tag, n);
		t0 = uptime_cs();
		pid = fork();
		if (pid == 0) {
			int fd = open("/tmp/unit.out", O_WRONLY | O_CREAT | O_TRUNC, 0644);

			setsid();
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
			if (whole)
				execl(path, prog, (char *)NULL);
			else
				execl(path, prog, "-r", test, (char *)NULL);
			_exit(127);
		}
		timed_out = 0;
		alarm(whole ? 600 : limit);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
			if (timed_out) {
				kill(-pid, SIGKILL);
				kill(pid, SIGKILL);
			}
		}
		alarm(0);
		kill_session(pid);
		cs = uptime_cs() - t0;
		spent += cs;
		if (timed_out)
			snprintf(rc, sizeof(rc), "timeout");
		else if (WIFSIGNALED(status))
			snprintf(rc, sizeof(rc), "signal%d", WTERMSIG(status));
		else
			snprintf(rc, sizeof(rc), "%d", WEXITSTATUS(status));
		if (!strcmp(rc, "0") && !whole && !ran_one("/tmp/unit.out"))
			snprintf(rc, sizeof(rc), "norun");
		if (kernel_splat())
			snprintf(rc, sizeof(rc), "splat");
		printf("%ld %s %ld.%02ld", n, rc, cs / 100, cs % 100);
		if (reached)
			print_reached(reached);
		printf("\n");
		passed = !strcmp(rc, "0") || !strcmp(rc, "4");
		if (stop_first && !passed)
			break;
	}
	return 0;
}
