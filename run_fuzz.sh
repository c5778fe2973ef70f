#!/usr/bin/env bash
# The reply fuzzer: fuzz/fuse_fuzz.c in a QEMU guest booted on the
# prepared tree, the console scanned for the kernel's splats.
set -Eeuo pipefail
# shellcheck source=scripts/guest.sh
source "$(dirname "$0")/scripts/guest.sh"

usage() {
	cat <<EOF
Usage: $(basename "$0") [OPTIONS]

Run fuzz/fuse_fuzz in a QEMU guest: a FUSE server that mutates its
replies (plain and compound) deterministically from a seed while a client
drives every path that asks for them.  The kernel is the one the
selftests use (KASAN, lockdep, kmemleak; the same build), from the tree
scripts/prepare-tree.sh prepares.  The console is scanned for
WARN/BUG/Oops/KASAN/lockdep reports; a splat is placed at the reply it
followed, and the command that replays the run up to it is printed.

Options:
  --replies N       stop after N replies (default: 1000000)
  --seed S          the seed (default: 1)
  --rate PERCENT    how many replies are mutated (default: 50)
  --procs P         fuzzers side by side, each with its own mount, seeds
                    S, S+1, ... (default: 2, the guest's CPUs)
  --replay S:N      run seed S up to reply N again, one fuzzer (what a
                    splat report names)
  --series PATH, --version N, --tree DIR, --range B..H, --no-series,
  --baseline, --name NAME, --prepared DIR
                    the tree, as for run_selftests.sh (default: our series)
  --jobs N          parallel build jobs (default: nproc)
  --timeout SECONDS hard limit for the guest (default: 1800)
  --kvm             use KVM when it boots the guest; TCG otherwise
  --results DIR     where to write results (default: results/fuzz)
  -h, --help        show this help

The guest boots with kmemleak on: after the run, objects allocated through
FUSE and left unreferenced count as leaks.

Results: fuzz.out (the fuzzer's output), console.log, summary.json,
build.log.  Last line: "fuzz: N replies, M mutated, S splats, L leaks".

Exit status: 0 the run ended with no splat and no leak, 1 a splat or a
leak (or the guest hung or crashed under the fuzzer), 2 usage error, 3
infrastructure error (tree, build, no boot, the fuzzer never started).
EOF
}

replies=1000000
seed=1
rate=50
procs=2
runner_defaults 1800 fuzz

while [ $# -gt 0 ]; do
	take_runner_option "$@" && { shift "$TAKEN"; continue; }
	case "$1" in
	--replies|--seed|--rate|--procs|--replay)
		[ $# -ge 2 ] || die_usage "$1 needs a value"
		case "$1" in
		--replies) replies=$2 ;;
		--seed) seed=$2 ;;
		--rate) rate=$2 ;;
		--procs) procs=$2 ;;
		--replay)
			[[ "$2" =~ ^([0-9]+):([0-9]+)$ ]] ||
				die_usage "--replay takes SEED:REPLY (as a splat report names it): $2"
			seed=${BASH_REMATCH[1]}; replies=$((BASH_REMATCH[2] + 1)); procs=1 ;;
		esac
		shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) die_usage "unknown argument: $1" ;;
	esac
done
[[ "$replies" =~ ^[1-9][0-9]*$ ]] || die_usage "--replies must be a positive number: $replies"
[[ "$seed" =~ ^[0-9]+$ ]] || die_usage "--seed must be a number: $seed"
[[ "$rate" =~ ^[0-9]+$ ]] && [ "$rate" -le 100 ] || die_usage "--rate must be 0-100: $rate"
[[ "$procs" =~ ^[1-9][0-9]*$ ]] && [ "$procs" -le 64 ] || die_usage "--procs must be 1-64: $procs"
check_runner_options

GUEST_BUILD_DIR=build-guest
SELFTEST_DIR=tools/testing/selftests/filesystems/fuse_compound

main() {
	local t0 t_prep rc=0 stage kunit=0
	runner_start
	t0=$(now)
	# the kernel the gate builds for this tree: one build for both
	! tree_has_kunit_hook || kunit=1
	stage="$GUEST_BUILD_DIR/fuzz"
	mkdir -p "$GUEST_BUILD_DIR"
	guest_write_config "$GUEST_BUILD_DIR/fusegate.config" "$kunit"
	guest_build_kernel "$GUEST_BUILD_DIR" "$GUEST_BUILD_DIR/fusegate.config" \
		"$results/build.log" "$jobs"
	rm -rf "$stage"
	mkdir -p "$stage/root/tests" "$stage/root/etc"
	log "building the fuzzer (kselftest Makefile, static)"
	guest_build_programs "$SELFTEST_DIR" "$tree/$GUEST_BUILD_DIR/fusegate-tests" \
		"$results/build.log" "$tree/$GUEST_BUILD_DIR/fusegate-tests/fuse_fuzz"
	cp "$GUEST_BUILD_DIR/fusegate-tests/fuse_fuzz" "$stage/root/tests/"
	printf 'FUSEGATE_GUEST_CMD="/tests/fuse_fuzz --seed %s --replies %s --rate %s --procs %s"\n' \
		"$seed" "$replies" "$rate" "$procs" > "$stage/root/etc/fusegate.env"
	guest_initramfs "$stage/root" "$stage/initramfs.cpio"
	log "prepared in ${t_prep}s, built in $(( $(now) - t0 ))s; fuzzing: seed $seed, $replies replies, $procs fuzzer(s)"

	t0=$(now)
	GUEST_KVM=$kvm
	# the fuzzer needs no real server: no host share, qboot as before
	GUEST_HOST_SHARE=0
	GUEST_KUNIT=0	# the kernel's KUnit suites are the gate's business
	# no speculation mitigations: retpolines and RSB fills cost a quarter
	# of the fuzzer's rate under TCG, and a guest has no secret to keep
	GUEST_APPEND="mitigations=off"
	guest_boot "$GUEST_BUILD_DIR/arch/x86/boot/bzImage" "$stage/initramfs.cpio" \
		"$results/console.log" "$results/fuzz.out" "$timeout" || rc=$?
	log "guest exit $rc after $(( $(now) - t0 ))s; results in $results"
	grep -q FUSEGATE-BOOT-OK "$results/console.log" || {
		tail -20 "$results/console.log" >&2
		die_infra "the guest did not boot (see $results/console.log)"
	}
	local boot_rc=$rc
	rc=0
	python3 "$FUSEGATE_ROOT/scripts/fuzz_report.py" "$results" --seed "$seed" \
		--rate "$rate" --guest-exit "$boot_rc" || rc=$?
	exit "$rc"
}

main
