#!/usr/bin/env bash
# Every mutant of a sample in one kernel: mutant schemata, per-test
# coverage, one build and (crashes aside) one boot.
set -Eeuo pipefail
# shellcheck source=scripts/guest.sh
source "$(dirname "$0")/guest.sh"

usage() {
	cat <<EOF
Usage: $(basename "$0") [OPTIONS]

Run a sample of fs/fuse mutants through one kernel (scripts/mutschema.py
writes the schema: each mutant guarded by the switch fuse.mutant, each
guard recording that it ran).  The guest (selftests/guest/run-mutants)
first runs every kselftest harness test alone on the unmutated kernel and
records which sites it reaches and how long it takes (the baseline); then,
for each mutant, it switches the mutant on and runs only the tests that
reach its site, those that killed most mutants so far first, then the
fastest, and stops at the first failure or kernel splat.  A crash, a hang
or a kernel left unfit (a splat, a connection or a task left behind) kills
the mutant; the guest boots again and goes on with the rest.

Mutants (default: --generated of the series):
  --generated  mutants drawn by scripts/mutgen.py from the files the guest
               compiles (with --stock: of stock 6.12, else of the series)
  --hand       the hand-written set of scripts/mutation-check.sh (with
               --stock: its stock set)
  --stock      of stock 6.12 (tree 'mutschema-stock'); else of the series
               (tree 'mutschema-series', kernel-patches/ applied)
  --series PATH  with --generated: mutants of this series (a directory of
               patches, e.g. kernel-patches/split) instead of
               kernel-patches/, in tree 'mutschema-NAME' (NAME: the
               directory's name)
  --sample N   with --generated: N mutants drawn at random (default 40)
  --seed S     the draw's seed (default 1): the same seed, the same mutants
  --fresh N    N more generated mutants, drawn with a seed of their own
               (--fresh-seed, default: the time), none of the sample's:
               their score and survivors are reported, a survivor among
               them does not fail the run (a CI's second, fresh sample)
  --fresh-seed S  the fresh mutants' seed (to draw them again)
  --shard K/N  only part K of N of the mutants (deterministic: every N-th),
               for N machines of a CI matrix; merge their results with
               'scripts/mutschema.py report --plan P... --results R...'

Options:
  --programs P   a comma-separated list of the selftest programs whose tests
                 are the units (default: every harness program but
                 fuse_real_peer_test; those whose outcome depends on
                 timing, $(IFS=,; echo "${WHOLE_PROGRAMS[*]}"), are run whole, one unit each)
  --no-whole     without the programs run whole (they take about three
                 minutes of each baseline)
  --budget S     the seconds of tests a mutant may use (default 60): one
                 that outlives them is reported as a survivor of the tests it
                 ran ("survived K/N budget"); 0: every test that reaches it
  --resume       keep the boots of an earlier run of the same plan (same
                 mutants and schema) in --results and go on from there
  --lanes N      N guests at once (default 1), each on its share of the
                 baseline's units and then of the mutants, every one with
                 the whole baseline: on 2 cores, 2 lanes keep both busy
                 where one TCG guest uses about 1.2 of them
  --idle S       a guest that writes nothing for S seconds is stopped and
                 the mutant that was on counts as killed by a hang
                 (default 240)
  --jobs N       parallel build jobs (default: nproc)
  --timeout S    the time limit of one boot (default 3600)
  --results DIR  where to write results (default: results/mutschema-SET)
  -h, --help     show this help

Results: report.txt (the score with its 95% interval, per file and per
operator, the survivors, the excluded mutants and why), mutants.json,
plan.json (the schema's sites), guest.out (the guest's lines of every
boot), times.txt (each phase), console-N.log, build.log.

Exit status: 0 every mutant killed or explained by docs/mutant-triage.md,
1 a survivor the triage does not explain, 2 usage error, 3 infrastructure
error (tree, build, a guest that does not boot, a boot that made no
progress).
EOF
}

# Programs that are run whole or not at all: their outcome depends on
# timing (stress, fault injection) or on the host (real servers); they
# are not split into units here
WHOLE_PROGRAMS=(fuse_faults_test fuse_stress_test)
SELFTEST_DIR=tools/testing/selftests/filesystems/fuse_compound
GUEST_BUILD_DIR=build-guest

runner_defaults 3600 mutschema
set_kind=generated
stock=0
sample=40
seed=1
fresh=0
fresh_seed=
shard=
programs=
idle=240
whole=1
resume=0
budget=60
lanes=1
series=
while [ $# -gt 0 ]; do
	take_build_option "$@" && { shift "$TAKEN"; continue; }
	case "$1" in
	--generated) set_kind=generated; shift ;;
	--hand) set_kind=hand; shift ;;
	--stock) stock=1; shift ;;
	--series) [ $# -ge 2 ] || die_usage "--series needs a path"; series=$2; shift 2 ;;
	--sample) [ $# -ge 2 ] || die_usage "--sample needs a number"; sample=$2; shift 2 ;;
	--seed) [ $# -ge 2 ] || die_usage "--seed needs a number"; seed=$2; shift 2 ;;
	--fresh) [ $# -ge 2 ] || die_usage "--fresh needs a number"; fresh=$2; shift 2 ;;
	--fresh-seed) [ $# -ge 2 ] || die_usage "--fresh-seed needs a number"; fresh_seed=$2; shift 2 ;;
	--shard) [ $# -ge 2 ] || die_usage "--shard needs K/N"; shard=$2; shift 2 ;;
	--programs) [ $# -ge 2 ] || die_usage "--programs needs a list"; programs=$2; shift 2 ;;
	--no-whole) whole=0; shift ;;
	--resume) resume=1; shift ;;
	--budget) [ $# -ge 2 ] || die_usage "--budget needs seconds"; budget=$2; shift 2 ;;
	--lanes) [ $# -ge 2 ] || die_usage "--lanes needs a number"; lanes=$2; shift 2 ;;
	--idle) [ $# -ge 2 ] || die_usage "--idle needs seconds"; idle=$2; shift 2 ;;
	--timeout) [ $# -ge 2 ] || die_usage "--timeout needs seconds"; timeout=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) die_usage "unknown argument: $1" ;;
	esac
done
check_runner_options
[[ "$sample" =~ ^[1-9][0-9]*$ ]] || die_usage "--sample must be a positive number: $sample"
[[ "$seed" =~ ^[0-9]+$ ]] || die_usage "--seed must be a number: $seed"
[[ "$fresh" =~ ^[0-9]+$ ]] || die_usage "--fresh must be a number: $fresh"
if [ "$fresh" != 0 ]; then
	[ "$set_kind" = generated ] || die_usage "--fresh needs --generated"
	# every shard would draw its own under the same numbers
	[ -z "$shard" ] || die_usage "--fresh and --shard: a fresh sample is not split"
	[ "$resume" = 0 ] || [ -n "$fresh_seed" ] ||
		die_usage "--resume with --fresh needs the earlier run's --fresh-seed"
fi
[ -n "$fresh_seed" ] || fresh_seed=$(date +%s)
[[ "$fresh_seed" =~ ^[0-9]+$ ]] || die_usage "--fresh-seed must be a number: $fresh_seed"
[[ "$idle" =~ ^[1-9][0-9]*$ ]] || die_usage "--idle must be a positive number: $idle"
[[ "$budget" =~ ^[0-9]+$ ]] || die_usage "--budget must be a number of seconds: $budget"
[[ "$lanes" =~ ^[1-9]$ ]] || die_usage "--lanes must be a number from 1 to 9: $lanes"
if [ -n "$shard" ]; then
	if ! [[ "$shard" =~ ^([1-9][0-9]*)/([1-9][0-9]*)$ ]] ||
		[ "${BASH_REMATCH[1]}" -gt "${BASH_REMATCH[2]}" ]; then
		die_usage "--shard must be K/N with 1 <= K <= N: $shard"
	fi
fi
whole_list=()
if [ -n "$programs" ]; then
	IFS=, read -r -a named <<< "$programs"
	prog_list=()
	for p in "${named[@]}"; do
		[ -f "$FUSEGATE_ROOT/selftests/filesystems/fuse_compound/$p.c" ] ||
			die_usage "--programs: no selftests/filesystems/fuse_compound/$p.c"
		if in_list "$p" "${WHOLE_PROGRAMS[@]}"; then
			[ "$whole" = 0 ] || whole_list+=("$p")
		else
			prog_list+=("$p")
		fi
	done
else
	prog_list=()
	for f in "$FUSEGATE_ROOT"/selftests/filesystems/fuse_compound/*_test.c; do
		f=$(basename "$f" .c)
		in_list "$f" "${WHOLE_PROGRAMS[@]}" fuse_real_peer_test || prog_list+=("$f")
	done
fi
[ -n "$programs" ] || [ "$whole" = 0 ] || whole_list=("${WHOLE_PROGRAMS[@]}")
set_name=$([ "$stock" = 1 ] && echo stock || echo series)
tree_name=mutschema-$set_name
# shellcheck disable=SC2034 # acquire_tree (scripts/lib.sh) reads it
if [ "$stock" = 1 ]; then prep_args=(--baseline --name "$tree_name"); else prep_args=(--name "$tree_name"); fi
if [ -n "$series" ]; then
	[ "$stock" = 0 ] || die_usage "--series and --stock: the stock set has no series"
	[ "$set_kind" = generated ] ||
		die_usage "--series needs --generated: the hand-written mutants are of kernel-patches/"
	[ -e "$series" ] || die_usage "--series: no such series: $series"
	set_name=$(basename "$(realpath "$series")")
	tree_name=mutschema-$set_name
	# shellcheck disable=SC2034 # acquire_tree (scripts/lib.sh) reads it
	prep_args=(--name "$tree_name" --series "$series")
fi
[ "$results" != "$FUSEGATE_ROOT/results/mutschema" ] ||
	results="$FUSEGATE_ROOT/results/mutschema-$set_kind-$set_name${shard:+-${shard/\//of}}"

# restore_tree: the tree's fs/fuse as its HEAD has it (new files: the
# tree's files are hard links into the shared source)
restore_tree() {
	local f
	[ -n "${tree:-}" ] && [ -d "$tree/fs/fuse" ] || return 0
	git -C "$tree" status --porcelain -- fs/fuse | while read -r _ f; do
		rm -f "$tree/$f"
	done
	git -C "$tree" checkout -q -- fs/fuse
}

# the mutants, one a line (id|file|what|substitution), of the clean tree
list_mutants() {
	local built=()
	if [ "$set_kind" = generated ]; then
		[ ! -d "$tree/$GUEST_BUILD_DIR/fs/fuse" ] || built=(--built "$tree/$GUEST_BUILD_DIR")
		python3 "$FUSEGATE_ROOT/scripts/mutgen.py" list --tree "$tree" "${built[@]}" \
			--sample "$sample" --seed "$seed"
	else
		local which=()
		[ "$stock" = 0 ] || which=(--stock)
		"$FUSEGATE_ROOT/scripts/mutation-check.sh" --raw-list "${which[@]}"
	fi
}

# add_fresh: FRESH generated mutants that are not in the list, drawn with
# FRESH_SEED, appended to the list (and to the whole list: their numbers
# follow it); their ids in fresh.txt
add_fresh() {
	local built=()
	[ ! -d "$tree/$GUEST_BUILD_DIR/fs/fuse" ] || built=(--built "$tree/$GUEST_BUILD_DIR")
	python3 "$FUSEGATE_ROOT/scripts/mutgen.py" list --tree "$tree" "${built[@]}" \
		--sample $((fresh + $(wc -l < "$results/mutants.all"))) --seed "$fresh_seed" |
		awk -F'|' -v n="$fresh" 'FILENAME == ARGV[1] { have[$1] = 1; next }
			!($1 in have) && k < n { print; k++ }' "$results/mutants.all" - > "$results/fresh.list"
	cat "$results/fresh.list" >> "$results/mutants.all"
	cat "$results/fresh.list" >> "$results/mutants.txt"
	cut -d'|' -f1 "$results/fresh.list" > "$results/fresh.txt"
	log "$(wc -l < "$results/fresh.txt") fresh mutant(s), seed $fresh_seed (reported, never failing)"
}

# seed_build: a first build starts from the gate's build of the same
# commits (its tree 'baseline' or 'patched'), when there is one
seed_build() {
	local from
	[ ! -e "$GUEST_BUILD_DIR" ] || return 0
	from="$FUSEGATE_CACHE/trees/$([ "$stock" = 1 ] && echo baseline || echo patched)"
	[ -f "$from/$GUEST_BUILD_DIR/vmlinux" ] || return 0
	[ "$(git -C "$from" rev-parse 'HEAD^{tree}')" = "$(git rev-parse 'HEAD^{tree}')" ] || return 0
	log "seeding the build from $from/$GUEST_BUILD_DIR"
	{ cp -a "$from/$GUEST_BUILD_DIR" "$GUEST_BUILD_DIR.seed" &&
		mv "$GUEST_BUILD_DIR.seed" "$GUEST_BUILD_DIR"; } ||
		die_infra "could not copy $from/$GUEST_BUILD_DIR"
	rm -rf "$GUEST_BUILD_DIR/fusegate"
}

# write_schema: the schema in the tree, and fs/fuse compiled; a mutant
# whose guard does not compile is excluded (and said so) and the schema
# written again
write_schema() {
	local round
	: > "$results/excluded.txt"
	mkdir -p "$GUEST_BUILD_DIR"
	guest_write_config "$GUEST_BUILD_DIR/fusegate.config" "$kunit"
	for round in 1 2 3 4 5; do
		python3 "$FUSEGATE_ROOT/scripts/mutschema.py" schema --tree "$tree" \
			--mutants "$results/mutants.txt" --all "$results/mutants.all" \
			--built "$GUEST_BUILD_DIR" --out "$results/plan.json" \
			--exclude "$results/excluded.txt" >&2 ||
			die_infra "scripts/mutschema.py could not write the schema"
		[ -f "$GUEST_BUILD_DIR/.config" ] ||
			python3 tools/testing/kunit/kunit.py config --arch=x86_64 \
				--build_dir="$GUEST_BUILD_DIR" \
				--kunitconfig="$GUEST_BUILD_DIR/fusegate.config" >> "$results/build.log" 2>&1 ||
			die_infra "the guest kernel's config failed (see $results/build.log)"
		log "compiling fs/fuse with the schema (round $round)"
		# and linking: a guard can make reachable a call that the config
		# compiles out (blame names it by its function)
		if make ARCH=x86_64 O="$GUEST_BUILD_DIR" CC="ccache gcc" -j"$jobs" -k \
			fs/fuse/ > "$results/schema-build-$round.log" 2>&1 &&
			make ARCH=x86_64 O="$GUEST_BUILD_DIR" CC="ccache gcc" -j"$jobs" \
			vmlinux >> "$results/schema-build-$round.log" 2>&1; then
			return 0
		fi
		python3 "$FUSEGATE_ROOT/scripts/mutschema.py" blame --plan "$results/plan.json" \
			--log "$results/schema-build-$round.log" >> "$results/excluded.txt" || {
			grep -m20 'error' "$results/schema-build-$round.log" >&2 || true
			# an error no guard explains: a fresh sample (drawn anew each
			# run) must not fail the run for it, so its mutants go, said
			if [ -s "$results/fresh.txt" ] && ! grep -q 'fresh sample left out' "$results/excluded.txt"; then
				log "WARNING: an error outside every guard (see $results/schema-build-$round.log): the fresh mutants are left out"
				sed 's/$/ the schema did not compile with the fresh sample and no guard was blamed: fresh sample left out/' \
					"$results/fresh.txt" >> "$results/excluded.txt"
				continue
			fi
			die_infra "fs/fuse does not compile or link, and not in a guard (see $results/schema-build-$round.log)"
		}
		log "$(wc -l < "$results/excluded.txt") mutant(s) whose guard does not compile or link: excluded"
	done
	die_infra "the schema still does not compile after 5 rounds"
}

# resume_key: what the boots of a run depend on: the plan, the units, the
# budget, the kernel's commits and the runner
resume_key() {
	{
		python3 -c 'import json, sys; p = json.load(open(sys.argv[1])); print(json.dumps([p["mutants"], p["sites"]]))' \
			"$results/plan.json"
		cat "$1/etc/mut/units" "$1/etc/fusegate.env" "$1/tests/run-mutants"
		git rev-parse HEAD
	} | sha256sum > "$results/resume.key"
}

# the guest's files: the programs, the runner, the units and mutants
stage_guest() {
	local root=$1 bin="$tree/$GUEST_BUILD_DIR/fusegate-tests" p w expect=0 handles=0
	mkdir -p "$root/tests" "$root/etc/mut"
	guest_build_programs "$SELFTEST_DIR" "$bin" "$results/build.log"
	for p in "${prog_list[@]}" "${whole_list[@]}"; do
		cp "$bin/$p" "$root/tests/"
	done
	cp "$bin/fusegate-server" "$root/tests/" 2>/dev/null || true
	cp "$FUSEGATE_ROOT/selftests/guest/run-mutants" "$root/tests/run-mutants"
	gcc -Wall -O2 -static -o "$root/tests/mutrun" "$FUSEGATE_ROOT/selftests/guest/mutrun.c" \
		>> "$results/build.log" 2>&1 || die_infra "mutrun did not build (see $results/build.log)"
	! grep -q 'FUSE_COMPOUND' include/uapi/linux/fuse.h || expect=1
	! grep -q 'FUSE_HAS_LOOKUP_HANDLE' include/uapi/linux/fuse.h || handles=1
	{
		echo "export FUSEGATE_EXPECT_COMPOUND=$expect"
		echo "export FUSEGATE_EXPECT_HANDLES=$handles"
		echo "export FUSEGATE_REAL_SERVERS=0"
		echo "export FUSEGATE_MUT_BUDGET=$budget"
		# the WARNs the KUnit suites provoke on purpose (scripts/lib.sh)
		printf 'export FUSEGATE_EXPECT_WARN="'
		for w in "${EXPECT_WARN_ARGS[@]}"; do
			[ "$w" = --expect-warn ] || printf '%s ' "$w"
		done
		printf '"\n'
		echo 'FUSEGATE_GUEST_CMD="/tests/run-mutants"'
	} > "$root/etc/fusegate.env"
	local suites=()
	if [ "$kunit" = 1 ]; then
		mapfile -t suites < <(grep -ho '\.name = "fuse_[a-z_]*"' fs/fuse/tests/*.c | cut -d'"' -f2)
	fi
	python3 "$FUSEGATE_ROOT/scripts/mutschema.py" units --bin "$bin" "${prog_list[@]}" \
		${suites[@]:+--kunit "${suites[@]}"} \
		${whole_list[@]:+--whole "${whole_list[@]}"} \
		> "$root/etc/mut/units" || die_infra "no harness tests listed by ${prog_list[*]}"
	python3 - "$results/plan.json" > "$root/etc/mut/mutants" <<'EOF'
import json, sys
for m in json.load(open(sys.argv[1]))['mutants']:
    if 'site' in m:
        print(m['num'], m['site'], m['id'], m.get('need', 'any'))
EOF
	log "$(wc -l < "$root/etc/mut/units") unit(s), $(wc -l < "$root/etc/mut/mutants") mutant(s) in the schema"
}

# collect: guest.out, the lines of every boot in order (BOOT N before
# each); a boot that ended while a mutant was on (its last line a RUN)
# gets that mutant's verdict from how it ended (guest-N.end: a crash, or
# a hang the idle limit stopped): killed by the unit that ran
collect() {
	local n out last
	local -a lost=()
	: > "$lane/guest.out.new"
	for n in $(boots); do
		out="$lane/guest-$n.out"
		{
			echo "BOOT $n"
			grep -E '^(BASE|BOOTSITES|RUN|MUT|REBOOT|MUTANTS-END)' "$out" || true
			last=$(grep -E '^(RUN|MUT|REBOOT|MUTANTS-END)' "$out" | tail -1 || true)
			# guest-N.end says how the boot ended: crash (the console has
			# a panic or an oops), hang (stopped by the idle limit) kill
			# the mutant that was on; lost (no evidence: the time limit,
			# QEMU) or none (interrupted) leave it to run again, but a
			# mutant on at two lost ends is killed by them
			if [[ "$last" =~ ^RUN\ ([0-9]+)\ ([0-9]+) ]] && [ -e "$lane/guest-$n.end" ]; then
				case "$(cat "$lane/guest-$n.end")" in
				crash|hang)
					echo "MUT ${BASH_REMATCH[1]} killed ${BASH_REMATCH[2]} $(cat "$lane/guest-$n.end")" ;;
				lost)
					if [ "${lost[${BASH_REMATCH[1]}]:-0}" -ge 1 ]; then
						echo "MUT ${BASH_REMATCH[1]} killed ${BASH_REMATCH[2]} lost-twice"
					fi
					lost[${BASH_REMATCH[1]}]=$(( ${lost[${BASH_REMATCH[1]}]:-0} + 1 )) ;;
				esac
				echo "REBOOT host"
			fi
		} >> "$lane/guest.out.new"
	done
	mv "$lane/guest.out.new" "$lane/guest.out"
}

# boots: the numbers of the boots so far, in order
boots() {
	local f
	for f in "$lane"/guest-*.out; do
		[ -e "$f" ] || continue
		f=${f##*/guest-}
		echo "${f%.out}"
	done | sort -n
}

