#!/usr/bin/env bash
# Run the FUSE compound selftests in a QEMU guest booted on the prepared tree.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/scripts/lib.sh"
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

Options:
  --series PATH     patch series to apply (default: kernel-patches/)
  --tree DIR        start from this kernel tree instead of the tarball
  --no-series       use the tree as it is (with --tree)
  --baseline        the unpatched tree: compound tests must report SKIP
  --name NAME       name of the prepared tree in the cache
  -f, --fixture F   run only fixture F (kselftest harness filter; repeatable)
  -t, --test T      run only test T (repeatable)
  -v, --variant V   run only variant V (repeatable)
  --jobs N          parallel build jobs (default: nproc)
  --timeout SECONDS hard limit for the guest (default: 900)
  --kvm             use KVM when it boots the guest; TCG otherwise
  --results DIR     where to write results (default: results/selftests)
  -h, --help        show this help

Results: selftests.ktap, console.log, summary.json, junit.xml, build.log.

Exit status: 0 all tests passed (SKIPs allowed), 1 a test failed or the
kernel printed a splat, 2 usage error, 3 infrastructure error (tree, build,
no boot, no TAP, plan/count mismatch, guest time limit).
EOF
}

prep_args=()
test_args=()
jobs=$(nproc)
timeout=900
kvm=0
baseline=0
results="$FUSEGATE_ROOT/results/selftests"

while [ $# -gt 0 ]; do
	take_tree_option "$@"
	[ "$TAKEN" -eq 0 ] || { shift "$TAKEN"; continue; }
	take_build_option "$@"
	[ "$TAKEN" -eq 0 ] || { shift "$TAKEN"; continue; }
	case "$1" in
	-f|--fixture|-t|--test|-v|--variant)
		[ $# -ge 2 ] || die_usage "$1 needs a name"
		[[ "$2" =~ ^[A-Za-z0-9_]+$ ]] || die_usage "bad name for $1: $2"
		test_args+=("-${1#-}" "$2"); shift 2 ;;
	--timeout) [ $# -ge 2 ] || die_usage "--timeout needs seconds"; timeout=$2; shift 2 ;;
	--timeout=*) timeout=${1#*=}; shift ;;
	--kvm) kvm=1; shift ;;
	-h|--help) usage; exit 0 ;;
	*) die_usage "unknown argument: $1" ;;
	esac
done
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die_usage "--jobs must be a positive number: $jobs"
[[ "$timeout" =~ ^[1-9][0-9]*$ ]] || die_usage "--timeout must be a positive number: $timeout"
# the harness takes -f/-t/-v with one dash and a short name
for i in "${!test_args[@]}"; do
	case "${test_args[$i]}" in
	--fixture) test_args[$i]=-f ;; --test) test_args[$i]=-t ;; --variant) test_args[$i]=-v ;;
	esac
done

GUEST_BUILD_DIR=build-guest
SELFTEST_DIR=tools/testing/selftests/filesystems/fuse_compound

# The tests, laid out as a kselftest target in the tree, built static
build_tests() {
	local out=$1
	rm -rf "$SELFTEST_DIR"
	mkdir -p "$SELFTEST_DIR/servers"
	cp "$FUSEGATE_ROOT"/selftests/filesystems/fuse_compound/{Makefile,settings,config,*.c} "$SELFTEST_DIR/"
	cp "$FUSEGATE_ROOT"/servers/*.[ch] "$SELFTEST_DIR/servers/"
	log "building the selftests and servers (static)"
	gcc -Wall -O2 -g -static -I"$SELFTEST_DIR/servers" -o "$out/fuse_compound_test" \
		"$SELFTEST_DIR/fuse_compound_test.c" "$SELFTEST_DIR/servers/core.c" \
		"$SELFTEST_DIR/servers/behaviours.c" >> "$results/build.log" 2>&1 ||
		die_infra "the selftests did not build (see $results/build.log)"
	# the real-world peer: libfuse 3.14's example, compiled here, never committed
	local example=/usr/share/doc/libfuse3-dev/examples/passthrough_ll.c
	[ -f "$example" ] || die_infra "$example is missing (package libfuse3-dev)"
	# shellcheck disable=SC2046
	gcc -Wall -O2 -static -o "$out/passthrough_ll" "$example" \
		$(pkg-config --cflags --libs --static fuse3) >> "$results/build.log" 2>&1 ||
		die_infra "passthrough_ll did not build (see $results/build.log)"
}

write_guest_env() {
	local root=$1 expect=$2
	mkdir -p "$root/etc"
	{
		echo "export FUSEGATE_EXPECT_COMPOUND=$expect"
		echo "export FUSEGATE_PASSTHROUGH_LL=/tests/passthrough_ll"
		printf 'FUSEGATE_GUEST_CMD="/tests/fuse_compound_test %s"\n' "${test_args[*]:-}"
	} > "$root/etc/fusegate.env"
}

main() {
	local t0 t_prep t_build t_run tree expect rc=0 stage
	t0=$(now)
	mkdir -p "$results" || die_usage "cannot create $results"
	rm -rf "${results:?}"/*

	tree=$("$FUSEGATE_ROOT/scripts/prepare-tree.sh" "${prep_args[@]}") || exit $?
	t_prep=$(( $(now) - t0 ))
	export_build_env
	cd "$tree"
	# a tree that declares FUSE_COMPOUND must send compounds
	if [ "$baseline" -eq 0 ] && grep -q 'FUSE_COMPOUND' include/uapi/linux/fuse.h; then
		expect=1
	else
		expect=0
	fi

	t0=$(now)
	stage="$GUEST_BUILD_DIR/fusegate"
	rm -rf "$stage"
	mkdir -p "$stage/root/tests"
	guest_build_kernel "$GUEST_BUILD_DIR" "$FUSEGATE_ROOT/selftests/guest/guest.config" \
		"$results/build.log" "$jobs"
	build_tests "$stage/root/tests"
	write_guest_env "$stage/root" "$expect"
	guest_initramfs "$stage/root" "$stage/initramfs.cpio"
	t_build=$(( $(now) - t0 ))

	t0=$(now)
	GUEST_KVM=$kvm
	guest_boot "$GUEST_BUILD_DIR/arch/x86/boot/bzImage" "$stage/initramfs.cpio" \
		"$results/console.log" "$results/selftests.ktap" "$timeout" || rc=$?
	t_run=$(( $(now) - t0 ))
	log "times: prepare ${t_prep}s, build ${t_build}s, guest ${t_run}s; results in $results"

	grep -q FUSEGATE-BOOT-OK "$results/console.log" ||
		die_infra "the guest did not boot (see $results/console.log)"
	local cut_short=()
	if [ "$rc" -ne 0 ] || ! grep -q FUSEGATE-TESTS-DONE "$results/console.log"; then
		tail -20 "$results/console.log" >&2
		# a kernel that crashed under the tests is a failure, not infrastructure
		log "the guest did not finish the tests (limit ${timeout}s)"
		cut_short=(--cut-short-by-crash)
	fi
	sed -i '/^FUSEGATE-TESTS-DONE/d' "$results/selftests.ktap"

	set +e
	python3 "$FUSEGATE_ROOT/scripts/ktap_report.py" "$results/selftests.ktap" \
		--title "selftests ($([ "$expect" = 1 ] && echo patched || echo "no FUSE_COMPOUND"))" \
		--suite fuse_compound --console "$results/console.log" \
		--json "$results/summary.json" --junit "$results/junit.xml" "${cut_short[@]}"
	rc=$?
	set -e
	exit "$rc"
}

main
