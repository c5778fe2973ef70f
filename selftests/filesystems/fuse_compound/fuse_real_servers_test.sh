#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
#
# fuse_real_servers: FUSE servers written by others, each started the way
# its users start it, under workloads written by others (fio with data
# verification, stress-ng file-system stressors) and a short script of
# our own for what they miss.  One KTAP subtest per server, one case per
# (server, workload step); a step the server cannot do is a SKIP whose
# reason says why, decided by the server's table below, never by the run.
#
# The servers are the host's Debian 12 packages, reached over the 9p share
# 'host' (the host's root, read-only; scripts/guest.sh): /usr is bound
# from it, /lib and /lib64 point into it.  The libfuse examples were
# built on the host (run_selftests.sh) and sit in $FUSEGATE_REAL_EXAMPLES.
#
# Kprobe events count the requests of each (server, workload) by opcode,
# and what the server answered to each (trace_setup); each count is a line
#   # fuse_requests: server=S workload=W total=N lost=0 ops=OP:N,... answers=OP:ERR:N,...
# that scripts/request_counts.py reads from the KTAP stream.
#
# Deterministic: fixed sizes, seeds and op counts.  Waits are for defined
# states (a mount appearing, a server exiting, a notification's effect),
# bounded; the only sleeps let the kernel's entry and attribute timeouts
# expire before a stat that must then ask the server.

export PATH=/bin:/usr/bin:/usr/sbin
W=/tmp/real
TR=/sys/kernel/tracing
EXAMPLES=${FUSEGATE_REAL_EXAMPLES:-/tests/examples}
FHANDLE=${FUSEGATE_REAL_FHANDLE:-/tests/fuse_real_fhandle}
PROBES=${FUSEGATE_REAL_PROBES:-/tests/fuse_request_probes}
PROBE=${FUSEGATE_REAL_PROBE_BIN:-/tests/fuse_real_probe}
SHIM=${FUSEGATE_REAL_DEVSHIM:-/tests/fuse_real_devshim.so}

# Each server: its name and what it can do.  Words:
#   rw       writable                 direct  O_DIRECT opens work
#   mmap     shared writable mmap     lock    POSIX locks (lockf)
#   link     hard links               symlink symbolic links
#   nlink    link counts (not sshfs: SFTP v3 attributes carry none)
#   export   file handles (name_to_handle_at, open_by_handle_at) that
#            survive the inode leaving the cache: given to none yet (the
#            libfuse high-level servers set FUSE_EXPORT_SUPPORT, measured
#            by fuse_real_probe, but whether their handles survive a
#            forgotten node is not measured)
#   backing  a backing directory whose changes the mount shows once the
#            kernel's entry and attribute timeouts expired (not rclone: its
#            VFS caches directories for 5 minutes; not sshfs: its own
#            cache keeps attributes 20 s)
#   notify   a libfuse notification example (a read-only single file)
# A step whose word is missing is a SKIP, with the reason of skip_why.
SERVERS="
fuse_overlayfs|rw direct mmap link nlink symlink lock
bindfs|rw direct mmap link nlink symlink lock backing
mergerfs|rw direct mmap link nlink symlink lock backing
unionfs|rw direct mmap link nlink symlink lock backing
gocryptfs|rw direct mmap link nlink symlink lock
rclone|rw direct mmap lock
ntfs_3g|rw direct mmap link nlink symlink lock
fuse2fs|rw direct mmap link nlink symlink lock
squashfuse|
archivemount|rw direct mmap lock
sshfs|rw direct mmap link symlink lock
passthrough|rw direct mmap link nlink symlink lock backing
passthrough_fh|rw direct mmap link nlink symlink lock backing
notify_store_retrieve|notify
notify_inval_inode|notify
notify_inval_entry|notify
invalidate_path|notify
"

# Why a server cannot do a step, where the general reason says too little
REASONS="
rclone|links|rclone mount refuses hard links (its VFS has no link operation)
rclone|symlinks|rclone 1.60 mount has no symbolic links (no --links option yet)
archivemount|links|archivemount 0.8.7 cannot link a file made since the mount (ENOENT)
archivemount|symlinks|archivemount 0.8.7 answers symlink() with ENOSYS
"

# The steps, in order: a KTAP case each, for every server
STEPS="mount fio_seq fio_rand fio_direct fio_parallel fio_mmap stress_dir stress_dentry
stress_rename stress_lockf stress_mmap stress_hdd readdir_1000 append
truncate links symlinks stat_timeouts fhandle notify unmount"

# the stress-ng stressors: step name, stressor, its options (fixed op
# counts), all in one run.  Left out for time (TCG + KASAN, measured on
# bindfs): --link and --symlink (8192 links per bogo operation, which
# stress-ng 0.15.06 cannot lower; the script's links and symlinks do a few),
# --xattr (not one of 16 operations done in 120 s), --fallocate (8 in
# 94 s) and --filename (16 in 40 s).
STRESSORS="
stress_dir|dir|--dir-ops 1 --dir-dirs 64
stress_dentry|dentry|--dentry-ops 1 --dentries 16
stress_rename|rename|--rename-ops 8
stress_lockf|lockf|--lockf-ops 8
stress_mmap|mmap|--mmap-ops 1 --mmap-bytes 64k --mmap-file
stress_hdd|hdd|--hdd-ops 8 --hdd-bytes 1m --hdd-write-size 4k
"

# --- KTAP ---------------------------------------------------------------

say() { echo "$*"; }
diag() { sed 's/^/    # /'; }

n_case=0
case_ok() { n_case=$((n_case + 1)); say "    ok $n_case $1"; }
case_fail() { n_case=$((n_case + 1)); say "    not ok $n_case $1"; }
case_skip() { n_case=$((n_case + 1)); say "    ok $n_case $1 # SKIP $2"; }

# result STEP RC LOG: the case of a step that ran, its log on failure
result() {
	if [ "$2" -eq 0 ]; then
		case_ok "$1"
	else
		[ ! -s "$3" ] || tail -n 25 "$3" | diag
		case_fail "$1"
	fi
}

