# shellcheck shell=bash
# Shared helpers of the fusegate scripts.  Source it; it defines functions
# and the exit codes, and sets nothing else but, for a script that sourced
# it under 'set -E', the ERR trap of trap_unexpected_errors.
#
# Exit codes, the same for every entry point:
#   0  pass            every test passed
#   1  test failure    a test failed, or the guest printed a kernel splat
#   2  usage error     bad argument
#   3  infrastructure  missing package, series does not apply, build
#                      failed, guest did not boot, no TAP

readonly EXIT_PASS=0
readonly EXIT_FAIL=1
readonly EXIT_USAGE=2
readonly EXIT_INFRA=3

# Where unpacked trees, build output and ccache live; never the repository.
FUSEGATE_CACHE=${FUSEGATE_CACHE:-/var/cache/fusegate}
FUSEGATE_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

die_usage() {
	printf 'error: %s\n' "$*" >&2
	printf "Try '%s --help'.\n" "$(basename "$0")" >&2
	exit "$EXIT_USAGE"
}

# An infrastructure error: said on stderr and, for a runner that has set
# INFRA_SUMMARY (its summary.json), written there, so that whoever reads
# the results finds the reason without reading the output.
die_infra() {
	printf 'INFRA ERROR: %s\n' "$*" >&2
	record_infra "$*"
	exit "$EXIT_INFRA"
}

# Write the reason of an infrastructure error that a tool below has
# already said on stderr into INFRA_SUMMARY, when the caller set it
record_infra() {
	if [ -n "${INFRA_SUMMARY:-}" ]; then
		python3 "$FUSEGATE_ROOT/scripts/results.py" infra "$INFRA_SUMMARY" "$*" || true
	fi
}

# Packages every runner needs on a Debian 12 machine
# The WARNs the KUnit suites provoke on purpose (an operation that depends
# on a later one, a compound with page arguments), by FILE:FUNCTION, for
# scripts/ktap_report.py.  fuse_compound_send() is in dev.c up to the
# transport/fs split of the series and in compound.c after it; from the
# creations by file handle on, its checks are inlined into
# fuse_compound_send_idmap(), which it calls.
EXPECT_WARN_ARGS=(
	--expect-warn fs/fuse/compound.c:fuse_compound_send
	--expect-warn fs/fuse/dev.c:fuse_compound_send
	--expect-warn fs/fuse/compound.c:fuse_compound_send_idmap
	--expect-warn fs/fuse/dev.c:fuse_compound_send_idmap
)

FUSEGATE_PACKAGES=(
	linux-source-6.12 build-essential bc bison flex libelf-dev libssl-dev
	xz-utils cpio rsync ccache sparse python3 python3-ply python3-git
	qemu-system-x86 busybox-static libfuse3-dev pkg-config git kmod
	# the real servers of fuse_real_servers_test (run in the guest from the
	# host's root over 9p), the tools that make their images, the workloads
	fuse-overlayfs bindfs mergerfs unionfs-fuse gocryptfs rclone ntfs-3g
	fuse2fs squashfuse squashfs-tools archivemount sshfs openssh-sftp-server
	e2fsprogs fio stress-ng
)

# Install what is missing (apt-get update first); a clear error otherwise.
ensure_packages() {
	local missing=() p
	for p in "${FUSEGATE_PACKAGES[@]}" "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	log "installing missing packages: ${missing[*]}"
	if [ "$(id -u)" -ne 0 ]; then
		die_infra "packages missing (${missing[*]}) and not root: run 'sudo apt-get install ${missing[*]}'"
	fi
	DEBIAN_FRONTEND=noninteractive apt-get update -q >&2 ||
		die_infra "apt-get update failed; cannot install: ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >&2 ||
		die_infra "apt-get install failed for: ${missing[*]}"
}

# Build through ccache with a fixed identity so that rebuilds hit.
export_build_env() {
	export CCACHE_DIR="$FUSEGATE_CACHE/ccache"
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
	export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026'
	export KBUILD_BUILD_USER=fusegate
	export KBUILD_BUILD_HOST=fusegate
	# Debian's python3 carries ply and git for checkpatch and kunit.py
	export PATH="/usr/bin:$PATH"
}

# in_list NEEDLE ITEM...: whether NEEDLE is one of the items.  (Not a
# pipe into grep -q: under pipefail, the writer that grep leaves behind
# dies of SIGPIPE and the match reads as a failure.)
in_list() {
	local needle=$1 item
	shift
	for item in "$@"; do
		[ "$item" != "$needle" ] || return 0
	done
	return 1
}

# Seconds since the epoch, for phase timings
now() { date +%s; }

