// SPDX-License-Identifier: GPL-2.0
/*
 * Who may do what on a FUSE mount, its connection and its device, in
 * stock 6.12: every check of a capability or of a caller's ids between a
 * process and a FUSE server (docs/stock-checks.md, section "privileges").
 * A series that drops one of them is a privilege escalation.
 *
 * The guest runs every test as root: a caller without a privilege is a
 * child that gives it up first (struct who: its real, effective and saved
 * uids and gids, and the capabilities it drops from its sets), makes its
 * one call, and reports the result.  What the server was asked is in its
 * log: a caller the kernel turns away sends nothing.
 *
 *  - foreign: a mount without allow_other is its owner's (uid and gid 0
 *    here): each call site of fuse_allow_current_process() against a
 *    caller whose ids differ in one place, allow_other, and the module
 *    parameter allow_sys_admin_access;
 *  - fusectl: the connection's files in /sys/fs/fuse/connections belong
 *    to the mount's owner (user_id=1000 here), with their modes, and an
 *    owner without CAP_SYS_ADMIN is held to the module's limits;
 *  - killpriv: what the kernel tells a server that kills suid/sgid bits
 *    itself (FUSE_HANDLE_KILLPRIV_V2) about a caller without CAP_FSETID,
 *    and how often it asks for that capability (killpriv_fsetid_once);
 *  - unmounted: /dev/fuse opened and never mounted is no device yet;
 *  - clone: FUSE_DEV_IOC_CLONE of what is not a mounted fuse device, or
 *    into a device that already serves a connection;
 *  - mount_fd: the fd= of a mount must be /dev/fuse.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "../../kselftest_harness.h"
#include "fuse_test.h"

#define FUSE_SUPER_MAGIC	0x65735546
#define GETFLAGS		_IOR('f', 1, long)	/* FS_IOC_GETFLAGS */
/* Protocol 7.40 (passthrough), for headers that predate it */
struct backing_map { int32_t fd; uint32_t flags; uint64_t padding; };
#define BACKING_OPEN		_IOW(229, 1, struct backing_map)
#define BACKING_CLOSE		_IOW(229, 2, uint32_t)
#define CLONE			_IOR(229, 0, uint32_t)	/* FUSE_DEV_IOC_CLONE */

/* --- callers: a child that is someone else --- */

struct who {
	uid_t uid[3];		/* real, effective, saved */
	gid_t gid[3];
	uint64_t drop;		/* capabilities it gives up: 1ULL << CAP_X */
};

#define ROOT			{ { 0, 0, 0 }, { 0, 0, 0 } }
#define USER(u)			{ { u, u, u }, { u, u, u } }
#define WITHOUT(cap)		{ { 0, 0, 0 }, { 0, 0, 0 }, 1ULL << (cap) }
/* uid 0 with every capability, in group @g */
#define ROOT_IN_GROUP(g)	{ { 0, 0, 0 }, { g, g, g } }
#define OWNER			1000	/* of the fusectl mount */
#define OTHER			1001

/* Take on @w's credentials; 0 or -errno */
static int become(const struct who *w)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct caps[2];
	int i;

	if (setgroups(0, NULL) || setresgid(w->gid[0], w->gid[1], w->gid[2]) ||
	    setresuid(w->uid[0], w->uid[1], w->uid[2]))
		return -errno;
	/* its /proc/self stays its own: it reopens O_PATH fds there */
	prctl(PR_SET_DUMPABLE, 1);
	if (!w->drop)
		return 0;
	if (syscall(SYS_capget, &h, caps))
		return -errno;
	for (i = 0; i < 2; i++) {
		uint32_t keep = ~(uint32_t)(w->drop >> (32 * i));

		caps[i].effective &= keep;
		caps[i].permitted &= keep;
		caps[i].inheritable &= keep;
	}
	return syscall(SYS_capset, &h, caps) ? -errno : 0;
}

#define NOT_BECOME	-100000L	/* the child could not become @w */

/* @fn(@arg) run by a child with @w's credentials: what it returned */
static long as_who(const struct who *w, long (*fn)(const void *),
		   const void *arg)
{
	long ret = NOT_BECOME - 1;
	int p[2], status;
	pid_t pid;

	if (pipe(p))
		return NOT_BECOME - 2;
	pid = fork();
	if (pid == 0) {
		int err = become(w);

		ret = err ? NOT_BECOME + err : fn(arg);
		_exit(write(p[1], &ret, sizeof(ret)) != sizeof(ret));
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &ret, sizeof(ret)) != sizeof(ret))
		ret = NOT_BECOME - 3;
	close(p[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	return ret;
}

static long neg_errno(long ret)
{
	return ret < 0 ? -errno : ret;
}

static int write_file(const char *file, const char *s)
{
	int fd = open(file, O_WRONLY), ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, s, strlen(s)) < 0 ? -errno : 0;
	close(fd);
	return ret;
}