# --- time -------------------------------------------------------------------

# now: set $cs to the centiseconds since boot (no fork: a variable, not
# an output); took T0 WHAT: "# WHAT: S.CC s" since T0
now() {
	read -r cs _ < /proc/uptime
	cs=${cs%.*}${cs#*.}
	# no leading zero: ash reads 08 as a bad octal number
	while [ "${cs#0}" != "$cs" ] && [ "${#cs}" -gt 1 ]; do cs=${cs#0}; done
}
took() {
	local d
	now
	d=$((cs - $1))
	printf '# %s: %d.%02d s\n' "$2" $((d / 100)) $((d % 100))
}

# --- the guest's view of the host ----------------------------------------

# setup_host: the host's /usr over 9p, and what its programs look for
setup_host() {
	mkdir -p /host /usr /etc "$W" || return 1
	grep -q ' /host 9p ' /proc/mounts ||
		timeout 60 mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose \
			host /host || return 1
	grep -q ' /usr 9p ' /proc/mounts || mount --bind /host/usr /usr || return 1
	[ -e /lib ] || ln -s usr/lib /lib
	[ -e /lib64 ] || ln -s usr/lib64 /lib64
	cp /host/etc/ld.so.cache /etc/ld.so.cache
	echo 'root:x:0:0:root:/tmp/real/home:/bin/sh' > /etc/passwd
	echo 'root:x:0:' > /etc/group
	[ -e /etc/mtab ] || ln -s /proc/self/mounts /etc/mtab
	mkdir -p "$W/home"
	export HOME="$W/home"
	grep -q ' /sys/kernel/tracing ' /proc/mounts ||
		mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null || true
}

# --- request counts --------------------------------------------------------

# Every request the kernel ends, by opcode and answer: a kprobe event on
# fuse_request_end() that reads the request's opcode, unique and
# out.h.error at the offsets of this kernel's struct fuse_req, found when
# it was built (scripts/request_probes.py).  FORGETs and INTERRUPTs, which
# never end as requests, are counted where the kernel queues them.  The
# base and a series are measured alike; neither is patched for it.
tracing=0
trace_setup() {
	local line
	if ! [ -r "$PROBES" ]; then
		echo "# fuse_request_probes: unavailable: no $PROBES in the initramfs"
		return 0
	fi
	head -n 1 "$PROBES"
	grep -q '^p:' "$PROBES" || return 0
	if ! [ -e "$TR/kprobe_events" ]; then
		echo "# fuse_request_probes: unavailable: no $TR/kprobe_events (CONFIG_KPROBE_EVENTS)"
		return 0
	fi
	echo 0 > "$TR/tracing_on"
	: > "$TR/trace"
	echo 8192 > "$TR/buffer_size_kb"
	grep '^p:' "$PROBES" | while read -r line; do
		echo "$line" >> "$TR/kprobe_events" ||
			echo "# fuse_request_probes: unavailable: the kernel refused '$line'"
	done
	if ! [ -e "$TR/events/fusegate/req_end/enable" ]; then
		echo "# fuse_request_probes: unavailable: no fusegate/req_end event"
		return 0
	fi
	echo 1 > "$TR/events/fusegate/enable"
	echo 1 > "$TR/tracing_on"
	# the connections' waiting counts, for settle
	grep -q ' /sys/fs/fuse/connections ' /proc/mounts ||
		mount -t fusectl fusectl /sys/fs/fuse/connections 2>/dev/null
	tracing=1
}

# conn_idle MINOR: no request of connection MINOR waits for its answer
conn_idle() {
	local w
	read -r w 2>/dev/null < "/sys/fs/fuse/connections/$1/waiting" || return 0
	[ "$w" = 0 ]
}

# settle: before a cut, wait (bounded, 5 s) until every request of the
# mount's connection has its answer (an asynchronous RELEASE, the INIT
# answered after mount(2) returned), so that it counts where it belongs
settle() {
	local minor
	minor=$(awk -v m="$mnt" '$5 == m { split($3, d, ":"); print d[2] }' /proc/self/mountinfo)
	[ -n "$minor" ] || return 0
	wait_for 50 conn_idle "$minor"
}

# trace_start SERVER: the first cut of a server's counts (run_server runs
# in a pipeline's subshell: the cuts are numbered per server)
trace_start() {
	[ "$tracing" = 1 ] || return 0
	cut=0
	echo "fusegate_cut $1 $cut" > "$TR/trace_marker"
}

# trace_begin: nothing; each count is what came between two cuts
# written into the trace (trace_end), so that a request that ends
# between two workloads (an asynchronous RELEASE, the INIT answered after
# mount(2) returned) is counted in the next one, never lost: the trace is
# neither stopped nor cleared
trace_begin() { :; }

# trace_end SERVER WORKLOAD: the count line of what was traced since the
# last cut: ops= every request by opcode, answers= every ended request by
# opcode and answer (0 or the server's -errno); lost=1 when the ring
# buffer overwrote events
trace_end() {
	[ "$tracing" = 1 ] || return 0
	local tt
	now; tt=$cs
	settle
	cut=$((cut + 1))
	echo "fusegate_cut $1 $cut" > "$TR/trace_marker"
	awk -v server="$1" -v workload="$2" -v from="$1 $((cut - 1))" -v to="$1 $cut" '
	/entries-in-buffer\/entries-written:/ {
		split($3, e, "/"); lost = (e[1] != e[2]) }
	/ tracing_mark_write: fusegate_cut / {
		c = $(NF - 1) " " $NF; if (c == to) exit; if (c == from) on = 1; next }
	!on { next }
	/ req_end: / {
		o = ""; r = ""
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^opcode=/) o = substr($i, 8)
			if ($i ~ /^error=/) r = substr($i, 7)
		}
		n[o]++; ans[o ":" r]++; total++ }
	/ forget: / { n[2]++; total++ }
	/ interrupt: / { n[36]++; total++ }
	END {
		s = ""; for (o in n) s = s (s == "" ? "" : ",") o ":" n[o]
		t = ""; for (k in ans) t = t (t == "" ? "" : ",") k ":" ans[k]
		printf "# fuse_requests: server=%s workload=%s total=%d lost=%d ops=%s answers=%s\n",
			server, workload, total, lost, s, t }' "$TR/trace"
	took "$tt" "counting the requests of $2"
}

