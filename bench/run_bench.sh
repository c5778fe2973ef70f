#!/usr/bin/env bash
# The compound benchmark: the patched and the stock 6.12 kernel side by side.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/../scripts/lib.sh"
# shellcheck source=scripts/guest.sh
source "$FUSEGATE_ROOT/scripts/guest.sh"

usage() {
	cat <<EOF
Usage: $(basename "$0") [OPTIONS]

Measure what compounds save and cost.  Builds a guest kernel from
bench/bench.config (no bug detectors) for the patched tree (the series
applied) and for the stock tree (none), boots each once under QEMU, and
runs bench/fuse_bench there: every workload x service delay x writeback
cache setting, against the servers of servers/ answering compounds
(compound), refusing them with ENOSYS (enosys) or EOPNOTSUPP (eopnotsupp),
and the same with file handles negotiated (handles, handles_enosys); on
the stock kernel the same compliant server (stock).

Round trips and server operations per operation are exact (the server's
log); latency is the median and the 10th-90th percentile of every
operation over --runs runs of --count operations.

Options:
  --series PATH      patch series of the patched kernel (default: kernel-patches/)
  --kernels LIST     patched,stock (default), or one of them
  --delays LIST      server service delays in microseconds (default: 0,100,1000)
  --writeback LIST   0 (off), 1 (on) or 0,1 (default)
  --workloads LIST   substrings of workload names (default: all)
  --count N          operations per run (default: 40)
  --runs N           runs per cell (default: 5)
  --jobs N           parallel build jobs (default: nproc)
  --timeout SECONDS  limit for each guest (default: 2400)
  --kvm              use KVM when it boots the guest; TCG otherwise
  --results DIR      where to write results (default: results/bench)
  -h, --help         show this help

Results: table.txt (printed at the end), bench.json, latency.png, and the
raw per-cell records <kernel>.jsonl, console and build logs.

Exit status: 0 measured, 2 usage error, 3 infrastructure error (tree,
build, guest did not finish).  The benchmark asserts nothing.
EOF
}

series="$FUSEGATE_ROOT/kernel-patches"
kernels=patched,stock
delays=0,100,1000
writeback=0,1
workloads=
count=40
runs=5
jobs=$(nproc)
timeout=2400
GUEST_KVM=0
# the benchmark needs no real server: no host share, qboot as before
GUEST_HOST_SHARE=0
results="$FUSEGATE_ROOT/results/bench"

need_value() { [ "$2" -ge 2 ] || die_usage "$1 needs a value"; }
while [ $# -gt 0 ]; do
	case "$1" in
	--series) need_value "$1" $#; series=$2; shift 2 ;;
	--kernels) need_value "$1" $#; kernels=$2; shift 2 ;;
	--delays) need_value "$1" $#; delays=$2; shift 2 ;;
	--writeback) need_value "$1" $#; writeback=$2; shift 2 ;;
	--workloads) need_value "$1" $#; workloads=$2; shift 2 ;;
	--count) need_value "$1" $#; count=$2; shift 2 ;;
	--runs) need_value "$1" $#; runs=$2; shift 2 ;;
	--jobs) need_value "$1" $#; jobs=$2; shift 2 ;;
	--timeout) need_value "$1" $#; timeout=$2; shift 2 ;;
	--results) need_value "$1" $#; results=$2; shift 2 ;;
	--kvm) GUEST_KVM=1; shift ;;
	-h|--help) usage; exit 0 ;;
	*) die_usage "unknown argument: $1" ;;
	esac
done
[[ "$kernels" =~ ^(patched|stock)(,(patched|stock))?$ ]] || die_usage "--kernels: patched, stock or both: $kernels"
[[ "$delays" =~ ^[0-9]+(,[0-9]+){0,7}$ ]] || die_usage "--delays: up to 8 numbers, comma separated: $delays"
[[ "$writeback" =~ ^[01](,[01])?$ ]] || die_usage "--writeback: 0, 1 or 0,1: $writeback"
[[ -z "$workloads" || "$workloads" =~ ^[a-z_,]+$ ]] || die_usage "bad --workloads: $workloads"
for n in "$count" "$runs" "$jobs" "$timeout"; do
	[[ "$n" =~ ^[1-9][0-9]*$ ]] || die_usage "not a positive number: $n"
