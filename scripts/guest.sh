# shellcheck shell=bash
# The QEMU guest shared by run_selftests.sh and bench/run_bench.sh: build a
# kernel from a config fragment with kunit.py, pack a busybox initramfs, boot
# it under a hard time limit with the console and a second serial port
# (the guest's results) written to files.  Source it (it sources
# scripts/lib.sh when that has not been), from inside the kernel tree.
[ -n "${EXIT_INFRA:-}" ] || source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# guest_build_kernel BUILD_DIR CONFIG LOG JOBS
# Configure and build with kunit.py's x86_64 QEMU base config plus CONFIG.
guest_build_kernel() {
	local dir=$1 config=$2 build_log=$3 jobs=$4
	local common=(--arch=x86_64 --build_dir="$dir" --kunitconfig="$config"
		      --make_options "CC=ccache gcc")
	log "configuring the guest kernel ($(basename "$config"))"
	if ! python3 tools/testing/kunit/kunit.py config "${common[@]}" >> "$build_log" 2>&1; then
		tail -30 "$build_log" >&2
		die_infra "guest kernel config failed (see $build_log)"
	fi
	log "building the guest kernel with $jobs job(s), through ccache"
	if ! build_with_progress "$build_log" "$dir" \
		python3 tools/testing/kunit/kunit.py build "${common[@]}" --jobs="$jobs"; then
		grep -E 'error|Error' "$build_log" | head -30 >&2 || true
		die_infra "the guest kernel did not build (see $build_log)"
	fi
}

# tree_has_kunit_hook: whether the tree (the current directory) carries
# the FUSE KUnit hook (Kconfig and Makefile)
tree_has_kunit_hook() {
	grep -q '^config FUSE_KUNIT_TEST' fs/fuse/Kconfig 2>/dev/null &&
		grep -q 'CONFIG_FUSE_KUNIT_TEST.*tests/' fs/fuse/Makefile 2>/dev/null
}

# guest_write_config OUT KUNIT
# The guest's config fragment: selftests/guest/guest.config, plus the
# tree's FUSE KUnit suites when KUNIT is 1.  Every runner of a tree writes
# the same fragment, so that they share one kernel build.
guest_write_config() {
	local out=$1 kunit=$2
	cat "$FUSEGATE_ROOT/selftests/guest/guest.config" > "$out"
	if [ "$kunit" = 1 ]; then
		printf '%s\n' '# the tree'\''s FUSE KUnit suites, run at boot' \
			CONFIG_FUSE_KUNIT_TEST=y >> "$out"
	fi
}

# guest_seed_build BUILD_DIR SEED_TREE
# A tree's first guest build can start from the guest build of another tree
# of the same base (the gate's base tree): copy it, then make every file
# this tree's commits change newer than anything copied, so that Kbuild
# compiles exactly what differs.  Only when BUILD_DIR does not exist yet
# and SEED_TREE sits on the same base commit without commits of its own.
guest_seed_build() {
	local dir=$1 seed=$2 base seed_base seed_head
	[ ! -e "$dir" ] || return 0
	[ -f "$seed/$dir/.config" ] && [ -f "$seed/$dir/vmlinux" ] || return 0
	base=$(git rev-parse fusegate-base)
	seed_base=$(git -C "$seed" rev-parse fusegate-base)
	seed_head=$(git -C "$seed" rev-parse HEAD)
	if [ "$(git rev-parse "$base^{tree}")" != "$(git -C "$seed" rev-parse "$seed_base^{tree}")" ] ||
	   [ "$seed_head" != "$seed_base" ]; then
		log "not seeding the build from $seed: not the bare base of this tree"
		return 0
	fi
	log "seeding the guest build from $seed/$dir"
	# the seed tree is locked while it is copied (a no-op for a caller
	# that holds it already, as the gate does); the lock ends with the copy
	(
		lock_tree "$(basename "$seed")"
		cp -a "$seed/$dir" "$dir.seed"
	) || die_infra "could not copy $seed/$dir"
	mv "$dir.seed" "$dir"
	rm -rf "$dir/fusegate"
	git diff --name-only -z fusegate-base HEAD -- | xargs -0 -r touch -c --
}

