#!/usr/bin/env bash
# Prove that the tests can fail: break one kernel check at a time (remove
# it, invert it, move its boundary) and expect the suites to fail.
set -Eeuo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOF
Usage: $(basename "$0") [OPTIONS] [MUTANT...]

For each mutant (default: all of the set), apply one source change to
the file it names in a tree prepared for it, run the suites, and report
whether they caught it: a mutant is caught when the run fails (a test
failure or a kernel splat), and the table names the tests that failed.
The tree goes back to its commits after each mutant.

Sets:
  (default)   the checks of our series: the compound reply rules, named
              as in the kernel comments (rule N, name), discovery, the
              fallback's dependencies, credentials; in tree 'mutant'
              (kernel-patches/ applied)
  --generated every condition and error path of fs/fuse, mutated by
              scripts/mutgen.py (negate, never, drop an operand, move a
              boundary, swap an errno, return 0, drop fuse_make_bad() or
              a FORGET or RELEASE call) in the files the guest compiles;
              with --stock of stock 6.12, else of the series; a random
              --sample of them, one kernel each, scored with a 95%
              interval; docs/mutant-triage.md explains known survivors
  --stock     the checks of stock 6.12 that docs/stock-checks.md lists,
              a mutant per row (its 'mutant' column), in tree
              'mutant-stock' (no series): the stock-check selftests must
              catch them; the rows whose mutant no input tells
              apart (notes "equivalent") are listed, and run
              only when named

Options:
  --runner R   guest (default: run_selftests.sh --with-kunit, one boot for
               KUnit and the selftests), kunit (run_kunit.sh) or
               selftests (run_selftests.sh)
  --stock      the stock set (see above)
  --generated  the generated set (see above)
  --sample N   with --generated: run N mutants drawn at random (default 20)
  --seed S     the draw's seed (default 1): the same seed, the same mutants
  --series PATH  with --generated: mutants of this series (a directory of
               patches, as ./fusegate gate takes it; e.g.
               kernel-patches/split) instead of kernel-patches/, in tree
               'mutgen-NAME' (NAME: the directory's name)
  --batch N    apply up to N mutants at once (those whose substitutions
               still apply), run once, and count each caught when a test
               named after it failed: for the stock set, whose tests are
               named after their rows (default 1: one mutant per run)
  --timeout S  the guest's time limit (default: the runner's); a mutant
               that hangs the kernel costs no more than this
  --list       list the mutants and exit
  --raw-list   print the mutants as id|file|what|substitution lines and
               exit, the equivalent ones left out (scripts/mutation-schema.sh
               --hand reads them)
  --jobs N     parallel build jobs
  -h, --help   show this help

The table goes to results/mutants-SET.txt (generated: mutants-gen-SET.txt,
then the score, per file, and the survivors the triage does not explain).

Exit status: 0 every mutant caught, 1 a mutant survived, 2 usage error,
3 infrastructure error.
EOF
}

