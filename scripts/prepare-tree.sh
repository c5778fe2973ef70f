#!/usr/bin/env bash
# Prepare a kernel tree for the runners: Debian's linux-source-6.12 (or a
# tree of your own) with a patch series applied, in the cache directory.
set -Eeuo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOF
Usage: $(basename "$0") [OPTIONS]

Prepare a kernel tree in the cache and print its path on stdout.

The base is Debian's linux-source-6.12 tarball, unpacked once and kept as
a git repository; each prepared tree is a git repository whose tag
fusegate-base is that base, with one commit per patch of the series on
top ('git am').  A prepared tree is reused only when it is verified to
carry exactly the series asked for: no am, rebase or merge in progress,
a clean work tree (build directories aside), and one commit per patch on
fusegate-base with the same diff (git patch-id) in the same order.
Anything else is reset to the base and the series applied again, and the
log says why.  Files the series does not touch keep their timestamps, so
builds stay incremental.

Series (--series): a directory whose 'series' file lists the patches in
order; a directory of mails; an mbox; or one patch file.  Cover letters
and review replies ('Re:') are skipped, and with several versions in one
mbox the newest complete one is taken (see scripts/series.py --help).

Options:
  --series PATH       the series (default: kernel-patches/ of this repository)
  --version N         take version N of a series posted several times
  --baseline          no series: the base alone (tree 'baseline')
  --no-series         no series: the tree as it is (with --tree: a tree that
                      already carries the changes)
  --tree DIR          the base is this kernel tree instead of the tarball
                      (copied; nothing in DIR is changed)
  --range BASE..HEAD  with --tree DIR, a git repository: the base is commit
                      BASE of DIR and the series the commits BASE..HEAD
                      (with --baseline: commit BASE alone)
  --name NAME         name of the prepared tree in the cache
                      (default: 'patched', or 'baseline' with --baseline)
  --cache DIR         cache directory (default: \$FUSEGATE_CACHE or
                      /var/cache/fusegate)
  -h, --help          show this help

The tree is locked while it is prepared; a runner that prepares a tree
holds that lock until it has its results (scripts/lib.sh: lock_tree).

Exit status: 0 prepared, 2 usage error, 3 infrastructure error (missing
package, a series that is incomplete or does not apply: the mail, patch
and hunk are named; any other failure names the command that failed).
EOF
}

series="$FUSEGATE_ROOT/kernel-patches"
no_series=0
user_tree=
range=
version=
name=
default_name=patched

while [ $# -gt 0 ]; do
	case "$1" in
	--series) [ $# -ge 2 ] || die_usage "--series needs a path"
		series=$2; shift 2 ;;
	--series=*) series=${1#*=}; shift ;;
	--version) [ $# -ge 2 ] || die_usage "--version needs a number"
		version=$2; shift 2 ;;
	--version=*) version=${1#*=}; shift ;;
	--baseline) no_series=1; default_name=baseline; shift ;;
	--no-series) no_series=1; shift ;;
	--tree) [ $# -ge 2 ] || die_usage "--tree needs a directory"
		user_tree=$2; shift 2 ;;
	--tree=*) user_tree=${1#*=}; shift ;;
	--range) [ $# -ge 2 ] || die_usage "--range needs BASE..HEAD"
		range=$2; shift 2 ;;
	--range=*) range=${1#*=}; shift ;;
	--name) [ $# -ge 2 ] || die_usage "--name needs a value"
		name=$2; shift 2 ;;
	--name=*) name=${1#*=}; shift ;;
	--cache) [ $# -ge 2 ] || die_usage "--cache needs a directory"
		FUSEGATE_CACHE=$2; shift 2 ;;
	--cache=*) FUSEGATE_CACHE=${1#*=}; shift ;;
	-h|--help) usage; exit 0 ;;
	*) die_usage "unknown argument: $1" ;;
	esac
done