# --- servers ---------------------------------------------------------------

# wait_for TRIES CMD...: run CMD every 0.1 s until it succeeds, at most
# TRIES times (a bounded wait for a defined state)
wait_for() {
	local tries=$1
	shift
	while ! "$@"; do
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || return 1
		sleep 0.1
	done
}

is_mounted() { grep -q " $1 fuse" /proc/self/mounts; }

# server_pids MNT: the processes whose command line names MNT (one grep:
# a pipe per process cost 3 s a server under TCG; the grep itself, also
# listed, is gone when the caller looks).  -z: the arguments are separated
# by NULs, and busybox's grep -F without it searches only argv[0].
server_pids() {
	grep -l -z -F -- "$1" /proc/[0-9]*/cmdline 2>/dev/null |
		sed 's,^/proc/,,; s,/cmdline$,,'
}

no_process_left() {
	for p in $1; do
		[ ! -d "/proc/$p" ] && continue
		# a zombie is gone for our purpose
		grep -q '^State:.*Z' "/proc/$p/status" 2>/dev/null || return 1
	done
	return 0
}

# --- time limits -------------------------------------------------------------

# Each step's limit, in seconds: about ten times the slowest server's
# time here (TCG, KASAN), stress-ng's own --timeout and a margin for its
# run.  A step past its limit hangs: the kernel with the series is
# judged on it (REGRESSION, naming the step), not the guest's limit.
STEP_LIMIT=60
STRESS_LIMIT=150

# state_of PID: set $state to the process's state letter, or to nothing
# when it is gone (no fork: read, not a pipe); for blocked_tasks
state_of() {
	local line
	state=""
	read -r line 2>/dev/null < "/proc/$1/stat" || return 0
	# the state follows the command, which may hold spaces: after ") "
	line=${line##*) }
	state=${line%% *}
}

# blocked_tasks: every task in uninterruptible sleep or waiting in FUSE
# (a request's answer is first waited for interruptibly), with its stack
blocked_tasks() {
	local d p comm stack
	for d in /proc/[0-9]*; do
		p=${d#/proc/}
		state_of "$p"
		stack=$(cat "$d/stack" 2>/dev/null)
		case "$state:$stack" in
		D:*|*fuse*) ;;
		*) continue ;;
		esac
		read -r comm 2>/dev/null < "$d/comm"
		echo "task $p ($comm), state $state:"
		echo "$stack"
	done
}

# kill_tree PID: PID and every process below it
kill_tree() {
	local pids=$1 more=$1 d line ppid
	while [ -n "$more" ]; do
		more=""
		for d in /proc/[0-9]*; do
			read -r line 2>/dev/null < "$d/stat" || continue
			line=${line##*) }
			set -- $line
			ppid=$2
			case " $pids " in *" $ppid "*)
				case " $pids " in *" ${d#/proc/} "*) ;; *)
					pids="$pids ${d#/proc/}"; more="$more ${d#/proc/}" ;;
				esac ;;
			esac
		done
	done
	kill -9 $pids 2>/dev/null
}

# abort_connection: end every request of the mount's connection
# (fusectl), so that what waits on the server returns
abort_connection() {
	local minor
	grep -q ' /sys/fs/fuse/connections ' /proc/mounts ||
		mount -t fusectl fusectl /sys/fs/fuse/connections 2>/dev/null
	minor=$(awk -v m="$mnt" '$5 == m { split($3, d, ":"); print d[2] }' /proc/self/mountinfo)
	[ -n "$minor" ] && echo 1 > "/sys/fs/fuse/connections/$minor/abort"
}