# id | file | what is changed | perl substitution (perl -0pi -e)
# The ids are the rule names the kernel comments, the KUnit cases, the
# selftests' reply edits and their variants use.
SERIES_MUTANTS=(
	'cut_in_compound_out|fs/fuse/dev.c|no check that compound_out fits|s/\tif \(left < sizeof\(cout\)\)\n\t\treturn -EINVAL;\n//'
	'cut_in_subheader|fs/fuse/dev.c|no check that a subreply header fits|s/\t\tif \(left < sizeof\(oh\)\)\n\t\t\treturn -EINVAL;\n//'
	'cut_in_payload|fs/fuse/dev.c|no check that a payload fits|s/\t\tif \(payload > left\)\n\t\t\treturn -EINVAL;\n//'
	'trailing_bytes|fs/fuse/dev.c|trailing bytes accepted|s/return left \? -EINVAL : 0;/return 0;/'
	'sub_unique|fs/fuse/dev.c|subreply unique not checked|s/\t\tif \(oh.unique != i\)\n\t\t\treturn -EINVAL;\n//'
	'sublen_below_header|fs/fuse/dev.c|subreply len check inverted|s/if \(oh.len < sizeof\(oh\)\)/if (oh.len >= sizeof(oh))/'
	'sub_error_range|fs/fuse/dev.c|subreply error range not checked|s/\t\t\tif \(!fuse_reply_error_valid\(oh.error\)\)\n\t\t\t\treturn -EINVAL;\n//'
	'error_with_payload|fs/fuse/dev.c|error-with-payload check inverted|s/\t\t\tif \(payload\)\n\t\t\t\treturn -EINVAL;/\t\t\tif (!payload)\n\t\t\t\treturn -EINVAL;/'
	'payload_mismatch|fs/fuse/dev.c|payload at least as long as the out-args accepted|s/if \(payload == expected\)\n\t\treturn 0;/if (payload >= expected)\n\t\treturn 0;/'
	'payload_mismatch_shrink|fs/fuse/dev.c|no limit on how far a variable arg shrinks|s/\tif \(expected - payload > var->size\)\n\t\treturn -EINVAL;\n//'
	'payload_mismatch_fixed_shrink|fs/fuse/dev.c|fixed out-args may shrink|s/ \|\| !args->out_argvar \|\|\n/ ||\n/'
	'compound_out_reserved|fs/fuse/dev.c|reserved fields of compound_out not checked|s/\tif \(cout.reserved\[0\] \|\| cout.reserved\[1\]\)\n\t\treturn -EINVAL;\n//'
	'discovery_enosys|fs/fuse/compound.c|ENOSYS does not disable compounds|s/\tif \(err == -ENOSYS\)\n\t\treturn true;\n//'
	'discovery_answered_error|fs/fuse/compound.c|an answered error of an unknown connection is the result|s/\treturn answered && !READ_ONCE\(fc->compound_ok\) &&/\treturn false \&\& answered \&\& !READ_ONCE(fc->compound_ok) \&\&/'
	'discovery_known_error|fs/fuse/compound.c|errors disable compounds known to work|s/\treturn answered && !READ_ONCE\(fc->compound_ok\) &&/\treturn answered \&\&/'
	'discovery_kernel_error|fs/fuse/compound.c|the kernel'"'"'s own errors count as answers|s/\treturn answered && !READ_ONCE\(fc->compound_ok\) &&/\treturn !READ_ONCE(fc->compound_ok) \&\&/'
	'discovery_eintr|fs/fuse/compound.c|EINTR of an interrupted compound counts as an answer|s/ && err != -EINTR;/;/'
	'discovery_malformed|fs/fuse/dev.c|a malformed reply counts as an answer|s/\tif \(!err && req->args->is_compound\)\n/\tif (req->args->is_compound)\n/'
	'eopnotsupp_per_combination|fs/fuse/compound.c|a refused combination is asked again|s/\t\t\tif \(known_combo\)\n\t\t\t\tfuse_compound_remember_refusal\(fc, &combo\);\n//'
	'eopnotsupp_scope|fs/fuse/compound.c|EOPNOTSUPP refuses every combination|s/\tfor \(i = 0; i < n; i\+\+\) \{\n\t\tif \(fuse_compound_combo_eq\(&fc->compound_refused\[i\], combo\)\)\n\t\t\treturn true;\n\t\}\n\treturn false;/\treturn n > 0;/'
	'refused_check_lock_free|fs/fuse/compound.c|the refused combinations are read under the connection lock|s/\tfor \(i = 0; i < n; i\+\+\) \{\n\t\tif \(fuse_compound_combo_eq\(&fc->compound_refused\[i\], combo\)\)\n\t\t\treturn true;\n\t\}\n\treturn false;/\tspin_lock(\&fc->ch.lock);\n\tfor (i = 0; i < n; i++) {\n\t\tif (fuse_compound_combo_eq(\&fc->compound_refused[i], combo))\n\t\t\tbreak;\n\t}\n\tspin_unlock(\&fc->ch.lock);\n\treturn i < n;/'
	'fallback_skip|fs/fuse/compound.c|the fallback sends ops marked skip_on_fallback|s/\t\tif \(ops\[i\].skip_on_fallback\) \{\n\t\t\tops\[i\].skipped = true;\n\t\t\t\*ops\[i\].error = -EOPNOTSUPP;\n\t\t\tcontinue;\n\t\t\}\n//'
	'dep_old_minor|fs/fuse/compound.c|a dependency is judged by the full entry size|s/sizeof_field\(struct fuse_entry_out, nodeid\)/sizeof(struct fuse_entry_out)/'
	'dep_failed_producer|fs/fuse/compound.c|the dependent of a failed op is sent|s/\tif \(\*dep->error\)\n\t\treturn \*dep->error;\n//'
	'dep_attr_type|fs/fuse/dir.c|dependent attributes of another type used|s/\t\t!inode_wrong_type\(inode, attr->mode\) &&\n//'
	'dep_attr_node|fs/fuse/dir.c|dependent attributes of another node used|s/ &&\n\t\tattr->ino == get_fuse_inode\(inode\)->orig_ino;/;/'
	'dep_attr_valid|fs/fuse/dir.c|invalid dependent attributes used|s/\treturn !fuse_invalid_attr\(attr\) &&\n\t\t/\treturn /'
	'credentials_uid|fs/fuse/dev.c|subrequests name uid 0|s/\t\t\t.uid = req->in.h.uid,/\t\t\t.uid = 0,/'
	'credentials_pid|fs/fuse/dev.c|subrequests name pid 0|s/\t\t\t.pid = req->in.h.pid,/\t\t\t.pid = 0,/'
	'revalidation_as_stock|fs/fuse/dir.c|revalidation costs a second LOOKUP|s/(\t\tret = fuse_simple_request\(fm, &args\);\n\t\tdput\(parent\);)/\t\tfuse_simple_request(fm, \&args);\n$1/'
	'submit_count|fs/fuse/compound.c|a count above the maximum is accepted|s/if \(!count \|\| count > FUSE_COMPOUND_MAX_OPS\)/if (!count)/'
	'argvar_plain_last|fs/fuse/dev.c|plain reply shrinks the last out-arg, not the variable one|s/vararg = &args->out_args\[args->out_argvar_idx\];/vararg = \&args->out_args[args->out_numargs - 1];/'
	'argvar_compound_last|fs/fuse/dev.c|subreply shrinks the last out-arg, not the variable one|s/\n\tvar = &args->out_args\[args->out_argvar_idx\];/\n\tvar = \&args->out_args[args->out_numargs - 1];/'
	'argvar_return_last|fs/fuse/dev.c|plain request returns the size of the last out-arg|s/ret = args->out_args\[args->out_argvar_idx\].size;/ret = args->out_args[args->out_numargs - 1].size;/'
	'argvar_readlink_idx|fs/fuse/dir.c|readlink names a variable out-arg it does not have|s/ap.args.out_argvar_idx = 0;/ap.args.out_argvar_idx = 1;/'
	'argvar_getxattr_idx|fs/fuse/xattr.c|getxattr names a variable out-arg it does not have|s/(\t\targs.out_argvar = true;\n\t\targs.out_argvar_idx = )0;/${1}1;/'
	'open_error_leak|fs/fuse/file.c|a failed open leaks its fuse_file (caught by the fault injection and the leak scan)|s/(\} else if \(err != -ENOSYS\) \{\n)\t\t\tfuse_file_free\(ff\);\n/$1/'
	'export_time_unchecked|fs/fuse/dir.c|fuse_lookup_name() writes the time through a NULL pointer|s/\tif \(time\)\n\t\t\*time = /\t*time = /'
	'handle_size_zero|fs/fuse/handle.c|a handle of size 0 accepted|s/ \|\| !fh->size \|\| / || /'
	'handle_size_above_max|fs/fuse/handle.c|a handle above the largest the server declared accepted|s/ \|\| fh->size > fc->max_handle_sz \|\|/ ||/'
	'handle_missing|fs/fuse/handle.c|an entry without a handle accepted|s/if \(len < sizeof\(\*fh\) \|\| !fh->size \|\| /if (/'
	'handle_size_mismatch|fs/fuse/dev.c|a reply whose handle disagrees with it is not malformed|s/\treturn var->size > sizeof\(\*fh\) && var->size == sizeof\(\*fh\) \+ fh->size;/\treturn true;/'
	'handle_root_nodeid|fs/fuse/dir.c|the root nodeid accepted for a name|s/\tif \(hl->entry.nodeid == FUSE_ROOT_ID \|\|\n\t    fuse_handle_check/\tif (fuse_handle_check/'
	'handle_init_range|fs/fuse/inode.c|any max_handle_sz accepted at INIT|s/if \(arg->max_handle_sz &&\n\t\t\t\t    arg->max_handle_sz <= FUSE_MAX_HANDLE_SZ\)/if (1)/'
	'handle_stale|fs/fuse/inode.c|another handle or inode number of a known nodeid is the same object|s/ \|\|\n\t\t   \(fh && !fuse_iget_same_object\(inode, attr, fh\)\)\) \{/) {/'
	'handle_stale_ino|fs/fuse/inode.c|another inode number with the same handle is the same object|s/\treturn attr->ino == fi->orig_ino &&\n\t\tfuse_inode_match_handle/\treturn fuse_inode_match_handle/'
	'handle_match_compare|fs/fuse/handle.c|another handle matches the inode'"'"'s|s/\t\t\tret = FUSE_HANDLE_MISMATCH;/\t\t\tret = FUSE_HANDLE_MATCH;/'
	'handle_lookup_forget|fs/fuse/dir.c|a lookup by handle that fails keeps the granted nodeid|s/out_forget:\n\tfuse_queue_forget\(fc, forget, hl->entry.nodeid, 1\);\n\tforget = NULL;\n/out_forget:\n/'
	'handle_mkobj_release|fs/fuse/dir.c|a creation that fails keeps the granted open handle|s/\tif \(opened\) \{\n\t\tfuse_sync_release\(NULL, ff,\n\t\t\t\t  flags & ~\(O_CREAT \| O_EXCL \| O_TRUNC\)\);\n\t\tff = NULL;\n\t\}\n//'
	'handle_parent_ext|fs/fuse/handle.c|the handle of the parent not sent|s/\tif \(!size\)\n\t\treturn 0;/\treturn 0;/'
	'handle_revalidate_compare|fs/fuse/dir.c|revalidation does not compare handles|s/ \|\|\n\t    fuse_inode_match_handle\(fi, fh, true\) == FUSE_HANDLE_MISMATCH\)\n\t\tgoto out;/)\n\t\tgoto out;/'
	'no_minor_bump|include/uapi/linux/fuse.h|the kernel announces minor 42, io_uring'"'"'s upstream|s/#define FUSE_KERNEL_MINOR_VERSION 41/#define FUSE_KERNEL_MINOR_VERSION 42/'
	'creation_credentials|fs/fuse/dir.c|a creation by handle carries no ids on an idmapping super block|s/err = fuse_compound_send_idmap\(idmap, fm, hl->ops, count\);/err = fuse_compound_send_idmap(\&invalid_mnt_idmap, fm, hl->ops, count);/'
	'creation_type|fs/fuse/dir.c|a creation checks only the directory bit of the type made|s/\(\(attr.mode \^ mode\) & S_IFMT\)/((attr.mode ^ mode) \& S_IFDIR)/'
	'root_nodeid_on_creation|fs/fuse/dir.c|the root nodeid accepted for a new object|s/\tif \(invalid_nodeid\(mo->hl.entry.nodeid\) \|\|/\tif (!mo->hl.entry.nodeid ||/'
	'partial_statx|fs/fuse/dir.c|a STATX without every basic field fails the lookup|s/\t\tif \(\(sx->mask & STATX_BASIC_STATS\) != STATX_BASIC_STATS\) \{\n\t\t\tWRITE_ONCE\(fm->fc->partial_statx, true\);\n\t\t\tgoto getattr;\n\t\t\}/\t\tif ((sx->mask \& STATX_BASIC_STATS) != STATX_BASIC_STATS)\n\t\t\treturn -EIO;/'
	'handle_op_enosys|fs/fuse/dir.c|ENOSYS to a handle request fails the call|s/\tif \(hl->errors\[0\] == -ENOSYS \|\| hl->errors\[0\] == -EOPNOTSUPP\) \{\n\t\tWRITE_ONCE\(\*unknown, true\);\n\t\treturn true;\n\t\}\n//'
	'handle_eopnotsupp_remembered|fs/fuse/dir.c|EOPNOTSUPP to a handle request is asked again on every call|s/(\tif \(hl->errors\[0\] == -ENOSYS) \|\| hl->errors\[0\] == -EOPNOTSUPP\) \{/\tif (hl->errors[0] == -EOPNOTSUPP)\n\t\treturn true;\n$1) {/'
	'ok_after_failed_dep|fs/fuse/dev.c|a subreply that ran after its dependency failed is read|s/\t\t\tif \(dep < i && \*ca->ops\[dep\].error\)\n\t\t\t\treturn -EINVAL;\n//'
	'killpriv_fsetid_once|fs/fuse/dir.c|a creation asks CAP_FSETID before it knows it may go by handle|s/\tif \(idmap != &nop_mnt_idmap \|\| fuse_conn_handles\(fc\) <= 0 \|\|/\tif ((file \&\& fc->handle_killpriv_v2 \&\& (flags \& O_TRUNC) \&\&\n\t     !(flags \& O_EXCL) \&\& !capable(CAP_FSETID)) \|\|\n\t    idmap != \&nop_mnt_idmap \|\| fuse_conn_handles(fc) <= 0 \|\|/'
	'handles_need_transport|fs/fuse/inode.c|file handles offered on a transport that cannot carry compounds|s/\tif \(!READ_ONCE\(fc->no_compound\)\)\n\t\tflags \|= FUSE_HAS_LOOKUP_HANDLE;/\tflags |= FUSE_HAS_LOOKUP_HANDLE;/'
	'handles_need_compounds|fs/fuse/dir.c|lookups by handle without compounds (two round trips)|s/\treturn !READ_ONCE\(fc->no_lookup_handle\) &&\n\t\tfuse_compound_available\(fc, opcodes, ARRAY_SIZE\(opcodes\)\);/\treturn !READ_ONCE(fc->no_lookup_handle);/'
	'handles_never_alone|fs/fuse/dir.c|the fallback sends LOOKUP_HANDLE and its STATX one by one|s/\thl->ops\[0\].skip_on_fallback = true;/\thl->ops[0].skip_on_fallback = false;/'
	'refused_reply_gives_back|fs/fuse/compound.c|a refused reply overwrites what was read: nothing is given back|s/\tif \(err && !\(err == -EIO && !answered\)\)/\tif (err)/'
	'refused_reply_lookup_forget|fs/fuse/dir.c|a lookup keeps a nodeid read from a refused reply|s/out_refused:\n\t\/\* an entry read from a reply the kernel then refused \*\/\n\tif \(hl->errors\[0\] \|\| !hl->entry.nodeid\)\n\t\tgoto out;\n/out_refused:\n\tgoto out;\n/'
	'refused_reply_open_release|fs/fuse/file.c|an open whose refused reply was read keeps the server'"'"'s file|s/\t\t\tfuse_sync_release\(NULL, ff, open_flags &\n\t\t\t\t\t  ~\(O_CREAT \| O_EXCL \| O_NOCTTY \| O_TRUNC\)\);\n/\t\t\tfuse_file_free(ff);\n/'
	'handle_statx_placeholder|fs/fuse/dir.c|the STATX of a lookup names the root, not the dependency (RFC v3)|s/\thl->ops\[1\].dep_index = 0;/\thl->ops[1].dep_index = FUSE_COMPOUND_NO_DEP;\n\thl->args[1].nodeid = FUSE_ROOT_ID;/'
)