name=${name:-$default_name}
case "$name" in
*/*|.*|'') die_usage "--name must be a plain name: $name" ;;
esac
[ -z "$version" ] || [[ "$version" =~ ^[1-9][0-9]*$ ]] ||
	die_usage "--version must be a positive number: $version"
if [ -n "$user_tree" ]; then
	[ -f "$user_tree/Makefile" ] && [ -d "$user_tree/fs/fuse" ] ||
		die_usage "--tree $user_tree is not a kernel tree (no Makefile or fs/fuse)"
	user_tree=$(cd "$user_tree" && pwd)
fi
if [ -n "$range" ]; then
	[ -n "$user_tree" ] || die_usage "--range needs --tree DIR (a git repository)"
	[[ "$range" =~ ^[^.[:space:]]+\.\.[^.[:space:]]+$ ]] ||
		die_usage "--range must be BASE..HEAD: $range"
	[ "$default_name" = baseline ] || [ "$no_series" -eq 0 ] ||
		die_usage "--range is the series: not with --no-series (--baseline: its base alone)"
	git -C "$user_tree" rev-parse -q --verify "${range%%..*}^{commit}" >/dev/null ||
		die_usage "--range: ${range%%..*} is not a commit of $user_tree"
	git -C "$user_tree" rev-parse -q --verify "${range##*..}^{commit}" >/dev/null ||
		die_usage "--range: ${range##*..} is not a commit of $user_tree"
elif [ "$no_series" -eq 0 ]; then
	[ -e "$series" ] || die_usage "--series $series does not exist"
	series=$(cd "$(dirname "$series")" && pwd)/$(basename "$series")
fi

tarball=/usr/src/linux-source-6.12.tar.xz
src_dir="$FUSEGATE_CACHE/src"
src_tree="$src_dir/linux-source-6.12"
tree="$FUSEGATE_CACHE/trees/$name"
GIT=(git -c user.name=fusegate -c user.email=fusegate@localhost -c gc.auto=0
     -c advice.detachedHead=false -c core.autocrlf=false)
# What runners write inside a tree: build output, one level down (see
# README), and the kselftest target run_selftests.sh lays out.  Nothing
# else may differ from the commits.
RUNNER_PATHS=('build-*' tools/testing/selftests/filesystems/fuse_compound)
SERIES_PY=("$FUSEGATE_ROOT/scripts/series.py")

git_tree() { "${GIT[@]}" -C "$tree" "$@"; }

describe_base() {
	if [ -n "$range" ]; then echo "$user_tree at ${range%%..*}"
	elif [ -n "$user_tree" ]; then echo "$user_tree"
	else echo "linux-source-6.12"; fi
}

# --- the base ---

# The tarball, unpacked once and recorded as a git repository: every tree
# made from it shares its objects and starts from its index.
prepare_src() {
	local stamp="$src_dir/.stamp" id
	[ -f "$tarball" ] || die_infra "$tarball is missing (package linux-source-6.12)"
	id=$(stat -c '%s %Y' "$tarball")
	lock_path "$FUSEGATE_CACHE/src.lock" "the unpacked source"
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$id" ] &&
	   git -C "$src_tree" rev-parse -q --verify refs/tags/fusegate-base >/dev/null 2>&1; then
		return 0
	fi
	log "unpacking $tarball into $src_dir"
	rm -rf "$src_dir"
	mkdir -p "$src_dir"
	tar -C "$src_dir" -xf "$tarball" || die_infra "could not unpack $tarball"
	[ -f "$src_tree/Makefile" ] || die_infra "$tarball holds no linux-source-6.12/Makefile"
	log "recording the pristine source in git (once per tarball)"
	(
		cd "$src_tree"
		"${GIT[@]}" init -q
		git config gc.auto 0
		git config core.trustctime false
		git config core.logAllRefUpdates false
		"${GIT[@]}" add -f -A .
		"${GIT[@]}" commit -q -m "base: $tarball"
		"${GIT[@]}" tag -f fusegate-base >/dev/null
	) || die_infra "could not make a git repository of $src_tree"
	echo "$id" > "$stamp"
}

# A new tree from the unpacked source: hard links for the files (git never
# writes into a file, it replaces it), a local clone for the objects, and
# the source's index, so that nothing is hashed again.
tree_from_src() {
	local tmp="$tree.clone"
	rm -rf "$tmp"
	mkdir -p "$tree"
	(cd "$src_tree" && find . -mindepth 1 -maxdepth 1 ! -name .git -exec cp -al {} "$tree/" \;) ||
		die_infra "could not link $src_tree into $tree"
	"${GIT[@]}" clone -q --local --no-checkout "$src_tree" "$tmp" ||
		die_infra "could not clone $src_tree"
	mv "$tmp/.git" "$tree/.git"
	rmdir "$tmp"
	cp "$src_tree/.git/index" "$tree/.git/index"
	git_tree config core.trustctime false
	git_tree checkout -q -f --detach fusegate-base
}

# A new tree from --tree DIR: its content recorded as the base commit of a
# new repository (user_tree_commit), then checked out
tree_from_user_tree() {
	mkdir -p "$tree"
	git_tree init -q
	git_tree config gc.auto 0
	git_tree config core.logAllRefUpdates false
	git_tree tag fusegate-base "$(user_tree_commit)"
	git_tree checkout -q -f --detach fusegate-base
}

# The content of --tree DIR as a commit of the prepared tree's repository
# (on the current fusegate-base, if any).  DIR is read through an index of
# its own, so that only files whose stat changed are read again; its
# .gitignore holds, and build-* directories and .git are left out.
user_tree_commit() {
	local t parent=()
	t=$(GIT_INDEX_FILE="$tree/.git/fusegate-user-index" \
		git --git-dir="$tree/.git" --work-tree="$user_tree" add -A -- . ':!build-*' &&
	    GIT_INDEX_FILE="$tree/.git/fusegate-user-index" \
		git --git-dir="$tree/.git" --work-tree="$user_tree" write-tree) ||
		die_infra "could not read $user_tree"
	if git_tree rev-parse -q --verify refs/tags/fusegate-base >/dev/null; then
		if [ "$(git_tree rev-parse 'fusegate-base^{tree}')" = "$t" ]; then
			git_tree rev-parse fusegate-base
			return 0
		fi
		parent=(-p fusegate-base)
	fi
	git_tree commit-tree "$t" "${parent[@]}" -m "base: $user_tree"
}

# A new tree from --tree DIR --range BASE..HEAD: commit BASE of DIR
tree_from_range() {
	local tmp="$tree.clone"
	rm -rf "$tmp"
	"${GIT[@]}" clone -q --local --no-checkout "$user_tree" "$tmp" ||
		die_infra "could not clone $user_tree"
	mkdir -p "$tree"
	mv "$tmp/.git" "$tree/.git"
	rmdir "$tmp"
	git_tree config gc.auto 0
	git_tree checkout -q -f --detach "$(range_base_commit)" ||
		die_infra "could not check out ${range%%..*} of $user_tree"
	git_tree tag -f fusegate-base >/dev/null
}

range_base_commit() { git -C "$user_tree" rev-parse "${range%%..*}^{commit}"; }

# What the base is made of; a tree made from anything else is made again
base_identity() {
	if [ -n "$range" ]; then
		echo "git:$user_tree:$(range_base_commit)"
	elif [ -n "$user_tree" ]; then
		echo "tree:$user_tree"
	else
		echo "tarball:$(cat "$src_dir/.stamp"):$(git -C "$src_tree" rev-parse fusegate-base)"
	fi
}

make_base() {
	local want have
	want=$(base_identity)
	have=$(cat "$tree/.git/fusegate-base-id" 2>/dev/null || true)
	if [ -d "$tree/.git" ] && [ "$have" = "$want" ] &&
	   git_tree rev-parse -q --verify refs/tags/fusegate-base >/dev/null; then
		[ -z "$user_tree" ] || [ -n "$range" ] || refresh_user_tree
		return 0
	fi
	log "creating tree '$name' from $(describe_base)"
	rm -rf "$tree"
	if [ -n "$range" ]; then
		tree_from_range
	elif [ -n "$user_tree" ]; then
		tree_from_user_tree
	else
		tree_from_src
	fi
	echo "$want" > "$tree/.git/fusegate-base-id"
}

# A user tree may have changed since it was read: a new base when it has
# (the series is then found not to sit on it, and applied again)
refresh_user_tree() {
	local c
	c=$(user_tree_commit)
	if [ "$c" != "$(git_tree rev-parse fusegate-base)" ]; then
		log "tree $user_tree changed: new base"
		git_tree tag -f fusegate-base "$c" >/dev/null
	fi
}

# --- the series ---

# Split the series into one mail per patch in $stage (series.py says which
# mails it skipped and why); sets patches[]
split_series() {
	local src=$series
	if [ -n "$range" ]; then
		src="$stage/range.mbox"
		git -C "$user_tree" format-patch -q -n --stdout "$range" > "$src" ||
			die_infra "git format-patch $range failed in $user_tree"
		[ -s "$src" ] || die_infra "--range $range holds no commit to apply"
	fi
	local args=(split "$src" --out "$stage/patches")
	[ -z "$version" ] || args+=(--version "$version")
	local rc=0 reason
	"${SERIES_PY[@]}" "${args[@]}" > "$stage/list" 2> "$stage/split.err" || rc=$?
	cat "$stage/split.err" >&2
	if [ "$rc" -ne 0 ]; then
		# series.py has named the mail and the reason on stderr
		reason=$(sed -n 's/^INFRA ERROR: //p' "$stage/split.err" | tail -n 1)
		record_infra "${reason:-scripts/series.py could not split $src (exit $rc)}"
		exit "$EXIT_INFRA"
	fi
	mapfile -t patches < "$stage/list"
	[ ${#patches[@]} -gt 0 ] || die_infra "no patches in $src"
}

# The patch-ids of the series, one per line, in order
series_patch_ids() {
	local p
	for p in "${patches[@]}"; do
		git_tree patch-id --stable < "$p" | cut -d' ' -f1
	done
}

# The patch-ids of the commits on fusegate-base, one per line, in order
tree_patch_ids() {
	local c
	for c in $(git_tree rev-list --reverse fusegate-base..HEAD); do
		git_tree show --format= --no-color "$c" | git_tree patch-id --stable | cut -d' ' -f1
	done
}

# Why the tree cannot be taken as it is; nothing printed when it can
tree_problem() {
	local f n
	for f in rebase-apply rebase-merge MERGE_HEAD CHERRY_PICK_HEAD REVERT_HEAD index.lock; do
		if [ -e "$tree/.git/$f" ]; then
			echo "a git operation was left in progress (.git/$f)"
			return
		fi
	done
	if ! git_tree merge-base --is-ancestor fusegate-base HEAD 2>/dev/null; then
		echo "HEAD is not on fusegate-base"
		return
	fi
	n=$(git_tree rev-list --count fusegate-base..HEAD)
	if [ "$n" -ne "${#patches[@]}" ]; then
		echo "HEAD has $n commit(s) on fusegate-base, the series ${#patches[@]} patch(es)"
		return
	fi
	if [ "$(git_tree rev-list --count --merges fusegate-base..HEAD)" -ne 0 ]; then
		echo "merge commits on fusegate-base"
		return
	fi
	if [ "$n" -gt 0 ]; then
		local want have
		want=$(series_patch_ids)
		have=$(tree_patch_ids)
		if [ "$(printf '%s\n' "$want" | awk 'NF' | wc -l)" -ne "$n" ]; then
			echo "the series has patches without a diff git can identify"
			return
		fi
		if [ "$want" != "$have" ]; then
			echo "its commits are not the patches of this series"
			return
		fi
	fi
	local status_args=(status --porcelain --untracked-files=all -- .) changed
	for f in "${RUNNER_PATHS[@]}"; do
		status_args+=(":!$f")
	done
	changed=$(git_tree "${status_args[@]}")
	if [ -n "$changed" ]; then
		echo "its work tree differs from its commits: $(printf '%s\n' "$changed" | sed -n '1,3p' | tr '\n' ' ')"
	fi
}

# Back to the bare base, whatever state the tree was left in
reset_to_base() {
	reset_to fusegate-base
}

# Back to commit @1 (fusegate-base or one of the series' commits on it),
# whatever state the tree was left in; only the files that differ from it
# are written, so the others keep their timestamps
reset_to() {
	local target=$1 clean_excludes=() p
	for p in "${RUNNER_PATHS[@]}"; do
		clean_excludes+=(-e "/$p")
	done
	if [ -d "$tree/.git/rebase-apply" ]; then
		git_tree am --abort >/dev/null 2>&1 || rm -rf "$tree/.git/rebase-apply"
	fi
	rm -f "$tree/.git/index.lock" "$tree/.git/MERGE_HEAD" "$tree/.git/CHERRY_PICK_HEAD" \
		"$tree/.git/REVERT_HEAD"
	rm -rf "$tree/.git/rebase-merge"
	git_tree checkout -q -f --detach "$target"
	git_tree clean -ffdxq "${clean_excludes[@]}"
}

# How many of the series' first patches the tree's first commits on the
# base already are (same diff, same order); 0 unless the tree is sound
common_prefix() {
	local f k=0
	for f in rebase-apply rebase-merge MERGE_HEAD CHERRY_PICK_HEAD REVERT_HEAD; do
		[ ! -e "$tree/.git/$f" ] || { echo 0; return; }
	done
	if ! git_tree merge-base --is-ancestor fusegate-base HEAD 2>/dev/null ||
	   [ "$(git_tree rev-list --count --merges fusegate-base..HEAD)" -ne 0 ]; then
		echo 0
		return
	fi
	local want=() have=()
	mapfile -t want < <(series_patch_ids)
	mapfile -t have < <(tree_patch_ids)
	while [ "$k" -lt ${#want[@]} ] && [ "$k" -lt ${#have[@]} ] &&
	      [ -n "${want[$k]}" ] && [ "${want[$k]}" = "${have[$k]}" ]; do
		k=$((k + 1))
	done
	echo "$k"
}

# Apply the patches one by one from the one after the @1 first, so that a
# failure names its patch
apply_patches() {
	local i=0 p out skip=${1:-0}
	out="$stage/am.out"
	for p in "${patches[@]}"; do
		i=$((i + 1))
		[ "$i" -gt "$skip" ] || continue
		if ! git_tree am -q "$p" > "$out" 2>&1; then
			report_am_failure "$i" "$p" "$out"
		fi
	done
}

# A patch that does not apply: an infrastructure error naming the patch
# and the hunk; the tree goes back to its base first
report_am_failure() {
	local i=$1 p=$2 out=$3 subject why
	subject=$(grep -m1 '^Subject: ' "$p" | sed 's/^Subject: *//' || true)
	why=$(grep -E '^error: ' "$out" | head -3 | tr '\n' ' ' || true)
	[ -n "$why" ] || why=$(grep -v '^hint:' "$out" | head -2 | tr '\n' ' ' || true)
	sed 's/^/  | /' "$out" >&2
	reset_to_base
	die_infra "series does not apply to $(describe_base): patch $i of ${#patches[@]} ($(basename "$p"): ${subject:-no subject}): ${why:-git am failed}"
}

