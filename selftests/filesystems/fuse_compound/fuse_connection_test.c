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
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "../../kselftest_harness.h"

#include "fuse_test.h"

/* --- a server that dies with a compound in flight --- */

SERVER_FIXTURE(dies, SRV_DIES_MID_COMPOUND, LONG, LONG)

TEST_F(dies, call_in_flight_gets_econnaborted_later_calls_enotconn)
{
	struct stat st;
	int ret;

	ASSERT_EQ(0, stat(path(&self->m, "file"), &st));
	ret = open_append_write(&self->m, "file");
	SKIP_WITHOUT_COMPOUND(&self->m);
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

FIXTURE(stalled) {
	struct mnt m;
};

FIXTURE_VARIANT(stalled) {
	enum srv_behaviour behaviour;
	int expected_errno;
};

/* the server answers the FUSE_INTERRUPT by failing the compound */
FIXTURE_VARIANT_ADD(stalled, interrupt_answered) {
	.behaviour = SRV_STALLS_ANSWERS_INTERRUPT,
	.expected_errno = EINTR,
};

/* the server ignores it: only an abort ends the call */
FIXTURE_VARIANT_ADD(stalled, aborted) {
	.behaviour = SRV_STALLS_IGNORES_INTERRUPT,
	.expected_errno = ECONNABORTED,
};

FIXTURE_SETUP(stalled)
{
	ASSERT_EQ(0, mnt_start(&self->m, srv_cfg(variant->behaviour, LONG, LONG)));
}

FIXTURE_TEARDOWN(stalled)
{
	mnt_stop(&self->m);
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
	char abort_path[64];
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
	if (variant->behaviour == SRV_STALLS_ANSWERS_INTERRUPT) {
		/* now the server fails the compound */
		ASSERT_EQ(1, write(self->m.control, "a", 1));
	} else {
		/* no answer will come: only an abort ends the call */
		snprintf(abort_path, sizeof(abort_path),
			 "/sys/fs/fuse/connections/%u/abort", minor(st.st_dev));
		fd = open(abort_path, O_WRONLY);
		ASSERT_LE(0, fd) TH_LOG("%s: %s", abort_path, strerror(errno));
		ASSERT_EQ(1, write(fd, "1", 1));
		close(fd);
	}
	ASSERT_EQ(client, waitpid(client, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(variant->expected_errno, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
