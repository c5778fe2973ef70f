// SPDX-License-Identifier: GPL-2.0
/*
 * What a real FUSE server answers to the series' new opcodes, sent on
 * purpose: this program plays the kernel.  It starts the server with its
 * /dev/fuse replaced by one end of a SOCK_SEQPACKET socket pair (one
 * message per request and per reply, as /dev/fuse reads and writes):
 * through fuse_real_devshim.so for servers that open /dev/fuse and mount
 * themselves, and by standing in for fusermount (this program, called by
 * that name: it hands the socket over $_FUSE_COMMFD as fusermount hands
 * /dev/fuse) for the Go libraries that call it.  Then it sends INIT,
 * offering FUSE_HAS_LOOKUP_HANDLE, and then at once one FUSE_COMPOUND (a
 * GETATTR of the root), one LOOKUP_HANDLE and one MKOBJ_HANDLE, answered
 * or not within ANSWER_MS, and prints one line
 *
 *   # fuse_probe: server=NAME init=E lookup_handle_flag=0|1 export_support=0|1
 *                 compound=E lookup_handle=E mkobj_handle=E
 *
 * (export_support: the server set FUSE_EXPORT_SUPPORT in its INIT reply)
 *
 * to the file $FUSEGATE_PROBE_OUT (appended; standard output when unset:
 * a server may have been started with its output elsewhere).
 * E: 0 or the server's -errno; "none": no answer in time; "closed": the
 * server closed its end; "error": the program could not ask.
 * Nothing of it reaches the kernel's FUSE.
 *
 *   fuse_real_probe NAME SHIM -- SERVER [ARGS...]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fuse_server.h"

#define ANSWER_MS	10000
#define START_MS	30000
#define FAKE_FD		100

static int dev;			/* our end of the pair: the kernel's side */

/* fusermount's part: hand the socket over $_FUSE_COMMFD, as fusermount
 * hands the /dev/fuse it opened; an unmount (-u) has nothing to do */
static int fake_fusermount(int argc, char **argv)
{
	const char *comm = getenv("_FUSE_COMMFD"), *fake = getenv("FUSEGATE_FAKE_FUSE_FD");
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 }, byte = 0;
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	int fd, i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-u"))
			return 0;
	if (!comm) {
		fprintf(stderr, "fuse_real_probe as fusermount: no _FUSE_COMMFD\n");
		return 1;
	}
	if (fake) {
		fd = atoi(fake);
	} else {
		/* go-fuse starts fusermount with no environment but
		 * _FUSE_COMMFD: the socket is the caller's FAKE_FD */
		int pidfd = syscall(SYS_pidfd_open, getppid(), 0);

		fd = pidfd < 0 ? -1 : syscall(SYS_pidfd_getfd, pidfd, FAKE_FD, 0);
		if (fd < 0) {
			perror("fuse_real_probe as fusermount: the caller's socket");
			return 1;
		}
	}
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(atoi(comm), &msg, 0) == 1 ? 0 : 1;
}

#define MAX_UNIQUE	8
/* each request's answer by unique: its error, or a word (empty: waiting) */
static char answered[MAX_UNIQUE][16];

/* read replies until every request from first to last is answered, the
 * server closes its end, or ms pass; copy the reply of unique first into
 * out (INIT's) */