# The stock set: name | file | what | substitution, from the table, in
# rounds of one mutant per selftest program (the program whose tests carry
# the row's name), so that a batch puts each program before one mutant
stock_mutants() {
	python3 - "$FUSEGATE_ROOT/docs/stock-checks.md" \
		"$FUSEGATE_ROOT/selftests/filesystems/fuse_compound" <<'PY'
import os, re, sys
programs = {}
for f in os.listdir(sys.argv[2]):
    if f.startswith('fuse_stock_') and f.endswith('_test.c'):
        text = open(os.path.join(sys.argv[2], f)).read()
        for m in re.finditer(r'^(?:FIXTURE_VARIANT_ADD|TEST_F)\(\w+,\s*(\w+)\)', text, re.M):
            programs.setdefault(m.group(1), f)
by_program = {}
for line in open(sys.argv[1]):
    cells = [c.strip() for c in line.split('|')[1:-1]]
    if len(cells) < 6 or not cells[0].startswith('`'):
        continue
    name = cells[0].strip('`').replace('-', '_')
    m = re.match(r'(\w+\.c):', cells[1])
    sub = re.search(r'`(s/.*?/[a-z]*)`', cells[5])
    if not m or not sub:
        continue
    prog = next((p for n, p in programs.items() if n == name or n.startswith(name + '_')),
                'none')
    by_program.setdefault(prog, []).append('%s|fs/fuse/%s|%s|%s' % (
        name, m.group(1), cells[1][:60].replace('|', ' '), sub.group(1)))
rounds = max(len(v) for v in by_program.values())
for i in range(rounds):
    for prog in sorted(by_program):
        if i < len(by_program[prog]):
            print(by_program[prog][i])
PY
}

