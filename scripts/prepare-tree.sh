#!/usr/bin/env bash
# Prepare a kernel tree for the runners: Debian's linux-source-6.12 (or a
# tree of your own) with a patch series applied, in the cache directory.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOF
Usage: $(basename "$0") [OPTIONS]

Prepare a kernel tree in the cache and print its path on stdout.

The base is Debian's linux-source-6.12 tarball, unpacked once; the series
is applied with 'git am'.  A prepared tree is reused while its base and
series are unchanged; when the series changes, the tree is reset to its
base and the new series applied (files the series does not touch keep
their timestamps, so incremental builds stay incremental).

Options:
  --series PATH   patches to apply: a directory (its 'series' file gives
                  the order, else *.patch sorted) or an mbox file
                  (default: kernel-patches/ of this repository)
  --baseline      apply no series: the unpatched tree
  --no-series     apply no series, the tree is judged as it is (with
                  --tree: a tree that already carries the changes)
  --tree DIR      start from this kernel tree instead of the tarball
                  (it is copied; nothing in DIR is changed)
  --name NAME     name of the prepared tree in the cache
                  (default: 'patched', or 'baseline' with --baseline)
  --cache DIR     cache directory (default: \$FUSEGATE_CACHE or
                  /var/cache/fusegate)
  -h, --help      show this help

Exit status: 0 prepared, 2 usage error, 3 infrastructure error (missing
package, series that does not apply: the patch and hunk are named).
EOF
}

series="$FUSEGATE_ROOT/kernel-patches"
baseline=0
user_tree=
name=

