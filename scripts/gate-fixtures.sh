#!/usr/bin/env bash
# The gate's own tests: series whose verdict is known, run through
# ./fusegate gate, each checked for its verdict and for what it must name.
set -Eeuo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOF
Usage: $(basename "$0") [OPTIONS] [FIXTURE...]

Run ./fusegate gate on each fixture of gate-fixtures/ (default: all) and
check its exit status and what its report names.  The mail fixtures are
built from kernel-patches/ first (gate-fixtures/mail/make-fixtures.py).

Fixtures:
$(fixture_table | awk -F'|' '{printf "  %-32s %s\n", $1, $4}')
  two-at-once                      two gates started together on one cache,
                                   our series and sub_unique_not_checked:
                                   PASS and REGRESSION, different commits
  no-host-share                    our series, the real servers, a guest
                                   without the host's 9p share: INFRA
                                   naming it (nothing judged is no PASS)

A fixture whose verdict lives in one selftest program (the table's last
column) is judged on that program and the KUnit suites (./fusegate gate
--only): the same verdict and the same names in about half the time.
The whole suite is the main gate's work; --whole runs every fixture on it.

Options:
  --list          list the fixtures and exit
  --whole         judge every fixture on the whole suite (no --only)
  --results DIR   where the gates write (default: results/fixtures)
  -h, --help      show this help

Exit status: 0 every fixture gave its verdict, 1 one did not, 2 usage
error, 3 infrastructure error of this script.
EOF
}

# name | series (relative to the repository, or mail:FILE) | exit status |
# what it is | strings the report must hold (';'-separated) | the selftest
# programs that hold those tests (the gate judges them and the KUnit
# suites, ./fusegate gate --only; none: the whole suite)
fixture_table() {
	cat <<'EOF'
does-not-apply|gate-fixtures/does-not-apply|3|patch 3 written against another tree: INFRA|patch 3 of 3;error: patch failed: fs/fuse/file.c
empty-patch|mail:empty-patch.mbox|3|patch 1 stripped of its diff: INFRA naming it|[PATCH 01/;": empty patch: the mail has no diff
missing-patch|mail:missing-patch.mbox|3|an mbox without patch 7: INFRA naming the gap|missing 7/
with-cover|mail:with-cover.mbox|0|our series with its cover letter: PASS|"verdict": "PASS"
with-replies|mail:with-replies.mbox|0|with review replies, one quoting a hunk: PASS|"verdict": "PASS"
v1-and-v2|mail:v1-and-v2.mbox|0|v1 and v2 in one mbox: v2 taken, PASS|"verdict": "PASS"
sub_unique_not_checked|gate-fixtures/sub_unique_not_checked|1|our series without rule 3: REGRESSION|sub_unique_reordered;sub_unique: reordered|fuse_reply_rules_test
sub_error_range_not_checked|gate-fixtures/sub_error_range_not_checked|1|our series without rule 5: REGRESSION|sub_error_range_positive_first;sub_error_range: the first positive|fuse_reply_rules_test
stock_reply_error_too_negative|gate-fixtures/stock_reply_error_too_negative|1|stock 6.12 without the reply error floor: REGRESSION|reply_error_too_negative|fuse_stock_reply_test
stock_lookup_invalid_attr|gate-fixtures/stock_lookup_invalid_attr|1|stock 6.12 taking invalid LOOKUP attributes: REGRESSION|lookup_invalid_attr|fuse_stock_lookup_test
stock_comment_only|gate-fixtures/stock_comment_only|0|stock 6.12 and a comment-only patch: PASS|"verdict": "PASS"
real_compound_after_enosys|gate-fixtures/real_compound_after_enosys|1|compounds asked again after each inode invalidation: REGRESSION in the real servers' requests|fuse_real_servers_requests;after the first refusal the kernel must not ask again|fuse_real_servers_test
real_direct_write_tail_dropped|gate-fixtures/real_direct_write_tail_dropped|1|direct writes past 128 KiB lose a byte: REGRESSION in the real servers' fio|fuse_real_servers: bindfs.fio_direct|fuse_real_servers_test
real_fsync_dropped|gate-fixtures/real_fsync_dropped|1|stock 6.12 that never sends FSYNC: REGRESSION in the real servers' requests|fuse_real_servers_requests;FSYNC -|fuse_real_servers_test
real_open_getattr|gate-fixtures/real_open_getattr|1|stock 6.12 with a GETATTR after every open: REGRESSION in the real servers' requests|fuse_real_servers_requests;GETATTR +|fuse_real_servers_test
real_flush_twice|gate-fixtures/real_flush_twice|1|stock 6.12 that sends every FLUSH twice: REGRESSION in the real servers' requests|fuse_real_servers_requests;FLUSH +|fuse_real_servers_test
real_fsync_hangs|gate-fixtures/real_fsync_hangs|1|stock 6.12 whose fsync() waits for ever: a real server's step hangs, REGRESSION naming it|fuse_real_servers: bindfs.fio_seq;hung: not ended within its limit|fuse_real_servers_test
EOF
}

results="$FUSEGATE_ROOT/results/fixtures"
selected=()
whole=0
while [ $# -gt 0 ]; do
	case "$1" in
	--list) fixture_table | cut -d'|' -f1; echo two-at-once; echo no-host-share; exit 0 ;;
	--whole) whole=1; shift ;;
	--results) [ $# -ge 2 ] || die_usage "--results needs a directory"; results=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	-*) die_usage "unknown option: $1" ;;
	*) selected+=("$1"); shift ;;
	esac