# The selftest program that holds each stock row, one "name program" a line
stock_programs() {
	python3 - "$FUSEGATE_ROOT/selftests/filesystems/fuse_compound" <<'PY'
import os, re, sys
for f in sorted(os.listdir(sys.argv[1])):
    if f.startswith('fuse_stock_') and f.endswith('_test.c'):
        text = open(os.path.join(sys.argv[1], f)).read()
        for m in re.finditer(r'^(?:FIXTURE_VARIANT_ADD|TEST_F)\(\w+,\s*(\w+)\)', text, re.M):
            print(m.group(1), f[:-2])
PY
}

# The stock rows whose mutant no input tells apart (their notes say
# "**equivalent"), one name a line
stock_equivalents() {
	python3 - "$FUSEGATE_ROOT/docs/stock-checks.md" <<'PY'
import sys
for line in open(sys.argv[1]):
    cells = [c.strip() for c in line.split('|')[1:-1]]
    if len(cells) >= 7 and cells[0].startswith('`') and cells[6].startswith('**equivalent'):
        print(cells[0].strip('`').replace('-', '_'))
PY
}

jobs=$(nproc)
batch=1
timeout=()
runner=guest
set_name=series
generated=0
sample=20
seed=1
selected=()
series=
while [ $# -gt 0 ]; do
	case "$1" in
	--list) list=1; shift ;;
	--series) [ $# -ge 2 ] || die_usage "--series needs a path"; series=$2; shift 2 ;;
	--raw-list) list=raw; shift ;;
	--stock) set_name=stock; shift ;;
	--generated) generated=1; shift ;;
	--sample) [ $# -ge 2 ] || die_usage "--sample needs a number"; sample=$2; shift 2 ;;
	--seed) [ $# -ge 2 ] || die_usage "--seed needs a number"; seed=$2; shift 2 ;;
	--batch) [ $# -ge 2 ] || die_usage "--batch needs a number"; batch=$2; shift 2 ;;
	--timeout) [ $# -ge 2 ] || die_usage "--timeout needs seconds"; timeout=(--timeout "$2"); shift 2 ;;
	--jobs) [ $# -ge 2 ] || die_usage "--jobs needs a number"; jobs=$2; shift 2 ;;
	--runner) [ $# -ge 2 ] || die_usage "--runner needs guest, kunit or selftests"
		runner=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	-*) die_usage "unknown option: $1" ;;
	*) selected+=("$1"); shift ;;
	esac