# Run a long build with its output appended to LOG, showing every 15 s
# that it is alive: elapsed time and objects built so far in BUILD_DIR.
#   build_with_progress LOG BUILD_DIR COMMAND...
build_with_progress() {
	local log=$1 dir=$2 start pid
	shift 2
	start=$(now)
	"$@" >> "$log" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 15 &
		wait $! || true
		kill -0 "$pid" 2>/dev/null || break
		log "building: $(( $(now) - start ))s, $(find "$dir" -name '*.o' 2>/dev/null | wc -l) objects"
	done
	wait "$pid"
}

# Any command that fails where the script did not expect it is an
# infrastructure error that names itself, never a bare exit 1.  Sourcing
# this file under 'set -E' calls trap_unexpected_errors (see its end).
on_unexpected_error() {
	local rc=$1 line=$2 cmd=$3 where
	trap - ERR
	# exit 3 comes from below (a subshell, series.py, ...) that said why
	[ "$rc" -ne "$EXIT_INFRA" ] || exit "$EXIT_INFRA"
	where=${FUNCNAME[*]:1}
	die_infra "$(basename "$0"): line $line${where:+ (in ${where// / < })}: '$cmd' failed (exit $rc)"
}
trap_unexpected_errors() {
	trap 'on_unexpected_error $? $LINENO "$BASH_COMMAND"' ERR
}

# Locks.  A prepared tree belongs to one run at a time: whoever builds or
# tests in it holds its lock from preparation to the last result, so two
# runs on one cache never see each other's series.  flock(2) locks go with
# the process: they end when it ends, however it ends.  A child of the
# holder (a runner started by the gate) finds the path in
# FUSEGATE_LOCKS_HELD and does not lock again.
#
#   lock_path FILE LABEL   lock FILE (created if needed), waiting and
#                          saying so if another run holds it
lock_path() {
	local file=$1 label=$2 fd start holder
	case " ${FUSEGATE_LOCKS_HELD:-} " in
	*" $file "*) return 0 ;;
	esac
	mkdir -p "$(dirname "$file")" || die_infra "cannot create $(dirname "$file")"
	exec {fd}>>"$file" || die_infra "cannot open the lock $file"
	if ! flock -n "$fd"; then
		holder=$(cat "$file.holder" 2>/dev/null || echo "another run")
		log "$label is in use by $holder: waiting for it"
		start=$(now)
		flock "$fd" || die_infra "could not lock $file"
		log "$label is ours after waiting $(( $(now) - start ))s"
	fi
	printf 'pid %s (%s) since %s\n' "$$" "$(basename "$0")" "$(date '+%F %T')" \
		> "$file.holder" 2>/dev/null || true
	export FUSEGATE_LOCKS_HELD="${FUSEGATE_LOCKS_HELD:-} $file"
}

# lock_tree NAME: the lock of the prepared tree NAME of the cache
tree_lock_file() { printf '%s/trees/%s.lock\n' "$FUSEGATE_CACHE" "$1"; }
lock_tree() { lock_path "$(tree_lock_file "$1")" "tree '$1'"; }

# Option parsing shared by the entry points.  Each take_* function looks at
# "$@", records what it knows in the caller's variables, sets TAKEN to
# the number of words used and succeeds; it fails (TAKEN=0) when the first
# word is not one of its options.  A parser's loop begins:
#   take_runner_option "$@" && { shift "$TAKEN"; continue; }
#
# take_tree_option: what a runner passes on to prepare-tree.sh (--series,
# --tree, --range, --version, --name, --no-series, --baseline) goes to
# prep_args; tree_name gets the name of the tree they prepare, and
# prepared the tree given with --prepared (one the caller prepared and
# holds the lock of: nothing is prepared again).
take_tree_option() {
	TAKEN=0
	case "$1" in
	--series|--tree|--range|--version)
		[ $# -ge 2 ] || die_usage "$1 needs a value"
		prep_args+=("$1" "$2"); TAKEN=2 ;;
	--name)
		[ $# -ge 2 ] || die_usage "$1 needs a value"
		prep_args+=("$1" "$2"); tree_name=$2; TAKEN=2 ;;
	--prepared)
		[ $# -ge 2 ] || die_usage "$1 needs a directory"
		prepared=$2; TAKEN=2 ;;
	--no-series) prep_args+=("$1"); TAKEN=1 ;;
	--baseline) prep_args+=("$1"); [ -n "${tree_name:-}" ] || tree_name=baseline; TAKEN=1 ;;
	esac
	[ "$TAKEN" -gt 0 ]
}

