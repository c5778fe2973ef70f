#!/usr/bin/env bash
# Kernel-style checks of a patch series: checkpatch --strict on every patch,
# and every patch building on its own with W=1 and sparse clean for fs/fuse.
set -Eeuo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOF
Usage: $(basename "$0") [OPTIONS]

Check the series kernel-patches/ (or --series) the way a FUSE maintainer
would before taking it:
  1. scripts/checkpatch.pl --strict --no-signoff on every patch;
  2. every patch applied in turn builds fs/fuse/ (bisectability) with W=1
     and C=1 (sparse), and reports no warning;
  3. the whole series keeps the transport and the filesystem layer apart
     (scripts/check-layering.sh): dev.c builds without fuse_i.h (2. builds
     it; nothing it includes brings fuse_i.h along), and no filesystem file
     includes fuse_dev_i.h, the transport's internals.

Each patch is built with FUSE, CUSE, VIRTIO_FS, FUSE_DAX and
FUSE_PASSTHROUGH, so that every file of fs/fuse/ is compiled.

checkpatch findings fail the check, except the two types it documents as
having false positives that this series cannot avoid: ENOSYS (the FUSE
protocol's answer to an unknown opcode) and FILE_PATH_CHANGES (new files
under fs/fuse/, which MAINTAINERS already covers).  They are listed.

Options:
  --series PATH     the series (default: kernel-patches/)
  --tree DIR        base tree instead of the linux-source-6.12 tarball
  --no-build        run checkpatch only
  --no-layering     skip 3., for a series that does not separate the
                    layers all the way yet (kernel-patches/split/ until
                    dev.c builds without fuse_i.h); the log says so
  --jobs N          parallel build jobs (default: nproc)
  --results DIR     where to write check.log (default: results/check)
  -h, --help        show this help

Exit status: 0 clean, 1 a finding, 2 usage error, 3 infrastructure error.
EOF
}

prep_args=()
build=1
layering=1
jobs=$(nproc)
results="$FUSEGATE_ROOT/results/check"
while [ $# -gt 0 ]; do
	take_build_option "$@" && { shift "$TAKEN"; continue; }
	case "$1" in
	--series|--tree) [ $# -ge 2 ] || die_usage "$1 needs a value"
		prep_args+=("$1" "$2"); shift 2 ;;
	--series=*|--tree=*) prep_args+=("$1"); shift ;;
	--no-build) build=0; shift ;;
	--no-layering) layering=0; shift ;;
	-h|--help) usage; exit 0 ;;
	*) die_usage "unknown argument: $1" ;;
	esac
done
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die_usage "--jobs must be a positive number: $jobs"

ALLOWED_TYPES='ENOSYS|FILE_PATH_CHANGES'
BUILD_DIR=build-check

# Config for the per-patch builds: defconfig-free, FUSE and its KUnit hook
write_config() {
	cat > "$BUILD_DIR/fuse.config" <<EOF
CONFIG_FUSE_FS=y
CONFIG_CUSE=y
CONFIG_VIRTIO_FS=y
CONFIG_KUNIT=y
CONFIG_FUSE_KUNIT_TEST=y
CONFIG_FUSE_PASSTHROUGH=y
CONFIG_FUSE_DAX=y
EOF
}

checkpatch_all() {
	local findings=0 c n allowed bad
	for c in $(git rev-list --reverse fusegate-base..HEAD); do
		git format-patch -q -1 --stdout "$c" > "$BUILD_DIR/p.patch"
		perl scripts/checkpatch.pl --strict --no-signoff --terse --show-types \
			"$BUILD_DIR/p.patch" > "$BUILD_DIR/cp.out" 2>&1 || true
		n=$(grep -cE ': (ERROR|WARNING|CHECK):' "$BUILD_DIR/cp.out" || true)
		allowed=$(grep -cE ": (WARNING):($ALLOWED_TYPES):" "$BUILD_DIR/cp.out" || true)
		bad=$((n - allowed))
		printf '  %-70s %d finding(s), %d of them documented false positives\n' \
			"$(git log -1 --format=%s "$c" | cut -c1-70)" "$n" "$allowed"
		grep -E ': (ERROR|WARNING|CHECK):' "$BUILD_DIR/cp.out" | sed 's/^/      /' || true
		findings=$((findings + bad))
	done
	return "$findings"
}

