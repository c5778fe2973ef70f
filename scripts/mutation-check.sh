#!/usr/bin/env bash
# Prove that the KUnit suites can fail: break each check of the compound
# reply parser in turn (remove it, or invert it) and expect the run to fail.
set -Eeuo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"
trap_unexpected_errors

usage() {
	cat <<EOF
Usage: $(basename "$0") [OPTIONS] [MUTANT...]

For each mutant (default: all), apply one source change to fs/fuse/dev.c
(or the file the mutant names) of a tree prepared with our series (named 'mutant' in the cache), run a
suite, and report whether it caught the change.  A mutant is caught when
the runner exits 1 (test failure or kernel splat).  The tree is restored
after each mutant.  The table goes to results/mutants-RUNNER.txt.

Options:
  --runner R   kunit (run_kunit.sh, default) or selftests (run_selftests.sh)
  --list       list the mutants and exit
  --jobs N     parallel build jobs
  -h, --help   show this help

Exit status: 0 every mutant caught, 1 a mutant survived, 2 usage error,
3 infrastructure error.
EOF
}

# id | spec rule | what is changed | perl substitution [| file, default fs/fuse/dev.c]
MUTANTS=(
	'r1-compound-out|1|no check that compound_out fits|s/\tif \(left < sizeof\(cout\)\)\n\t\treturn -EINVAL;\n//'
	'r1-sub-header|1|no check that a subreply header fits|s/\t\tif \(left < sizeof\(oh\)\)\n\t\t\treturn -EINVAL;\n//'
	'r1-payload|1|no check that a payload fits|s/\t\tif \(payload > left\)\n\t\t\treturn -EINVAL;\n//'
	'r2-trailing|2|trailing bytes accepted|s/return left \? -EINVAL : 0;/return 0;/'
	'r3-unique|3|subreply unique not checked|s/if \(oh.unique != i \|\| /if (/'
	'r4-len-inverted|4|len check inverted|s/oh.len < sizeof\(oh\)\)/oh.len >= sizeof(oh))/'
	'r5-error-range|5|subreply error range not checked|s/if \(!fuse_reply_error_valid\(oh.error\) \|\| payload\)/if (payload)/'
	'r6-error-payload|6|error with payload check inverted|s/if \(!fuse_reply_error_valid\(oh.error\) \|\| payload\)/if (!fuse_reply_error_valid(oh.error) || !payload)/'
	'r7-too-long|7|payload at least as long as the out-args accepted|s/if \(payload == expected\)\n\t\treturn 0;/if (payload >= expected)\n\t\treturn 0;/'
	'r7-shrink|7|no limit on how far a variable arg shrinks|s/\tif \(expected - payload > var->size\)\n\t\treturn -EINVAL;\n//'
	'r7-fixed-shrink|7|fixed out-args may shrink|s/ \|\| !args->out_argvar \|\|\n/ ||\n/'
	'argvar-plain-last|-|plain reply shrinks the last out-arg, not the variable one|s/vararg = &args->out_args\[args->out_argvar_idx\];/vararg = &args->out_args[args->out_numargs - 1];/'
	'argvar-compound-last|7|subreply shrinks the last out-arg, not the variable one|s/var = &args->out_args\[args->out_argvar_idx\];/var = &args->out_args[args->out_numargs - 1];/'
	'argvar-return-last|-|plain request returns the size of the last out-arg|s/ret = args->out_args\[args->out_argvar_idx\].size;/ret = args->out_args[args->out_numargs - 1].size;/'
	'fallback-skip|-|the fallback sends ops marked skip_on_fallback|s/\t\tif \(ops\[i\].skip_on_fallback\) \{\n\t\t\t\*ops\[i\].error = -EOPNOTSUPP;\n\t\t\tcontinue;\n\t\t\}\n//'
	'export-time-unchecked|-|fuse_lookup_name() writes the time through a NULL pointer|s/\tif \(time\)\n\t\t\*time = /\t*time = /|fs/fuse/dir.c'
	'argvar-readlink-idx|-|readlink names a variable out-arg it does not have|s/ap.args.out_argvar_idx = 0;/ap.args.out_argvar_idx = 1;/|fs/fuse/dir.c'
	'argvar-getxattr-idx|-|getxattr names a variable out-arg it does not have|s/(\t\targs.out_argvar = true;\n\t\targs.out_argvar_idx = )0;/${1}1;/|fs/fuse/xattr.c'
	'discovery-enosys|-|ENOSYS does not disable compounds|s/\t\t\tfc->no_compound = 1;/\t\t\t;/'
	'submit-count|-|count above the maximum accepted|s/if \(!count \|\| count > FUSE_COMPOUND_MAX_OPS\)/if (!count)/'
)

jobs=$(nproc)
runner=kunit
selected=()
while [ $# -gt 0 ]; do
	case "$1" in
	--list)
		for m in "${MUTANTS[@]}"; do
			IFS='|' read -r id rule what _ <<< "$m"
			printf '%-20s rule %s  %s\n' "$id" "$rule" "$what"
		done
		exit 0 ;;
	--jobs) [ $# -ge 2 ] || die_usage "--jobs needs a number"; jobs=$2; shift 2 ;;
	--runner) [ $# -ge 2 ] || die_usage "--runner needs kunit or selftests"
		runner=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	-*) die_usage "unknown option: $1" ;;
	*) selected+=("$1"); shift ;;
	esac
done

case "$runner" in
kunit|selftests) ;;
*) die_usage "--runner must be kunit or selftests: $runner" ;;
esac

main() {
	local tree survived=0 m id rule what subst rc table
	mkdir -p "$FUSEGATE_ROOT/results"
	table="$FUSEGATE_ROOT/results/mutants-$runner.txt"
	lock_tree mutant
	tree=$("$FUSEGATE_ROOT/scripts/prepare-tree.sh" --name mutant) || exit $?
	printf '%-20s %-5s %-50s %s\n' mutant rule change result > "$table"
	for m in "${MUTANTS[@]}"; do
		IFS='|' read -r id rule what subst file <<< "$m"
		file=${file:-fs/fuse/dev.c}
		if [ ${#selected[@]} -gt 0 ] && ! printf '%s\n' "${selected[@]}" | grep -qx "$id"; then
			continue
		fi
		git -C "$tree" checkout -q -f HEAD -- fs/fuse
		perl -0pi -e "$subst" "$tree/$file"
		if git -C "$tree" diff --quiet -- "$file"; then
			die_infra "mutant $id: the substitution changed nothing ($file moved on?)"
		fi
		log "mutant $id ($what)"
		set +e
		"$FUSEGATE_ROOT/run_$runner.sh" --prepared "$tree" --jobs "$jobs" \
			--results "$FUSEGATE_ROOT/results/mutant-$runner-$id" \
			> "$FUSEGATE_ROOT/results/mutant-$runner-$id.log" 2>&1
		rc=$?
		set -e
		case $rc in
		1) result=caught ;;
		0) result=SURVIVED; survived=1 ;;
		*) result="infra error ($rc)"; survived=1 ;;
		esac
		printf '%-20s %-5s %-50s %s\n' "$id" "$rule" "$what" "$result" | tee -a "$table"
		grep -E '^  FAILED|KERNEL SPLAT' "$FUSEGATE_ROOT/results/mutant-$runner-$id.log" | head -4 || true
	done
	git -C "$tree" checkout -q -f HEAD -- fs/fuse
	exit "$survived"
}

main