# boot_until_done ROOT PLAN [RESULTS...]: boot, and boot again after each
# reboot the guest asks for or a crash or a hang, until every mutant of
# PLAN has its verdict; the boots' files go to the directory $lane, and
# RESULTS (a baseline run elsewhere) count as done
boot_until_done() {
	local root=$1 plan=$2 boot before after out con todo rc
	shift 2
	boot=$(boots | tail -1)
	boot=${boot:-0}
	while :; do
		collect
		todo=$(python3 "$FUSEGATE_ROOT/scripts/mutschema.py" resume --plan "$plan" \
			--results "$lane/guest.out" "$@" --root "$root")
		[ "$boot" -gt 0 ] && [ "$todo" = 0 ] && return 0
		boot=$((boot + 1))
		[ "$boot" -le $(( $(wc -l < "$root/etc/mut/mutants") + 3 )) ] ||
			die_infra "more boots than mutants: the runner is stuck (see $lane/guest.out)"
		guest_initramfs "$root" "$lane/initramfs.cpio"
		out="$lane/guest-$boot.out"
		con="$lane/console-$boot.log"
		log "boot $boot: $todo mutant(s) to judge"
		before=$(grep -c '^MUT \|^BASE ' "$lane/guest.out" || true)
		# a guest that asked for a reboot has a kernel known to be
		# broken: it gets 15 s to power off, not the gate's 130
		rc=0
		# the KUnit suites run at boot (that is what gives them their
		# debugfs run files); the guest runs them again as units
		GUEST_KVM=0 GUEST_KUNIT=$kunit GUEST_HOST_SHARE=0 GUEST_IDLE_LIMIT=$idle GUEST_DONE_GRACE=15 \
			guest_boot "$GUEST_BUILD_DIR/arch/x86/boot/bzImage" "$lane/initramfs.cpio" \
			"$con" "$out" "$timeout" || rc=$?
		if [ -e "$con.idle" ]; then
			echo hang
		elif [ "$rc" = 0 ] && grep -Eq 'Kernel panic|Oops|BUG:|general protection fault|kernel BUG' "$con"; then
			echo crash
		else
			echo lost
		fi > "$lane/guest-$boot.end"
		grep -q FUSEGATE-BOOT-OK "$con" || die_infra "the guest did not boot (see $con)"
		! grep -q '^REBOOT no-' "$out" ||
			die_infra "the guest cannot run the schema: $(grep -m1 '^REBOOT' "$out")"
		! grep -q '^REBOOT baseline-splat' "$out" ||
			die_infra "the unmutated kernel printed a splat under the baseline (see $con)"
		! grep -q '^REBOOT baseline-unhealthy' "$out" ||
			die_infra "the unmutated kernel was left unfit by the baseline: $(grep -m1 '^REBOOT' "$out") (see $con)"
		collect
		after=$(grep -c '^MUT \|^BASE ' "$lane/guest.out" || true)
		[ "$after" -gt "$before" ] ||
			die_infra "boot $boot judged no mutant and ran no test (see $con)"
	done
}