static void collect(uint64_t first, uint64_t last, int ms, void *out, size_t *outlen)
{
	static char buf[1 << 17];
	struct fuse_out_header *h = (void *)buf;
	struct pollfd p = { .fd = dev, .events = POLLIN };
	const char *word = NULL;
	struct timespec now, end;
	uint64_t u;
	ssize_t n;
	long left;

	/* ms is a limit for all the answers, whatever else comes meanwhile */
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += ms / 1000;
	end.tv_nsec += (ms % 1000) * 1000000L;
	for (;;) {
		for (u = first; u <= last && answered[u][0]; u++)
			;
		if (u > last)
			return;
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = (end.tv_sec - now.tv_sec) * 1000 + (end.tv_nsec - now.tv_nsec) / 1000000;
		if (left <= 0 || poll(&p, 1, left) <= 0) {
			word = "none";
			break;
		}
		n = recv(dev, buf, sizeof(buf), 0);
		if (n == 0 || (n < 0 && errno == ECONNRESET)) {
			word = "closed";
			break;
		}
		if (n < (ssize_t)sizeof(*h)) {
			word = "error";
			break;
		}
		/* a notification (unique 0), or not ours */
		if (h->unique < first || h->unique > last)
			continue;
		snprintf(answered[h->unique], sizeof(answered[0]), "%d", h->error);
		if (h->unique == first && out && outlen) {
			size_t m = (size_t)n - sizeof(*h);

			if (m > *outlen)
				m = *outlen;
			memcpy(out, buf + sizeof(*h), m);
			*outlen = m;
		}
	}
	for (u = first; u <= last; u++)
		if (!answered[u][0])
			snprintf(answered[u], sizeof(answered[0]), "%s", word);
}

/* send opcode on nodeid with the payload as request unique; the answer
 * comes with collect() */
static void put(uint64_t unique, uint32_t opcode, uint64_t nodeid, const void *in, size_t len)
{
	char buf[4096];
	struct fuse_in_header *h = (void *)buf;

	memset(h, 0, sizeof(*h));
	h->len = sizeof(*h) + len;
	h->opcode = opcode;
	h->unique = unique;
	h->nodeid = nodeid;
	memcpy(buf + sizeof(*h), in, len);
	if (send(dev, buf, h->len, 0) != (ssize_t)h->len)
		snprintf(answered[unique], sizeof(answered[0]), "%s",
			 errno == EPIPE || errno == ECONNRESET ? "closed" : "error");
}

enum { U_INIT = 1, U_COMPOUND, U_LOOKUP_HANDLE, U_MKOBJ_HANDLE };

static void ask_init(int *flag, int *export)
{
	/* what stock 6.12 offers (fuse_send_init()) but splice, which a
	 * socket pair cannot stand for, and the series' flag */
	struct fuse_init_in in = {
		.major = FUSE_KERNEL_VERSION, .minor = 41, .max_readahead = 128 << 10,
		.flags = FUSE_ASYNC_READ | FUSE_POSIX_LOCKS | FUSE_ATOMIC_O_TRUNC |
			 FUSE_EXPORT_SUPPORT | FUSE_BIG_WRITES | FUSE_DONT_MASK |
			 FUSE_FLOCK_LOCKS | FUSE_HAS_IOCTL_DIR | FUSE_AUTO_INVAL_DATA |
			 FUSE_DO_READDIRPLUS | FUSE_READDIRPLUS_AUTO | FUSE_ASYNC_DIO |
			 FUSE_WRITEBACK_CACHE | FUSE_NO_OPEN_SUPPORT |
			 FUSE_PARALLEL_DIROPS | FUSE_HANDLE_KILLPRIV | FUSE_POSIX_ACL |
			 FUSE_ABORT_ERROR | FUSE_MAX_PAGES | FUSE_CACHE_SYMLINKS |
			 FUSE_NO_OPENDIR_SUPPORT | FUSE_EXPLICIT_INVAL_DATA |
			 FUSE_HANDLE_KILLPRIV_V2 | FUSE_SETXATTR_EXT | FUSE_INIT_EXT,
		.flags2 = FUSE_HAS_LOOKUP_HANDLE >> 32,
	};
	struct fuse_init_out out;
	size_t len = sizeof(out);

	memset(&out, 0, sizeof(out));
	put(U_INIT, FUSE_INIT, 0, &in, sizeof(in));
	collect(U_INIT, U_INIT, START_MS, &out, &len);
	*flag = !strcmp(answered[U_INIT], "0") && (out.flags & FUSE_INIT_EXT) &&
		(((uint64_t)out.flags2 << 32) & FUSE_HAS_LOOKUP_HANDLE);
	*export = !strcmp(answered[U_INIT], "0") && (out.flags & FUSE_EXPORT_SUPPORT);
}