done
[[ "$batch" =~ ^[1-9][0-9]*$ ]] || die_usage "--batch must be a positive number: $batch"
[[ "$sample" =~ ^[1-9][0-9]*$ ]] || die_usage "--sample must be a positive number: $sample"
[[ "$seed" =~ ^[0-9]+$ ]] || die_usage "--seed must be a number: $seed"
[ "$generated" = 0 ] || [ "$batch" = 1 ] ||
	die_usage "--batch needs tests named after the mutants: not with --generated"
case "$runner" in
guest|kunit|selftests) ;;
*) die_usage "--runner must be guest, kunit or selftests: $runner" ;;
esac

# the selftest programs that can tell: the stock checks' for the stock
# set, all the others (and KUnit) for the series, and of the stock checks
# the privileges' (killpriv_fsetid_once is counted there)
programs=()
for f in "$FUSEGATE_ROOT"/selftests/filesystems/fuse_compound/*_test.c; do
	f=$(basename "$f" .c)
	case "$set_name:$f" in
	stock:fuse_stock_*|series:fuse_[!s]*|series:fuse_s[!t]*|series:fuse_stock_priv_test)
		programs+=(--only "$f") ;;
	esac
done
EQUIVALENT=()
[ -z "$series" ] || [ "$generated" = 1 ] ||
	die_usage "--series needs --generated: the hand-written mutants are of kernel-patches/"
if [ "$generated" = 1 ]; then
	# every program and KUnit: a generated mutant may be anyone's
	programs=()
	if [ -n "$series" ]; then
		[ "$set_name" = series ] || die_usage "--series and --stock: the stock set has no series"
		[ -e "$series" ] || die_usage "--series: no such series: $series"
		set_name=$(basename "$(realpath "$series")")
		tree_name=mutgen-$set_name
		prep=(--name "$tree_name" --series "$series")
	else
		tree_name=mutgen-$set_name
		if [ "$set_name" = stock ]; then prep=(--baseline --name "$tree_name"); else prep=(--name "$tree_name"); fi
	fi
	# the mutants are read off the prepared tree, in main()
	MUTANTS=()
	set_name=gen-$set_name
elif [ "$set_name" = stock ]; then
	mapfile -t MUTANTS < <(stock_mutants)
	mapfile -t EQUIVALENT < <(stock_equivalents)
	STOCK_PROGRAMS=$(stock_programs)
	tree_name=mutant-stock
	prep=(--baseline --name "$tree_name")
else
	MUTANTS=("${SERIES_MUTANTS[@]}")
	tree_name=mutant
	prep=(--name "$tree_name")
fi
# generated_mutants: the sample, from the tree; the files the guest compiles
# when it has been built once (else every file)
generated_mutants() {
	local built=()
	[ ! -d "$tree/build-guest/fs/fuse" ] || built=(--built "$tree/build-guest")
	python3 "$FUSEGATE_ROOT/scripts/mutgen.py" list --tree "$tree" "${built[@]}" \
		--sample "$sample" --seed "$seed"
}

if [ "$generated" = 1 ] && [ "${list:-0}" = 1 ]; then
	lock_tree "$tree_name"
	tree=$("$FUSEGATE_ROOT/scripts/prepare-tree.sh" "${prep[@]}") || exit $?
	mapfile -t MUTANTS < <(generated_mutants)
fi
if [ "${list:-0}" = raw ]; then
	# the equivalent ones (no input tells them apart) are not listed
	for m in "${MUTANTS[@]}"; do
		in_list "${m%%|*}" "${EQUIVALENT[@]}" || printf '%s\n' "$m"
	done
	exit 0
fi
if [ "${list:-0}" = 1 ]; then
	for m in "${MUTANTS[@]}"; do
		IFS='|' read -r id file what _ <<< "$m"
		printf '%-36s %-18s %s\n' "$id" "$file" "$what"
	done
	exit 0
fi
mapfile -t MUTANT_IDS < <(printf '%s\n' "${MUTANTS[@]}" | cut -d'|' -f1)
# Whether to run mutant ID: the named ones, or when none is named every
# one but the equivalent (listed in the table, not run)
wanted() {
	if [ ${#selected[@]} -gt 0 ]; then
		in_list "$1" "${selected[@]}"
	else
		! in_list "$1" "${EQUIVALENT[@]}"
	fi
}

[ "$generated" = 1 ] || for s in "${selected[@]}"; do
	in_list "$s" "${MUTANT_IDS[@]}" || die_usage "no such mutant: $s (see --list)"
done

# run_suites OUT [ID]: with the ID of one stock mutant, only the program
# that holds its row runs (its test must catch it; a third of the time)
run_suites() {
	local out=$1 id=${2:-} seed=() progs=("${programs[@]}") p
	if [ -n "$id" ] && [ "$set_name" = stock ]; then
		p=$(printf '%s\n' "$STOCK_PROGRAMS" | awk -v id="$id" \
			'!p && ($1 == id || index($1, id "_") == 1) { print $2; p = 1 }')
		[ -z "$p" ] || progs=(--only "$p")
	fi
	# a first build starts from the bare base's, when there is one
	[ ! -d "$FUSEGATE_CACHE/trees/baseline/build-guest" ] ||
		seed=(--seed-build "$FUSEGATE_CACHE/trees/baseline")
	case "$runner" in
	guest) "$FUSEGATE_ROOT/run_selftests.sh" --prepared "$tree" --with-kunit \
		"${seed[@]}" "${progs[@]}" "${timeout[@]}" --jobs "$jobs" --results "$out" ;;
	*) "$FUSEGATE_ROOT/run_$runner.sh" --prepared "$tree" "${timeout[@]}" --jobs "$jobs" \
		--results "$out" ;;
	esac
}

# The tests that failed in a run, from its summaries
failed_tests() {
	python3 - "$1" <<'PY'
import json, os, sys
names = []
for root, _, files in os.walk(sys.argv[1]):
    if 'summary.json' in files:
        d = json.load(open(os.path.join(root, 'summary.json')))
        for suite, cases in d.get('suites', {}).items():
            names += ['%s: %s' % (suite, c) for c, st in cases.items() if st == 'FAIL']
        names += ['splat: %s' % s[:80] for s in d.get('splats', [])]
print('; '.join(names[:4]) + (' (+%d)' % (len(names) - 4) if len(names) > 4 else ''))
PY
}

# The process each kernel splat of a run's console hit, one a line (its
# "Comm:", the first 15 characters of the program's name; '?' when the
# report names none)
splat_comms() {
	python3 - "$FUSEGATE_ROOT/scripts" "$1/console.log" <<'PY'
import re, sys
sys.path.insert(0, sys.argv[1])
from ktap_report import SPLATS
try:
    lines = open(sys.argv[2], errors='replace').read().splitlines()
except OSError:
    sys.exit(0)
for i, line in enumerate(lines):
    if any(p.search(line) for p in SPLATS):
        comm = '?'
        for follow in lines[i:i + 15]:
            m = re.search(r'\bComm: (\S+)', follow)
            if m:
                comm = m.group(1)
                break
        print(comm)
PY
}

# Whether a splat may belong to the program PROG (of COMM...): one hit
# it, or one hit a process that is not a stock test program (a kworker,
# '?'), which could be anybody's
splat_near() {
	local prog=$1 comm
	shift
	for comm in "$@"; do
		[ "$comm" != "$prog" ] || return 0
		[[ "$comm" == fuse_stock_* ]] || return 0
	done
	return 1
}

# Every test of a run with its status, one "STATUS suite: case" a line,
# and a "SPLAT" line per kernel splat
test_states() {
	python3 - "$1" <<'PY'
import json, os, sys
for root, _, files in os.walk(sys.argv[1]):
    if 'summary.json' in files:
        d = json.load(open(os.path.join(root, 'summary.json')))
        for suite, cases in d.get('suites', {}).items():
            for c, st in cases.items():
                print('%s %s: %s' % (st, suite, c))
        for s in d.get('splats', []):
            print('SPLAT %s' % s[:80])
PY
}

# Several mutants in one kernel: each is caught when a test named after it
# failed (the stock tests carry their row's name)
run_batches() {
	local todo=() m id file what subst n=0 out rc k applied states passed comms=() prog
	for m in "${MUTANTS[@]}"; do
		IFS='|' read -r id _ <<< "$m"
		if wanted "$id"; then
			todo+=("$m")
		fi
	done
	while [ ${#todo[@]} -gt 0 ]; do
		n=$((n + 1))
		git -C "$tree" checkout -q -f HEAD -- fs/fuse
		applied=()
		local rest=()
		for m in "${todo[@]}"; do
			IFS='|' read -r id file what subst <<< "$m"
			if [ ${#applied[@]} -ge "$batch" ]; then
				rest+=("$m")
				continue
			fi
			cp "$tree/$file" "$tree/$file.before"
			perl -0pi -e "$subst" "$tree/$file"
			if cmp -s "$tree/$file" "$tree/$file.before"; then
				rest+=("$m")	# masked by an earlier one: next batch
			else
				applied+=("$m")
			fi
			rm -f "$tree/$file.before"
		done
		[ ${#applied[@]} -gt 0 ] || {
			for m in "${rest[@]}"; do
				IFS='|' read -r id _ <<< "$m"
				printf '%-36s %-10s %s\n' "$id" "infra" "the substitution matches nothing" | tee -a "$table"
				survived=1
			done
			break
		}
		todo=("${rest[@]}")
		out="$FUSEGATE_ROOT/results/mutant-$set_name-batch$n"
		log "batch $n: ${#applied[@]} mutants, ${#todo[@]} left"
		rc=0
		run_suites "$out" > "$out.log" 2>&1 || rc=$?
		states=$(test_states "$out")
		mapfile -t comms < <(splat_comms "$out")
		for m in "${applied[@]}"; do
			IFS='|' read -r id file what _ <<< "$m"
			k=$(printf '%s\n' "$states" | sed -n 's/^FAIL //p' | grep -F -- "$id" || true)
			passed=$(printf '%s\n' "$states" | sed -n 's/^PASS //p' | grep -F -- "$id" || true)
			# the program whose tests carry the mutant's name, as the
			# kernel names it in a splat (15 characters)
			prog=$(printf '%s\n' "$passed" | sed -n '1s/:.*//p')
			prog=${prog:+${prog}_test}
			prog=${prog:0:15}
			if [ -n "$k" ]; then
				result=caught
			elif [ -n "$passed" ] && [ "$rc" -le 1 ] && ! splat_near "$prog" "${comms[@]}"; then
				# its tests passed, and no splat hit its program
				result=SURVIVED; survived=1
			else
				# its tests did not run (a neighbour hung or crashed
				# the guest), or a splat hit its program or cannot
				# be placed: alone
				solo+=("$m")
				result=unjudged; k="re-run alone (run exit $rc)"
			fi
			printf '%-36s %-10s batch %d: %s\n' "$id" "$result" "$n" \
				"$(printf '%s\n' "$k" | sed -n '1,2p' | tr '\n' ' ')" | tee -a "$table"
		done
	done
}

