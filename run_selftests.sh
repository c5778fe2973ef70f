#!/usr/bin/env bash
# Run the FUSE selftests (and, with --with-kunit, the tree's KUnit suites)
# in a QEMU guest booted on the prepared tree.
set -Eeuo pipefail
# shellcheck source=scripts/guest.sh
source "$(dirname "$0")/scripts/guest.sh"

usage() {
	cat <<EOF
Usage: $(basename "$0") [OPTIONS]

Prepare the kernel tree (scripts/prepare-tree.sh), build a guest kernel
from selftests/guest/guest.config (kunit.py's x86_64 QEMU config plus FUSE,
devtmpfs, tmpfs, initramfs, KASAN, lockdep, DEBUG_LIST), build the test
servers and the kselftest-harness tests as static binaries, pack them with
busybox into an initramfs, boot QEMU (TCG) under a hard time limit, and
read the TAP the tests write to the guest's second serial port.  The whole
console is scanned for WARN/BUG/Oops/KASAN/lockdep reports.

With --with-kunit the same guest kernel also carries the tree's FUSE KUnit
suites (CONFIG_FUSE_KUNIT_TEST, when the tree has it): they run while the
kernel boots, before the selftests, and their KTAP is read from the
console with kunit.py's parser.  One kernel, one boot, both suites.

Options:
  --series PATH     patch series to apply (default: kernel-patches/)
  --version N       version N of a series posted several times
  --tree DIR        start from this kernel tree instead of the tarball
  --range B..H      with --tree DIR (a git repository): base B, series B..H
  --no-series       use the tree as it is (with --tree)
  --baseline        the unpatched tree (tree 'baseline')
  --name NAME       name of the prepared tree in the cache
  --prepared DIR    a tree the caller prepared and holds the lock of
                    (scripts/prepare-tree.sh): used as it is
  --with-kunit      also run the tree's KUnit suites in the same boot
  --tests WHICH     with --with-kunit: 'series' (default: the suites the
                    tree carries in fs/fuse/tests/) or 'ours' (kunit/ of
                    this repository, copied into the tree)
  --seed-build DIR  before the first build in this tree, start from the
                    guest build of DIR, a tree of the same base (only what
                    differs is compiled again)
  --only PROG       only this selftest program (e.g. fuse_reply_rules_test;
                    repeatable)
  -f, --fixture F   run only fixture F (kselftest harness filter; repeatable)
  -t, --test T      run only test T (repeatable)
  -v, --variant V   run only variant V (repeatable)
  --jobs N          parallel build jobs (default: nproc)
  --timeout SECONDS hard limit for the guest (default: 1800)
  --kvm             use KVM when it boots the guest; TCG otherwise
  --results DIR     where to write results (default: results/selftests)
  -h, --help        show this help

Results: selftests.ktap, console.log, summary.json, junit.xml, build.log;
with --with-kunit also kunit/ (kunit.ktap, summary.json, junit.xml).

Exit status: 0 all tests passed (SKIPs allowed), 1 a test failed or the
kernel printed a splat, 2 usage error, 3 infrastructure error (tree, build,
no boot, no TAP, plan/count mismatch, guest time limit).
EOF
}

runner_defaults 1800 selftests
test_args=()
only=()
with_kunit=0
seed_tree=
which_tests=series

while [ $# -gt 0 ]; do
	take_runner_option "$@" && { shift "$TAKEN"; continue; }
	take_tests_option "$@" && { shift "$TAKEN"; continue; }
	case "$1" in
	-f|--fixture|-t|--test|-v|--variant)
		[ $# -ge 2 ] || die_usage "$1 needs a name"
		[[ "$2" =~ ^[A-Za-z0-9_]+$ ]] || die_usage "bad name for $1: $2"
		test_args+=("-${1#-}" "$2"); shift 2 ;;
	--with-kunit) with_kunit=1; shift ;;
	--only) [ $# -ge 2 ] || die_usage "--only needs a program name"
		[ -f "$FUSEGATE_ROOT/selftests/filesystems/fuse_compound/$2.c" ] ||
			[ -f "$FUSEGATE_ROOT/selftests/filesystems/fuse_compound/$2.sh" ] ||
			die_usage "--only $2: no selftests/filesystems/fuse_compound/$2.c"
		only+=("$2"); shift 2 ;;
	--seed-build) [ $# -ge 2 ] || die_usage "--seed-build needs a directory"
		seed_tree=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) die_usage "unknown argument: $1" ;;
	esac
done
check_runner_options
[ -z "$seed_tree" ] || [ -d "$seed_tree/.git" ] ||
	die_usage "--seed-build $seed_tree is not a prepared tree"
# the harness takes -f/-t/-v with one dash and a short name
for i in "${!test_args[@]}"; do
	case "${test_args[$i]}" in
	--fixture) test_args[$i]=-f ;; --test) test_args[$i]=-t ;; --variant) test_args[$i]=-v ;;
	esac
done

GUEST_BUILD_DIR=build-guest
SELFTEST_DIR=tools/testing/selftests/filesystems/fuse_compound

