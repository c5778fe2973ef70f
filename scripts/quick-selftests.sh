#!/usr/bin/env bash
# Boot the selftests of this repository on a guest kernel that is already
# built: for writing tests, and for mutants built elsewhere.  No tree is
# prepared or locked, no kernel is built.
set -Eeuo pipefail
# shellcheck source=scripts/guest.sh
source "$(dirname "$0")/guest.sh"

usage() {
	cat <<EOF
Usage: $(basename "$0") --kernel BZIMAGE [OPTIONS]

Build the selftest programs of selftests/filesystems/fuse_compound/ with
their kselftest Makefile in a scratch layout (the kselftest headers of the
unpacked linux-source-6.12 in the cache), pack them into the initramfs and
boot BZIMAGE, a guest kernel built by run_selftests.sh (for instance
\$FUSEGATE_CACHE/trees/baseline/build-guest/arch/x86/boot/bzImage).  Prints
the results as run_selftests.sh does.

Options:
  --kernel BZIMAGE  the guest kernel to boot (required)
  --only PROG       only this program (e.g. fuse_stock_reply_test), for
                    speed; repeatable
  --with-kunit      the kernel's built-in KUnit suites run while it boots;
                    their results are read from the console first
  -f, --fixture F   run only fixture F (repeatable)
  -t, --test T      run only test T (repeatable)
  -v, --variant V   run only variant V (repeatable)
  --timeout SECONDS hard limit for the guest (default: 600)
  --results DIR     where to write results (default: a new directory under
                    \${TMPDIR:-/tmp}, printed at the end)
  -h, --help        show this help

Exit status: 0 pass, 1 a test failed or the kernel printed a splat,
2 usage error, 3 infrastructure error.
EOF
}