# lane_root ROOT L KIND: the root of lane L (KIND baseline: every LANES-th
# unit and no mutant; mutants: every unit and every LANES-th mutant), its
# files hard links to ROOT's but for its own lists
lane_root() {
	local root=$1 l=$2 kind=$3 dir
	dir="$results/lane-$l/root-$kind"
	rm -rf "$dir"
	mkdir -p "$results/lane-$l"
	# a copy, not hard links: the initramfs step writes files in place
	cp -a "$root" "$dir" || die_infra "cannot copy the guest's files for lane $l"
	rm -f "$dir"/etc/mut/*
	if [ "$kind" = baseline ]; then
		# dealt by their expected time (a program run whole about two
		# minutes, a KUnit suite seconds, a test a quarter of a second),
		# the longest first, each to the lane with the least so far
		awk -v n="$lanes" -v l="$l" '
			{ w = $3 == "*" ? 120 : $2 == "kunit" ? 5 : 0.25
			  printf "%s %d %s\n", w, NR, $0 }' "$root/etc/mut/units" |
		sort -k1,1nr -k2,2n |
		awk -v n="$lanes" -v l="$l" '{
			best = 1
			for (i = 2; i <= n; i++) if (load[i] < load[best]) best = i
			load[best] += $1
			if (best == l) print $2, $0 }' |
		sort -n | cut -d' ' -f4- > "$dir/etc/mut/units"
		: > "$dir/etc/mut/mutants"
	else
		cp "$root/etc/mut/units" "$dir/etc/mut/units"
		awk -v n="$lanes" -v l="$l" '(NR - 1) % n == l - 1' "$root/etc/mut/mutants" > "$dir/etc/mut/mutants"
	fi
}

# lane_plan L: the plan of lane L's mutants
lane_plan() {
	python3 - "$results/plan.json" "$results/lane-$1/root-mutants/etc/mut/mutants" \
		> "$results/lane-$1/plan.json" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))
mine = {int(line.split()[0]) for line in open(sys.argv[2]) if line.strip()}
plan['mutants'] = [m for m in plan['mutants'] if m['num'] in mine]
json.dump(plan, sys.stdout)
PY
}

# wait_lanes WHAT: every lane (the process groups in lane_pids), each to
# its end; the first that fails stops the others, an infrastructure error
wait_lanes() {
	local what=$1 pid rc l
	while [ "${#lane_pids[@]}" -gt 0 ]; do
		rc=0
		wait -n -p pid "${lane_pids[@]}" || rc=$?
		for l in "${!lane_pids[@]}"; do
			[ "${lane_pids[$l]}" != "$pid" ] || unset "lane_pids[$l]"
		done
		if [ "$rc" != 0 ]; then
			stop_lanes
			die_infra "$what: a lane failed, exit $rc (see $results/lane-*)"
		fi
	done
}

# stop_lanes: the lanes that still run, their guests with them (each lane
# is a process group of its own: job control)
stop_lanes() {
	local pid
	for pid in "${lane_pids[@]}"; do
		kill -TERM -- "-$pid" 2>/dev/null || true
	done
	for pid in "${lane_pids[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	lane_pids=()
}

# start_lane DIR ROOT PLAN [RESULTS...]: boots until done in the
# background, in a process group of its own; DIR is the lane's directory
start_lane() {
	local dir=$1
	shift
	set -m
	( trap - INT TERM EXIT; lane=$dir; boot_until_done "$@" ) &
	set +m
	lane_pids+=($!)
}

# run_lanes ROOT: LANES guests at once, each on its part of the units (the
# baseline: each unit's sites do not depend on the guest it ran in) and
# then of the mutants, every lane with the whole baseline; guest.out
# gathers every lane's lines
run_lanes() {
	local root=$1 l n units
	lane_pids=()
	trap 'stop_lanes; restore_tree; exit 130' INT TERM
	echo '{"mutants": [], "sites": []}' > "$results/plan-none.json"
	if ! grep -q '^BASE-END' "$results/baseline.out" 2>/dev/null; then
		for l in $(seq 1 "$lanes"); do
			lane_root "$root" "$l" baseline
			mkdir -p "$results/lane-$l/baseline"
		done
		# a lane whose baseline boot ended early (a reboot it asked for,
		# a lost guest) boots again, twice at most
		for _ in 1 2 3; do
			for l in $(seq 1 "$lanes"); do
				! grep -q '^BASE-END' "$results/lane-$l/baseline/guest.out" 2>/dev/null ||
					continue
				start_lane "$results/lane-$l/baseline" "$results/lane-$l/root-baseline" \
					"$results/plan-none.json"
			done
			wait_lanes "the baseline"
		done
		for l in $(seq 1 "$lanes"); do
			grep -q '^BASE-END' "$results/lane-$l/baseline/guest.out" ||
				die_infra "lane $l's baseline did not complete (see $results/lane-$l/baseline)"
		done
		{
			grep -h '^BASE [0-9]' "$results"/lane-*/baseline/guest.out
			grep -h -m1 '^BOOTSITES' "$results/lane-1/baseline/guest.out" || true
			echo BASE-END
		} > "$results/baseline.out"
		units=$(grep -c '^BASE [0-9]' "$results/baseline.out")
		[ "$units" = "$(wc -l < "$root/etc/mut/units")" ] ||
			die_infra "the lanes' baseline has $units unit(s) of $(wc -l < "$root/etc/mut/units")"
	fi
	# no more lanes than mutants: a lane with none would boot for nothing
	n=$(wc -l < "$root/etc/mut/mutants")
	[ "$n" -ge "$lanes" ] || lanes=$n
	for l in $(seq 1 "$lanes"); do
		lane_root "$root" "$l" mutants
		lane_plan "$l"
		start_lane "$results/lane-$l" "$results/lane-$l/root-mutants" "$results/lane-$l/plan.json" \
			"$results/baseline.out"
	done
	wait_lanes "the mutants"
	trap - INT TERM
	cat "$results"/lane-*/baseline/guest.out "$results"/lane-*/guest.out > "$results/guest.out"
}

