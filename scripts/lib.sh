# shellcheck shell=bash
# Shared helpers of the fusegate scripts.  Source it; it defines functions
# and the exit codes, and sets nothing else.
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

die_infra() {
	printf 'INFRA ERROR: %s\n' "$*" >&2
	exit "$EXIT_INFRA"
}

# Packages every runner needs on a Debian 12 machine
FUSEGATE_PACKAGES=(
	linux-source-6.12 build-essential bc bison flex libelf-dev libssl-dev
	xz-utils cpio rsync ccache sparse python3 python3-ply python3-git
	qemu-system-x86 busybox-static libfuse3-dev pkg-config git kmod
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

# Option parsing shared by the entry points.  Each take_* function looks at
# "$@", records what it knows in the caller's variables and sets TAKEN to
# the number of words used (0: not one of its options).
#
# take_tree_option: what a runner passes on to prepare-tree.sh
# (--series, --tree, --name, --no-series, --baseline); appends to prep_args,
# and sets baseline=1 for --baseline.
take_tree_option() {
	TAKEN=0
	case "$1" in
	--series|--tree|--name)
		[ $# -ge 2 ] || die_usage "$1 needs a value"
		prep_args+=("$1" "$2"); TAKEN=2 ;;
	--series=*|--tree=*|--name=*|--no-series) prep_args+=("$1"); TAKEN=1 ;;
	--baseline) prep_args+=("$1"); baseline=1; TAKEN=1 ;;
	esac
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
}