# status_of SEQ SECONDS: set $rc to the status step SEQ wrote on the pipe
# within SECONDS (a line "SEQ STATUS"); status 1 when none came
status_of() {
	local line
	while read -r -t "$2" -u 7 line; do
		[ "${line%% *}" = "$1" ] || continue
		rc=${line#* }
		return 0
	done
	return 1
}

# limited SECONDS CMD...: CMD in the background, its status waited for
# on the pipe $DONE for up to SECONDS (a bounded wait for a defined state:
# CMD has ended; no polling).  Past it: the blocked tasks' stacks into
# $log, the connection aborted, $hung set to the limit, status 124.
limited() {
	local limit=$1 pid rc=0 seq
	shift
	hung=""
	# each status names its step: one a killed step wrote late is skipped
	lseq=$((lseq + 1))
	seq="${name:-step}.$lseq"
	{ "$@"; echo "$seq $?" >&7; } &
	pid=$!
	if status_of "$seq" "$limit"; then
		wait "$pid"
		return "$rc"
	fi
	hung=$limit
	# the step's own programs write $log from its start (fio, umount):
	# what is said of the hang is appended once they are gone
	{
		echo "the tasks blocked or waiting in FUSE after $limit s:"
		blocked_tasks
	} > "$log.hung" 2>&1
	abort_connection
	# the aborted requests end at once; what still runs after 10 s is killed
	status_of "$seq" 10 || kill_tree "$pid"
	wait "$pid" 2>/dev/null
	echo "hung: not ended within its limit of $limit s; the connection aborted (fusectl)" \
		>> "$log.hung"
	cat "$log.hung" >> "$log"
	rm -f "$log.hung"
	return 124
}

# populate DIR: the 1000 entries of readdir_1000 and the files of the
# script, created in DIR (a backing directory or an image's source)
populate() {
	mkdir -p "$1/many" || return 1
	i=0
	while [ $i -lt 1000 ]; do
		: > "$1/many/entry-$i"
		i=$((i + 1))
	done
	printf 'fusegate real servers\n' > "$1/hello"
	mkdir -p "$1/timeouts" && printf 'stat_timeouts\n' > "$1/timeouts/file"
}

# populate_through DIR: the same names in DIR, a mount without a backing
# directory: made by one mkdir (a LOOKUP and a MKDIR each, where files
# cost a LOOKUP, a CREATE and a RELEASE: 20 s on ntfs-3g under TCG)
populate_through() {
	local i=0 names=""
	mkdir -p "$1/many" || return 1
	while [ $i -lt 1000 ]; do
		names="$names entry-$i"
		i=$((i + 1))
	done
	# shellcheck disable=SC2086
	(cd "$1/many" && mkdir $names) || return 1
	printf 'fusegate real servers\n' > "$1/hello"
	mkdir -p "$1/timeouts" && printf 'stat_timeouts\n' > "$1/timeouts/file"
}

# start_NAME: mount the server NAME on $mnt, its files in $dir (set
# $data: where the workloads run, $back: its backing directory if any).
# $RUN prefixes the server's command (the probe, probe_server), $DAEMON
# and $FG are its options to leave the foreground or stay in it.
RUN=""
DAEMON=--daemon
FG=""
start_fuse_overlayfs() {
	mkdir -p "$dir/lower" "$dir/upper" "$dir/work"
	populate "$dir/lower"
	back=$dir/lower
	$RUN fuse-overlayfs -o "lowerdir=$dir/lower,upperdir=$dir/upper,workdir=$dir/work" "$mnt"
}
start_bindfs() {
	mkdir -p "$dir/src"; populate "$dir/src"; back=$dir/src
	$RUN bindfs "$dir/src" "$mnt"
}
start_mergerfs() {
	mkdir -p "$dir/b1" "$dir/b2"; populate "$dir/b1"; back=$dir/b1
	# minfreespace: the default (4G) is more than these tmpfs branches have
	$RUN mergerfs -o category.create=mfs,minfreespace=16M "$dir/b1:$dir/b2" "$mnt"
}
start_unionfs() {
	mkdir -p "$dir/rw" "$dir/ro"; populate "$dir/ro"; back=$dir/ro
	$RUN unionfs -o cow "$dir/rw=RW:$dir/ro=RO" "$mnt"
}
start_gocryptfs() {
	mkdir -p "$dir/cipher"
	gocryptfs -q -init -scryptn 10 -extpass "echo fusegate" "$dir/cipher" || return 1
	$RUN gocryptfs -q $FG -extpass "echo fusegate" "$dir/cipher" "$mnt"
}
start_rclone() {
	mkdir -p "$dir/src" "$dir/cache"; populate "$dir/src"; back=$dir/src
	: > "$dir/rclone.conf"
	$RUN rclone mount --config "$dir/rclone.conf" --cache-dir "$dir/cache" \
		--vfs-cache-mode writes $DAEMON "$dir/src" "$mnt"
}
start_ntfs_3g() {
	dd if=/dev/zero of="$dir/ntfs.img" bs=1M count=0 seek=32 2>/dev/null
	/usr/sbin/mkntfs -q -F -f -L fusegate "$dir/ntfs.img" || return 1
	$RUN ntfs-3g "$dir/ntfs.img" "$mnt"
}
start_fuse2fs() {
	mkdir -p "$dir/src"; populate "$dir/src"
	/usr/sbin/mkfs.ext4 -q -F -d "$dir/src" "$dir/ext4.img" 32M || return 1
	$RUN fuse2fs "$dir/ext4.img" "$mnt"
}
start_squashfuse() {
	mkdir -p "$dir/src"; populate "$dir/src"
	ln -s hello "$dir/src/hello-link"
	mksquashfs "$dir/src" "$dir/img.sqfs" -quiet -no-progress -processors 1 >/dev/null || return 1
	$RUN squashfuse "$dir/img.sqfs" "$mnt"
}
start_archivemount() {
	mkdir -p "$dir/src"; populate "$dir/src"
	(cd "$dir/src" && tar cf "$dir/archive.tar" .) || return 1
	$RUN archivemount "$dir/archive.tar" "$mnt"
}
start_sshfs() {
	mkdir -p "$dir/src"; populate "$dir/src"; back=$dir/src
	mkfifo "$dir/to-sshfs"
	# SFTP over a pipe: openssh's sftp-server on one end, sshfs in
	# passive mode (SFTP on its stdin and stdout) on the other
	/usr/lib/openssh/sftp-server < "$dir/to-sshfs" |
		$RUN sshfs -f -o passive "localhost:$dir/src" "$mnt" > "$dir/to-sshfs" &
}
start_passthrough() {
	mkdir -p "$dir/src"; populate "$dir/src"; back=$dir/src
	$RUN "$EXAMPLES/passthrough" "$mnt"
	data=$mnt$dir/src
}
start_passthrough_fh() {
	mkdir -p "$dir/src"; populate "$dir/src"; back=$dir/src
	$RUN "$EXAMPLES/passthrough_fh" "$mnt"
	data=$mnt$dir/src
}
start_notify_store_retrieve() { $RUN "$EXAMPLES/notify_store_retrieve" --update-interval=1 "$mnt"; }
start_notify_inval_inode() { $RUN "$EXAMPLES/notify_inval_inode" --update-interval=1 "$mnt"; }
start_notify_inval_entry() {
	$RUN "$EXAMPLES/notify_inval_entry" --update-interval=1 --timeout=30 "$mnt"
}
start_invalidate_path() { $RUN "$EXAMPLES/invalidate_path" "$mnt"; }

# --- steps -------------------------------------------------------------------

has() { case " $caps " in *" $1 "*) return 0 ;; esac; return 1; }

