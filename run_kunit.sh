#!/usr/bin/env bash
# Run the KUnit suites of kunit/ with the kernel's own kunit.py, under QEMU.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/scripts/lib.sh"

usage() {
	cat <<EOF
Usage: $(basename "$0") [OPTIONS] [FILTER_GLOB]

Prepare the kernel tree (scripts/prepare-tree.sh), copy the KUnit suites
of kunit/ into fs/fuse/tests/, build a KUnit kernel through ccache and run
it under QEMU with tools/testing/kunit/kunit.py (x86_64, TCG).

FILTER_GLOB selects suites or tests as kunit.py does, for instance
'fuse_compound_reply' or 'fuse_compound_dep.*propagated*'.

Options:
  --series PATH       patch series to apply (default: kernel-patches/)
  --tree DIR          start from this kernel tree instead of the tarball
  --no-series         use the tree as it is (with --tree: it already
                      carries the changes to test)
  --baseline          the unpatched tree (the suites are reported skipped:
                      there is no compound code to test)
  --name NAME         name of the prepared tree in the cache
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

prep_args=()
filter=
jobs=$(nproc)
timeout=300
kvm=0
baseline=0
results="$FUSEGATE_ROOT/results/kunit"

while [ $# -gt 0 ]; do
	take_tree_option "$@"
	[ "$TAKEN" -eq 0 ] || { shift "$TAKEN"; continue; }
	take_build_option "$@"
	[ "$TAKEN" -eq 0 ] || { shift "$TAKEN"; continue; }
	case "$1" in
	--filter_glob) [ $# -ge 2 ] || die_usage "--filter_glob needs a glob"
		filter=$2; shift 2 ;;
	--filter_glob=*) filter=${1#*=}; shift ;;
	--timeout) [ $# -ge 2 ] || die_usage "--timeout needs seconds"
		timeout=$2; shift 2 ;;
	--timeout=*) timeout=${1#*=}; shift ;;
	--kvm) kvm=1; shift ;;
	-h|--help) usage; exit 0 ;;
	-*) die_usage "unknown option: $1" ;;
	*) [ -z "$filter" ] || die_usage "only one FILTER_GLOB"
		filter=$1; shift ;;
	esac
done
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die_usage "--jobs must be a positive number: $jobs"
[[ "$timeout" =~ ^[1-9][0-9]*$ ]] || die_usage "--timeout must be a positive number: $timeout"

KUNIT_BUILD_DIR=build-kunit

# Tell whether the tree can take our suites (the series' KUnit hook)
tree_has_kunit_hook() {
	grep -q '^config FUSE_KUNIT_TEST' fs/fuse/Kconfig 2>/dev/null &&
		grep -q 'CONFIG_FUSE_KUNIT_TEST.*tests/' fs/fuse/Makefile 2>/dev/null
}

# No compound code in this tree: report every suite skipped
report_skipped() {
	local why=$1 ktap="$results/kunit.ktap" suites
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
		--suite kunit --json "$results/summary.json" --junit "$results/junit.xml"
}

kunit_py() {
	python3 tools/testing/kunit/kunit.py "$@"
}

main() {
	local t0 t_prep t_build t_run tree rc qemu_args=()
	t0=$(now)
	mkdir -p "$results" || die_usage "cannot create $results"
	rm -f "$results"/*

	tree=$("$FUSEGATE_ROOT/scripts/prepare-tree.sh" "${prep_args[@]}") || exit $?
	t_prep=$(( $(now) - t0 ))
	export_build_env
	cd "$tree"

	if [ "$baseline" -eq 1 ] || ! tree_has_kunit_hook; then
		log "this tree has no FUSE_KUNIT_TEST hook (no compound series): suites skipped"
		report_skipped "no FUSE compound support in this tree"
		exit $?
	fi
	mkdir -p fs/fuse/tests
	rsync -rc --delete "$FUSEGATE_ROOT/kunit/" fs/fuse/tests/

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
	set +e
	kunit_py exec "${exec_args[@]}" "${qemu_args[@]}" 2>&1 | tee "$results/kunit-output.txt"
	set -e
	t_run=$(( $(now) - t0 ))
	cp "$KUNIT_BUILD_DIR/test.log" "$results/console.log" 2>/dev/null || : > "$results/console.log"
	kunit_py parse --raw_output=kunit "$results/console.log" > "$results/kunit.ktap" 2>/dev/null || true

	set +e
	python3 "$FUSEGATE_ROOT/scripts/ktap_report.py" "$results/kunit.ktap" \
		--title "KUnit ($(git log -1 --format=%s 2>/dev/null | cut -c1-60))" \
		--console "$results/console.log" \
		--expect-warn fs/fuse/dev.c:fuse_compound_send \
		--json "$results/summary.json" --junit "$results/junit.xml"
	rc=$?
	set -e
	log "times: prepare ${t_prep}s, build ${t_build}s, run ${t_run}s; results in $results"
	exit "$rc"
}

main