static long read_number(const char *file)
{
	char buf[32] = "";
	int fd = open(file, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	return n > 0 ? strtol(buf, NULL, 10) : -1;
}

/* --- a mount's owner and who else may enter: fuse_allow_current_process --- */

enum call {
	C_LOOKUP,	/* stat(mnt/file): fuse_permission() on the root */
	C_GETATTR,	/* stat(mnt) */
	C_STATX_NONE,	/* statx(mnt) asking for nothing */
	C_SETATTR,	/* chmod(mnt, 0755) */
	C_STATFS,	/* statfs(mnt): f_bsize, 0 when nothing was asked */
	C_IOCTL,	/* ioctl(_IOR('X', 1, u64)) on "file", opened by root */
	C_FILEATTR,	/* ioctl(FS_IOC_GETFLAGS) on it */
	C_LISTXATTR,	/* listxattr(mnt, NULL, 0) */
};

struct call_ctx {
	struct mnt *m;
	int fd;
	enum call call;
};

static long do_call(const void *arg)
{
	const struct call_ctx *c = arg;
	struct statx stx;
	struct statfs sfs;
	struct stat st;
	uint64_t v;
	long flags;

	switch (c->call) {
	case C_LOOKUP:
		return neg_errno(stat(path(c->m, "file"), &st));
	case C_GETATTR:
		return neg_errno(stat(c->m->dir, &st));
	case C_STATX_NONE:
		return neg_errno(statx(AT_FDCWD, c->m->dir, 0, 0, &stx));
	case C_SETATTR:
		return neg_errno(chmod(c->m->dir, 0755));
	case C_STATFS:
		memset(&sfs, 0xff, sizeof(sfs));
		if (statfs(c->m->dir, &sfs))
			return -errno;
		return sfs.f_type == FUSE_SUPER_MAGIC ? sfs.f_bsize : -1;
	case C_IOCTL:
		return neg_errno(ioctl(c->fd, _IOR('X', 1, uint64_t), &v));
	case C_FILEATTR:
		return neg_errno(ioctl(c->fd, GETFLAGS, &flags));
	case C_LISTXATTR:
		return neg_errno(listxattr(c->m->dir, NULL, 0));
	}
	return -1;
}

#define SYS_ADMIN_ACCESS "/sys/module/fuse/parameters/allow_sys_admin_access"

FIXTURE(foreign) {
	struct mnt m;
	int fd;
};

FIXTURE_VARIANT(foreign) {
	bool allow_other;	/* mounted with it (else the owner's alone) */
	bool sys_admin_access;	/* allow_sys_admin_access is Y meanwhile */
	struct who who;
	enum call call;
	long ret;
	uint32_t opcode;	/* what the call sends when it is let in */
	unsigned int sent;
};

/*
 * foreign-caller-*: uid 1000 on a mount of uid 0 without allow_other,
 * one call site of fuse_allow_current_process() each
 */
FIXTURE_VARIANT_ADD(foreign, foreign_caller_permission) {
	.who = USER(1000), .call = C_LOOKUP, .ret = -EACCES,
	.opcode = FUSE_LOOKUP, .sent = 0,
};
/* ... the other side: the owner gets in */
FIXTURE_VARIANT_ADD(foreign, foreign_caller_permission_but_the_owner_is_let_in) {
	.who = ROOT, .call = C_LOOKUP, .ret = 0, .opcode = FUSE_LOOKUP, .sent = 1,
};
FIXTURE_VARIANT_ADD(foreign, foreign_caller_getattr) {
	.who = USER(1000), .call = C_GETATTR, .ret = -EACCES,
	.opcode = FUSE_GETATTR, .sent = 0,
};
/* a statx() that asks for nothing gets st_dev, and no error */
FIXTURE_VARIANT_ADD(foreign, foreign_caller_getattr_asking_nothing) {
	.who = USER(1000), .call = C_STATX_NONE, .ret = 0,
	.opcode = FUSE_GETATTR, .sent = 0,
};
FIXTURE_VARIANT_ADD(foreign, foreign_caller_setattr) {
	.who = USER(1000), .call = C_SETATTR, .ret = -EACCES,
	.opcode = FUSE_SETATTR, .sent = 0,
};
FIXTURE_VARIANT_ADD(foreign, foreign_caller_setattr_but_the_owner_is_let_in) {
	.who = ROOT, .call = C_SETATTR, .ret = 0, .opcode = FUSE_SETATTR, .sent = 1,
};
/* statfs() succeeds, with nothing but f_type: the server is not asked */
FIXTURE_VARIANT_ADD(foreign, foreign_caller_statfs) {
	.who = USER(1000), .call = C_STATFS, .ret = 0,
	.opcode = FUSE_STATFS, .sent = 0,
};
FIXTURE_VARIANT_ADD(foreign, foreign_caller_statfs_but_the_owner_is_let_in) {
	.who = ROOT, .call = C_STATFS, .ret = 4096, .opcode = FUSE_STATFS, .sent = 1,
};
/* an fd the owner opened, used by another uid */
FIXTURE_VARIANT_ADD(foreign, foreign_caller_ioctl) {
	.who = USER(1000), .call = C_IOCTL, .ret = -EACCES,
	.opcode = FUSE_IOCTL, .sent = 0,
};
/* the server does not know FUSE_IOCTL: ENOTTY, once it was asked */
FIXTURE_VARIANT_ADD(foreign, foreign_caller_ioctl_but_the_owner_is_let_in) {
	.who = ROOT, .call = C_IOCTL, .ret = -ENOTTY, .opcode = FUSE_IOCTL, .sent = 1,
};
FIXTURE_VARIANT_ADD(foreign, foreign_caller_fileattr) {
	.who = USER(1000), .call = C_FILEATTR, .ret = -EACCES,
	.opcode = FUSE_IOCTL, .sent = 0,
};
FIXTURE_VARIANT_ADD(foreign, foreign_caller_listxattr) {
	.who = USER(1000), .call = C_LISTXATTR, .ret = -EACCES,
	.opcode = FUSE_LISTXATTR, .sent = 0,
};
/* the server does not know LISTXATTR: EOPNOTSUPP, once it was asked */
FIXTURE_VARIANT_ADD(foreign, foreign_caller_listxattr_but_the_owner_is_let_in) {
	.who = ROOT, .call = C_LISTXATTR, .ret = -EOPNOTSUPP,
	.opcode = FUSE_LISTXATTR, .sent = 1,
};
/* foreign-caller-allow-other: with allow_other anybody is let in */
FIXTURE_VARIANT_ADD(foreign, foreign_caller_allow_other) {
	.allow_other = true, .who = USER(1000), .call = C_LOOKUP, .ret = 0,
	.opcode = FUSE_LOOKUP, .sent = 1,
};
FIXTURE_VARIANT_ADD(foreign, foreign_caller_allow_other_statfs) {
	.allow_other = true, .who = USER(1000), .call = C_STATFS, .ret = 4096,
	.opcode = FUSE_STATFS, .sent = 1,
};
/*
 * permissible-*: the owner's ids must all be the caller's; each variant
 * differs from uid and gid 0 in one id (an effective uid 1000 has no
 * capabilities; the others keep them, and allow_sys_admin_access is N)
 */
FIXTURE_VARIANT_ADD(foreign, permissible_euid) {
	.who = { { 0, 1000, 0 }, { 0, 0, 0 } }, .call = C_LOOKUP, .ret = -EACCES,
	.opcode = FUSE_LOOKUP,
};
FIXTURE_VARIANT_ADD(foreign, permissible_suid) {
	.who = { { 0, 0, 1000 }, { 0, 0, 0 } }, .call = C_LOOKUP, .ret = -EACCES,
	.opcode = FUSE_LOOKUP,
};
FIXTURE_VARIANT_ADD(foreign, permissible_uid) {
	.who = { { 1000, 0, 0 }, { 0, 0, 0 } }, .call = C_LOOKUP, .ret = -EACCES,
	.opcode = FUSE_LOOKUP,
};
FIXTURE_VARIANT_ADD(foreign, permissible_egid) {
	.who = { { 0, 0, 0 }, { 0, 1000, 0 } }, .call = C_LOOKUP, .ret = -EACCES,
	.opcode = FUSE_LOOKUP,
};
FIXTURE_VARIANT_ADD(foreign, permissible_sgid) {
	.who = { { 0, 0, 0 }, { 0, 0, 1000 } }, .call = C_LOOKUP, .ret = -EACCES,
	.opcode = FUSE_LOOKUP,
};
FIXTURE_VARIANT_ADD(foreign, permissible_gid) {
	.who = { { 0, 0, 0 }, { 1000, 0, 0 } }, .call = C_LOOKUP, .ret = -EACCES,
	.opcode = FUSE_LOOKUP,
};
/*
 * allow-sys-admin-access-*: root in another group is foreign; the module
 * parameter lets CAP_SYS_ADMIN in, and nothing less
 */
FIXTURE_VARIANT_ADD(foreign, allow_sys_admin_access_param) {
	.who = ROOT_IN_GROUP(1000), .call = C_LOOKUP, .ret = -EACCES,
	.opcode = FUSE_LOOKUP, .sent = 0,
};
FIXTURE_VARIANT_ADD(foreign, allow_sys_admin_access_param_set_lets_cap_sys_admin_in) {
	.sys_admin_access = true, .who = ROOT_IN_GROUP(1000), .call = C_LOOKUP,
	.ret = 0, .opcode = FUSE_LOOKUP, .sent = 1,
};
FIXTURE_VARIANT_ADD(foreign, allow_sys_admin_access_cap) {
	.sys_admin_access = true,
	.who = { { 0, 0, 0 }, { 1000, 1000, 1000 }, 1ULL << CAP_SYS_ADMIN },
	.call = C_LOOKUP, .ret = -EACCES, .opcode = FUSE_LOOKUP, .sent = 0,
};
FIXTURE_VARIANT_ADD(foreign, allow_sys_admin_access_cap_and_no_uid_either) {
	.sys_admin_access = true, .who = USER(1000), .call = C_LOOKUP,
	.ret = -EACCES, .opcode = FUSE_LOOKUP, .sent = 0,
};

FIXTURE_SETUP(foreign)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG, LONG);

	self->fd = -1;
	ASSERT_EQ(0, write_file(SYS_ADMIN_ACCESS, variant->sys_admin_access ? "Y" : "N"));
	cfg.owner_only = !variant->allow_other;
	ASSERT_EQ(0, mnt_start(&self->m, cfg));
	if (variant->call == C_IOCTL || variant->call == C_FILEATTR) {
		self->fd = open(path(&self->m, "file"), O_RDONLY);
		ASSERT_LE(0, self->fd);
	}
}