build_each() {
	local c failed=0 out
	make -s O="$BUILD_DIR" ARCH=x86_64 CC="ccache gcc" allnoconfig >/dev/null
	./scripts/kconfig/merge_config.sh -m -O "$BUILD_DIR" "$BUILD_DIR/.config" \
		"$BUILD_DIR/fuse.config" >/dev/null
	# FUSE needs a few things allnoconfig leaves out
	./scripts/config --file "$BUILD_DIR/.config" -e MULTIUSER -e BLOCK -e FILE_LOCKING \
		-e VIRTIO_MENU -e PCI -e VIRTIO_PCI -e NET -e NETDEVICES \
		-e SPARSEMEM_VMEMMAP -e MEMORY_HOTPLUG -e MEMORY_HOTREMOVE -e ZONE_DEVICE \
		-e FS_DAX -e DAX \
		-e FUSE_DAX -e FUSE_PASSTHROUGH
	make -s O="$BUILD_DIR" ARCH=x86_64 CC="ccache gcc" olddefconfig >/dev/null
	local opt
	for opt in FUSE_FS CUSE VIRTIO_FS FUSE_DAX FUSE_PASSTHROUGH; do
		grep -q "^CONFIG_$opt=y" "$BUILD_DIR/.config" ||
			die_infra "the check's kernel config lost CONFIG_$opt"
	done
	local head
	head=$(git rev-parse HEAD)
	for c in $(git rev-list --reverse fusegate-base..HEAD); do
		git checkout -q -f "$c"
		# symbols a patch adds (FUSE_KUNIT_TEST) are enabled once they exist
		./scripts/config --file "$BUILD_DIR/.config" -e FUSE_KUNIT_TEST
		make -s O="$BUILD_DIR" ARCH=x86_64 CC="ccache gcc" olddefconfig >/dev/null
		out=$(make -s O="$BUILD_DIR" ARCH=x86_64 CC="ccache gcc" -j"$jobs" \
			W=1 C=1 fs/fuse/ 2>&1 | grep -vE '^make|^  (GEN|INSTALL|CALL|SYNC|DESCEND)' || true)
		if grep -q '^config FUSE_KUNIT_TEST' fs/fuse/Kconfig &&
		   ! ls "$BUILD_DIR"/fs/fuse/tests/*.o >/dev/null 2>&1; then
			out="${out}the KUnit tests of this patch were not built"
		fi
		if [ -n "$out" ] || ! [ -f "$BUILD_DIR/fs/fuse/dev.o" ]; then
			printf '  FAIL %s\n' "$(git log -1 --format=%s "$c")"
			printf '%s\n' "$out" | sed 's/^/      /'
			failed=1
		else
			printf '  ok   %s\n' "$(git log -1 --format=%s "$c")"
		fi
	done
	git checkout -q -f "$head"
	return "$failed"
}

main() {
	local tree rc=0
	mkdir -p "$results"
	lock_tree check
	tree=$("$FUSEGATE_ROOT/scripts/prepare-tree.sh" --name check "${prep_args[@]}") || exit $?
	export_build_env
	cd "$tree"
	mkdir -p "$BUILD_DIR"
	write_config
	{
		echo "checkpatch --strict --no-signoff:"
		checkpatch_all || rc=1
		if [ "$build" -eq 1 ]; then
			echo "each patch builds fs/fuse/ with W=1 C=1 (sparse), no warning:"
			build_each || rc=1
		fi
		if [ "$layering" -eq 1 ]; then
			echo "transport/filesystem layering at the last patch:"
			"$FUSEGATE_ROOT/scripts/check-layering.sh" . || rc=1
		else
			echo "transport/filesystem layering: not checked (--no-layering)"
		fi
		if [ "$rc" -eq 0 ]; then
			echo "series check: clean"
		else
			echo "series check: FINDINGS (see above)"
		fi
	} > >(tee "$results/check.log") 2>&1
	exit "$rc"
}

main