done
[ "$runs" -le 1000 ] || die_usage "--runs is at most 1000"
[ -e "$series" ] || die_usage "no such series: $series"
series=$(cd "$(dirname "$series")" && pwd)/$(basename "$series")

BENCH_BUILD_DIR=build-bench

# bench_kernel NAME TREE PREPARE-ARGS...: build, boot, collect NAME.jsonl
bench_kernel() {
	local name=$1 tree_name=$2 tree modes stage out t0
	shift 2
	t0=$(now)
	lock_tree "$tree_name"
	tree=$("$FUSEGATE_ROOT/scripts/prepare-tree.sh" --name "$tree_name" "$@") || exit $?
	modes=compound,enosys,eopnotsupp,handles,handles_enosys
	[ "$name" = stock ] && modes=stock
	(
		cd "$tree"
		if [ "$name" = patched ] && ! grep -q FUSE_COMPOUND include/uapi/linux/fuse.h; then
			die_usage "the series $series does not add FUSE_COMPOUND"
		fi
		guest_build_kernel "$BENCH_BUILD_DIR" "$FUSEGATE_ROOT/bench/bench.config" \
			"$results/build-$name.log" "$jobs"
		# absolute: the programs are built by make -C elsewhere
		stage="$PWD/$BENCH_BUILD_DIR/fusegate"
		rm -rf "$stage"
		mkdir -p "$stage/root/tests" "$stage/root/etc"
		guest_build_programs tools/testing/selftests/filesystems/fuse_compound \
			"$stage/root/tests" "$results/build-$name.log" "$stage/root/tests/fuse_bench"
		printf 'FUSEGATE_GUEST_CMD="/tests/fuse_bench --modes %s --delays %s --writeback %s --count %s --runs %s%s"\n' \
			"$modes" "$delays" "$writeback" "$count" "$runs" \
			"${workloads:+ --workloads $workloads}" > "$stage/root/etc/fusegate.env"
		guest_initramfs "$stage/root" "$stage/initramfs.cpio"
		out="$results/$name.out"
		local rc=0
		guest_boot "$BENCH_BUILD_DIR/arch/x86/boot/bzImage" "$stage/initramfs.cpio" \
			"$results/console-$name.log" "$out" "$timeout" || rc=$?
		grep -q FUSEGATE-BOOT-OK "$results/console-$name.log" ||
			die_infra "the $name guest did not boot (see $results/console-$name.log)"
		if [ "$rc" -ne 0 ] || ! grep -q '^BENCH-DONE' "$out"; then
			tail -5 "$out" >&2
			die_infra "the $name benchmark did not finish (limit ${timeout}s; see $out)"
		fi
		sed -n 's/^BENCH //p' "$out" > "$results/$name.jsonl"
	)
	log "$name: $(wc -l < "$results/$name.jsonl") cells in $(( $(now) - t0 ))s"
}

main() {
	mkdir -p "$results" || die_usage "cannot create $results"
	results=$(cd "$results" && pwd)
	rm -rf "${results:?}"/*
	ensure_packages python3-matplotlib
	export_build_env
	local inputs=()
	if [[ ",$kernels," == *,patched,* ]]; then
		bench_kernel patched patched --series "$series"
		inputs+=("$results/patched.jsonl")
	fi
	if [[ ",$kernels," == *,stock,* ]]; then
		bench_kernel stock baseline --baseline
		inputs+=("$results/stock.jsonl")
	fi
	python3 "$FUSEGATE_ROOT/bench/report.py" --json "$results/bench.json" \
		--png "$results/latency.png" --table "$results/table.txt" "${inputs[@]}" ||
		die_infra "the report could not be written"
	cat "$results/table.txt"
	log "results in $results"
}

main