FIXTURE_TEARDOWN(foreign)
{
	if (self->fd >= 0)
		close(self->fd);
	mnt_stop(_metadata, &self->m);
	write_file(SYS_ADMIN_ACCESS, "N");
}

TEST_F(foreign, only_who_the_mount_lets_in_reaches_the_server)
{
	struct call_ctx c = { &self->m, self->fd, variant->call };
	unsigned int from = nreq(&self->m);

	EXPECT_EQ(variant->ret, as_who(&variant->who, do_call, &c));
	EXPECT_EQ(variant->sent, ops_since(&self->m, from, variant->opcode));
}

/* --- the connection's files: fusectl (control.c) --- */

enum ctl { CTL_DIR, CTL_WAITING, CTL_ABORT, CTL_MAX_BG, CTL_CONG };
static const char *const ctl_name[] = {
	"", "waiting", "abort", "max_background", "congestion_threshold",
};
/* a value written: @n, or @n more than a module parameter */
enum base { ABS, BGREQ, CONGTHRESH };

FIXTURE(fusectl) {
	struct mnt m;
	char file[96];
};

FIXTURE_VARIANT(fusectl) {
	enum ctl file;
	mode_t mode;		/* its mode bits */
	struct who who;		/* opens it (through an O_PATH fd of root's) */
	int flags;
	bool write;		/* then writes @n (from @base) to it */
	enum base base;
	long n;
	int open_errno, write_errno;
	long value;		/* read back by root afterwards (-1: not) */
	bool aborted;		/* the connection is gone afterwards */
};

#define DIR_OPEN	(O_RDONLY | O_DIRECTORY)

/* fusectl-*-mode: the owner's files, closed to others */
FIXTURE_VARIANT_ADD(fusectl, fusectl_dir_mode) {
	.file = CTL_DIR, .mode = 0500, .who = USER(OTHER), .flags = DIR_OPEN,
	.open_errno = EACCES, .value = -1,
};
FIXTURE_VARIANT_ADD(fusectl, fusectl_dir_mode_but_the_owner_may_list) {
	.file = CTL_DIR, .mode = 0500, .who = USER(OWNER), .flags = DIR_OPEN,
	.value = -1,
};
FIXTURE_VARIANT_ADD(fusectl, fusectl_waiting_mode) {
	.file = CTL_WAITING, .mode = 0400, .who = USER(OTHER), .flags = O_RDONLY,
	.open_errno = EACCES, .value = -1,
};
FIXTURE_VARIANT_ADD(fusectl, fusectl_waiting_mode_not_even_the_owner_writes) {
	.file = CTL_WAITING, .mode = 0400, .who = USER(OWNER), .flags = O_WRONLY,
	.open_errno = EACCES, .value = -1,
};
/* another user cannot abort the connection */
FIXTURE_VARIANT_ADD(fusectl, fusectl_abort_mode) {
	.file = CTL_ABORT, .mode = 0200, .who = USER(OTHER), .flags = O_WRONLY,
	.write = true, .n = 1, .open_errno = EACCES, .value = -1,
};
FIXTURE_VARIANT_ADD(fusectl, fusectl_abort_mode_not_even_the_owner_reads) {
	.file = CTL_ABORT, .mode = 0200, .who = USER(OWNER), .flags = O_RDONLY,
	.open_errno = EACCES, .value = -1,
};
FIXTURE_VARIANT_ADD(fusectl, fusectl_max_background_mode) {
	.file = CTL_MAX_BG, .mode = 0600, .who = USER(OTHER), .flags = O_WRONLY,
	.write = true, .n = 1, .open_errno = EACCES, .value = 16,
};
FIXTURE_VARIANT_ADD(fusectl, fusectl_max_background_mode_nor_reads) {
	.file = CTL_MAX_BG, .mode = 0600, .who = USER(OTHER), .flags = O_RDONLY,
	.open_errno = EACCES, .value = 16,
};
FIXTURE_VARIANT_ADD(fusectl, fusectl_congestion_mode) {
	.file = CTL_CONG, .mode = 0600, .who = USER(OTHER), .flags = O_WRONLY,
	.write = true, .n = 1, .open_errno = EACCES, .value = 12,
};
/* fusectl-owner: the mount's user_id owns the files: it may use them */
FIXTURE_VARIANT_ADD(fusectl, fusectl_owner) {
	.file = CTL_MAX_BG, .mode = 0600, .who = USER(OWNER), .flags = O_WRONLY,
	.write = true, .n = 5, .value = 5,
};
FIXTURE_VARIANT_ADD(fusectl, fusectl_owner_aborts) {
	.file = CTL_ABORT, .mode = 0200, .who = USER(OWNER), .flags = O_WRONLY,
	.write = true, .n = 1, .value = -1, .aborted = true,
};
/*
 * fusectl-limit-unprivileged: without CAP_SYS_ADMIN, max_user_bgreq and
 * max_user_congthresh are the most (the module's limits, 668 in a 2 GiB
 * guest); each side of each
 */