# skip_why STEP: set $why to why this server cannot do STEP, or to nothing
# when it can.  No subshell and no pipe: under TCG a fork costs tens of
# milliseconds, and this runs for every step of every server.
skip_why() {
	local line
	skip_general "$1"
	[ -n "$why" ] || return 0
	local IFS='
'
	set -f	# the lines are split, never globbed
	for line in $REASONS; do
		case "$line" in "$name|$1|"*) why=${line#"$name|$1|"} ;; esac
	done
	set +f
}

# skip_general STEP: set $why to the reason that follows from the
# server's words
skip_general() {
	why=""
	if has notify; then
		[ "$1" = notify ] || why="a libfuse notification example serves one read-only file"
		return
	fi
	[ "$1" != notify ] || { why="not a notification example"; return; }
	case "$1" in
	fio_*|stress_*|append|truncate|links|symlinks)
		has rw || { why="read-only file system"; return; } ;;
	esac
	case "$1" in
	fio_direct|fio_parallel) has direct || why="O_DIRECT opens fail (EINVAL): the server does not allow direct I/O" ;;
	fio_mmap|stress_mmap) has mmap || why="no shared writable mmap on this server" ;;
	links) has link || why="no hard links" ;;
	symlinks) has symlink || why="no symbolic links" ;;
	stress_lockf) has lock || why="no POSIX locks" ;;
	fhandle) has export || why="the server does not export (no FUSE_EXPORT_SUPPORT): a handle goes stale once its inode left the cache" ;;
	esac
	return 0
}

# fio_job NAME SIZE FIO-OPTIONS...: write, then read back and verify
fio_job() {
	local name=$1 size=$2
	shift 2
	# fio keeps its job table in SysV shared memory: without CONFIG_SYSVIPC
	# in the guest, a preload maps it shared and anonymous (fuse_real_shm.c)
	[ -d /proc/sysvipc ] || export LD_PRELOAD=${FUSEGATE_REAL_SHM:-/tests/fuse_real_shm.so}
	fio --name="$name" --directory="$data" --filename="fio-$name" --size="$size" --bs=4k \
		--ioengine=psync --verify=crc32c --do_verify=1 --verify_fatal=1 --randseed=7 \
		--end_fsync=1 --unlink=1 --verify_state_save=0 "$@" --output-format=terse > "$log" 2>&1
	local rc=$?
	unset LD_PRELOAD
	return $rc
}

step_fio_seq() { fio_job seq 64k --rw=write; }
step_fio_rand() { fio_job rand 64k --rw=randwrite; }
# 192 KiB: past the 128 KiB of gate-fixtures/real_direct_write_tail_dropped
step_fio_direct() {
	fio_job direct 192k --rw=randwrite --direct=1 &&
		fio_job directseq 192k --rw=write --direct=1
}
# four jobs, each with 16 asynchronous direct writes in flight, each on
# its own file: more requests at once than the kernel's max_background
# (12), so that some wait in the background queue
step_fio_parallel() {
	[ -d /proc/sysvipc ] || export LD_PRELOAD=${FUSEGATE_REAL_SHM:-/tests/fuse_real_shm.so}
	fio --name=parallel --directory="$data" --size=64k --bs=4k --rw=randwrite \
		--direct=1 --ioengine=libaio --iodepth=16 --numjobs=4 \
		--verify=crc32c --do_verify=1 --verify_fatal=1 --randseed=7 --end_fsync=1 \
		--unlink=1 --verify_state_save=0 --output-format=terse > "$log" 2>&1
	local rc=$?
	unset LD_PRELOAD
	return $rc
}
step_fio_mmap() { fio_job mmap 64k --rw=randwrite --ioengine=mmap; }

# stress-ng: the server's stressors in one run (one instance each, fixed
# op counts and seed), then one case per stressor from what it printed
stress_run() {
	local args="" step s opts
	has rw || return 0
	echo "$STRESSORS" | while IFS='|' read -r step s opts; do
		[ -n "$step" ] || continue
		skip_why "$step"
		[ -z "$why" ] || continue
		echo "--$s 1 $opts"
	done > "$dir/stress.args"
	args=$(cat "$dir/stress.args")
	[ -n "$args" ] || return 0
	mkdir -p "$data/stress"
	# shellcheck disable=SC2086
	stress-ng --temp-path "$data/stress" --seed 42 --verify --timeout 120 \
		--metrics-brief $args > "$dir/stress.log" 2>&1
	echo $? > "$dir/stress.rc"
	awk '$2 == "metrc:" && $5 ~ /^[0-9]+$/ { printf "%s %s ops %ss, ", $4, $5, $6 }' \
		"$dir/stress.log" | sed 's/^/# stress-ng: /; s/, $//'
	echo
}

# stress_case STEP STRESSOR OPTS: the case of one stressor of the run
stress_case() {
	local step=$1 s=$2 ops want
	want=$(echo "$3" | sed -n 's/.*--[a-z]*-ops \([0-9]*\).*/\1/p')
	log=$dir/$step.log
	grep -E "(fail|error|warn):? +\[[0-9]+\] $s:|\] $s: .*(skipping|not supported|failed)" \
		"$dir/stress.log" > "$log"
	ops=$(awk -v s="$s" '$2 == "metrc:" && $4 == s && $5 ~ /^[0-9]+$/ { print $5 }' "$dir/stress.log")
	if [ -s "$log" ] || [ -z "$ops" ] || [ "$ops" -lt "$want" ]; then
		echo "stressor $s: $ops of $want bogo ops; stress-ng exit $(cat "$dir/stress.rc" 2>/dev/null)" >> "$log"
		result "$step" 1 "$log"
	else
		case_ok "$step"
	fi
}

