#!/usr/bin/env bash
# Regenerate kernel-patches/ from a development tree with 'git format-patch',
# keeping the cover letter's subject and text.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOF
Usage: $(basename "$0") [OPTIONS] TREE [BASE]

Write the commits BASE..HEAD of the kernel git tree TREE (BASE defaults to
the tag fusegate-base, which scripts/prepare-tree.sh sets) to
kernel-patches/ as a 'git format-patch --cover-letter' series, with a
'series' file giving the order.  The subject and text of the current
cover letter are carried over; the KUnit files of the series are checked
against kunit/ (the copy in the repository is the one that is edited)
when the series carries them.

Options:
  -o DIR       write to DIR instead of kernel-patches/
  -h, --help   show this help
EOF
}

out="$FUSEGATE_ROOT/kernel-patches"
while [ $# -gt 0 ]; do
	case "$1" in
	-o) [ $# -ge 2 ] || die_usage "-o needs a directory"; out=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	-*) die_usage "unknown option: $1" ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] && [ $# -le 2 ] || die_usage "expected TREE [BASE]"
tree=$1
base=${2:-fusegate-base}
git -C "$tree" rev-parse -q --verify "$base" >/dev/null ||
	die_usage "$base is not a revision of $tree"

# The KUnit files in a series that carries them must be those of kunit/
# (the transport/fs split, kernel-patches/split/, carries none)
if [ -d "$tree/fs/fuse/tests" ]; then
	for f in "$FUSEGATE_ROOT"/kunit/* "$FUSEGATE_ROOT"/kunit/.kunitconfig; do
		t="$tree/fs/fuse/tests/$(basename "$f")"
		cmp -s "$f" "$t" || die_usage "$t differs from kunit/$(basename "$f"): copy kunit/ into the tree and amend first"
	done
fi
mkdir -p "$out"

old_cover="$out/0000-cover-letter.patch"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$tree" -c user.name="fusegate developers" -c user.email=fusegate@localhost \
	format-patch -q --cover-letter --no-signature -o "$tmp" "$base..HEAD"

if [ -f "$old_cover" ]; then
	# Carry the subject line and the blurb (up to the shortlog) over
	subject=$(sed -n 's/^Subject: \[PATCH [0-9]*\/[0-9]*\] //p' "$old_cover")
	awk '/^$/ && !body {body=1; next} body && /^fusegate developers \(/ {exit} body {print}' \
		"$old_cover" > "$tmp/blurb"
	python3 - "$tmp/0000-cover-letter.patch" "$subject" "$tmp/blurb" <<'PY'
import sys
path, subject, blurb = sys.argv[1], sys.argv[2], open(sys.argv[3]).read()
text = open(path).read()
text = text.replace("*** SUBJECT HERE ***", subject, 1)
text = text.replace("*** BLURB HERE ***\n\n", blurb, 1)
open(path, "w").write(text)
PY
fi

rm -f "$out"/*.patch
cp "$tmp"/*.patch "$out"/
(cd "$out" && ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-') > "$out/series"
log "wrote $(wc -l < "$out/series") patches and a cover letter to $out"