FIXTURE_VARIANT_ADD(fusectl, fusectl_limit_unprivileged) {
	.file = CTL_MAX_BG, .mode = 0600, .who = USER(OWNER), .flags = O_WRONLY,
	.write = true, .base = BGREQ, .n = 1, .write_errno = EINVAL, .value = 16,
};
FIXTURE_VARIANT_ADD(fusectl, fusectl_limit_unprivileged_at_the_limit) {
	.file = CTL_MAX_BG, .mode = 0600, .who = USER(OWNER), .flags = O_WRONLY,
	.write = true, .base = BGREQ, .n = 0, .value = 0 /* the limit */,
};
FIXTURE_VARIANT_ADD(fusectl, fusectl_limit_unprivileged_congestion) {
	.file = CTL_CONG, .mode = 0600, .who = USER(OWNER), .flags = O_WRONLY,
	.write = true, .base = CONGTHRESH, .n = 1, .write_errno = EINVAL,
	.value = 12,
};
FIXTURE_VARIANT_ADD(fusectl, fusectl_limit_unprivileged_congestion_at_the_limit) {
	.file = CTL_CONG, .mode = 0600, .who = USER(OWNER), .flags = O_WRONLY,
	.write = true, .base = CONGTHRESH, .n = 0, .value = 0 /* the limit */,
};
/* the capability counts, not the uid: root without it is held too */
FIXTURE_VARIANT_ADD(fusectl, fusectl_limit_unprivileged_root_without_cap_sys_admin) {
	.file = CTL_MAX_BG, .mode = 0600, .who = WITHOUT(CAP_SYS_ADMIN),
	.flags = O_WRONLY, .write = true, .base = BGREQ, .n = 1,
	.write_errno = EINVAL, .value = 16,
};
FIXTURE_VARIANT_ADD(fusectl, fusectl_limit_unprivileged_but_cap_sys_admin_is_not) {
	.file = CTL_MAX_BG, .mode = 0600, .who = ROOT, .flags = O_WRONLY,
	.write = true, .base = BGREQ, .n = 1, .value = 1 /* the limit + 1 */,
};
/* fusectl-limit-range: 65535 at most, for anybody */
FIXTURE_VARIANT_ADD(fusectl, fusectl_limit_range) {
	.file = CTL_MAX_BG, .mode = 0600, .who = ROOT, .flags = O_WRONLY,
	.write = true, .n = 65536, .write_errno = EINVAL, .value = 16,
};
FIXTURE_VARIANT_ADD(fusectl, fusectl_limit_range_65535_is_taken) {
	.file = CTL_MAX_BG, .mode = 0600, .who = ROOT, .flags = O_WRONLY,
	.write = true, .n = 65535, .value = 65535,
};
FIXTURE_VARIANT_ADD(fusectl, fusectl_limit_range_congestion) {
	.file = CTL_CONG, .mode = 0600, .who = ROOT, .flags = O_WRONLY,
	.write = true, .n = 65536, .write_errno = EINVAL, .value = 12,
};

FIXTURE_SETUP(fusectl)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG, LONG);
	struct stat st;

	cfg.mount_opts = "user_id=1000,group_id=1000";
	ASSERT_EQ(0, mnt_start(&self->m, cfg));
	ASSERT_EQ(0, stat(self->m.dir, &st));
	snprintf(self->file, sizeof(self->file), "/sys/fs/fuse/connections/%u/%s",
		 minor(st.st_dev), ctl_name[variant->file]);
}

FIXTURE_TEARDOWN(fusectl)
{
	mnt_stop(_metadata, &self->m);
}

struct ctl_ctx {
	int opath;
	int flags;
	char value[32];		/* written, if not empty */
};

/* Open the O_PATH fd @opath anew with @flags: -errno of the open, or -1000 - errno of the write */
static long reopen_and_write(const void *arg)
{
	const struct ctl_ctx *c = arg;
	char name[64];
	int fd, ret = 0;

	snprintf(name, sizeof(name), "/proc/self/fd/%d", c->opath);
	fd = open(name, c->flags);
	if (fd < 0)
		return -errno;
	if (c->value[0] && write(fd, c->value, strlen(c->value)) < 0)
		ret = -1000 - errno;
	close(fd);
	return ret;
}

TEST_F(fusectl, the_connection_files_are_the_owners)
{
	struct ctl_ctx c = { .flags = variant->flags };
	long base = 0, want, ret;
	struct stat st;

	if (variant->base == BGREQ)
		base = read_number("/sys/module/fuse/parameters/max_user_bgreq");
	if (variant->base == CONGTHRESH)
		base = read_number("/sys/module/fuse/parameters/max_user_congthresh");
	ASSERT_LE(0, base);
	if (variant->base != ABS)
		ASSERT_GT(65535, base + variant->n) TH_LOG("the module's limit is %ld", base);
	if (variant->write)
		snprintf(c.value, sizeof(c.value), "%ld", base + variant->n);

	/* the mount's owner owns every file, with its mode */
	ASSERT_EQ(0, lstat(self->file, &st));
	EXPECT_EQ(variant->mode, st.st_mode & 07777);
	EXPECT_EQ(OWNER, st.st_uid);
	EXPECT_EQ(OWNER, st.st_gid);

	c.opath = open(self->file, O_PATH);
	ASSERT_LE(0, c.opath);
	ret = as_who(&variant->who, reopen_and_write, &c);
	close(c.opath);
	if (variant->open_errno) {
		EXPECT_EQ(-variant->open_errno, ret);
	} else {
		EXPECT_EQ(variant->write_errno ? -1000 - variant->write_errno : 0, ret);
	}

	want = variant->value;
	if (variant->base != ABS && !variant->write_errno)
		want += base;
	if (variant->value >= 0)
		EXPECT_EQ(want, read_number(self->file));
	if (variant->aborted)
		books_not_checked(&self->m, "the owner aborted the connection: the kernel gives nothing back after it");
	/* the connection is there, or the owner aborted it */
	EXPECT_EQ(variant->aborted ? -ENOTCONN : 0,
		  neg_errno(stat(path(&self->m, "file"), &st)));
}

/* --- CAP_FSETID: the suid and sgid bits a server kills itself --- */

/* Protocol 7.33 */
#define HANDLE_KILLPRIV_V2	FUSE_HANDLE_KILLPRIV_V2
#define OPEN_KILL_SUIDGID	FUSE_OPEN_KILL_SUIDGID
#define WRITE_KILL_SUIDGID	FUSE_WRITE_KILL_SUIDGID
#define ATTR_KILL_SUIDGID	FATTR_KILL_SUIDGID

enum kcall {
	K_CREATE,		/* open("new", O_CREAT | O_WRONLY | @oflags) */
	K_OPEN,			/* open("file", O_WRONLY | @oflags) */
	K_TRUNCATE,		/* truncate("file", 0) */
	K_CHOWN,		/* chown("file", 0, 0) */
	K_WRITE,		/* open("file"), write 100 bytes */
};