# The tests, laid out as a kselftest target in the tree and built with its
# Makefile (static programs, one per concern), and the guest's test driver.
# Sources are copied only where they changed and the programs are kept in
# the build directory, so that make rebuilds only what changed.
build_tests() {
	local out=$1 bin="$tree/$GUEST_BUILD_DIR/fusegate-tests"
	log "building the selftests and servers (kselftest Makefile, static)"
	guest_build_programs "$SELFTEST_DIR" "$bin" "$results/build.log"
	local src prog
	for src in "$SELFTEST_DIR"/*_test.c; do
		prog=$(basename "$src" .c)
		if [ ${#only[@]} -eq 0 ] || in_list "$prog" "${only[@]}"; then
			cp "$bin/$prog" "$out/"
		fi
	done
	cp "$FUSEGATE_ROOT/selftests/guest/run-tests" "$out/run-tests"
	if [ ${#only[@]} -eq 0 ] || in_list fuse_real_servers_test "${only[@]}"; then
		guest_real_servers "$bin" "$out" "$results/build.log"
	fi
	# the real-world peer: libfuse 3.14's example, compiled here, never committed
	local example=/usr/share/doc/libfuse3-dev/examples/passthrough_ll.c
	[ -f "$example" ] || die_infra "$example is missing (package libfuse3-dev)"
	if ! [ "$bin/passthrough_ll" -nt "$example" ]; then
		# shellcheck disable=SC2046
		gcc -Wall -O2 -static -o "$bin/passthrough_ll" "$example" \
			$(pkg-config --cflags --libs --static fuse3) >> "$results/build.log" 2>&1 ||
			die_infra "passthrough_ll did not build (see $results/build.log)"
	fi
	cp "$bin/passthrough_ll" "$out/"
}

write_guest_env() {
	local root=$1 expect=$2 handles=$3
	mkdir -p "$root/etc"
	{
		echo "export FUSEGATE_EXPECT_COMPOUND=$expect"
		echo "export FUSEGATE_EXPECT_HANDLES=$handles"
		echo "export FUSEGATE_PASSTHROUGH_LL=/tests/passthrough_ll"
		# which real servers fuse_real_servers_test runs: quick (the
		# default), all, 0 (none: the gate's fixtures that are not
		# about them, for time) or their names
		echo "export FUSEGATE_REAL_SERVERS=${FUSEGATE_REAL_SERVERS:-quick}"
		# 1: the real servers are only probed (fuse_real_probe), not run
		echo "export FUSEGATE_REAL_PROBE=${FUSEGATE_REAL_PROBE:-0}"
		printf 'FUSEGATE_GUEST_CMD="/tests/run-tests %s"\n' "${test_args[*]:-}"
	} > "$root/etc/fusegate.env"
}

# Split the console at the line /init prints once the kernel has booted:
# the KUnit suites ran before it, the selftests after it (the line itself,
# with the boot's time, goes to both).
split_console() {
	local console=$1
	awk -v pre="$results/console-boot.log" -v post="$results/console-tests.log" '
		done == 0 { print > pre } done == 1 { print > post }
		/FUSEGATE-BOOT-OK/ { done = 1; print > post }' "$console"
	touch "$results/console-boot.log" "$results/console-tests.log"
}

# The KUnit results of this boot, through kunit.py's parser
kunit_results() {
	local dir="$results/kunit" booted=$1 rc=0 args=()
	mkdir -p "$dir"
	if [ "$kunit_mode" = skip ]; then
		kunit_report_skipped "$dir" "no FUSE KUnit suites in this tree (no FUSE_KUNIT_TEST)"
		return 0
	fi
	python3 tools/testing/kunit/kunit.py parse --raw_output=kunit \
		"$results/console-boot.log" > "$dir/kunit.ktap" 2>/dev/null || true
	[ "$booted" -eq 1 ] || args=(--cut-short-by-crash)
	python3 "$FUSEGATE_ROOT/scripts/ktap_report.py" "$dir/kunit.ktap" \
		--title "KUnit in the guest" --console "$results/console-boot.log" \
		--times-from console \
		"${EXPECT_WARN_ARGS[@]}" \
		--json "$dir/summary.json" --junit "$dir/junit.xml" "${args[@]}" || rc=$?
	return "$rc"
}

main() {
	local t0 t_prep t_build t_run expect handles rc=0 stage booted=1 krc=0 src=0
	runner_start
	# a tree that declares FUSE_COMPOUND must send compounds, and one that
	# declares FUSE_HAS_LOOKUP_HANDLE must use handles
	expect=0
	handles=0
	! grep -q 'FUSE_COMPOUND' include/uapi/linux/fuse.h || expect=1
	! grep -q 'FUSE_HAS_LOOKUP_HANDLE' include/uapi/linux/fuse.h || handles=1
	kunit_mode=none
	if [ "$with_kunit" -eq 1 ]; then
		kunit_mode=skip
		if [ "$which_tests" = ours ] && tree_has_kunit_hook; then
			mkdir -p fs/fuse/tests
			rsync -rc --delete "$FUSEGATE_ROOT/kunit/" fs/fuse/tests/
		elif [ "$which_tests" = ours ]; then
			log "--tests ours: this tree has no FUSE_KUNIT_TEST hook to build them with: KUnit skipped"
		fi
		! tree_has_kunit_hook || kunit_mode=run
	fi

	t0=$(now)
	stage="$GUEST_BUILD_DIR/fusegate"
	[ -z "$seed_tree" ] || guest_seed_build "$GUEST_BUILD_DIR" "$seed_tree"
	mkdir -p "$GUEST_BUILD_DIR"
	guest_write_config "$GUEST_BUILD_DIR/fusegate.config" "$([ "$kunit_mode" = run ] && echo 1 || echo 0)"
	guest_build_kernel "$GUEST_BUILD_DIR" "$GUEST_BUILD_DIR/fusegate.config" \
		"$results/build.log" "$jobs"
	rm -rf "$stage"
	mkdir -p "$stage/root/tests"
	build_tests "$tree/$stage/root/tests"
	# the real servers' request counts: kprobe events at this kernel's own
	# offsets of struct fuse_req (nothing of the tree is patched)
	log "request probes: $(python3 "$FUSEGATE_ROOT/scripts/request_probes.py" \
		"$GUEST_BUILD_DIR" "$stage/root/tests/fuse_request_probes")"
	write_guest_env "$stage/root" "$expect" "$handles"
	guest_initramfs "$stage/root" "$stage/initramfs.cpio"
	t_build=$(( $(now) - t0 ))
	# the build is over: what the gate waits for before it builds the next
	# tree beside this guest
	: > "$results/built"

	t0=$(now)
	GUEST_KVM=$kvm
	GUEST_KUNIT=0
	[ "$kunit_mode" != run ] || GUEST_KUNIT=1
	guest_boot "$GUEST_BUILD_DIR/arch/x86/boot/bzImage" "$stage/initramfs.cpio" \
		"$results/console.log" "$results/selftests.ktap" "$timeout" || rc=$?
	t_run=$(( $(now) - t0 ))
	log "times: prepare ${t_prep}s, build ${t_build}s, guest ${t_run}s; results in $results"
	split_console "$results/console.log"

	grep -q FUSEGATE-BOOT-OK "$results/console.log" || booted=0
	if [ "$kunit_mode" != none ]; then
		kunit_results "$booted" || krc=$?
	fi
	if [ "$booted" -eq 0 ]; then
		tail -20 "$results/console.log" >&2
		# the KUnit suites crashed the kernel while it booted: their failure
		if [ "$krc" -eq 1 ]; then
			log "the kernel crashed during the KUnit suites: the selftests did not run"
			python3 "$FUSEGATE_ROOT/scripts/ktap_report.py" "$results/selftests.ktap" \
				--title "selftests (not run: the kernel crashed while booting)" \
				--suite selftests --console "$results/console-boot.log" \
				"${EXPECT_WARN_ARGS[@]}" \
				--json "$results/summary.json" --junit "$results/junit.xml" \
				--cut-short-by-crash || true
			exit "$EXIT_FAIL"
		fi
		die_infra "the guest did not boot (see $results/console.log)"
	fi
	local cut_short=()
	if [ "$rc" -ne 0 ] || ! grep -q FUSEGATE-TESTS-DONE "$results/console.log"; then
		tail -20 "$results/console.log" >&2
		# a kernel that crashed under the tests is a failure, not infrastructure
		log "the guest did not finish the tests (limit ${timeout}s)"
		cut_short=(--cut-short-by-crash)
	fi
	sed -i '/^FUSEGATE-TESTS-DONE/d' "$results/selftests.ktap"

	# a guest stopped after its results because it did not power off
	local stopped=()
	[ ! -e "$results/console.log.stopped" ] ||
		stopped=(--guest-stopped "$(cat "$results/console.log.stopped")")
	python3 "$FUSEGATE_ROOT/scripts/ktap_report.py" "$results/selftests.ktap" \
		--title "selftests ($([ "$expect" = 1 ] && echo "with FUSE_COMPOUND" || echo "no FUSE_COMPOUND"))" \
		--suite selftests --console "$results/console-tests.log" \
		--guest-seconds "$t_run" "${stopped[@]}" \
		--json "$results/summary.json" --junit "$results/junit.xml" "${cut_short[@]}" ||
		src=$?
	# the requests each real server got, by opcode (fuse_real_servers_test)
	python3 "$FUSEGATE_ROOT/scripts/request_counts.py" extract "$results/selftests.ktap" \
		"$results/requests.json"
	# the worse of the two: infrastructure, then failure
	if [ "$src" -eq "$EXIT_INFRA" ] || [ "$krc" -eq "$EXIT_INFRA" ]; then
		exit "$EXIT_INFRA"
	fi
	[ "$src" -eq 0 ] && [ "$krc" -eq 0 ] || exit "$EXIT_FAIL"
	exit "$EXIT_PASS"
}

main
