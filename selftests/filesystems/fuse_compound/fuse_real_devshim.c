// SPDX-License-Identifier: GPL-2.0
/*
 * A FUSE server that believes it mounted: for fuse_real_probe, which
 * plays the kernel's part of the protocol itself to send a real server
 * the series' new opcodes on purpose.  Preloaded (LD_PRELOAD) into a
 * server that opens /dev/fuse and calls mount(2) itself (libfuse 2 and
 * 3, mergerfs's libfuse, ntfs-3g's fuse-lite, run as root): its open of
 * /dev/fuse gets a copy of the socket in $FUSEGATE_FAKE_FUSE_FD, and its
 * mount and unmount of a "fuse" file system succeed without a syscall.
 * Nothing reaches the kernel's FUSE.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/types.h>

/* the socket's copy, when path is /dev/fuse and a fake one is asked for; else -2 */
static int fake_fd(const char *path)
{
	const char *fd = getenv("FUSEGATE_FAKE_FUSE_FD");

	if (!fd || strcmp(path, "/dev/fuse"))
		return -2;
	return fcntl(atoi(fd), F_DUPFD_CLOEXEC, 3);
}

/* the mode argument of an open that creates: the only one it has */
#define MODE_ARG(flags, mode)						\
	do {								\
		va_list ap;						\
									\
		va_start(ap, flags);					\
		mode = ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) ? \
			va_arg(ap, mode_t) : 0;				\
		va_end(ap);						\
	} while (0)

/* open() or open64(), the real one but for /dev/fuse */
static int open_as(const char *real_name, const char *path, int flags, mode_t mode)
{
	int (*real)(const char *, int, ...) = dlsym(RTLD_NEXT, real_name);
	int fd = fake_fd(path);

	return fd != -2 ? fd : real(path, flags, mode);
}

int open(const char *path, int flags, ...)
{
	mode_t mode;

	MODE_ARG(flags, mode);
	return open_as("open", path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	mode_t mode;

	MODE_ARG(flags, mode);
	return open_as("open64", path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	int (*real)(int, const char *, int, ...) = dlsym(RTLD_NEXT, "openat");
	int fd = fake_fd(path);
	mode_t mode;

	if (fd != -2)
		return fd;
	MODE_ARG(flags, mode);
	return real(dirfd, path, flags, mode);
}

/* _FORTIFY_SOURCE's entry points of open() without a mode */
int __open_2(const char *path, int flags)
{
	return open(path, flags);
}

int __open64_2(const char *path, int flags)
{
	return open64(path, flags);
}

int mount(const char *source, const char *target, const char *fstype,
	  unsigned long flags, const void *data)
{
	int (*real)(const char *, const char *, const char *, unsigned long,
		    const void *) = dlsym(RTLD_NEXT, "mount");

	if (fstype && !strncmp(fstype, "fuse", 4) && getenv("FUSEGATE_FAKE_FUSE_FD"))
		return 0;
	return real(source, target, fstype, flags, data);
}

int umount2(const char *target, int flags)
{
	int (*real)(const char *, int) = dlsym(RTLD_NEXT, "umount2");

	if (getenv("FUSEGATE_FAKE_FUSE_FD"))
		return 0;
	return real(target, flags);
}

int umount(const char *target)
{
	return umount2(target, 0);
}