# One mutant in its own kernel: caught when the run fails
run_one() {
	local id file what subst out rc result
	IFS='|' read -r id file what subst <<< "$1"
	git -C "$tree" checkout -q -f HEAD -- fs/fuse
	perl -0pi -e "$subst" "$tree/$file"
	if git -C "$tree" diff --quiet -- "$file"; then
		die_infra "mutant $id: the substitution changed nothing ($file moved on?)"
	fi
	log "mutant $id ($what)"
	out="$FUSEGATE_ROOT/results/mutant-$set_name-$id"
	rc=0
	run_suites "$out" "$id" > "$out.log" 2>&1 || rc=$?
	case $rc in
	1) result=caught ;;
	0) result=SURVIVED; survived=1 ;;
	*) result="infra($rc)"; survived=1 ;;
	esac
	printf '%-36s %-10s %s / %s\n' "$id" "$result" "$what" \
		"$(failed_tests "$out" 2>/dev/null || true)" | tee -a "$table"
}

main() {
	local survived=0 m id solo=() table
	mkdir -p "$FUSEGATE_ROOT/results"
	table="$FUSEGATE_ROOT/results/mutants-$set_name.txt"
	lock_tree "$tree_name"
	tree=$("$FUSEGATE_ROOT/scripts/prepare-tree.sh" "${prep[@]}") || exit $?
	if [ "$generated" = 1 ]; then
		mapfile -t MUTANTS < <(generated_mutants)
		[ ${#MUTANTS[@]} -gt 0 ] || die_infra "no mutant made of $tree"
		log "${#MUTANTS[@]} generated mutant(s), seed $seed"
	fi
	printf '%-36s %-10s %s\n' mutant result "what it changes / the tests that failed" > "$table"
	if [ ${#selected[@]} -eq 0 ]; then
		for id in "${EQUIVALENT[@]}"; do
			printf '%-36s %-10s %s\n' "$id" equivalent \
				"not run: no input tells it apart (docs/stock-checks.md)" | tee -a "$table"
		done
	fi
	if [ "$batch" -gt 1 ]; then
		run_batches
		[ ${#solo[@]} -eq 0 ] || log "${#solo[@]} mutant(s) the batches could not judge: one at a time"
		for m in "${solo[@]}"; do
			run_one "$m"
		done
	else
		for m in "${MUTANTS[@]}"; do
			IFS='|' read -r id _ <<< "$m"
			if wanted "$id"; then
				run_one "$m"
			fi
		done
	fi
	git -C "$tree" checkout -q -f HEAD -- fs/fuse
	log "table: $table"
	if [ "$generated" = 1 ]; then
		python3 "$FUSEGATE_ROOT/scripts/mutgen.py" score "$table" \
			--triage "$FUSEGATE_ROOT/docs/mutant-triage.md" | tee "$table.score" || true
	fi
	exit "$survived"
}

main