/* What the server saw: the kill flag of the request the variant names */
struct kill_seen {
	unsigned int requests;
	bool kill;
};

static struct kill_seen *kseen;

FIXTURE(killpriv) {
	struct mnt m;
};

FIXTURE_VARIANT(killpriv) {
	bool v2;		/* INIT: FUSE_HANDLE_KILLPRIV_V2 */
	bool direct_io;		/* OPEN: FOPEN_DIRECT_IO */
	struct who who;
	enum kcall call;
	int oflags;
	uint32_t opcode;	/* the request that carries the flag */
	bool kill;		/* and whether it is set */
};

#define NO_FSETID	WITHOUT(CAP_FSETID)

/* killpriv-create-trunc: O_CREAT | O_TRUNC, not O_EXCL, by a caller without CAP_FSETID */
FIXTURE_VARIANT_ADD(killpriv, killpriv_create_trunc) {
	.v2 = true, .who = NO_FSETID, .call = K_CREATE, .oflags = O_TRUNC,
	.opcode = FUSE_CREATE, .kill = true,
};
FIXTURE_VARIANT_ADD(killpriv, killpriv_create_trunc_by_another_uid) {
	.v2 = true, .who = USER(1000), .call = K_CREATE, .oflags = O_TRUNC,
	.opcode = FUSE_CREATE, .kill = true,
};
FIXTURE_VARIANT_ADD(killpriv, killpriv_create_trunc_but_cap_fsetid_keeps_them) {
	.v2 = true, .who = ROOT, .call = K_CREATE, .oflags = O_TRUNC,
	.opcode = FUSE_CREATE, .kill = false,
};
FIXTURE_VARIANT_ADD(killpriv, killpriv_create_trunc_but_o_excl_keeps_them) {
	.v2 = true, .who = NO_FSETID, .call = K_CREATE, .oflags = O_TRUNC | O_EXCL,
	.opcode = FUSE_CREATE, .kill = false,
};
FIXTURE_VARIANT_ADD(killpriv, killpriv_create_trunc_but_no_o_trunc_keeps_them) {
	.v2 = true, .who = NO_FSETID, .call = K_CREATE, .oflags = 0,
	.opcode = FUSE_CREATE, .kill = false,
};
FIXTURE_VARIANT_ADD(killpriv, killpriv_create_trunc_but_not_without_v2) {
	.v2 = false, .who = NO_FSETID, .call = K_CREATE, .oflags = O_TRUNC,
	.opcode = FUSE_CREATE, .kill = false,
};
/* killpriv-open-trunc: open(O_TRUNC) of an existing file */
FIXTURE_VARIANT_ADD(killpriv, killpriv_open_trunc) {
	.v2 = true, .who = NO_FSETID, .call = K_OPEN, .oflags = O_TRUNC,
	.opcode = FUSE_OPEN, .kill = true,
};
FIXTURE_VARIANT_ADD(killpriv, killpriv_open_trunc_by_another_uid) {
	.v2 = true, .who = USER(1000), .call = K_OPEN, .oflags = O_TRUNC,
	.opcode = FUSE_OPEN, .kill = true,
};
FIXTURE_VARIANT_ADD(killpriv, killpriv_open_trunc_but_cap_fsetid_keeps_them) {
	.v2 = true, .who = ROOT, .call = K_OPEN, .oflags = O_TRUNC,
	.opcode = FUSE_OPEN, .kill = false,
};
FIXTURE_VARIANT_ADD(killpriv, killpriv_open_trunc_but_no_o_trunc_keeps_them) {
	.v2 = true, .who = NO_FSETID, .call = K_OPEN, .oflags = 0,
	.opcode = FUSE_OPEN, .kill = false,
};
FIXTURE_VARIANT_ADD(killpriv, killpriv_open_trunc_but_not_without_v2) {
	.v2 = false, .who = NO_FSETID, .call = K_OPEN, .oflags = O_TRUNC,
	.opcode = FUSE_OPEN, .kill = false,
};
/* killpriv-setattr-truncate: truncate() */
FIXTURE_VARIANT_ADD(killpriv, killpriv_setattr_truncate) {
	.v2 = true, .who = NO_FSETID, .call = K_TRUNCATE, .opcode = FUSE_SETATTR,
	.kill = true,
};
FIXTURE_VARIANT_ADD(killpriv, killpriv_setattr_truncate_but_cap_fsetid_keeps_them) {
	.v2 = true, .who = ROOT, .call = K_TRUNCATE, .opcode = FUSE_SETATTR,
	.kill = false,
};
FIXTURE_VARIANT_ADD(killpriv, killpriv_setattr_truncate_but_not_without_v2) {
	.v2 = false, .who = NO_FSETID, .call = K_TRUNCATE, .opcode = FUSE_SETATTR,
	.kill = false,
};
/* killpriv-setattr-chown: chown kills them whoever the caller */
FIXTURE_VARIANT_ADD(killpriv, killpriv_setattr_chown) {
	.v2 = true, .who = ROOT, .call = K_CHOWN, .opcode = FUSE_SETATTR,
	.kill = true,
};
FIXTURE_VARIANT_ADD(killpriv, killpriv_setattr_chown_but_not_without_v2) {
	.v2 = false, .who = ROOT, .call = K_CHOWN, .opcode = FUSE_SETATTR,
	.kill = false,
};
/* killpriv-write-buffered: a cached write */
FIXTURE_VARIANT_ADD(killpriv, killpriv_write_buffered) {
	.v2 = true, .who = NO_FSETID, .call = K_WRITE, .opcode = FUSE_WRITE,
	.kill = true,
};
FIXTURE_VARIANT_ADD(killpriv, killpriv_write_buffered_by_another_uid) {
	.v2 = true, .who = USER(1000), .call = K_WRITE, .opcode = FUSE_WRITE,
	.kill = true,
};
FIXTURE_VARIANT_ADD(killpriv, killpriv_write_buffered_but_cap_fsetid_keeps_them) {
	.v2 = true, .who = ROOT, .call = K_WRITE, .opcode = FUSE_WRITE,
	.kill = false,
};
FIXTURE_VARIANT_ADD(killpriv, killpriv_write_buffered_but_not_without_v2) {
	.v2 = false, .who = NO_FSETID, .call = K_WRITE, .opcode = FUSE_WRITE,
	.kill = false,
};
/* killpriv-write-direct: a direct write says so even without v2 */
FIXTURE_VARIANT_ADD(killpriv, killpriv_write_direct) {
	.v2 = false, .direct_io = true, .who = NO_FSETID, .call = K_WRITE,
	.opcode = FUSE_WRITE, .kill = true,
};
FIXTURE_VARIANT_ADD(killpriv, killpriv_write_direct_with_v2) {
	.v2 = true, .direct_io = true, .who = NO_FSETID, .call = K_WRITE,
	.opcode = FUSE_WRITE, .kill = true,
};
FIXTURE_VARIANT_ADD(killpriv, killpriv_write_direct_but_cap_fsetid_keeps_them) {
	.v2 = true, .direct_io = true, .who = ROOT, .call = K_WRITE,
	.opcode = FUSE_WRITE, .kill = false,
};