step_readdir_1000() {
	local dd=$data/many
	if [ -z "$back" ] && ! [ -d "$dd" ]; then
		# no backing directory, no image made with them: create them here
		populate_through "$data" > "$log" 2>&1 || return 1
	fi
	# . and .. are the server's to list or not (squashfuse lists neither)
	ls -a1 "$dd" | grep -v '^\.\.*$' | sort > "$dir/readdir.got" 2>> "$log" || return 1
	{ i=0; while [ $i -lt 1000 ]; do echo "entry-$i"; i=$((i + 1)); done; } |
		sort > "$dir/readdir.want"
	cmp "$dir/readdir.want" "$dir/readdir.got" >> "$log" 2>&1 || {
		echo "readdir: $(wc -l < "$dir/readdir.got") entries, 1000 expected" >> "$log"
		return 1
	}
}

step_append() {
	local f=$data/append
	printf 0123 > "$f" && printf ab >> "$f" && printf cd >> "$f" || return 1
	[ "$(cat "$f")" = 0123abcd ] && [ "$(stat -c %s "$f")" = 8 ] || {
		echo "content '$(cat "$f")', size $(stat -c %s "$f"); want 0123abcd, 8" > "$log"
		return 1
	}
}

step_truncate() {
	local f=$data/trunc
	seq 1 3000 | head -c 8192 > "$f" && truncate -s 1000 "$f" || return 1
	[ "$(stat -c %s "$f")" = 1000 ] && seq 1 3000 | head -c 1000 | cmp - "$f" > "$log" 2>&1 ||
		{ echo "after truncate to 1000: size $(stat -c %s "$f")" >> "$log"; return 1; }
	truncate -s 5000 "$f" || return 1
	[ "$(stat -c %s "$f")" = 5000 ] &&
		[ "$(tail -c 4000 "$f" | tr -d '\0' | wc -c)" = 0 ] ||
		{ echo "after extending to 5000: size $(stat -c %s "$f") or not zeros" >> "$log"; return 1; }
}

# 16 hard links to a file: the link count, the data through a link
step_links() {
	local f=$data/linked i=0
	printf 'linked data\n' > "$f" || return 1
	while [ $i -lt 16 ]; do
		ln "$f" "$data/link-$i" 2>> "$log" || return 1
		i=$((i + 1))
	done
	# the last link's attributes come with its LINK reply; the file's own
	# may be cached for the server's attribute timeout
	{ ! has nlink || [ "$(stat -c %h "$data/link-15")" = 17 ]; } &&
		[ "$(cat "$data/link-15")" = "linked data" ] ||
		{ echo "links: count $(stat -c %h "$data/link-15"), data '$(cat "$data/link-15")'" >> "$log"; return 1; }
	rm -f "$data"/link-* && ! ls "$data"/link-* > /dev/null 2>&1 &&
		[ "$(cat "$f")" = "linked data" ] ||
		{ echo "after unlinking: $(ls "$data" | grep -c '^link-') links left" >> "$log"; return 1; }
}

# 16 symbolic links: what readlink says, the data through one
step_symlinks() {
	local i=0
	while [ $i -lt 16 ]; do
		ln -s "hello" "$data/sym-$i" 2>> "$log" || return 1
		[ "$(readlink "$data/sym-$i")" = hello ] ||
			{ echo "readlink sym-$i: '$(readlink "$data/sym-$i")'" >> "$log"; return 1; }
		i=$((i + 1))
	done
	cmp "$data/hello" "$data/sym-7" >> "$log" 2>&1 && rm -f "$data"/sym-*
}

# stat after the entry and attribute timeouts expired: the kernel must ask
# again (revalidation), and get the same file; where a backing directory
# exists, a change made behind the mount's back must then show.  The first
# stat and the change are made as soon as the file exists, after
# readdir_1000 (stat_timeouts_begin), so that the timeouts expire while
# the steps between run; the step waits only for what is left of 1.5 s.
# Its file is alone in a directory no other step reads or lists: nothing
# between the two stats may refresh its attributes (a lookup after the
# timeout, or a READDIRPLUS of its directory, would) and let a kernel
# that never revalidates pass.
stat_timeouts_begin() {
	st_before=$(stat -c '%i %s %f' "$data/timeouts/file" 2>&1) || st_before="first stat: $st_before"
	! has backing || printf 'more\n' >> "$back/timeouts/file"
	now; st_t0=$cs
}

step_stat_timeouts() {
	local a b left
	# (a server that skipped readdir_1000 begins here)
	[ -n "$st_t0" ] || stat_timeouts_begin
	a=$st_before
	case "$a" in "first stat: "*) echo "$a" > "$log"; return 1 ;; esac
	now
	left=$((st_t0 + 150 - cs))
	[ "$left" -le 0 ] || sleep "$((left / 100)).$((left % 100 / 10))$((left % 10))"
	b=$(stat -c '%i %s %f' "$data/timeouts/file") || return 1
	if has backing; then
		[ "${b#* }" = "$(stat -c '%s %f' "$back/timeouts/file")" ] || {
			echo "after the timeouts: '$b', backing file '$(stat -c '%s %f' "$back/timeouts/file")'" > "$log"
			return 1
		}
	elif [ "$a" != "$b" ]; then
		echo "stat before '$a', after the timeouts '$b'" > "$log"
		return 1
	fi
}

step_fhandle() { "$FHANDLE" "$mnt" "$data/hello" > "$log" 2>&1; }

# notify: the example's file changes by the server's notification alone,
# with the kernel's caches kept (bounded: 30 tries of one second's change)
# append_open FILE: open FILE for appending and close it, writing nothing.
# The low-level notification examples refuse every open but O_RDONLY with
# EACCES: there the open must fail (a kernel that skipped the server's
# answer would open it); invalidate_path opens anything.
append_open() {
	if (: >> "$1") 2>> "$log"; then
		case "$name" in
		notify_inval_inode|notify_store_retrieve)
			echo "$1 opened for appending: the server refuses it" >> "$log"
			return 1 ;;
		esac
	else
		case "$name" in
		notify_inval_inode|notify_store_retrieve) ;;
		*) echo "$1 could not be opened for appending" >> "$log"; return 1 ;;
		esac
	fi
}

