/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fusegate test servers: one protocol core speaking raw /dev/fuse, in a
 * mode (enum srv_behaviour: how it answers FUSE_COMPOUND), with the test's
 * hand in every reply (edit_reply) and in the server's idle moments (idle):
 * the broken replies, and the servers that die or stall, are written in
 * the tests, beside their variants.
 *
 * The server logs every request it reads into memory shared with the test
 * (opcode, unique, nodeid, and for a compound each subrequest with its
 * dep_index), and the result of every reply it writes, so that a test can
 * count round trips exactly and see that a bad reply was refused.
 */
#ifndef FUSEGATE_SERVER_H
#define FUSEGATE_SERVER_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/fuse.h>

/* Compound UAPI (compound.md section 2), for headers that predate it */
#ifndef FUSE_COMPOUND_NO_DEP
#define FUSE_COMPOUND		54
#define FUSE_COMPOUND_NO_DEP	0xff
#define FUSE_COMPOUND_MAX_OPS	16
struct fuse_compound_in { uint64_t reserved[2]; };
struct fuse_compound_out { uint64_t reserved[2]; };
struct fuse_compound_req_in { uint8_t dep_index; uint8_t reserved[3]; };
#endif

/* File handles (lookup-handle.md section 2), for headers that predate them */
#ifndef FUSE_HAS_LOOKUP_HANDLE
#define FUSE_LOOKUP_HANDLE	55
#define FUSE_MKOBJ_HANDLE	56
#define FUSE_HAS_LOOKUP_HANDLE	(1ULL << 43)
#define FUSE_MAX_HANDLE_SZ	128
#define FUSE_EXT_HANDLE		33
struct fuse_file_handle { uint16_t size; uint8_t handle[]; };
struct fuse_entry2_out {
	uint64_t nodeid;
	uint64_t generation;
	uint64_t entry_valid;
	uint32_t entry_valid_nsec;
	uint32_t flags;
	uint64_t spare;
};
struct fuse_mkobj_handle_in {
	uint32_t mode;
	uint32_t umask;
	uint32_t open_flags;
	uint32_t rdev;
};
#endif
/*
 * Where fuse_init_out keeps max_handle_sz (unused[] in older headers): at
 * byte 42, after upstream's uint16_t request_timeout (7.43) at byte 40
 */
#define SRV_INIT_MAX_HANDLE_SZ_OFF	42
#define SRV_INIT_REQUEST_TIMEOUT_OFF	40
#ifndef FUSE_ALLOW_IDMAP
#define FUSE_ALLOW_IDMAP	(1ULL << 40)
#endif

/* FUSE_STATX (protocol 7.39), for headers that predate it */
#if FUSE_KERNEL_MINOR_VERSION < 39
#define FUSE_STATX		52
struct fuse_sx_time {
	int64_t tv_sec;
	uint32_t tv_nsec;
	int32_t __reserved;
};
struct fuse_statx {
	uint32_t mask;
	uint32_t blksize;
	uint64_t attributes;
	uint32_t nlink;
	uint32_t uid;
	uint32_t gid;
	uint16_t mode;
	uint16_t __spare0[1];
	uint64_t ino;
	uint64_t size;
	uint64_t blocks;
	uint64_t attributes_mask;
	struct fuse_sx_time atime;
	struct fuse_sx_time btime;
	struct fuse_sx_time ctime;
	struct fuse_sx_time mtime;
	uint32_t rdev_major;
	uint32_t rdev_minor;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint64_t __spare2[14];
};
struct fuse_statx_in {
	uint32_t getattr_flags;
	uint32_t reserved;
	uint64_t fh;
	uint32_t sx_flags;
	uint32_t sx_mask;
};
struct fuse_statx_out {
	uint64_t attr_valid;
	uint32_t attr_valid_nsec;
	uint32_t flags;
	uint64_t spare[2];
	struct fuse_statx stat;
};
#endif

/*
 * What the tree holds besides files and directories: "link" is a symlink
 * to "file", and "file" carries one extended attribute.  A server with
 * statx support reports SRV_BTIME_SEC as every node's birth time, which
 * no GETATTR can carry.
 */
#define SRV_LINK_TARGET		"file"
#define SRV_XATTR_NAME		"user.fusegate"
#define SRV_XATTR_VALUE		"compound"
#define SRV_BTIME_SEC		1234567890

enum srv_behaviour {
	SRV_COMPLIANT,
	/* the outer answer to FUSE_COMPOUND */
	SRV_COMPOUND_ENOSYS,
	SRV_COMPOUND_EOPNOTSUPP,
	SRV_COMPOUND_EINVAL,
	SRV_NR_BEHAVIOURS
};

