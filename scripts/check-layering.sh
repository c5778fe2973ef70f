#!/usr/bin/env bash
# The transport/filesystem layering of fs/fuse/, checked by its includes.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOF
Usage: $(basename "$0") [OPTIONS] TREE

Check that the FUSE code of the kernel tree TREE keeps its two layers
apart, the way the series splits them:

  transport   fs/fuse/dev.c, with its internals in fuse_dev_i.h
  filesystem  every other file of fs/fuse/, with its internals in fuse_i.h
  API         dev.h and args.h, the only headers both layers include

Rules (each violation is printed as FILE: rule):
  1. a transport file includes fuse_dev_i.h and not fuse_i.h;
  2. fuse_dev_i.h, dev.h and args.h do not include fuse_i.h, nor does any
     header a transport file includes, however indirectly; dev.h and
     args.h do not include fuse_dev_i.h;
  3. no other file includes fuse_dev_i.h: the filesystem layer reaches the
     transport's state through dev.h and args.h only;
  4. struct fuse_chan (the transport's state) is defined in dev.h, and
     struct fuse_copy_state (its marshalling state) in fuse_dev_i.h, and
     nowhere else.

That dev.c compiles with what it includes is the build's to prove
(scripts/check-series.sh builds every patch); this script proves that
what it includes does not bring fuse_i.h along.

Options:
  -h, --help   show this help

Exit status: 0 layered, 1 a violation, 2 usage error.
EOF
}

TRANSPORT_FILES=(dev.c)
API_HEADERS=(dev.h args.h)

while [ $# -gt 0 ]; do
	case "$1" in
	-h|--help) usage; exit 0 ;;
	-*) die_usage "unknown option: $1" ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || die_usage "expected one TREE"
FUSE_DIR="$1/fs/fuse"
[ -d "$FUSE_DIR" ] || die_usage "$1 has no fs/fuse/"

violations=0

violation() {
	printf '  %s: %s\n' "$1" "$2"
	violations=$((violations + 1))
}

# The headers FILE includes with #include "...", by base name, one a line
local_includes() {
	sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]*)".*/\1/p' "$1" |
		sed -E 's#.*/##'
}

# Whether FILE includes HEADER (read whole: no early exit, no SIGPIPE)
includes() {
	local list
	list=$(local_includes "$1")
	[[ $'\n'"$list"$'\n' == *$'\n'"$2"$'\n'* ]]
}

is_transport_file() {
	local f
	for f in "${TRANSPORT_FILES[@]}"; do
		[ "$1" = "$f" ] && return 0
	done
	return 1
}

# Files whose definition of struct NAME is allowed, and where it is found
check_defined_only_in() {
	local name=$1 home=$2 f
	grep -qE "^struct $name \{" "$FUSE_DIR/$home" 2>/dev/null ||
		violation "$home" "struct $name is not defined here"
	while IFS= read -r f; do
		[ "$(basename "$f")" = "$home" ] ||
			violation "${f#"$FUSE_DIR"/}" "defines struct $name (its place is $home)"
	done < <(grep -rlE "^struct $name \{" "$FUSE_DIR" --include='*.[ch]' || true)
}

check_transport_files() {
	local f
	for f in "${TRANSPORT_FILES[@]}"; do
		[ -f "$FUSE_DIR/$f" ] || { violation "$f" "transport file missing"; continue; }
		includes "$FUSE_DIR/$f" fuse_dev_i.h ||
			violation "$f" "transport file does not include fuse_dev_i.h"
		! includes "$FUSE_DIR/$f" fuse_i.h ||
			violation "$f" "transport file includes fuse_i.h"
		! reaches "$f" fuse_i.h ||
			violation "$f" "transport file reaches fuse_i.h through: $REACHED_VIA"
	done
}

# Whether FILE includes HEADER through other headers of fs/fuse/; the
# chain is left in REACHED_VIA
REACHED_VIA=
reaches() {
	local start=$1 target=$2 h
	local -A seen=()
	local -a queue=("$start")
	local -A via=([$start]="$start")
	while [ ${#queue[@]} -gt 0 ]; do
		local cur=${queue[0]}
		queue=("${queue[@]:1}")
		[ -f "$FUSE_DIR/$cur" ] || continue
		for h in $(local_includes "$FUSE_DIR/$cur"); do
			[ -n "${seen[$h]:-}" ] && continue
			seen[$h]=1
			via[$h]="${via[$cur]} -> $h"
			if [ "$h" = "$target" ] && [ "$cur" != "$start" ]; then
				REACHED_VIA=${via[$h]}
				return 0
			fi
			queue+=("$h")
		done
	done
	return 1
}

check_headers() {
	local h
	for h in fuse_dev_i.h "${API_HEADERS[@]}"; do
		[ -f "$FUSE_DIR/$h" ] || { violation "$h" "header missing"; continue; }
		! includes "$FUSE_DIR/$h" fuse_i.h ||
			violation "$h" "includes fuse_i.h: the transport would see the filesystem's internals"
	done
	for h in "${API_HEADERS[@]}"; do
		[ -f "$FUSE_DIR/$h" ] || continue
		! includes "$FUSE_DIR/$h" fuse_dev_i.h ||
			violation "$h" "API header includes fuse_dev_i.h"
	done
}

check_filesystem_files() {
	local path f
	while IFS= read -r path; do
		f=${path#"$FUSE_DIR"/}
		is_transport_file "$f" && continue
		[ "$f" = fuse_dev_i.h ] && continue
		! includes "$path" fuse_dev_i.h ||
			violation "$f" "includes fuse_dev_i.h: the filesystem layer reaches the transport through dev.h and args.h only"
	done < <(find "$FUSE_DIR" -name '*.[ch]' | sort)
}

main() {
	echo "layering of $FUSE_DIR (transport: ${TRANSPORT_FILES[*]}; API: ${API_HEADERS[*]}):"
	check_transport_files
	check_headers
	check_filesystem_files
	check_defined_only_in fuse_chan dev.h
	check_defined_only_in fuse_copy_state fuse_dev_i.h
	if [ "$violations" -eq 0 ]; then
		echo "  layered: dev.c sees neither fuse_i.h nor what includes it; no filesystem file includes fuse_dev_i.h"
		exit 0
	fi
	echo "  $violations violation(s)"
	exit 1
}

main