# guest_build_programs TARGET_DIR OUTPUT LOG [PROGRAM...]
# The one way the test programs, the servers and the benchmark are built:
# lay out the kselftest target in TARGET_DIR (a tree's, or a scratch copy
# beside the kselftest lib.mk), with servers/, bench/ and fuzz/ beside it,
# and build PROGRAMs (paths in OUTPUT; all of
# them by default) with its Makefile, static.  Files are copied only where
# they changed, so make rebuilds only what changed.
guest_build_programs() {
	local dir=$1 out=$2 build_log=$3
	shift 3
	mkdir -p "$dir/servers" "$dir/bench" "$dir/fuzz" "$out"
	rsync -rc --delete --exclude=/servers --exclude=/bench --exclude=/fuzz \
		"$FUSEGATE_ROOT"/selftests/filesystems/fuse_compound/ "$dir/" &&
	rsync -rc --delete --include='*.[ch]' --exclude='*' \
		"$FUSEGATE_ROOT"/servers/ "$dir/servers/" &&
	rsync -rc --delete --include=fuse_bench.c --exclude='*' \
		"$FUSEGATE_ROOT"/bench/ "$dir/bench/" &&
	rsync -rc --delete --include=fuse_fuzz.c --exclude='*' \
		"$FUSEGATE_ROOT"/fuzz/ "$dir/fuzz/" ||
		die_infra "could not lay out the selftests in $dir"
	make -s -C "$dir" OUTPUT="$out" "$@" >> "$build_log" 2>&1 || {
		tail -20 "$build_log" >&2
		die_infra "the selftests and servers did not build (see $build_log)"
	}
}

# The libfuse 3.14 examples that fuse_real_servers_test mounts, as libfuse
# users build them (dynamically linked: the guest runs them with the host's
# libraries, over the 9p share)
REAL_EXAMPLES="passthrough passthrough_fh notify_store_retrieve notify_inval_inode
notify_inval_entry invalidate_path"

# guest_real_servers BIN TESTS LOG
# What the real-server suite needs in the initramfs, in TESTS: its script
# (as the program fuse_real_servers_test), the file handle helper built by
# guest_build_programs in BIN, and the libfuse examples, compiled in
# BIN/examples when their source is newer.
guest_real_servers() {
	local bin=$1 out=$2 build_log=$3 src=/usr/share/doc/libfuse3-dev/examples e
	mkdir -p "$bin/examples" "$out/examples"
	for e in $REAL_EXAMPLES; do
		[ -f "$src/$e.c" ] || die_infra "$src/$e.c is missing (package libfuse3-dev)"
		if ! [ "$bin/examples/$e" -nt "$src/$e.c" ]; then
			# shellcheck disable=SC2046
			gcc -Wall -O2 -o "$bin/examples/$e" "$src/$e.c" \
				$(pkg-config --cflags --libs fuse3) >> "$build_log" 2>&1 ||
				die_infra "the libfuse example $e did not build (see $build_log)"
		fi
		[ "$bin" = "$out" ] || cp "$bin/examples/$e" "$out/examples/"
	done
	[ "$bin" = "$out" ] || cp "$bin/fuse_real_fhandle" "$bin/fuse_real_probe" "$out/"
	# the probe's stand-in for /dev/fuse and mount(2), preloaded into servers
	local shim="$FUSEGATE_ROOT/selftests/filesystems/fuse_compound/fuse_real_devshim.c"
	if ! [ "$bin/fuse_real_devshim.so" -nt "$shim" ]; then
		gcc -Wall -O2 -shared -fPIC -o "$bin/fuse_real_devshim.so" "$shim" -ldl \
			>> "$build_log" 2>&1 ||
			die_infra "fuse_real_devshim.so did not build (see $build_log)"
	fi
	[ "$bin" = "$out" ] || cp "$bin/fuse_real_devshim.so" "$out/"
	# fio's job table lives in SysV shared memory, which the guest has not
	local shm="$FUSEGATE_ROOT/selftests/filesystems/fuse_compound/fuse_real_shm.c"
	if ! [ "$bin/fuse_real_shm.so" -nt "$shm" ]; then
		gcc -Wall -O2 -shared -fPIC -o "$bin/fuse_real_shm.so" "$shm" >> "$build_log" 2>&1 ||
			die_infra "fuse_real_shm.so did not build (see $build_log)"
	fi
	[ "$bin" = "$out" ] || cp "$bin/fuse_real_shm.so" "$out/"
	cp "$FUSEGATE_ROOT/selftests/filesystems/fuse_compound/fuse_real_servers_test.sh" \
		"$out/fuse_real_servers_test"
	chmod +x "$out/fuse_real_servers_test"
}