/* the three requests, sent at once: a server that gives up on its own
 * (go-fuse: its mount check) may still answer each */
static void ask_new_opcodes(void)
{
	struct {
		struct fuse_compound_in c;
		struct fuse_compound_req_in r;
		struct fuse_in_header h;
		struct fuse_getattr_in g;
	} __attribute__((packed)) compound;
	char mkobj[sizeof(struct fuse_mkobj_handle_in) + 32];
	struct fuse_mkobj_handle_in m = { .mode = S_IFREG | 0644, .umask = 022 };
	const char name[] = "hello", new_name[] = "fusegate-probe";

	memset(&compound, 0, sizeof(compound));
	compound.r.dep_index = FUSE_COMPOUND_NO_DEP;
	compound.h.len = sizeof(compound.h) + sizeof(compound.g);
	compound.h.opcode = FUSE_GETATTR;
	compound.h.nodeid = FUSE_ROOT_ID;
	put(U_COMPOUND, FUSE_COMPOUND, FUSE_ROOT_ID, &compound, sizeof(compound));
	put(U_LOOKUP_HANDLE, FUSE_LOOKUP_HANDLE, FUSE_ROOT_ID, name, sizeof(name));
	memcpy(mkobj, &m, sizeof(m));
	memcpy(mkobj + sizeof(m), new_name, sizeof(new_name));
	put(U_MKOBJ_HANDLE, FUSE_MKOBJ_HANDLE, FUSE_ROOT_ID, mkobj, sizeof(m) + sizeof(new_name));
	collect(U_COMPOUND, U_MKOBJ_HANDLE, ANSWER_MS, NULL, NULL);
}

/* what fuse_probe prints of a request: its answer, or "-" (not asked) */
static const char *word(int unique)
{
	return answered[unique][0] ? answered[unique] : "-";
}

int main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	int sv[2], flag = 0, export = 0, status, i;
	FILE *out;
	char fdstr[16];
	pid_t pid;

	if (!strncmp(base, "fusermount", 10))
		return fake_fusermount(argc, argv);
	if (argc < 5 || strcmp(argv[3], "--")) {
		fprintf(stderr, "usage: %s NAME SHIM -- SERVER [ARGS...]\n", argv[0]);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv)) {
		perror("socketpair");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		if (dup2(sv[1], FAKE_FD) < 0)
			_exit(127);
		close(sv[0]);
		close(sv[1]);
		snprintf(fdstr, sizeof(fdstr), "%d", FAKE_FD);
		setenv("FUSEGATE_FAKE_FUSE_FD", fdstr, 1);
		setenv("LD_PRELOAD", argv[2], 1);
		execvp(argv[4], argv + 4);
		_exit(127);
	}
	close(sv[1]);
	dev = sv[0];
	ask_init(&flag, &export);
	if (!strcmp(answered[U_INIT], "0"))
		ask_new_opcodes();
	out = getenv("FUSEGATE_PROBE_OUT") ? fopen(getenv("FUSEGATE_PROBE_OUT"), "a") : stdout;
	if (!out)
		out = stdout;
	fprintf(out, "# fuse_probe: server=%s init=%s lookup_handle_flag=%d export_support=%d "
		"compound=%s lookup_handle=%s mkobj_handle=%s\n", argv[1], answered[U_INIT], flag,
		export, word(U_COMPOUND), word(U_LOOKUP_HANDLE), word(U_MKOBJ_HANDLE));
	fflush(out);
	/* the device closes: the server's next read sees its end */
	close(dev);
	for (i = 0; i < 500 && waitpid(pid, &status, WNOHANG) == 0; i++)
		usleep(10000);
	if (i == 500) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	return 0;
}