record_state() {
	{
		echo "name=$name"
		echo "base=$(describe_base)"
		echo "base_commit=$(git_tree rev-parse fusegate-base)"
		echo "head=$(git_tree rev-parse HEAD)"
		echo "patches=${#patches[@]}"
		echo "series_id=$series_id"
		echo "series=$series_desc"
	} > "$tree/.git/fusegate-prepared"
	if [ -f "$stage/patches/manifest.json" ]; then
		cp "$stage/patches/manifest.json" "$tree/.git/fusegate-series.json"
	else
		rm -f "$tree/.git/fusegate-series.json"
	fi
}

prepare_series() {
	local problem
	patches=()
	series_id=none
	series_desc=none
	if [ "$no_series" -eq 0 ]; then
		split_series
		series_id=$("${SERIES_PY[@]}" id "$stage/patches")
		series_desc=${range:+$user_tree $range}
		series_desc=${series_desc:-$series}
	fi
	problem=$(tree_problem)
	if [ -z "$problem" ]; then
		log "tree '$name' carries the series (${#patches[@]} commit(s) on the base, verified)"
		return 0
	fi
	# the commits the tree shares with the series stay: only what comes
	# after them is written again (incremental builds stay incremental)
	local keep target
	keep=$(common_prefix)
	if [ "$keep" -gt 0 ]; then
		target=$(git_tree rev-list --reverse fusegate-base..HEAD | sed -n "${keep}p")
		log "tree '$name': $problem: keeping the $keep commit(s) it shares with the series"
		reset_to "$target"
	else
		log "tree '$name': $problem: resetting it to its base"
		reset_to_base
	fi
	if [ ${#patches[@]} -gt "$keep" ]; then
		log "applying $(( ${#patches[@]} - keep )) patch(es) of $series_desc"
		apply_patches "$keep"
	fi
	problem=$(tree_problem)
	[ -z "$problem" ] || die_infra "tree '$name' after applying the series: $problem"
	log "tree '$name': ${#patches[@]} commit(s) on the base"
}

main() {
	ensure_packages
	mkdir -p "$FUSEGATE_CACHE/trees" ||
		die_infra "cannot create the cache directory $FUSEGATE_CACHE"
	lock_tree "$name"
	stage=$(mktemp -d "${TMPDIR:-/tmp}/fusegate-series.XXXXXX")
	trap 'rm -rf "$stage"' EXIT
	[ -n "$user_tree" ] || prepare_src
	make_base
	prepare_series
	record_state
	printf '%s\n' "$tree"
}

main
