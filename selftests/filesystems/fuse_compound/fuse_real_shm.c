// SPDX-License-Identifier: GPL-2.0
/*
 * System V shared memory for fio in a guest kernel without CONFIG_SYSVIPC:
 * fio keeps its job table in one shmget() segment, attached before it
 * forks its jobs.  This preload (LD_PRELOAD, fuse_real_servers_test) gives
 * it a shared anonymous mapping instead, which the forked jobs inherit: the
 * same sharing, and nothing of it reaches FUSE.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/shm.h>

#define SEGMENTS 16

static struct {
	size_t size;
	void *addr;
} seg[SEGMENTS];

int shmget(key_t key, size_t size, int flags)
{
	int id;

	(void)key;
	(void)flags;
	for (id = 0; id < SEGMENTS; id++) {
		if (!seg[id].size) {
			seg[id].size = size;
			return id;
		}
	}
	errno = ENOSPC;
	return -1;
}

void *shmat(int id, const void *addr, int flags)
{
	(void)addr;
	(void)flags;
	if (id < 0 || id >= SEGMENTS || !seg[id].size) {
		errno = EINVAL;
		return (void *)-1;
	}
	if (!seg[id].addr) {
		seg[id].addr = mmap(NULL, seg[id].size, PROT_READ | PROT_WRITE,
				    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (seg[id].addr == MAP_FAILED) {
			seg[id].addr = NULL;
			return (void *)-1;
		}
	}
	return seg[id].addr;
}

int shmdt(const void *addr)
{
	(void)addr;
	return 0;
}

int shmctl(int id, int cmd, struct shmid_ds *buf)
{
	(void)id;
	(void)cmd;
	(void)buf;
	return 0;
}