step_notify() {
	case "$name" in
	notify_inval_entry)
		local old
		# a name the kernel has looked up (the server renames it every
		# second: the first ls may be one name behind)
		name_looked_up() {
			old=$(ls "$mnt" | grep -v current_time | head -n 1)
			[ -n "$old" ] && stat "$mnt/$old" > /dev/null 2>&1
		}
		wait_for 300 name_looked_up || { echo "no name could be looked up" > "$log"; return 1; }
		wait_for 300 sh -c "[ \"\$(ls '$mnt' | grep -v current_time | head -n 1)\" != '$old' ]" ||
			{ echo "the name never changed: $old" >> "$log"; return 1; }
		# the server invalidated the old entry: it is gone before its timeout (30 s)
		! stat "$mnt/$old" >> "$log" 2>&1 ||
			{ echo "$old still there: the entry was not invalidated" >> "$log"; return 1; }
		;;
	*)
		local f first
		f=$mnt/$(ls "$mnt" | head -n 1)
		# An open for appending: the open the kernel wants the
		# attributes of (a compound of OPEN and GETATTR, where the
		# kernel has them), whether or not the attributes are cached.
		# The first one is the series' discovery; the one after the
		# invalidation must not ask again (fuse_real_servers_requests).
		append_open "$f" || return 1
		first=$(cat "$f") || return 1
		# the content changes in the kernel's view only once the
		# server's FUSE_NOTIFY_INVAL_INODE dropped the cached pages
		# (keep_cache, attributes that never time out): the defined
		# state "an invalidation was processed"
		wait_for 300 sh -c "[ \"\$(cat '$f')\" != '$first' ]" ||
			{ echo "$f never changed: $first" > "$log"; return 1; }
		append_open "$f" || return 1
		;;
	esac
}

# run_server NAME CAPS: mount, every step, unmount: the subtest of NAME
run_server() {
	name=$1 caps=$2 back='' n_case=0 st_t0='' hung='' hung_step=''
	dir=$W/$name mnt=$W/$name/mnt
	data=$mnt
	mkdir -p "$mnt"
	say "    KTAP version 1"
	say "    # Subtest: $name"
	say "    1..$(echo $STEPS | wc -w)"
	log=$dir/mount.log
	local t0 tp
	now; t0=$cs
	trace_start "$name"
	start_"$name" > "$log" 2>&1
	local rc=$?
	if [ "$rc" -eq 0 ] && wait_for 600 is_mounted "$mnt"; then
		trace_end "$name" mount
		took "$t0" mount
		case_ok mount
	else
		echo "start_$name: exit $rc, $mnt not mounted" >> "$log"
		result mount 1 "$log"
		for s in $STEPS; do [ "$s" = mount ] || case_skip "$s" "the server did not mount"; done
		return
	fi
	local group=fio step why
	trace_begin
	for step in $STEPS; do
		[ "$step" != mount ] || continue
		# the request counts of each workload: fio, stress-ng, the script
		case "$step" in
		stress_dir) trace_end "$name" "$group"; group=stress-ng; trace_begin
			now; tp=$cs; log=$dir/stress.log
			: > "$dir/stress.out"
			hung=""
			[ -n "$hung_step" ] || limited "$STRESS_LIMIT" stress_run > "$dir/stress.out"
			[ -z "$hung" ] || { echo "stress-ng: hung" > "$dir/stress.rc"; hung_step=stress-ng; }
			cat "$dir/stress.out"
			took "$tp" stress-ng ;;
		readdir_1000) trace_end "$name" "$group"; group=script; trace_begin ;;
		notify) trace_end "$name" "$group"; group=notify; trace_begin ;;
		unmount) trace_end "$name" "$group"; trace_begin ;;
		esac
		skip_why "$step"
		if [ -n "$hung_step" ] && [ "$step" != unmount ]; then
			case "$step" in
			stress_*) [ "$hung_step" != stress-ng ] || {
				log=$dir/$step.log
				echo "stress-ng hung (limit $STRESS_LIMIT s)" > "$log"
				result "$step" 1 "$log"
				continue; } ;;
			esac
			case_skip "$step" "the connection was aborted after $hung_step hung"
			continue
		fi
		if [ "$step" != unmount ] && [ -n "$why" ]; then
			case_skip "$step" "$why"
			continue
		fi
		log=$dir/$step.log
		: > "$log"
		case "$step" in
		stress_*)
			echo "$STRESSORS" | while IFS='|' read -r st s opts; do
				[ "$st" = "$step" ] && stress_case "$st" "$s" "$opts"
			done
			n_case=$((n_case + 1)) ;;
		unmount)
			local pids urc=0
			now; tp=$cs
			pids=$(server_pids "$mnt")
			limited "$STEP_LIMIT" umount "$mnt" > "$log" 2>&1 || urc=$?
			# after an abort the server may have unmounted itself (rclone),
			# or what hung may keep the mount busy (lazily, then)
			if [ -n "$hung_step" ] && [ "$urc" -ne 0 ]; then
				is_mounted "$mnt" && umount -l "$mnt" >> "$log" 2>&1
				is_mounted "$mnt" || urc=0
			fi
			if [ "$urc" -eq 0 ] && ! wait_for 600 no_process_left "$pids"; then
				echo "the server did not exit: $pids" >> "$log"
				urc=1
			fi
			took "$tp" unmount
			result unmount "$urc" "$log"
			trace_end "$name" unmount
			took "$t0" "$name from its start to its unmount" ;;
		*)
			local rc=0
			now; tp=$cs
			limited "$STEP_LIMIT" "step_$step" || rc=$?
			took "$tp" "$step"
			[ -z "$hung" ] || hung_step=$step
			result "$step" $rc "$log"
			[ "$step" != readdir_1000 ] || stat_timeouts_begin ;;
		esac
	done
}

