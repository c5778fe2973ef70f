#!/usr/bin/env bash
# Run the KUnit suites of kunit/ with the kernel's own kunit.py, under QEMU.
set -Eeuo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/scripts/lib.sh"

usage() {
	cat <<EOF
Usage: $(basename "$0") [OPTIONS] [FILTER_GLOB]

Prepare the kernel tree (scripts/prepare-tree.sh), build a KUnit kernel
with the FUSE KUnit suites the tree carries (fs/fuse/tests/, or with
--tests ours the suites of kunit/ copied there) through ccache, and run it
under QEMU with tools/testing/kunit/kunit.py (x86_64, TCG).

FILTER_GLOB selects suites or tests as kunit.py does, for instance
'fuse_compound_reply' or 'fuse_compound_dep.*propagated*'.

Options:
  --series PATH       patch series to apply (default: kernel-patches/)
  --version N         version N of a series posted several times
  --tree DIR          start from this kernel tree instead of the tarball
  --range B..H        with --tree DIR (a git repository): base B, series B..H
  --no-series         use the tree as it is (with --tree: it already
                      carries the changes to test)
  --baseline          the unpatched tree (tree 'baseline'; without a
                      FUSE_KUNIT_TEST hook the suites are reported skipped)
  --name NAME         name of the prepared tree in the cache
  --prepared DIR      a tree the caller prepared and holds the lock of
  --tests WHICH       'series' (default: the suites the tree carries) or
                      'ours' (kunit/ of this repository, copied into the tree)
  --filter_glob GLOB  same as FILTER_GLOB
  --jobs N            parallel build jobs (default: nproc)
  --timeout SECONDS   limit for the QEMU run (default: 300)
  --kvm               try KVM; falls back to TCG when the guest does not
                      boot under it (nested KVM often hangs)
  --results DIR       where to write results (default: results/kunit)
  -h, --help          show this help

Results: kunit.ktap, kunit.json (kunit.py's), summary.json, junit.xml,
console.log, build.log in the results directory.

Exit status: 0 all tests passed, 1 a test failed or the kernel printed a
splat, 2 usage error, 3 infrastructure error (tree, build, boot, no KTAP).
EOF
}

runner_defaults 300 kunit
filter=
which_tests=series

while [ $# -gt 0 ]; do
	take_runner_option "$@" && { shift "$TAKEN"; continue; }
	take_tests_option "$@" && { shift "$TAKEN"; continue; }
	case "$1" in
	--filter_glob) [ $# -ge 2 ] || die_usage "--filter_glob needs a glob"
		filter=$2; shift 2 ;;
	--filter_glob=*) filter=${1#*=}; shift ;;
	-h|--help) usage; exit 0 ;;
	-*) die_usage "unknown option: $1" ;;
	*) [ -z "$filter" ] || die_usage "only one FILTER_GLOB"
		filter=$1; shift ;;
	esac
done
check_runner_options

KUNIT_BUILD_DIR=build-kunit

# Tell whether the tree can take our suites (the series' KUnit hook)
tree_has_kunit_hook() {
	grep -q '^config FUSE_KUNIT_TEST' fs/fuse/Kconfig 2>/dev/null &&
		grep -q 'CONFIG_FUSE_KUNIT_TEST.*tests/' fs/fuse/Makefile 2>/dev/null
}

kunit_py() {
	python3 tools/testing/kunit/kunit.py "$@"
}

main() {
	local t0 t_prep t_build t_run rc qemu_args=()
	runner_start

	if [ "$which_tests" = ours ]; then
		tree_has_kunit_hook ||
			die_infra "--tests ours: this tree has no FUSE_KUNIT_TEST hook to build them with"
		mkdir -p fs/fuse/tests
		rsync -rc --delete "$FUSEGATE_ROOT/kunit/" fs/fuse/tests/
	fi
	if ! tree_has_kunit_hook || ! [ -f fs/fuse/tests/.kunitconfig ]; then
		log "this tree has no FUSE KUnit suites (no FUSE_KUNIT_TEST hook): suites skipped"
		kunit_report_skipped "$results" "no FUSE KUnit suites in this tree"
		exit $?
	fi

	local make_opts=(--make_options "CC=ccache gcc")
	local common=(--arch=x86_64 --build_dir="$KUNIT_BUILD_DIR"
		      --kunitconfig=fs/fuse/tests/.kunitconfig)
	log "configuring the KUnit kernel"
	if ! kunit_py config "${common[@]}" "${make_opts[@]}" > "$results/build.log" 2>&1; then
		tail -30 "$results/build.log" >&2
		die_infra "kunit.py config failed (see $results/build.log)"
	fi
	log "building the KUnit kernel with $jobs job(s), through ccache"
	t0=$(now)
	if ! build_with_progress "$results/build.log" "$KUNIT_BUILD_DIR" \
		kunit_py build "${common[@]}" "${make_opts[@]}" --jobs="$jobs"; then
		grep -E 'error|Error' "$results/build.log" | head -30 >&2 || true
		die_infra "the KUnit kernel did not build (see $results/build.log)"
	fi
	t_build=$(( $(now) - t0 ))

	t0=$(now)
	local exec_args=(--arch=x86_64 --build_dir="$KUNIT_BUILD_DIR" --timeout="$timeout"
			 --json="$results/kunit.json")
	[ -z "$filter" ] || exec_args+=("$filter")
	if [ "$kvm" -eq 1 ]; then
		if [ -w /dev/kvm ] && kunit_py exec --arch=x86_64 --build_dir="$KUNIT_BUILD_DIR" \
			--timeout=60 --qemu_args='-accel kvm' 'fuse_compound_submit' > /dev/null 2>&1; then
			log "KVM boots this kernel: using it"
			qemu_args=(--qemu_args='-accel kvm')
		else
			log "WARNING: the guest did not boot under KVM; using TCG"
		fi
	fi
	log "running the suites under QEMU"
	# kunit.py's verdict is read from the KTAP below, not from its status
	kunit_py exec "${exec_args[@]}" "${qemu_args[@]}" 2>&1 | tee "$results/kunit-output.txt" ||
		true
	t_run=$(( $(now) - t0 ))
	cp "$KUNIT_BUILD_DIR/test.log" "$results/console.log" 2>/dev/null || : > "$results/console.log"
	kunit_py parse --raw_output=kunit "$results/console.log" > "$results/kunit.ktap" 2>/dev/null || true

	rc=0
	python3 "$FUSEGATE_ROOT/scripts/ktap_report.py" "$results/kunit.ktap" \
		--title "KUnit ($(git log -1 --format=%s 2>/dev/null | cut -c1-60))" \
		--console "$results/console.log" \
		"${EXPECT_WARN_ARGS[@]}" \
		--json "$results/summary.json" --junit "$results/junit.xml" || rc=$?
	log "times: prepare ${t_prep}s, build ${t_build}s, run ${t_run}s; results in $results"
	exit "$rc"
}

main