/* In the server: INIT and OPEN as the variant says; the flag it was sent */
static void edit_killpriv(const struct srv_config *cfg,
			  const struct fuse_in_header *req, struct srv_reply *r)
{
	const FIXTURE_VARIANT(killpriv) *v = (const void *)(uintptr_t)cfg->edit_arg;
	struct fuse_out_header *oh = (void *)r->buf;
	const void *in = req + 1;
	bool kill = false;

	if (req->opcode == FUSE_INIT && v->v2)
		((struct fuse_init_out *)(oh + 1))->flags |= HANDLE_KILLPRIV_V2;
	if (req->opcode == FUSE_OPEN && v->direct_io && !oh->error)
		((struct fuse_open_out *)(oh + 1))->open_flags |= FOPEN_DIRECT_IO;
	if (req->opcode != v->opcode)
		return;
	switch (req->opcode) {
	case FUSE_CREATE:
		kill = ((const struct fuse_create_in *)in)->open_flags & OPEN_KILL_SUIDGID;
		break;
	case FUSE_OPEN:
		kill = ((const struct fuse_open_in *)in)->open_flags & OPEN_KILL_SUIDGID;
		break;
	case FUSE_SETATTR:
		kill = ((const struct fuse_setattr_in *)in)->valid & ATTR_KILL_SUIDGID;
		break;
	case FUSE_WRITE:
		kill = ((const struct fuse_write_in *)in)->write_flags & WRITE_KILL_SUIDGID;
		break;
	}
	kseen->kill |= kill;
	kseen->requests++;
}

FIXTURE_SETUP(killpriv)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG, LONG);

	kseen = mmap(NULL, sizeof(*kseen), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, kseen);
	cfg.edit_reply = edit_killpriv;
	cfg.edit_arg = (uintptr_t)variant;
	ASSERT_EQ(0, mnt_start(&self->m, cfg));
}

FIXTURE_TEARDOWN(killpriv)
{
	mnt_stop(_metadata, &self->m);
	munmap(kseen, sizeof(*kseen));
}

struct kill_ctx {
	struct mnt *m;
	enum kcall call;
	int oflags;
};

static long do_kcall(const void *arg)
{
	const struct kill_ctx *c = arg;
	char buf[100] = "suid";
	int fd;

	switch (c->call) {
	case K_CREATE:
		fd = open(path(c->m, "new"), O_CREAT | O_WRONLY | c->oflags, 0644);
		break;
	case K_OPEN:
		fd = open(path(c->m, "file"), O_WRONLY | c->oflags);
		break;
	case K_TRUNCATE:
		return neg_errno(truncate(path(c->m, "file"), 0));
	case K_CHOWN:
		return neg_errno(chown(path(c->m, "file"), 0, 0));
	case K_WRITE:
		fd = open(path(c->m, "file"), O_WRONLY);
		if (fd >= 0 && write(fd, buf, sizeof(buf)) != sizeof(buf)) {
			close(fd);
			return -EIO;
		}
		break;
	default:
		return -1;
	}
	if (fd < 0)
		return -errno;
	return neg_errno(close(fd));
}

TEST_F(killpriv, the_server_is_told_to_kill_what_the_caller_may_not_keep)
{
	struct kill_ctx c = { &self->m, variant->call, variant->oflags };

	ASSERT_EQ(0, as_who(&variant->who, do_kcall, &c));
	EXPECT_EQ(1, kseen->requests);
	EXPECT_EQ(variant->kill, kseen->kill);
}

/*
 * --- killpriv_fsetid_once: how often a creation asks for CAP_FSETID ---
 *
 * An O_CREAT | O_TRUNC open without O_EXCL on a FUSE_HANDLE_KILLPRIV_V2
 * mount asks capable(CAP_FSETID) once, in fuse_create_open(), whoever
 * asks: each check is an LSM hook call, and for a caller without the
 * capability a denial that an auditing LSM records.  Counted by a kprobe
 * event on cap_capable() for CAP_FSETID between two marks in the trace,
 * around the child that makes the call.  A creation that goes by file
 * handle (MKOBJ_HANDLE + STATX + OPEN) asks it twice: once to choose it
 * over CREATE, once for the OPEN's FUSE_OPEN_KILL_SUIDGID, as an open of
 * an existing file does.
 */
#define TRACING		"/sys/kernel/tracing"
#define FSETID_EVENT	TRACING "/events/fusegate/fsetid"

FIXTURE(killpriv_fsetid) {
	struct mnt m;
};

FIXTURE_VARIANT(killpriv_fsetid) {
	bool v2;		/* INIT: FUSE_HANDLE_KILLPRIV_V2 */
	bool handles;		/* the server offers file handles */
	struct who who;
	int oflags;		/* with O_CREAT | O_WRONLY */
	int checks;		/* capable(CAP_FSETID) calls of the open */
	int checks_by_handle;	/* ... where it went by MKOBJ_HANDLE */
};

FIXTURE_VARIANT_ADD(killpriv_fsetid, killpriv_fsetid_once) {
	.v2 = true, .who = NO_FSETID, .oflags = O_TRUNC, .checks = 1,
};
FIXTURE_VARIANT_ADD(killpriv_fsetid, killpriv_fsetid_once_with_it) {
	.v2 = true, .who = ROOT, .oflags = O_TRUNC, .checks = 1,
};
FIXTURE_VARIANT_ADD(killpriv_fsetid, killpriv_fsetid_with_handles) {
	.v2 = true, .handles = true, .who = ROOT, .oflags = O_TRUNC,
	.checks = 1, .checks_by_handle = 2,
};
FIXTURE_VARIANT_ADD(killpriv_fsetid, killpriv_fsetid_none_for_o_excl) {
	.v2 = true, .who = NO_FSETID, .oflags = O_TRUNC | O_EXCL, .checks = 0,
};
FIXTURE_VARIANT_ADD(killpriv_fsetid, killpriv_fsetid_none_without_v2) {
	.v2 = false, .who = NO_FSETID, .oflags = O_TRUNC, .checks = 0,
};

static void edit_killpriv_v2(const struct srv_config *cfg,
			     const struct fuse_in_header *req,
			     struct srv_reply *r)
{
	struct fuse_out_header *oh = (void *)r->buf;

	if (req->opcode == FUSE_INIT && cfg->edit_arg)
		((struct fuse_init_out *)(oh + 1))->flags |= HANDLE_KILLPRIV_V2;
}

