// SPDX-License-Identifier: GPL-2.0
/*
 * A compound is one request for the life of the connection: a server that
 * dies with a compound in flight, and one that never answers it (the
 * caller's signal sends FUSE_INTERRUPT with the outer unique; the call ends
 * on the server's answer or on an abort).
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
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "../../kselftest_harness.h"

#include "fuse_test.h"

/* --- a server that dies with a compound in flight --- */

/* The compound is read and served: close /dev/fuse instead of answering */
static void die_on_compound(const struct srv_config *cfg,
			    const struct fuse_in_header *req, struct srv_reply *r)
{
	if (req->opcode == FUSE_COMPOUND)
		_exit(0);
}

SERVER_FIXTURE_CFG(dies, SRV_COMPLIANT, LONG, LONG, cfg.edit_reply = die_on_compound)

TEST_F(dies, call_in_flight_gets_econnaborted_later_calls_enotconn)
{
	struct stat st;
	int ret;

	ASSERT_EQ(0, stat(path(&self->m, "file"), &st));
	ret = open_append_write(&self->m, "file");
	SKIP_WITHOUT_COMPOUND(&self->m);
	books_not_checked(&self->m, "the server died with a compound in flight: nobody to give back to");
	EXPECT_EQ(-ECONNABORTED, ret);
	/*
	 * The call in flight ends when the server's /dev/fuse is released,
	 * a moment before the connection is marked gone.  Once the server has
	 * exited, its release (and the abort in it) is over.
	 */
	ASSERT_EQ(self->m.server, waitpid(self->m.server, NULL, 0));
	self->m.server = 0;
	EXPECT_EQ(-1, stat(path(&self->m, "dir"), &st));
	EXPECT_EQ(ENOTCONN, errno);
	ASSERT_EQ(0, umount2(self->m.dir, 0));
}

/* --- a server that never answers the compound --- */

/* Shared with the server: the compound it holds, and the test's word */
struct stall {
	uint64_t unique;	/* the compound held back, or 0 */
	int answer;		/* the test says: fail it with EINTR now */
};

static struct stall *stall;

static void stall_compound(const struct srv_config *cfg,
			   const struct fuse_in_header *req, struct srv_reply *r)
{
	if (req->opcode != FUSE_COMPOUND)
		return;
	stall->unique = req->unique;
	r->drop = true;
}

/* Woken by the test after the FUSE_INTERRUPT: fail the compound, as a server does */
static void answer_when_told(const struct srv_config *cfg, int fd)
{
	struct fuse_out_header oh = { .len = sizeof(oh), .error = -EINTR };

	if (!__atomic_load_n(&stall->answer, __ATOMIC_ACQUIRE) || !stall->unique)
		return;
	oh.unique = stall->unique;
	stall->unique = 0;
	errno = srv_write(cfg->log, fd, &oh, sizeof(oh));
	if (errno)
		perror("stall: answer");
}

FIXTURE(stalled) {
	struct mnt m;
};

FIXTURE_VARIANT(stalled) {
	bool answers;		/* the server answers the FUSE_INTERRUPT */
	int expected_errno;
};

/* the server answers the FUSE_INTERRUPT by failing the compound */
FIXTURE_VARIANT_ADD(stalled, interrupt_answered) {
	.answers = true,
	.expected_errno = EINTR,
};

/* the server ignores it: only an abort ends the call */
FIXTURE_VARIANT_ADD(stalled, aborted) {
	.answers = false,
	.expected_errno = ECONNABORTED,
};

FIXTURE_SETUP(stalled)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG, LONG);

	stall = mmap(NULL, sizeof(*stall), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, stall);
	cfg.edit_reply = stall_compound;
	cfg.idle = answer_when_told;
	ASSERT_EQ(0, mnt_start(&self->m, cfg));
}

FIXTURE_TEARDOWN(stalled)
{
	mnt_stop(_metadata, &self->m);
}

static void on_signal(int sig)
{
}

TEST_F(stalled, signal_sends_interrupt_naming_the_outer_unique)
{
	struct sigaction sa = { .sa_handler = on_signal };
	const struct srv_record *c;
	unsigned int i, interrupts;
	struct stat st;
	pid_t client;
	int status, fd;

	ASSERT_EQ(0, stat(path(&self->m, "file"), &st));
	client = fork();
	ASSERT_LE(0, client);
	if (client == 0) {
		/* no SA_RESTART: the open must come back with the error */
		sigaction(SIGUSR1, &sa, NULL);
		fd = open(path(&self->m, "file"), O_WRONLY | O_APPEND);
		_exit(fd < 0 ? errno : 0);
	}
	if (!expect_compound()) {
		waitpid(client, &status, 0);
		SKIP_WITHOUT_COMPOUND(&self->m);
	}
	ASSERT_TRUE(wait_compounds(&self->m, 1));
	c = compound_since(&self->m, 0);
	ASSERT_NE(NULL, c);
	TH_LOG("compound %llu stalled; signalling the client",
	       (unsigned long long)c->unique);
	ASSERT_EQ(0, kill(client, SIGUSR1));

	/* the kernel sends FUSE_INTERRUPT for the outer request */
	do {
		interrupts = count_since(&self->m, 0, FUSE_INTERRUPT, false);
		if (!interrupts)
			ASSERT_TRUE(next_event(&self->m));
	} while (!interrupts);
	for (i = 0; i < nreq(&self->m); i++)
		if (self->m.log->rec[i].opcode == FUSE_INTERRUPT)
			break;
	EXPECT_EQ(c->unique, self->m.log->rec[i].arg);
	TH_LOG("FUSE_INTERRUPT for %llu",
	       (unsigned long long)self->m.log->rec[i].arg);

	/* the interrupt is queued, nothing answered: the client is blocked */
	ASSERT_EQ(0, waitpid(client, &status, WNOHANG));
	if (variant->answers) {
		/* now the server fails the compound */
		__atomic_store_n(&stall->answer, 1, __ATOMIC_RELEASE);
		ASSERT_EQ(1, write(self->m.control, "a", 1));
	} else {
		/* no answer will come: only an abort ends the call */
		books_not_checked(&self->m, "the connection is aborted: the kernel gives nothing back after it");
		ASSERT_EQ(0, fusectl_abort(minor(st.st_dev)))
			TH_LOG("fusectl abort: %s", strerror(errno));
	}
	ASSERT_EQ(client, waitpid(client, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(variant->expected_errno, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