# probe_server NAME: what the server answers to the series' new opcodes,
# sent on purpose by fuse_real_probe, which plays the kernel over a socket
# pair (nothing mounts; the kernel under test plays no part): one
# "# fuse_probe: ..." line, or why there is none
probe_server() {
	local pids out=$W/probe.out
	name=$1 dir=$W/$1 mnt=$W/$1/mnt
	mkdir -p "$mnt"
	: > "$out"
	log=$dir/probe.log
	(
		RUN="$PROBE $name $SHIM --" DAEMON="" FG=-fg
		export FUSEGATE_PROBE_OUT="$out" PATH="$W/fakebin:$PATH"
		limited 60 start_"$name"
	) > "$log" 2>&1
	# a server started in the background (sshfs) is probed after start_
	# returned: its line comes within the probe's own limits (60 s)
	wait_for 700 [ -s "$out" ]
	if [ -s "$out" ]; then
		cat "$out"
		# an answer that is not an errno (no INIT, no answer, the
		# connection closed): what the server said
		grep -qE '=(closed|none|error)( |$)| init=-' "$out" && tail -n 8 "$log" | diag
	else
		echo "# fuse_probe: server=$name unprobed: $(tail -n 1 "$log")"
	fi
	# what the server left behind (a daemon that missed the closed socket)
	pids=$(server_pids "$mnt")
	[ -z "$pids" ] || kill -9 $pids 2>/dev/null
	rm -rf "$dir"
}

probe_main() {
	mkdir -p "$W/fakebin"
	ln -sf "$PROBE" "$W/fakebin/fusermount"
	ln -sf "$PROBE" "$W/fakebin/fusermount3"
	echo "$ASKED" | while IFS='|' read -r name caps; do
		[ -n "$name" ] || continue
		probe_server "$name"
	done
}

# FUSEGATE_REAL_SERVERS: which servers run.  'quick' (the default): one
# server per implementation of the protocol that is cheap to run here
# (libfuse 3: bindfs; ntfs-3g's fuse-lite; rclone's own Go library) and
# libfuse's notification examples that invalidate entries and inodes (the
# second sends FUSE_NOTIFY_INVAL_INODE, which no other quick server does,
# between opens that a series may treat differently), about 110 s a boot
# under TCG with KASAN; 'all' (or 1): every server, about
# eleven minutes a boot; 0: none (every server a SKIP that says so); or
# the names of the servers, separated by spaces or commas.
QUICK="bindfs ntfs_3g rclone notify_inval_entry notify_inval_inode"

# The servers FUSEGATE_REAL_SERVERS asks for, as "name|caps" lines
asked_servers() {
	local want=${FUSEGATE_REAL_SERVERS:-quick}

	case "$want" in
	all|1) echo "$SERVERS"; return ;;
	quick) want=$QUICK ;;
	esac
	want=$(echo "$want" | tr ',' ' ')
	echo "$SERVERS" | while IFS='|' read -r name caps; do
		[ -n "$name" ] || continue
		case " $want " in *" $name "*) echo "$name|$caps" ;; esac
	done
}

# The harness's filters, as run-tests passes them to every program: -f NAME
# runs only the server NAME (repeatable); -t and -v select nothing here
select_servers() {
	local only=""
	while [ $# -gt 0 ]; do
		case "$1" in
		-f) only="$only $2"; shift 2 ;;
		-t|-v) shift 2 ;;
		*) shift ;;
		esac
	done
	[ -n "$only" ] || { echo "$SERVERS"; return; }
	echo "$SERVERS" | while IFS='|' read -r name caps; do
		[ -n "$name" ] || continue
		case " $only " in *" $name "*) echo "$name|$caps" ;; esac
	done
}

main() {
	local servers i=0
	mkdir -p "$W"
	: > "$W/failed"
	SERVERS=$(select_servers "$@")
	servers=$(echo "$SERVERS" | grep -c '|')
	echo "TAP version 13"
	echo "1..$servers"
	if [ "${FUSEGATE_REAL_SERVERS:-quick}" = 0 ]; then
		echo "$SERVERS" | while IFS='|' read -r name caps; do
			[ -n "$name" ] || continue
			i=$((i + 1))
			echo "ok $i $name # SKIP not asked for (FUSEGATE_REAL_SERVERS=0)"
		done
		return 0
	fi
	ASKED=$(asked_servers)
	now; t_all=$cs
	if ! setup_host > "$W.setup.log" 2>&1; then
		diag < "$W.setup.log"
		echo "$SERVERS" | while IFS='|' read -r name caps; do
			[ -n "$name" ] || continue
			i=$((i + 1))
			echo "ok $i $name # SKIP no host share: the servers are not reachable (9p 'host')"
		done
		return 0
	fi
	trace_setup
	# the pipe on which each step's status comes back (limited)
	DONE=$W/done.fifo
	rm -f "$DONE"
	mkfifo "$DONE" && exec 7<> "$DONE" || { echo "# no pipe $DONE"; return 1; }
	if [ "${FUSEGATE_REAL_PROBE:-0}" = 1 ]; then
		probe_main
		ASKED=""
	fi
	echo "$SERVERS" | while IFS='|' read -r name caps; do
		[ -n "$name" ] || continue
		i=$((i + 1))
		if [ "${FUSEGATE_REAL_PROBE:-0}" = 1 ]; then
			echo "ok $i $name # SKIP probed only (FUSEGATE_REAL_PROBE=1)"
			continue
		fi
		if ! echo "$ASKED" | grep -q "^$name|"; then
			echo "ok $i $name # SKIP not asked for (FUSEGATE_REAL_SERVERS=${FUSEGATE_REAL_SERVERS:-quick}; 'all' runs every server)"
			continue
		fi
		run_server "$name" "$caps" | tee "$W/$name.ktap"
		if grep -q '^    not ok' "$W/$name.ktap"; then
			echo "not ok $i $name"
			echo "$name" >> "$W/failed"
		else
			echo "ok $i $name"
		fi
	done
	took "$t_all" "the real servers, from the host share to the last unmount"
	[ ! -s "$W/failed" ]
}

main "$@"