# guest_initramfs ROOT CPIO
# Add busybox and /init (selftests/guest/init) to ROOT, which the caller has
# filled (tests/, etc/fusegate.env), and pack it into CPIO.
guest_initramfs() {
	local root=$1 cpio=$2
	mkdir -p "$root"/{bin,dev,proc,sys,tmp,etc,tests}
	cp /bin/busybox "$root/bin/busybox"
	cp "$FUSEGATE_ROOT/selftests/guest/init" "$root/init"
	chmod +x "$root/init"
	(cd "$root" && find . | cpio -o -H newc --quiet) > "$cpio" ||
		die_infra "could not pack the initramfs"
}

# guest_stop_when_done CONSOLE PID GRACE
# Wait for the guest (PID: its QEMU under timeout) to end.  /init prints
# FUSEGATE-TESTS-DONE once the results are written and then powers off;
# a kernel that cannot (a task stuck in unmount, an inode it never lets
# go) would keep the guest until the time limit.  GRACE seconds after that
# line, the guest is stopped and CONSOLE.stopped says so: its results are
# used, and the runner fails the run for the power-off (a kernel that
# hangs its shutdown is broken).  The default GRACE, 130 s, is more than
# twice the guest's hung-task timeout (60 s): a task stuck for good is
# reported with its stack on the console before the guest is stopped.
#
# With GUEST_IDLE_LIMIT=S and OUTPUT (the guest's second serial port), a
# guest whose OUTPUT has not grown for S seconds is stopped too, and
# CONSOLE.idle says so (the mutant schema runner: a kernel hung by a
# mutant costs S seconds, not the guest's whole limit).
guest_stop_when_done() {
	local console=$1 pid=$2 grace=$3 output=${4:-} done_at= size=-1 grown=$SECONDS now_size
	rm -f "$console.stopped" "$console.idle"
	while kill -0 "$pid" 2>/dev/null; do
		if [ -n "${GUEST_IDLE_LIMIT:-}" ] && [ -n "$output" ]; then
			now_size=$(stat -c %s "$output" 2>/dev/null || echo 0)
			[ "$now_size" = "$size" ] || { size=$now_size; grown=$SECONDS; }
			if [ $((SECONDS - grown)) -ge "$GUEST_IDLE_LIMIT" ]; then
				log "the guest wrote nothing for ${GUEST_IDLE_LIMIT}s: stopped"
				echo "wrote nothing for ${GUEST_IDLE_LIMIT}s" > "$console.idle"
				kill -TERM "$pid" 2>/dev/null || true
				break
			fi
		fi
		if [ -z "$done_at" ] && grep -q '^FUSEGATE-TESTS-DONE' "$console" 2>/dev/null; then
			done_at=$SECONDS
		fi
		if [ -n "$done_at" ] && [ $((SECONDS - done_at)) -ge "$grace" ]; then
			log "WARNING: the guest printed its results but did not power off" \
				"within ${grace}s: stopped"
			echo "did not power off within ${grace}s of its results" > "$console.stopped"
			kill -TERM "$pid" 2>/dev/null || true
			break
		fi
		sleep 1
	done
}