#define SRV_LOG_MAX 32768
/* The opcode of a log record for a write of the test's own (srv_write_raw) */
#define SRV_RAW_WRITE	0x7fff0000

struct srv_record {
	uint32_t opcode;
	uint32_t len;
	uint64_t unique;
	uint64_t nodeid;
	uint64_t arg;		/* WRITE: where it ends; INTERRUPT: unique it
				 * names; [LIST|GET]XATTR: buffer size asked;
				 * LOOKUP_HANDLE, MKOBJ_HANDLE: the size of
				 * the parent's handle sent (0: none);
				 * STATX: the fields asked (sx_mask) */
	uint32_t uid, gid, pid;	/* the caller, as the header names it */
	uint8_t sub;		/* a subrequest of the compound before it */
	uint8_t dep_index;
	int32_t write_errno;	/* of the reply to this request: 0 = accepted */
	bool replied;
};

/* The nodeids a server hands out are below this */
#define SRV_MAX_NODES	256
/* The open handles (fh) it hands out, a counter from 1, are below this */
#define SRV_MAX_FH	4096
/* Nodeids and fhs beyond those (a test's edit may write any) */
#define SRV_BOOKS_SPILL	16

struct srv_node_books {
	uint64_t nodeid;
	volatile uint64_t granted, forgotten;
	uint32_t granted_by;		/* the opcode of the last grant */
};

struct srv_fh_books {
	uint64_t fh;
	volatile uint32_t opened, released;
	uint32_t opened_by, released_by;	/* opcodes */
};

struct srv_log {
	volatile uint32_t n;
	volatile uint32_t compounds;
	struct srv_record rec[SRV_LOG_MAX];
	/*
	 * The books (servers/books.c): what the kernel took and gave back,
	 * as the kernel read the server's replies (after the test's edit).
	 * Per nodeid: the lookups granted (each entry read with error 0)
	 * and the nlookup FORGETs gave back; per fh: the opens read and the
	 * RELEASEs of it.  FORGETs are counted here, not logged: they are no
	 * round trip.
	 */
	volatile uint64_t granted[SRV_MAX_NODES];
	volatile uint64_t forgotten[SRV_MAX_NODES];
	uint32_t granted_by[SRV_MAX_NODES];
	struct srv_node_books node_spill[SRV_BOOKS_SPILL];
	struct srv_fh_books fh[SRV_MAX_FH];
	struct srv_fh_books fh_spill[SRV_BOOKS_SPILL];
	/* what the books could not place: each one fails the check */
	volatile uint32_t books_spill_full;	/* a spill table was full */
	volatile uint32_t books_unknown_reply;	/* the kernel took a reply to a
						 * request the books never saw */
	volatile uint32_t books_model_disagrees; /* books_read() and the
						 * kernel's verdict differ */
	/*
	 * The test's conversation is over (its end-of-test check): the
	 * server answers as the core built it, without the test's edit
	 */
	volatile uint32_t books_closed;
};

struct srv_reply;