# stash_resume / unstash_resume: with --resume, the boots of an earlier
# run of the same plan are kept (runner_start empties the results)
stash_resume() {
	[ "$resume" = 1 ] && [ -f "$results/plan.json" ] || return 0
	stash=$(mktemp -d)
	cp "$results/plan.json" "$stash/"
	cp "$results/resume.key" "$stash/" 2>/dev/null || true
	cp "$results"/guest-*.out "$results"/guest-*.end "$stash/" 2>/dev/null || true
	cp -r "$results"/lane-* "$results/baseline.out" "$stash/" 2>/dev/null || true
}

unstash_resume() {
	[ -n "${stash:-}" ] || return 0
	if [ -f "$stash/resume.key" ] && cmp -s "$stash/resume.key" "$results/resume.key"; then
		log "resuming: the boots of the earlier run of this plan are kept"
		cp "$stash"/guest-* "$results/" 2>/dev/null || true
		cp -r "$stash"/lane-* "$stash/baseline.out" "$results/" 2>/dev/null || true
	else
		log "WARNING: --resume: the plan is not the earlier run's: starting over"
	fi
	rm -rf "$stash"
}

main() {
	local t0 t_schema t_build t_guest rc=0 root units_s
	stash_resume
	runner_start
	trap restore_tree EXIT
	restore_tree
	kunit=0
	! tree_has_kunit_hook || kunit=1
	t0=$(now)
	seed_build
	# the mutants are drawn from the files the guest compiles: a tree
	# without a build builds once, unmutated, first (the same draw on
	# every machine)
	if [ ! -d "$GUEST_BUILD_DIR/fs/fuse" ]; then
		mkdir -p "$GUEST_BUILD_DIR"
		guest_write_config "$GUEST_BUILD_DIR/fusegate.config" "$kunit"
		guest_build_kernel "$GUEST_BUILD_DIR" "$GUEST_BUILD_DIR/fusegate.config" \
			"$results/build.log" "$jobs"
	fi
	list_mutants > "$results/mutants.all"
	if [ -n "$shard" ]; then
		python3 "$FUSEGATE_ROOT/scripts/mutschema.py" shard --shard "$shard" \
			< "$results/mutants.all" > "$results/mutants.txt"
	else
		cp "$results/mutants.all" "$results/mutants.txt"
	fi
	[ -s "$results/mutants.txt" ] || die_infra "no mutants to run"
	: > "$results/fresh.txt"
	[ "$fresh" = 0 ] || add_fresh
	log "$(wc -l < "$results/mutants.txt") mutant(s): $set_kind, $set_name${shard:+, shard $shard}, seed $seed"
	write_schema
	t_schema=$(( $(now) - t0 ))
	t0=$(now)
	guest_build_kernel "$GUEST_BUILD_DIR" "$GUEST_BUILD_DIR/fusegate.config" \
		"$results/build.log" "$jobs"
	root="$GUEST_BUILD_DIR/fusegate-mut"
	rm -rf "$root"
	stage_guest "$root"
	resume_key "$root"
	unstash_resume
	t_build=$(( $(now) - t0 ))
	t0=$(now)
	if [ "$lanes" -gt 1 ]; then
		run_lanes "$root"
	else
		lane=$results
		boot_until_done "$root" "$results/plan.json"
	fi
	t_guest=$(( $(now) - t0 ))
	units_s=$(awk '$1 == "BASE" { s += $4 } END { printf "%.0f", s }' "$results/guest.out")
	{
		echo "schema and fs/fuse compile: ${t_schema}s"
		echo "kernel build and initramfs: ${t_build}s"
		echo "guest (all boots): ${t_guest}s, of which the baseline's units ${units_s}s"
		echo "boots: $(grep -c '^BOOT ' "$results/guest.out") in $lanes lane(s)"
	} > "$results/times.txt"
	python3 "$FUSEGATE_ROOT/scripts/mutschema.py" report --plan "$results/plan.json" \
		--results "$results/guest.out" --triage "$FUSEGATE_ROOT/docs/mutant-triage.md" \
		--json "$results/mutants.json" --fresh "$results/fresh.txt" \
		--fresh-seed "$fresh_seed" > "$results/report.txt" || rc=$?
	cat "$results/report.txt" "$results/times.txt"
	case "$rc" in
	0) exit "$EXIT_PASS" ;;
	1) exit "$EXIT_FAIL" ;;
	*) die_infra "mutants were left without a verdict (see $results/report.txt)" ;;
	esac
}

main