# guest_boot KERNEL CPIO CONSOLE OUTPUT LIMIT
# Boot under TCG (GUEST_KVM=1: KVM if it boots, TCG otherwise).  The console
# goes to CONSOLE, the guest's second serial port to OUTPUT.  Returns 0 when
# QEMU ended by itself, 124 when the time limit stopped it.
guest_boot() {
	local kernel=$1 cpio=$2 console=$3 output=$4 limit=$5
	# GUEST_TCG_THREAD: single (one host thread for both vCPUs) or multi
	# (a host thread per vCPU); docs/gate-time.md has what each costs
	local accel=(-accel "tcg${GUEST_TCG_THREAD:+,thread=$GUEST_TCG_THREAD}")
	# GUEST_KUNIT=1: the kernel's built-in KUnit suites run while it boots;
	# GUEST_APPEND: more of the kernel's command line
	local kunit_enable=${GUEST_KUNIT:-0}
	if [ "${GUEST_KVM:-0}" -eq 1 ]; then
		if [ -w /dev/kvm ]; then
			accel=(-accel kvm -cpu max)
			log "using KVM (falls back to TCG if the guest does not boot)"
		else
			log "WARNING: /dev/kvm is not usable: TCG"
		fi
	fi
	# The host's root, read-only, as the 9p share 'host': the real FUSE
	# servers of fuse_real_servers_test run from it (GUEST_HOST_SHARE=0:
	# none, for a kernel built without 9p).  The share is a PCI device:
	# SeaBIOS's MP table routes its interrupt (the guest has no ACPI and
	# no MSI), qboot's does not; qboot boots faster without it.
	local share=(-bios /usr/share/qemu/qboot.rom)
	[ "${GUEST_HOST_SHARE:-1}" = 0 ] ||
		share=(-virtfs local,path=/,mount_tag=host,security_model=none,readonly=on)
	: > "$console"
	: > "$output"
	log "booting the guest (limit ${limit}s)"
	local rc=0 qemu
	timeout --kill-after=10 "$limit" qemu-system-x86_64 -nodefaults -nographic \
		-no-reboot -m 2048 -smp 2 "${accel[@]}" \
		-kernel "$kernel" -initrd "$cpio" \
		-append "console=ttyS0 panic=-1 loglevel=7 kunit.enable=$kunit_enable rdinit=/init ${GUEST_APPEND:-}" \
		-chardev "file,id=con,path=$console" -serial chardev:con \
		-chardev "file,id=out,path=$output" -serial chardev:out \
		"${share[@]}" \
		-monitor none < /dev/null > "$(dirname "$console")/qemu.log" 2>&1 &
	qemu=$!
	# an interrupted runner takes its guest along
	trap 'kill -TERM "$qemu" 2>/dev/null; exit 130' INT TERM
	guest_stop_when_done "$console" "$qemu" "${GUEST_DONE_GRACE:-130}" "$output"
	wait "$qemu" || rc=$?
	trap - INT TERM
	# stopped by guest_stop_when_done: the results are complete (or, when
	# it was idle, as complete as they will get: CONSOLE.idle says so)
	[ ! -e "$console.stopped" ] && [ ! -e "$console.idle" ] || rc=0
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		if [ "${accel[1]}" = kvm ] && ! grep -q FUSEGATE-BOOT-OK "$console"; then
			log "WARNING: the guest did not boot under KVM: TCG"
			GUEST_KVM=0
			guest_boot "$@"
			return
		fi
		return 124
	fi
	return 0
}