kernel=
only=()
test_args=()
timeout=600
results=
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) [ $# -ge 2 ] || die_usage "--kernel needs a file"; kernel=$2; shift 2 ;;
	--only) [ $# -ge 2 ] || die_usage "--only needs a program name"
		[ -f "$FUSEGATE_ROOT/selftests/filesystems/fuse_compound/$2.c" ] ||
			[ -f "$FUSEGATE_ROOT/selftests/filesystems/fuse_compound/$2.sh" ] ||
			die_usage "--only $2: no selftests/filesystems/fuse_compound/$2.c"
		only+=("$2"); shift 2 ;;
	--with-kunit) GUEST_KUNIT=1; shift ;;
	-f|--fixture|-t|--test|-v|--variant)
		[ $# -ge 2 ] || die_usage "$1 needs a name"
		[[ "$2" =~ ^[A-Za-z0-9_]+$ ]] || die_usage "bad name for $1: $2"
		case "$1" in --fixture) a=-f ;; --test) a=-t ;; --variant) a=-v ;; *) a=$1 ;; esac
		test_args+=("$a" "$2"); shift 2 ;;
	--timeout) [ $# -ge 2 ] || die_usage "--timeout needs seconds"; timeout=$2; shift 2 ;;
	--results) [ $# -ge 2 ] || die_usage "--results needs a directory"; results=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) die_usage "unknown argument: $1" ;;
	esac
done
[ -n "$kernel" ] || die_usage "--kernel BZIMAGE is required"
[ -f "$kernel" ] || die_usage "--kernel $kernel is not a file"
[[ "$timeout" =~ ^[1-9][0-9]*$ ]] || die_usage "--timeout must be a positive number: $timeout"

src="$FUSEGATE_CACHE/src/linux-source-6.12/tools/testing"
[ -f "$src/selftests/lib.mk" ] ||
	die_infra "no unpacked source in $FUSEGATE_CACHE/src (run scripts/prepare-tree.sh once)"

main() {
	local work layout root rc=0 progs
	work=$(mktemp -d "${TMPDIR:-/tmp}/fusegate-quick.XXXXXX")
	results=${results:-$work/results}
	mkdir -p "$results"
	results=$(cd "$results" && pwd)
	INFRA_SUMMARY="$results/summary.json"
	layout="$work/tools/testing/selftests"
	mkdir -p "$layout"
	cp "$src"/selftests/{lib.mk,kselftest.h,kselftest_harness.h} "$layout/"
	root="$work/root"
	local o want_real=0
	progs=()
	for o in "${only[@]}"; do
		if [ "$o" = fuse_real_servers_test ]; then
			want_real=1
		else
			progs+=("$root/tests/$o")
		fi
	done
	if [ ${#only[@]} -eq 0 ]; then
		want_real=1
	elif [ "$want_real" = 1 ]; then
		progs+=("$root/tests/fuse_real_fhandle" "$root/tests/fuse_real_probe")
	fi
	log "building the selftests ${only[*]:-(all)}"
	guest_build_programs "$layout/filesystems/fuse_compound" "$root/tests" \
		"$results/build.log" "${progs[@]}"
	cp "$FUSEGATE_ROOT/selftests/guest/run-tests" "$root/tests/"
	[ "$want_real" = 0 ] ||
		guest_real_servers "$root/tests" "$root/tests" "$results/build.log"
	mkdir -p "$root/etc"
	{
		echo "export FUSEGATE_EXPECT_COMPOUND=${FUSEGATE_EXPECT_COMPOUND:-0}"
		echo "export FUSEGATE_EXPECT_HANDLES=${FUSEGATE_EXPECT_HANDLES:-0}"
		printf 'FUSEGATE_GUEST_CMD="/tests/run-tests %s"\n' "${test_args[*]:-}"
	} > "$root/etc/fusegate.env"
	guest_initramfs "$root" "$work/initramfs.cpio"
	guest_boot "$kernel" "$work/initramfs.cpio" "$results/console.log" \
		"$results/selftests.ktap" "$timeout" || rc=$?
	local boot_rc=$rc
	rc=0
	grep -q FUSEGATE-BOOT-OK "$results/console.log" ||
		die_infra "the guest did not boot (see $results/console.log)"
	local cut=() console="$results/console.log"
	[ "$boot_rc" -eq 0 ] && grep -q FUSEGATE-TESTS-DONE "$results/console.log" ||
		cut=(--cut-short-by-crash)
	if [ "${GUEST_KUNIT:-0}" = 1 ]; then
		mkdir -p "$results/kunit"
		sed '/FUSEGATE-BOOT-OK/q' "$results/console.log" > "$results/kunit/console.log"
		sed '1,/FUSEGATE-BOOT-OK/d' "$results/console.log" > "$results/console-tests.log"
		console="$results/console-tests.log"
		python3 "$src/kunit/kunit.py" parse --raw_output=kunit \
			"$results/kunit/console.log" > "$results/kunit/kunit.ktap" 2>/dev/null || true
		python3 "$FUSEGATE_ROOT/scripts/ktap_report.py" "$results/kunit/kunit.ktap" \
			--kunit-dir "$src/kunit" --title "KUnit on $(basename "$kernel")" \
			--console "$results/kunit/console.log" \
			"${EXPECT_WARN_ARGS[@]}" \
			--json "$results/kunit/summary.json" || rc=$?
	fi
	sed -i '/^FUSEGATE-TESTS-DONE/d' "$results/selftests.ktap"
	local src_rc=0
	python3 "$FUSEGATE_ROOT/scripts/ktap_report.py" "$results/selftests.ktap" \
		--kunit-dir "$src/kunit" --title "selftests on $(basename "$kernel")" \
		--suite selftests --console "$console" \
		--json "$results/summary.json" --junit "$results/junit.xml" "${cut[@]}" || src_rc=$?
	[ "$src_rc" -eq 0 ] || rc=$src_rc
	python3 "$FUSEGATE_ROOT/scripts/request_counts.py" extract "$results/selftests.ktap" \
		"$results/requests.json"
	log "results in $results"
	exit "$rc"
}

main