# acquire_tree: set $tree to the tree a runner works in, locked for the
# rest of the run (call it in the main shell, not in $(...): the lock goes
# with the process).  With --prepared, that tree as it is.
acquire_tree() {
	if [ -n "${prepared:-}" ]; then
		[ ${#prep_args[@]} -eq 0 ] ||
			die_usage "--prepared takes no other tree option (${prep_args[*]})"
		[ -d "$prepared/.git" ] && git -C "$prepared" rev-parse -q --verify \
			refs/tags/fusegate-base >/dev/null ||
			die_usage "--prepared $prepared is not a tree prepared by scripts/prepare-tree.sh"
		tree=$(cd "$prepared" && pwd)
		return 0
	fi
	lock_tree "${tree_name:-patched}"
	tree=$("$FUSEGATE_ROOT/scripts/prepare-tree.sh" "${prep_args[@]}") || exit $?
}

# take_build_option: --jobs N and --results DIR; sets jobs and results.
take_build_option() {
	TAKEN=0
	case "$1" in
	--jobs|--results)
		[ $# -ge 2 ] || die_usage "$1 needs a value"
		if [ "$1" = --jobs ]; then jobs=$2; else results=$2; fi
		TAKEN=2 ;;
	--jobs=*) jobs=${1#*=}; TAKEN=1 ;;
	--results=*) results=${1#*=}; TAKEN=1 ;;
	esac
	[ "$TAKEN" -gt 0 ]
}

# take_runner_option: what every guest runner takes: the tree's and the
# build's options above, --timeout SECONDS (timeout) and --kvm (kvm=1).
take_runner_option() {
	take_tree_option "$@" || take_build_option "$@" || case "$1" in
	--timeout) [ $# -ge 2 ] || die_usage "--timeout needs seconds"
		timeout=$2; TAKEN=2 ;;
	--timeout=*) timeout=${1#*=}; TAKEN=1 ;;
	--kvm) kvm=1; TAKEN=1 ;;
	esac
	[ "$TAKEN" -gt 0 ]
}

# take_tests_option: --tests series|ours (which_tests): the KUnit suites
# the tree carries, or those of kunit/ copied in.
take_tests_option() {
	TAKEN=0
	case "$1" in
	--tests) [ $# -ge 2 ] || die_usage "--tests needs 'series' or 'ours'"
		case "$2" in
		series|ours) which_tests=$2; TAKEN=2 ;;
		*) die_usage "--tests must be 'series' or 'ours': $2" ;;
		esac ;;
	esac
	[ "$TAKEN" -gt 0 ]
}

# runner_defaults TIMEOUT RESULTS: what take_runner_option sets, before
# it parses: no tree yet, all cores, TCG, a guest time limit of TIMEOUT
# seconds, results in results/RESULTS.
runner_defaults() {
	prep_args=()
	tree_name=
	prepared=
	jobs=$(nproc)
	kvm=0
	timeout=$1
	results="$FUSEGATE_ROOT/results/$2"
}

# runner_start: what a runner's main does first: an empty results
# directory (results becomes its absolute path) with INFRA_SUMMARY in it,
# then the tree acquired (locked, prepared) and entered with the build
# environment exported.  t_prep is the seconds that took.
runner_start() {
	local t0
	t0=$(now)
	mkdir -p "$results" || die_usage "cannot create $results"
	results=$(cd "$results" && pwd)
	rm -rf "${results:?}"/*
	INFRA_SUMMARY="$results/summary.json"
	acquire_tree
	export_build_env
	cd "$tree"
	t_prep=$(( $(now) - t0 ))
}

# check_runner_options: --jobs and --timeout are positive numbers.
check_runner_options() {
	[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die_usage "--jobs must be a positive number: $jobs"
	[[ "$timeout" =~ ^[1-9][0-9]*$ ]] ||
		die_usage "--timeout must be a positive number: $timeout"
}

# kunit_report_skipped DIR WHY: the results of a tree without our KUnit
# suites: each suite of kunit/ reported SKIP, in DIR (kunit.ktap,
# summary.json, junit.xml)
kunit_report_skipped() {
	local dir=$1 why=$2 ktap="$1/kunit.ktap" suites i
	mapfile -t suites < <(grep -ho '\.name = "fuse_[a-z_]*"' "$FUSEGATE_ROOT"/kunit/*.c | cut -d'"' -f2)
	{
		echo "KTAP version 1"
		echo "1..${#suites[@]}"
		for i in "${!suites[@]}"; do
			echo "    KTAP version 1"
			echo "    # Subtest: ${suites[$i]}"
			echo "    1..1"
			echo "    ok 1 (all cases) # SKIP $why"
			echo "ok $((i + 1)) ${suites[$i]} # SKIP $why"
		done
	} > "$ktap"
	python3 "$FUSEGATE_ROOT/scripts/ktap_report.py" "$ktap" --title KUnit \
		--suite kunit --json "$dir/summary.json" --junit "$dir/junit.xml"
}

# A script that runs under 'set -E' (errtrace) wants its unexpected failures
# named: the entry points do; .ci/run and export-series.sh keep bash's own.
[[ :$SHELLOPTS: != *:errtrace:* ]] || trap_unexpected_errors