static int append_file(const char *file, const char *s)
{
	int fd = open(file, O_WRONLY | O_APPEND), ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, s, strlen(s)) < 0 ? -errno : 0;
	close(fd);
	return ret;
}

/* The event fusegate/fsetid: cap_capable() asked for CAP_FSETID */
static int fsetid_event_on(void)
{
	int ret;

	if (access(TRACING "/kprobe_events", W_OK) &&
	    mount("tracefs", TRACING, "tracefs", 0, NULL))
		return -errno;
	if (access(FSETID_EVENT, F_OK)) {
		ret = append_file(TRACING "/kprobe_events",
				  "p:fusegate/fsetid cap_capable cap=$arg3:s32\n");
		if (ret)
			return ret;
	}
	ret = write_file(FSETID_EVENT "/filter", "cap == 4");	/* CAP_FSETID */
	if (!ret)
		ret = write_file(FSETID_EVENT "/enable", "1");
	if (!ret)
		ret = write_file(TRACING "/tracing_on", "1");
	if (!ret) {
		/* an empty buffer: opened with O_TRUNC */
		int fd = open(TRACING "/trace", O_WRONLY | O_TRUNC);

		ret = fd < 0 ? -errno : close(fd);
	}
	return ret;
}

/* The events between the marks "fsetid-begin" and "fsetid-end"; -1: no marks */
static int fsetid_events(void)
{
	FILE *f = fopen(TRACING "/trace", "r");
	char line[512];
	int n = -1;
	bool in = false;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "tracing_mark_write: fsetid-begin")) {
			in = true;
			n = 0;
		} else if (strstr(line, "tracing_mark_write: fsetid-end")) {
			in = false;
			break;
		} else if (in && strstr(line, " fsetid: (")) {
			n++;
		}
	}
	fclose(f);
	return in ? -1 : n;
}

FIXTURE_SETUP(killpriv_fsetid)
{
	struct srv_config cfg = srv_cfg(SRV_COMPLIANT, LONG, LONG);

	cfg.edit_reply = edit_killpriv_v2;
	cfg.edit_arg = variant->v2;
	if (variant->handles) {
		cfg.statx = true;
		cfg.max_handle_sz = 16;
	}
	ASSERT_EQ(0, mnt_start(&self->m, cfg));
	ASSERT_EQ(0, fsetid_event_on());
}

FIXTURE_TEARDOWN(killpriv_fsetid)
{
	write_file(FSETID_EVENT "/enable", "0");
	mnt_stop(_metadata, &self->m);
}

TEST_F(killpriv_fsetid, the_creation_asks_cap_fsetid_as_stock_does)
{
	struct kill_ctx c = { &self->m, K_CREATE, variant->oflags };
	unsigned int from;
	struct stat st;

	/* the directory looked up first: the count is the creation's */
	ASSERT_EQ(0, stat(self->m.dir, &st));
	from = nreq(&self->m);
	ASSERT_EQ(0, write_file(TRACING "/trace_marker", "fsetid-begin"));
	ASSERT_EQ(0, as_who(&variant->who, do_kcall, &c));
	ASSERT_EQ(0, write_file(TRACING "/trace_marker", "fsetid-end"));
	EXPECT_EQ(ops_since(&self->m, from, FUSE_MKOBJ_HANDLE) ?
		  variant->checks_by_handle : variant->checks,
		  fsetid_events());
}

/* --- /dev/fuse opened and never mounted: fuse_get_dev() is NULL --- */

enum devop {
	D_READ, D_WRITE, D_SPLICE_READ, D_SPLICE_WRITE, D_POLL, D_FASYNC,
	D_BACKING_OPEN, D_BACKING_CLOSE, D_UNKNOWN_IOCTL,
};

FIXTURE(unmounted) {
	int fd;
};

FIXTURE_VARIANT(unmounted) {
	enum devop op;
	long ret;
};

FIXTURE_VARIANT_ADD(unmounted, dev_read_unmounted) { .op = D_READ, .ret = -EPERM };
FIXTURE_VARIANT_ADD(unmounted, dev_write_unmounted) { .op = D_WRITE, .ret = -EPERM };
FIXTURE_VARIANT_ADD(unmounted, dev_splice_read_unmounted) {
	.op = D_SPLICE_READ, .ret = -EPERM,
};
FIXTURE_VARIANT_ADD(unmounted, dev_splice_write_unmounted) {
	.op = D_SPLICE_WRITE, .ret = -EPERM,
};
FIXTURE_VARIANT_ADD(unmounted, dev_poll_unmounted) { .op = D_POLL, .ret = POLLERR };
FIXTURE_VARIANT_ADD(unmounted, dev_fasync_unmounted) { .op = D_FASYNC, .ret = -EPERM };
FIXTURE_VARIANT_ADD(unmounted, dev_backing_open_unmounted) {
	.op = D_BACKING_OPEN, .ret = -EPERM,
};
FIXTURE_VARIANT_ADD(unmounted, dev_backing_close_unmounted) {
	.op = D_BACKING_CLOSE, .ret = -EPERM,
};
FIXTURE_VARIANT_ADD(unmounted, dev_ioctl_unknown) {
	.op = D_UNKNOWN_IOCTL, .ret = -ENOTTY,
};

FIXTURE_SETUP(unmounted)
{
	self->fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(unmounted)
{
	close(self->fd);
}

TEST_F(unmounted, a_device_that_serves_no_connection_does_nothing)
{
	static char buf[256 << 10];
	struct fuse_out_header oh = { .len = sizeof(oh), .unique = 2 };
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN | POLLOUT };
	char tmpl[] = "/tmp/fusegate-backing.XXXXXX";
	struct backing_map map = { 0 };
	uint32_t id = 1;
	int p[2] = { -1, -1 };
	long ret = -1;

	ASSERT_EQ(0, pipe(p));
	switch (variant->op) {
	case D_READ:
		ret = neg_errno(read(self->fd, buf, sizeof(buf)));
		break;
	case D_WRITE:
		ret = neg_errno(write(self->fd, &oh, sizeof(oh)));
		break;
	case D_SPLICE_READ:
		ret = neg_errno(splice(self->fd, NULL, p[1], NULL, 4096, 0));
		break;
	case D_SPLICE_WRITE:
		ASSERT_EQ(sizeof(oh), write(p[1], &oh, sizeof(oh)));
		ret = neg_errno(splice(p[0], NULL, self->fd, NULL, sizeof(oh), 0));
		break;
	case D_POLL:
		ret = poll(&pfd, 1, 0) == 1 ? pfd.revents : -1;
		break;
	case D_FASYNC:
		ret = neg_errno(fcntl(self->fd, F_SETFL, O_ASYNC));
		break;
	case D_BACKING_OPEN:
		map.fd = mkstemp(tmpl);
		ASSERT_LE(0, map.fd);
		unlink(tmpl);
		ret = neg_errno(ioctl(self->fd, BACKING_OPEN, &map));
		close(map.fd);
		break;
	case D_BACKING_CLOSE:
		ret = neg_errno(ioctl(self->fd, BACKING_CLOSE, &id));
		break;
	case D_UNKNOWN_IOCTL:
		ret = neg_errno(ioctl(self->fd, _IO(229, 99)));
		break;
	}
	close(p[0]);
	close(p[1]);
	EXPECT_EQ(variant->ret, ret);
}