while [ $# -gt 0 ]; do
	case "$1" in
	--series) [ $# -ge 2 ] || die_usage "--series needs a path"
		series=$2; shift 2 ;;
	--series=*) series=${1#*=}; shift ;;
	--baseline|--no-series) baseline=1; shift ;;
	--tree) [ $# -ge 2 ] || die_usage "--tree needs a directory"
		user_tree=$2; shift 2 ;;
	--tree=*) user_tree=${1#*=}; shift ;;
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

[ -n "$name" ] || { [ "$baseline" -eq 1 ] && name=baseline || name=patched; }
case "$name" in
*/*|.*|'') die_usage "--name must be a plain name: $name" ;;
esac
if [ -n "$user_tree" ]; then
	[ -f "$user_tree/Makefile" ] && [ -d "$user_tree/fs/fuse" ] ||
		die_usage "--tree $user_tree is not a kernel tree (no Makefile or fs/fuse)"
	user_tree=$(cd "$user_tree" && pwd)
fi
if [ "$baseline" -eq 0 ]; then
	[ -e "$series" ] || die_usage "--series $series does not exist"
	series=$(cd "$(dirname "$series")" && pwd)/$(basename "$series")
fi

tarball=/usr/src/linux-source-6.12.tar.xz
src_dir="$FUSEGATE_CACHE/src"
tree="$FUSEGATE_CACHE/trees/$name"
GIT=(git -c user.name=fusegate -c user.email=fusegate@localhost -c gc.auto=0
     -c advice.detachedHead=false -c core.autocrlf=false)
# build output stays inside the tree, one level down (see README)
CLEAN_EXCLUDES=(-e '/build-*')

# The list of patch files of a series directory, in order
series_files() {
	local dir=$1 p
	if [ -f "$dir/series" ]; then
		while read -r p; do
			case "$p" in ''|\#*) continue ;; esac
			[ -f "$dir/$p" ] || die_infra "series file names a missing patch: $dir/$p"
			printf '%s\n' "$dir/$p"
		done < "$dir/series"
	else
		find "$dir" -maxdepth 1 -name '*.patch' ! -name '0000-*' | sort
	fi
}

# Identity of what is to be applied: the patch contents
series_id() {
	if [ "$baseline" -eq 1 ]; then
		echo none
	elif [ -d "$series" ]; then
		series_files "$series" | xargs -r cat | sha256sum | cut -c1-16
	else
		sha256sum < "$series" | cut -c1-16
	fi
}

unpack_tarball() {
	local stamp="$src_dir/.stamp" id
	[ -f "$tarball" ] || die_infra "$tarball is missing (package linux-source-6.12)"
	id=$(stat -c '%s %Y' "$tarball")
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$id" ]; then
		return 0
	fi
	log "unpacking $tarball into $src_dir"
	rm -rf "$src_dir"
	mkdir -p "$src_dir"
	tar -C "$src_dir" -xf "$tarball" ||
		die_infra "could not unpack $tarball"
	echo "$id" > "$stamp"
}

# The base tree as a git repository with the tag fusegate-base
make_base() {
	local base_id
	if [ -n "$user_tree" ]; then
		base_id="tree:$user_tree"
	else
		base_id="tarball:$(cat "$src_dir/.stamp")"
	fi
	if [ -d "$tree/.git" ] && [ "$(cat "$tree/.git/fusegate-base-id" 2>/dev/null)" = "$base_id" ]; then
		if [ -n "$user_tree" ]; then
			refresh_user_tree
		fi
		return 0
	fi
	log "creating tree '$name' from ${user_tree:-$tarball}"
	rm -rf "$tree"
	mkdir -p "$tree"
	if [ -n "$user_tree" ]; then
		rsync -a --exclude=/.git --exclude='/build-*' "$user_tree/" "$tree/"
	else
		# hard links: git replaces files, it never writes into them
		cp -al "$src_dir/linux-source-6.12/." "$tree/"
	fi
	(
		cd "$tree"
		"${GIT[@]}" init -q
		git config gc.auto 0
		"${GIT[@]}" add -f -A . >/dev/null
		"${GIT[@]}" commit -q -m "base: ${user_tree:-$tarball}"
		"${GIT[@]}" tag -f fusegate-base >/dev/null
	) || die_infra "could not create a git repository in $tree"
	echo "$base_id" > "$tree/.git/fusegate-base-id"
	rm -f "$tree/.git/fusegate-series-id"
}

# A user tree may have changed since it was copied: take it again
refresh_user_tree() {
	(
		cd "$tree"
		"${GIT[@]}" checkout -q -f fusegate-base
		"${GIT[@]}" clean -ffdxq "${CLEAN_EXCLUDES[@]}"
	)
	rsync -a --delete --exclude=/.git --exclude='/build-*' "$user_tree/" "$tree/"
	(
		cd "$tree"
		"${GIT[@]}" add -f -A . >/dev/null
		if ! "${GIT[@]}" diff --cached --quiet; then
			log "tree $user_tree changed: new base"
			"${GIT[@]}" commit -q -m "base: $user_tree"
			"${GIT[@]}" tag -f fusegate-base >/dev/null
			rm -f .git/fusegate-series-id
		fi
	)
}

# Report a failed 'git am' as an infrastructure error naming the patch/hunk
report_am_failure() {
	local out=$1 patch hunk
	patch=$(grep -m1 '^Patch failed at' "$out" | sed 's/^Patch failed at //')
	hunk=$(grep -m3 -E '^error: |^Checking patch|^Applying' "$out" | grep '^error' | head -3 | tr '\n' ' ')
	(cd "$tree" && "${GIT[@]}" am --abort >/dev/null 2>&1 || true)
	(cd "$tree" && "${GIT[@]}" checkout -q -f fusegate-base && "${GIT[@]}" clean -ffdxq "${CLEAN_EXCLUDES[@]}")
	rm -f "$tree/.git/fusegate-series-id"
	sed 's/^/  | /' "$out" >&2
	die_infra "series does not apply to $(describe_base): patch ${patch:-?}: ${hunk:-see the output above}"
}

describe_base() {
	if [ -n "$user_tree" ]; then echo "$user_tree"; else echo "linux-source-6.12"; fi
}

apply_series() {
	local want have out
	want=$(series_id)
	have=$(cat "$tree/.git/fusegate-series-id" 2>/dev/null || true)
	if [ "$want" = "$have" ]; then
		log "tree '$name' is up to date (series $want)"
		return 0
	fi
	(
		cd "$tree"
		"${GIT[@]}" checkout -q -f fusegate-base
		"${GIT[@]}" clean -ffdxq "${CLEAN_EXCLUDES[@]}"
	)
	if [ "$baseline" -eq 1 ]; then
		log "tree '$name': no series (baseline)"
		echo "$want" > "$tree/.git/fusegate-series-id"
		return 0
	fi
	out=$(mktemp)
	local patches=()
	if [ -d "$series" ]; then
		mapfile -t patches < <(series_files "$series")
		[ ${#patches[@]} -gt 0 ] || die_infra "no patches in $series"
	else
		patches=("$series")
	fi
	log "applying ${#patches[@]} patch file(s) from $series"
	if ! (cd "$tree" && "${GIT[@]}" am -q "${patches[@]}") > "$out" 2>&1; then
		report_am_failure "$out"
	fi
	rm -f "$out"
	echo "$want" > "$tree/.git/fusegate-series-id"
	log "tree '$name': $(cd "$tree" && git log --oneline fusegate-base..HEAD | wc -l) commit(s) on the base"
}

main() {
	ensure_packages
	mkdir -p "$FUSEGATE_CACHE/trees" ||
		die_infra "cannot create the cache directory $FUSEGATE_CACHE"
	[ -n "$user_tree" ] || unpack_tarball
	make_base
	apply_series
	printf '%s\n' "$tree"
}

main