done
for s in "${selected[@]}"; do
	[ "$s" = two-at-once ] || [ "$s" = no-host-share ] ||
		in_list "$s" $(fixture_table | cut -d'|' -f1) ||
		die_usage "no such fixture: $s (see --list)"
done

wanted() {
	[ ${#selected[@]} -eq 0 ] || in_list "$1" "${selected[@]}"
}

# check NAME RC WANT_RC RESULTS STRINGS: the verdict and what the report names
check() {
	local name=$1 rc=$2 want=$3 dir=$4 strings=$5 s missing=()
	IFS=';' read -r -a want_strings <<< "$strings"
	for s in "${want_strings[@]}"; do
		grep -qF -- "$s" "$dir/gate.json" "$dir/report.md" 2>/dev/null || missing+=("$s")
	done
	if [ "$rc" -eq "$want" ] && [ ${#missing[@]} -eq 0 ]; then
		printf '  %-32s ok      exit %d\n' "$name" "$rc" | tee -a "$results/summary.txt"
		return 0
	fi
	printf '  %-32s FAILED  exit %d (want %d)%s\n' "$name" "$rc" "$want" \
		"${missing[*]:+; report lacks: ${missing[*]}}" | tee -a "$results/summary.txt"
	return 1
}

# run_gate SERIES DIR NAME PROGRAMS: the gate on SERIES.  With PROGRAMS
# (and not --whole): those programs only, with the main gate's setting of
# the real servers, so that the base's results it kept serve here too.
# The whole suite: the real servers (the quick set, about 110 s a boot
# here) only for the fixtures about them (real_*).
run_gate() {
	local series=$1 dir=$2 name=$3 programs=$4 rc=0 real=0 only=() p
	case "$name" in real_*) real=quick ;; esac
	if [ "$whole" -eq 0 ] && [ -n "$programs" ]; then
		real=${FUSEGATE_REAL_SERVERS:-quick}
		for p in $programs; do only+=(--only "$p"); done
	fi
	FUSEGATE_REAL_SERVERS=$real "$FUSEGATE_ROOT/fusegate" gate --series "$series" \
		"${only[@]}" --results "$dir" > "$dir.log" 2>&1 || rc=$?
	return "$rc"
}

# Two gates at once on one cache: each judges its own series, and the
# reports name the commits they tested (issue: concurrent gates).
two_at_once() {
	local a="$results/two-at-once-ours" b="$results/two-at-once-broken" ra=0 rb=0 pa pb
	mkdir -p "$a" "$b"
	FUSEGATE_REAL_SERVERS=0 "$FUSEGATE_ROOT/fusegate" gate --results "$a" > "$a.log" 2>&1 &
	pa=$!
	FUSEGATE_REAL_SERVERS=0 "$FUSEGATE_ROOT/fusegate" gate \
		--series "$FUSEGATE_ROOT/gate-fixtures/sub_unique_not_checked" \
		--results "$b" > "$b.log" 2>&1 &
	pb=$!
	wait "$pa" || ra=$?
	wait "$pb" || rb=$?
	python3 - "$a/gate.json" "$b/gate.json" "$ra" "$rb" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
ra, rb = int(sys.argv[3]), int(sys.argv[4])
problems = []
if (ra, a['verdict']) != (0, 'PASS'):
    problems.append('ours: exit %d %s' % (ra, a['verdict']))
if (rb, b['verdict']) != (1, 'REGRESSION'):
    problems.append('broken: exit %d %s' % (rb, b['verdict']))
ha, hb = a['trees']['patched']['head'], b['trees']['patched']['head']
if not ha or ha == hb:
    problems.append('the reports name the same patched commit %s' % ha)
kunit = [t for t in a['tests'] if t['runner'] == 'kunit' and t['patched'] == 'PASS']
if len(kunit) < 100:
    problems.append('ours: only %d KUnit cases passed' % len(kunit))
print('  two-at-once: ours %s at %s (%d KUnit cases), broken %s at %s' % (
    a['verdict'], ha[:12], len(kunit), b['verdict'], hb[:12]))
for p in problems:
    print('  two-at-once: ' + p)
sys.exit(1 if problems else 0)
PY
}

# A guest without the host's share: every real server skips, and the
# gate must say INFRA, naming why, not PASS on a suite that judged nothing
no_host_share() {
	local dir="$results/no-host-share" rc=0
	rm -rf "$dir"
	mkdir -p "$dir"
	GUEST_HOST_SHARE=0 FUSEGATE_REAL_SERVERS=quick "$FUSEGATE_ROOT/fusegate" gate \
		--only fuse_real_servers_test --results "$dir" > "$dir.log" 2>&1 || rc=$?
	check no-host-share "$rc" 3 "$dir" "judged nothing: every server skipped (no host share"
}

main() {
	local failed=0 name series want what strings programs dir rc mail
	mkdir -p "$results"
	results=$(cd "$results" && pwd)
	: > "$results/summary.txt"
	mail="$results/mail"
	rm -rf "$mail"
	python3 "$FUSEGATE_ROOT/gate-fixtures/mail/make-fixtures.py" "$mail" ||
		die_infra "the mail fixtures could not be built"
	while IFS='|' read -r name series want what strings programs; do
		wanted "$name" || continue
		dir="$results/$name"
		rm -rf "$dir"
		mkdir -p "$dir"
		case "$series" in
		mail:*) series="$mail/${series#mail:}" ;;
		*) series="$FUSEGATE_ROOT/$series" ;;
		esac
		log "fixture $name: $what${programs:+ (judged on $programs)}"
		rc=0
		run_gate "$series" "$dir" "$name" "$programs" || rc=$?
		check "$name" "$rc" "$want" "$dir" "$strings" || failed=1
	done < <(fixture_table)
	if wanted two-at-once; then
		log "fixture two-at-once: two gates at once on one cache"
		if two_at_once | tee -a "$results/summary.txt"; then :; else failed=1; fi
	fi
	if wanted no-host-share; then
		log "fixture no-host-share: the real servers in a guest without the host's share"
		no_host_share || failed=1
	fi
	echo "gate fixtures: $([ "$failed" -eq 0 ] && echo "all gave their verdict" || echo FAILED)"
	exit "$failed"
}

main