struct srv_config {
	const char *mountpoint;
	enum srv_behaviour behaviour;
	uint64_t entry_timeout;		/* seconds */
	uint64_t attr_timeout;
	bool writeback_cache;
	unsigned int delay_us;		/* per-request service delay */
	bool statx;			/* answer FUSE_STATX; else ENOSYS */
	bool xattrs;			/* answer [LIST|GET]XATTR; else ENOSYS */
	bool export_support;		/* FUSE_EXPORT_SUPPORT: "." and ".." */
	bool readdirplus;		/* FUSE_DO_READDIRPLUS: listings are
					 * READDIRPLUS, an entry per name */
	/*
	 * Nonzero: accept FUSE_HAS_LOOKUP_HANDLE with handles of up to this
	 * many bytes, and answer LOOKUP_HANDLE and MKOBJ_HANDLE (else ENOSYS).
	 * A node's handle (srv_node_handle()) names its nodeid and its
	 * incarnation: a slot reused for a new node gets a new handle.
	 */
	uint16_t max_handle_sz;
	/*
	 * An opcode this server does not know: answered ENOSYS, as a server
	 * that predates it does (0: none), or unknown_error when set (a
	 * server that knows the request but does not serve it: -EOPNOTSUPP)
	 */
	uint32_t unknown_opcode;
	int unknown_error;
	/* FUSE_ALLOW_IDMAP at INIT (with default_permissions in mount_opts) */
	bool allow_idmap;
	/* more mount options, after the ones srv_mount() always gives */
	const char *mount_opts;
	/*
	 * Mount without allow_other: only the mount's owner (user_id and
	 * group_id, 0 unless mount_opts says otherwise) may enter
	 */
	bool owner_only;
	/* the root directory's permission bits; 0: 0755 */
	uint32_t root_perm;
	/*
	 * No test reads this server's log or wakes it (the fuzzer): no log,
	 * no event byte per request, no control fd to poll; three system
	 * calls less per request.  mnt_start() honours it.
	 */
	bool unwatched;
	struct srv_log *log;		/* shared with the test, may be NULL */
	int notify_fd;			/* a byte per logged request, or -1 */
	int control_fd;			/* a byte from the test wakes the
					 * server (its idle hook runs), or -1 */
	/*
	 * The test's hand in the exchange: called with each reply before it is
	 * written, with the request it answers.  It
	 * may change anything in @r, drop it, or write something else first
	 * (srv_write_raw); edit_arg is the test's to use.
	 */
	void (*edit_reply)(const struct srv_config *cfg,
			   const struct fuse_in_header *req, struct srv_reply *r);
	uint64_t edit_arg;
	/*
	 * Called when no request is waiting, before the server blocks for the
	 * next one (a byte on control_fd also wakes it): where a test that
	 * held its replies back (edit_reply) writes them.
	 */
	void (*idle)(const struct srv_config *cfg, int fd);
};

/* Open /dev/fuse and mount it on @mountpoint; returns the fd or -errno */
int srv_mount(const char *mountpoint);
/* The same with more mount options (@extra, or NULL) */
int srv_mount_opts(const char *mountpoint, const char *extra);
/* The same, and allow_other only if @allow_other */
int srv_mount_owner(const char *mountpoint, const char *extra,
		    bool allow_other);
/* Serve the mounted @fd until unmounted or aborted; returns an exit status */
int srv_run_fd(const struct srv_config *cfg, int fd);

/*
 * Invalidate the cached attributes of @nodeid, as a server does when the
 * file changed behind the kernel's back (FUSE_NOTIFY_INVAL_INODE).  @fd is
 * the mount's /dev/fuse; the kernel has acted on it when this returns.
 */
int srv_notify_inval_attr(int fd, uint64_t nodeid);

/* A shared log for a server running in a child process */
struct srv_log *srv_log_create(void);
unsigned int srv_log_count(const struct srv_log *log, uint32_t opcode,
			   bool sub);
const struct srv_record *srv_log_find(const struct srv_log *log,
				      uint32_t opcode, unsigned int nth);
/* The @nth write of the test's own (srv_write_raw), or NULL */
const struct srv_record *srv_log_find_raw(const struct srv_log *log,
					  unsigned int nth);

/*
 * A reply the server is about to write: the correct one as the core built
 * it, which the test's edit_reply may break.  buf holds the
 * fuse_out_header (its len is set to len when the reply is written) and the
 * payload; a compound's subreplies start at sub_off[0..nsubs-1].  drop: do
 * not write it at all.
 */
struct srv_reply {
	unsigned char *buf;
	size_t len;
	unsigned int nsubs;
	size_t sub_off[FUSE_COMPOUND_MAX_OPS + 1];
	bool drop;
	int fd;				/* the server's /dev/fuse */
	struct srv_log *log;
};

/*
 * Every write on /dev/fuse, the core's and a test's own (a reply it held
 * back, written from its idle hook): the books take what the kernel read
 * of it.  Returns the write's errno (0: taken).
 */
int srv_write(struct srv_log *log, int fd, const void *buf, size_t len);
/*
 * Every request read from /dev/fuse, the core's and one a test reads
 * itself from its edit: the books count FORGETs and RELEASEs, and keep
 * what they need to read its reply.
 */
void srv_took(struct srv_log *log, const void *req, size_t len);
/* The protocol minor the kernel took from the INIT reply (after the edit) */
uint32_t srv_minor(void);

/*
 * From an edit_reply function: write something else on /dev/fuse now (a
 * second reply, a notification), logged as an SRV_RAW_WRITE record whose
 * arg is the header's error field (a notification's code) and whose
 * write_errno is what the kernel made of it.  Return that errno (0: taken).
 */
int srv_write_raw(struct srv_reply *r, const void *buf, size_t len);
int srv_write_notify(struct srv_reply *r, int code, const void *payload,
		     size_t len);

#endif
