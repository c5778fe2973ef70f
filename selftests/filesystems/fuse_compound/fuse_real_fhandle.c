// SPDX-License-Identifier: GPL-2.0
/*
 * fuse_real_fhandle MNT FILE: open FILE again by its file handle and read
 * the same bytes.  For fuse_real_servers_test, on servers that export
 * (FUSE_EXPORT_SUPPORT); busybox has no name_to_handle_at(2).
 *
 * Exit 0 when the handle opens FILE and reads what a path open reads;
 * 1 otherwise, saying which call failed and with what errno.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static ssize_t read_all(int fd, char *buf, size_t size)
{
	size_t got = 0;
	ssize_t n;

	while (got < size && (n = read(fd, buf + got, size - got)) > 0)
		got += n;
	return n < 0 ? -1 : (ssize_t)got;
}

int main(int argc, char **argv)
{
	static char by_path[65536], by_handle[65536];
	struct file_handle *fh;
	int mount_id, mnt_fd, fd;
	ssize_t a, b;

	if (argc != 3) {
		fprintf(stderr, "usage: %s MNT FILE\n", argv[0]);
		return 2;
	}
	fh = malloc(sizeof(*fh) + MAX_HANDLE_SZ);
	fh->handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(AT_FDCWD, argv[2], fh, &mount_id, 0)) {
		printf("name_to_handle_at(%s): %s\n", argv[2], strerror(errno));
		return 1;
	}
	mnt_fd = open(argv[1], O_RDONLY | O_DIRECTORY);
	fd = open(argv[2], O_RDONLY);
	if (mnt_fd < 0 || fd < 0) {
		printf("open: %s\n", strerror(errno));
		return 1;
	}
	a = read_all(fd, by_path, sizeof(by_path));
	close(fd);
	/* the dentry and inode must not help: drop what can be dropped */
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "2", 1) != 1)
			printf("drop_caches: %s\n", strerror(errno));
		close(fd);
	}
	fd = open_by_handle_at(mnt_fd, fh, O_RDONLY);
	if (fd < 0) {
		printf("open_by_handle_at (%u-byte handle, type %d): %s\n",
		       fh->handle_bytes, fh->handle_type, strerror(errno));
		return 1;
	}
	b = read_all(fd, by_handle, sizeof(by_handle));
	if (a < 0 || b != a || memcmp(by_path, by_handle, a)) {
		printf("read %zd bytes by path, %zd by handle: they differ\n", a, b);
		return 1;
	}
	printf("%zd bytes read by a %u-byte handle\n", b, fh->handle_bytes);
	return 0;
}