/*
 * --- FUSE_DEV_IOC_CLONE: what may be cloned, and into what --- The
 * mounted devices here are the test's own: mounts whose INIT nobody
 * answers, unmounted lazily at the end (closing the device aborts them).
 */

enum src { S_BAD_FD, S_CLOSED_FD, S_PIPE, S_REGULAR, S_UNMOUNTED, S_MOUNTED_A,
	   S_MOUNTED_B };
enum dst { T_FRESH, T_MOUNTED_A, T_CLONED_A };

FIXTURE(clone) {
	char dir[2][32];
	int dev[2];		/* A and B, two connections */
	int fresh, other, p[2];
	char file[32];
};

FIXTURE_VARIANT(clone) {
	enum dst target;
	enum src source;
	long ret;
};

FIXTURE_VARIANT_ADD(clone, dev_clone_bad_fd) {
	.target = T_FRESH, .source = S_BAD_FD, .ret = -EINVAL,
};
FIXTURE_VARIANT_ADD(clone, dev_clone_bad_fd_closed) {
	.target = T_FRESH, .source = S_CLOSED_FD, .ret = -EINVAL,
};
/* a pipe has private_data: a check of f_op keeps it from being read as a fuse_dev */
FIXTURE_VARIANT_ADD(clone, dev_clone_not_fuse) {
	.target = T_FRESH, .source = S_PIPE, .ret = -EINVAL,
};
FIXTURE_VARIANT_ADD(clone, dev_clone_not_fuse_regular_file) {
	.target = T_FRESH, .source = S_REGULAR, .ret = -EINVAL,
};
FIXTURE_VARIANT_ADD(clone, dev_clone_unmounted_source) {
	.target = T_FRESH, .source = S_UNMOUNTED, .ret = -EINVAL,
};
/* a device that serves a connection takes no other: its own or another */
FIXTURE_VARIANT_ADD(clone, dev_clone_target_in_use) {
	.target = T_MOUNTED_A, .source = S_MOUNTED_B, .ret = -EINVAL,
};
FIXTURE_VARIANT_ADD(clone, dev_clone_target_in_use_its_own_connection) {
	.target = T_MOUNTED_A, .source = S_MOUNTED_A, .ret = -EINVAL,
};
FIXTURE_VARIANT_ADD(clone, dev_clone_target_in_use_a_clone_again) {
	.target = T_CLONED_A, .source = S_MOUNTED_A, .ret = -EINVAL,
};
FIXTURE_VARIANT_ADD(clone, dev_clone_target_in_use_a_clone_of_another) {
	.target = T_CLONED_A, .source = S_MOUNTED_B, .ret = -EINVAL,
};
/* the control: a fresh device takes a mounted one's connection */
FIXTURE_VARIANT_ADD(clone, clone_of_a_mounted_device_control) {
	.target = T_FRESH, .source = S_MOUNTED_A, .ret = 0,
};

FIXTURE_SETUP(clone)
{
	int i;

	for (i = 0; i < 2; i++) {
		strcpy(self->dir[i], "/tmp/fusegate-clone.XXXXXX");
		ASSERT_NE(NULL, mkdtemp(self->dir[i]));
		self->dev[i] = srv_mount_owner(self->dir[i], NULL, false);
		ASSERT_LE(0, self->dev[i]);
	}
	self->fresh = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	self->other = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fresh);
	ASSERT_LE(0, self->other);
	ASSERT_EQ(0, pipe(self->p));
	strcpy(self->file, "/tmp/fusegate-clone.XXXXXX");
	ASSERT_LE(0, i = mkstemp(self->file));
	close(i);
}

FIXTURE_TEARDOWN(clone)
{
	int i;

	for (i = 0; i < 2; i++) {
		umount2(self->dir[i], MNT_DETACH);
		close(self->dev[i]);
		rmdir(self->dir[i]);
	}
	close(self->fresh);
	close(self->other);
	close(self->p[0]);
	close(self->p[1]);
	unlink(self->file);
}

TEST_F(clone, only_a_mounted_device_clones_into_a_fresh_one)
{
	int target = self->fresh, src = -1, closed;

	switch (variant->source) {
	case S_BAD_FD: src = -1; break;
	case S_CLOSED_FD:
		closed = dup(self->p[0]);
		close(closed);
		src = closed;
		break;
	case S_PIPE: src = self->p[0]; break;
	case S_REGULAR: src = open(self->file, O_RDWR); break;
	case S_UNMOUNTED: src = self->other; break;
	case S_MOUNTED_A: src = self->dev[0]; break;
	case S_MOUNTED_B: src = self->dev[1]; break;
	}
	if (variant->target == T_MOUNTED_A)
		target = self->dev[0];
	if (variant->target == T_CLONED_A)
		ASSERT_EQ(0, ioctl(self->fresh, CLONE, &self->dev[0]));
	EXPECT_EQ(variant->ret, neg_errno(ioctl(target, CLONE, &src)));
	if (variant->source == S_REGULAR)
		close(src);
}

/* --- the fd of a mount: fuse_fill_super() --- */

FIXTURE(mount_fd) {
	char dir[32];
	int fd;
	char file[32];
};

FIXTURE_VARIANT(mount_fd) {
	bool pipe;		/* else a regular file on tmpfs */
};

FIXTURE_VARIANT_ADD(mount_fd, mount_fd_not_fuse) { .pipe = false };
FIXTURE_VARIANT_ADD(mount_fd, mount_fd_not_fuse_pipe) { .pipe = true };

FIXTURE_SETUP(mount_fd)
{
	int p[2];

	strcpy(self->dir, "/tmp/fusegate-mnt.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	strcpy(self->file, "/tmp/fusegate-mnt.XXXXXX");
	self->fd = mkstemp(self->file);
	ASSERT_LE(0, self->fd);
	if (variant->pipe) {
		ASSERT_EQ(0, pipe(p));
		close(p[1]);
		close(self->fd);
		self->fd = p[0];
	}
}

FIXTURE_TEARDOWN(mount_fd)
{
	umount2(self->dir, MNT_DETACH);
	rmdir(self->dir);
	close(self->fd);
	unlink(self->file);
}

TEST_F(mount_fd, only_dev_fuse_is_mounted)
{
	char opts[128];

	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0",
		 self->fd);
	EXPECT_EQ(-EINVAL, neg_errno(mount("fusegate", self->dir, "fuse",
					    MS_NOSUID | MS_NODEV, opts)));
}

TEST_HARNESS_MAIN
