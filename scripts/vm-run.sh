#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a kernel in QEMU, load tracebuf.ko, run the selftest programs, and
# report.  The guest side is scripts/vm-init.sh; the report is produced by
# scripts/vm-results.sh (which can be run again on an old output dir).
# The last line printed is "N passed, M failed"; the exit status is 0 only
# when M is 0.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
	cat <<EOF
Usage: ${0##*/} --kernel IMAGE --module KO --tests DIR [options]

  --kernel IMAGE       kernel image to boot (bzImage / vmlinuz / arm64 Image)
  --arch ARCH          the kernel's and the programs' architecture: x86_64
                       (default), arm64 (qemu-system-aarch64 -M virt) or
                       arm (32-bit, qemu-system-arm -M virt); programs of
                       a foreign architecture must be static
  --busybox FILE       a static busybox of ARCH (default: the host's, for
                       the host's architecture)
  --module KO          tracebuf.ko built for that kernel
  --module-args ARGS   its parameters at insmod ("name=value ...")
  --tests DIR          directory holding the built test programs
  --list FILE          programs to run, one per line, in order
                       (default: DIR/tests.list, else every executable in DIR)
  --scripts-dir DIR    where to look for listed programs missing from DIR
                       (e.g. selftests/tracebuf for TEST_PROGS shell scripts)
  --moddir DIR         /lib/modules/<version> of IMAGE, to load virtio/9p from
                       (omit when they are built in)
  --mem SIZE           guest memory (default 1G)
  --smp N              guest CPUs (default 2)
  --cpu MODEL          QEMU CPU model (default x86_64: qemu64,+rdrand, arm64:
                       max,pauth-impdef=on; both have a hardware RNG, so the
                       guest's RNG is ready at boot, not after ~1 min; arm:
                       cortex-a15, seeded from the device tree instead)
  --timeout SECS       per-program timeout (default: timeout= in DIR/settings, else 45)
  --timeout-mult N     multiply every timeout, boot allowance included (default 1)
  --kmemleak           after the tests, scan with kmemleak; any report fails
  --gcov               coverage: the programs write their gcov counters
                       under the guest's /tmp/tb-gcov (GCOV_PREFIX), and
                       after the tests those and the module's
                       (/sys/kernel/debug/gcov) are copied to
                       DIR/share/out/gcov/{user,kernel}
  --watchdog SECS      kill QEMU after SECS in total (default: boot + every
                       timeout, at most 500 + 400 * the multiplier)
  --append ARGS        extra kernel command line arguments
  --env NAME=VALUE     export NAME in the guest, for the programs (repeatable)
  --fail-first-boot    make the first boot fail before the module is loaded
                       (rdinit=/nonexistent): tests the retry
  --out DIR            output directory (default: .build/vm); the console
                       log is DIR/console.log, results are in DIR/share/out
  -v, --verbose        show the whole guest console, not only progress
  --interactive        the guest's console is this terminal, both ways (a
                       copy still goes to the console log); no limit on a
                       silent console, only the watchdog (scripts/run.sh
                       --shell)

A guest runs on one host thread (QEMU's -accel tcg,thread=single):
TB_TCG_THREAD=multi gives each vCPU its own, faster but, with QEMU 7.2,
unsafe while the guest patches its code (see below).  A 32-bit ARM guest
(--arch arm) runs multi-threaded unless TB_TCG_THREAD=single (see below).
EOF
	exit 2
}

KERNEL='' KO='' MODULE_ARGS='' TESTS='' LIST='' SCRIPTS_DIR='' MODDIR='' MEM=1G SMP=2 CPU='' TIMEOUT='' MULT=1
ARCH=x86_64 BUSYBOX=''
KMEMLEAK=0 GCOV=0 WATCHDOG='' APPEND='' OUT=$TB_BUILD/vm VERBOSE=0 INTERACTIVE=0
ENVS=() FAIL_FIRST=0
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) KERNEL=$2; shift ;;
	--arch) ARCH=$2; shift ;;
	--busybox) BUSYBOX=$2; shift ;;
	--module) KO=$2; shift ;;
	--module-args)
		[[ $2 =~ ^[a-z_]+=[A-Za-z0-9_,-]*( [a-z_]+=[A-Za-z0-9_,-]*)*$ ]] ||
			tb_die "bad --module-args '$2'"
		MODULE_ARGS=$2; shift ;;
	--tests) TESTS=$2; shift ;;
	--list) LIST=$2; shift ;;
	--scripts-dir) SCRIPTS_DIR=$2; shift ;;
	--moddir) MODDIR=$2; shift ;;
	--mem) MEM=$2; shift ;;
	--smp) SMP=$2; shift ;;
	--cpu) CPU=$2; shift ;;
	--timeout) TIMEOUT=$2; shift ;;
	--timeout-mult) MULT=$2; shift ;;
	--kmemleak) KMEMLEAK=1 ;;
	--gcov) GCOV=1 ;;
	--watchdog) WATCHDOG=$2; shift ;;
	--append) APPEND=$2; shift ;;
	--fail-first-boot) FAIL_FIRST=1 ;;
	--env)
		[[ $2 =~ ^[A-Z_][A-Z0-9_]*=[A-Za-z0-9_.:,/+-]*$ ]] || tb_die "bad --env '$2'"
		ENVS+=("$2"); shift ;;
	--out) OUT=$2; shift ;;
	-v|--verbose) VERBOSE=1 ;;
	--interactive) INTERACTIVE=1 ;;
	-h|--help) usage ;;
	*) echo "${0##*/}: unknown argument '$1'" >&2; usage ;;
	esac
	shift
done

if [ -z "$KERNEL" ] || [ -z "$KO" ] || [ -z "$TESTS" ]; then
	usage
fi

# Until the report runs, a failure still ends with the summary line.
qpid=''
on_exit() {
	[ -z "$qpid" ] || kill "$qpid" 2>/dev/null || true
	echo "0 passed, 1 failed"
}
trap on_exit EXIT
[ -r "$KERNEL" ] || tb_die "kernel image '$KERNEL' not found or not readable"
[ -r "$KO" ] || tb_die "module '$KO' not found"
[ -d "$TESTS" ] || tb_die "test directory '$TESTS' not found"
[ -z "$MODDIR" ] || [ -f "$MODDIR/modules.dep" ] || tb_die "'$MODDIR' has no modules.dep"
[[ $MULT =~ ^[1-9][0-9]*$ ]] || tb_die "--timeout-mult must be a positive integer"
# One host thread for both vCPUs (TB_TCG_THREAD=multi: one each).  Under
# QEMU 7.2's multi-threaded TCG a vCPU may go on executing the code
# another one patched, after the patch is done.  x86-64: the int3 of a
# static key's patch, "Oops: int3" (6.12) or an endless int3 loop and a
# soft lockup (6.1), within a second of toggling ftrace's sched_switch
# and sched_wakeup events around a sleeping thread; single-threaded, 1200
# such toggles ran clean.  arm64 (6.12, 16K pages), once: a kernel
# provider session recorded every wakeup and not one context switch or
# drop, with both probes registered, as if the sched_switch
# tracepoint's branch, patched on as the session started, stayed off on
# both vCPUs.
#
# 32-bit ARM is the other way round: multi-threaded by default.  Its
# kernel invalidates a kernel address range's TLB entries one 4 KiB page
# at a time, with no fallback to a whole flush, and a broadcast
# invalidation hands a single host thread to the other vCPU, which, when
# it is spinning in stop_machine() (ARM patches its static keys under
# stop_machine(), and so changes section permissions), keeps it until
# QEMU's 100 ms round-robin kick: ten pages a second.  Single-threaded,
# the armmp boot sat silent for many minutes in free_initmem() after
# "uart-pl011 ...: no DMA platform data" (CPU0 in
# v7wbi_flush_kern_tlb_range() under set_section_perms(), CPU1 in
# multi_cpu_stop()), and, booted on one CPU with the second onlined
# later, kapi_vmtest's module load did the same over 750 MiB in
# do_free_init(), with soft lockups on both CPUs.  Multi-threaded the
# boot reaches /init in 3 s.  ARM's own code patching stops the other
# CPUs first, unlike x86-64's int3 patching.
TCG_DEFAULT=single
[ "$ARCH" != arm ] || TCG_DEFAULT=multi
[[ ${TB_TCG_THREAD:-$TCG_DEFAULT} =~ ^(single|multi)$ ]] ||
	tb_die "TB_TCG_THREAD is single or multi, not '$TB_TCG_THREAD'"
TCG=(-accel "tcg,thread=${TB_TCG_THREAD:-$TCG_DEFAULT}")
# What differs between the architectures the guest can have.
case $ARCH in
x86_64)
	QEMU_BIN=qemu-system-x86_64 QEMU_MACHINE=("${TCG[@]}") CONSOLE=ttyS0
	: "${CPU:=qemu64,+rdrand}"
	# The emulated TSC drifts against the watchdog's clocksource when
	# the host is busy; the kernel then marks it unstable in the middle
	# of a run and flips static keys by int3 text patching, which under
	# TCG has crashed the debug kernel (Oops: int3 in sched_clock_cpu).
	# Without the watchdog the TSC stays as the boot found it.
	ARCH_CMDLINE="tsc=nowatchdog" ;;
arm64)
	# pauth-impdef: QEMU's own pointer-authentication hash, much faster
	# to emulate than the architected one.
	QEMU_BIN=qemu-system-aarch64 QEMU_MACHINE=(-M virt "${TCG[@]}") CONSOLE=ttyAMA0
	: "${CPU:=max,pauth-impdef=on}"
	ARCH_CMDLINE= ;;
arm)
	# QEMU's ARMv7 board, with a Cortex-A15.  highmem=off: the PCIe
	# configuration space of the board's default layout lies above
	# 4 GiB, where a kernel without LPAE (Debian's armmp) cannot map it
	# ("pci-host-generic: probe ... failed with error -16", and no 9p).
	# The kernel credits the device tree's rng-seed, which QEMU fills:
	# the RNG is ready at boot.
	QEMU_BIN=qemu-system-arm QEMU_MACHINE=(-M virt,highmem=off "${TCG[@]}") CONSOLE=ttyAMA0
	: "${CPU:=cortex-a15}"
	ARCH_CMDLINE= ;;
*) tb_die "unknown --arch '$ARCH' (x86_64, arm64 or arm)" ;;
esac
NATIVE=0
[ "$ARCH" != "$(tb_host_arch)" ] || NATIVE=1
command -v "$QEMU_BIN" >/dev/null || tb_die "$QEMU_BIN not found (scripts/install-deps.sh)"
command -v cpio >/dev/null || tb_die "cpio not found (scripts/install-deps.sh)"
if [ -z "$BUSYBOX" ]; then
	[ $NATIVE = 1 ] || tb_die "--arch $ARCH needs --busybox (a static busybox of $ARCH)"
	BUSYBOX=$(command -v busybox || true)
	[ -x /bin/busybox ] && BUSYBOX=/bin/busybox
	[ -n "$BUSYBOX" ] || tb_die "busybox not found (apt-get install busybox-static)"
fi
[ -x "$BUSYBOX" ] || tb_die "busybox '$BUSYBOX' not found or not executable"

if [ -z "$TIMEOUT" ]; then
	TIMEOUT=45
	if [ -f "$TESTS/settings" ]; then
		t=$(sed -n 's/^timeout=\([0-9]\+\)$/\1/p' "$TESTS/settings" | tail -n 1)
		[ -z "$t" ] || TIMEOUT=$t
		# kselftest: 0 means no timeout; the watchdog still applies.
		[ "$t" != 0 ] || TIMEOUT=3600
	fi
fi
[[ $TIMEOUT =~ ^[1-9][0-9]*$ ]] || tb_die "bad per-program timeout '$TIMEOUT'"
TIMEOUT=$((TIMEOUT * MULT))

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
SHARE=$OUT/share
STAGE=$OUT/initramfs
rm -rf "$SHARE" "$STAGE" "$OUT/initramfs.cpio" "$OUT/console.log" "$OUT/qemu.status" \
	"$OUT/out.before-boot" "$OUT/console.boot-failure.log"
mkdir -p "$SHARE/tests" "$SHARE/out" "$STAGE"

# --- the share: module, test programs, run.conf ------------------------------

cp "$KO" "$SHARE/tracebuf.ko"
# the in-kernel API's example module, when built beside it
kexample=$(dirname "$KO")/examples/tracebuf_kexample.ko
rm -f "$SHARE/tracebuf_kexample.ko"
[ ! -f "$kexample" ] || cp "$kexample" "$SHARE/tracebuf_kexample.ko"
cp -a "$TESTS/." "$SHARE/tests/"

if [ -z "$LIST" ] && [ -f "$TESTS/tests.list" ]; then
	LIST=$TESTS/tests.list
fi
if [ -n "$LIST" ]; then
	[ -r "$LIST" ] || tb_die "program list '$LIST' not found"
	mapfile -t names < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$LIST" | grep -v '^$' || true)
else
	mapfile -t names < <(find "$TESTS" -maxdepth 1 -type f -perm -u+x -printf '%f\n' | sort)
fi

run=()
for t in "${names[@]}"; do
	if ! [[ $t =~ ^[A-Za-z0-9_.+-]+$ ]]; then
		tb_log "ignoring program name with odd characters: '$t'"
		continue
	fi
	dst=$SHARE/tests/$t
	if [ ! -f "$dst" ] && [ -n "$SCRIPTS_DIR" ] && [ -f "$SCRIPTS_DIR/$t" ]; then
		cp "$SCRIPTS_DIR/$t" "$dst"
	fi
	if [ ! -f "$dst" ]; then
		echo "not built: no $t in $TESTS${SCRIPTS_DIR:+ or $SCRIPTS_DIR}" > "$SHARE/out/$t.missing"
		tb_log "listed program $t was not built"
		continue
	fi
	if [ ! -x "$dst" ]; then
		if [ "$(head -c 2 "$dst")" = '#!' ]; then
			chmod +x "$dst"
		else
			echo "not executable: $t" > "$SHARE/out/$t.missing"
			continue
		fi
	fi
	machine=$(readelf -h "$dst" 2>/dev/null | sed -n 's/^ *Machine: *//p' || true)
	case $ARCH:$machine in
	*:|x86_64:*X86-64|x86_64:*80386|arm64:AArch64|arm64:ARM|arm:ARM) ;;
	*)
		echo "built for $machine, not for $ARCH" > "$SHARE/out/$t.missing"
		tb_log "$t is built for $machine, not for $ARCH"
		continue ;;
	esac
	if [ $NATIVE = 0 ] && readelf -lW "$dst" 2>/dev/null | grep 'program interpreter' > /dev/null; then
		echo "dynamically linked: a program for $ARCH must be static" > "$SHARE/out/$t.missing"
		tb_log "$t is dynamically linked: the $ARCH guest has no libraries"
		continue
	fi
	run+=("$t")
done
printf '%s\n' "${names[@]}" > "$SHARE/tests.list"

cat > "$SHARE/run.conf" <<EOF
TB_TESTS="${run[*]}"
TB_TIMEOUT=$TIMEOUT
TB_KMEMLEAK=$KMEMLEAK
TB_GCOV=$GCOV
TB_MODULE_ARGS="$MODULE_ARGS"
export TB_TIMEOUT_MULT=$MULT
EOF
for e in "${ENVS[@]}"; do
	echo "export $e" >> "$SHARE/run.conf"
done

# --- the initramfs -------------------------------------------------------------

# copy_libs FILE: put the shared libraries FILE needs (none for a static
# binary or a script) into the initramfs, at the same paths.  A program of
# a foreign architecture has none: the host's cannot serve it.
copy_libs() {
	local lib
	[ $NATIVE = 1 ] || return 0
	for lib in $(ldd "$1" 2>/dev/null | grep -o '/[^ ]*' || true); do
		[ -e "$STAGE$lib" ] && continue
		mkdir -p "$STAGE$(dirname "$lib")"
		cp -L "$lib" "$STAGE$lib"
	done
}
# copy_with_libs FILE: FILE at the same path, and its libraries.
copy_with_libs() {
	mkdir -p "$STAGE$(dirname "$1")"
	cp -L "$1" "$STAGE$1"
	copy_libs "$1"
}

mkdir -p "$STAGE"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,mnt,tmp,run,root,lib/tb-modules}
if [ $NATIVE = 1 ]; then
	copy_with_libs "$BUSYBOX"
	[ "$BUSYBOX" = /bin/busybox ] || ln -s "$BUSYBOX" "$STAGE/bin/busybox"
	# bash, for test scripts that ask for it; zstd, which tracebufctl
	# runs for a .zst trace (busybox has gzip, not zstd).
	[ -x /bin/bash ] && copy_with_libs /bin/bash
	zstd=$(command -v zstd || true)
	[ -z "$zstd" ] || copy_with_libs "$zstd"
else
	cp -L "$BUSYBOX" "$STAGE/bin/busybox"
fi
ln -s busybox "$STAGE/bin/sh"
# Test programs should be static, but dynamic ones get their libraries
# (in a guest of the host's architecture), and so do the tools they run
# from the same directory.
while IFS= read -r -d '' f; do
	copy_libs "$f"
done < <(find "$SHARE/tests" -maxdepth 1 -type f -perm -u+x -print0)
install -m 755 "$TB_ROOT/scripts/vm-init.sh" "$STAGE/init"
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' > "$STAGE/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$STAGE/etc/group"

# virtio-pci, 9p over virtio and 9p, with their dependencies in load order,
# unless the kernel has them built in.
: > "$STAGE/lib/tb-modules/order"
if [ -n "$MODDIR" ]; then
	declare -A dep_of=() path_of=() seen=()
	while IFS=: read -r mod deps; do
		dep_of[$mod]=$deps
		n=${mod##*/}
		n=${n%%.ko*}
		path_of[${n//-/_}]=$mod
	done < "$MODDIR/modules.dep"

	visit() {
		local m=$1 d
		[ -z "${seen[$m]:-}" ] || return 0
		seen[$m]=1
		for d in ${dep_of[$m]:-}; do visit "$d"; done
		add_module "$m"
	}
	add_module() {
		local m=$1 base
		base=${m##*/}
		base=${base%%.ko*}.ko
		case $m in
		*.ko) cp "$MODDIR/$m" "$STAGE/lib/tb-modules/$base" ;;
		*.ko.xz) xz -dc "$MODDIR/$m" > "$STAGE/lib/tb-modules/$base" ;;
		*.ko.zst) zstd -qdc "$MODDIR/$m" > "$STAGE/lib/tb-modules/$base" ;;
		*.ko.gz) gzip -dc "$MODDIR/$m" > "$STAGE/lib/tb-modules/$base" ;;
		*) tb_die "unknown module format: $m" ;;
		esac
		echo "$base" >> "$STAGE/lib/tb-modules/order"
	}
	for want in virtio_pci 9pnet_virtio 9p; do
		if [ -n "${path_of[$want]:-}" ]; then
			visit "${path_of[$want]}"
		elif ! grep -qE "/${want}\.ko(\.[a-z]+)?$" "$MODDIR/modules.builtin" 2>/dev/null; then
			tb_die "$want is neither a module in $MODDIR nor built in"
		fi
	done
fi

(cd "$STAGE" && find . -print0 | cpio --null -o -H newc -R 0:0 --quiet) > "$OUT/initramfs.cpio"

# --- boot ------------------------------------------------------------------------

n=${#run[@]}
BOOT_ALLOW=$((90 * MULT))
LEAK_ALLOW=$((KMEMLEAK ? 120 * MULT : 0))
if [ -z "$WATCHDOG" ]; then
	# Every program may use its whole timeout, but a run never gets more
	# than 15 minutes (35 with --timeout-mult 4, the debug kernel's whole
	# suite, some 25): CI has a budget.
	WATCHDOG=$((BOOT_ALLOW + n * (TIMEOUT + 15) + LEAK_ALLOW + 60))
	cap=$((500 + 400 * MULT))
	[ $WATCHDOG -le $cap ] || WATCHDOG=$cap
fi
# Also give up when the console has been silent for longer than any step
# may legitimately take (a test prints its start and end lines).
IDLE=$((TIMEOUT > BOOT_ALLOW ? TIMEOUT : BOOT_ALLOW))
IDLE=$((IDLE > LEAK_ALLOW ? IDLE : LEAK_ALLOW))
IDLE=$((IDLE + 60))

CMDLINE="console=$CONSOLE panic=-1 printk.devkmsg=on log_buf_len=16M $ARCH_CMDLINE $APPEND"
QEMU=("$QEMU_BIN" "${QEMU_MACHINE[@]}" -nographic -no-reboot -nic none -cpu "$CPU" -smp "$SMP" -m "$MEM"
      -kernel "$KERNEL" -initrd "$OUT/initramfs.cpio"
      -virtfs "local,path=$SHARE,mount_tag=tbshare,security_model=none,id=tbshare"
      -virtfs "local,path=$SHARE/tests,mount_tag=tbtests,security_model=none,id=tbtests,readonly=on")
printf '%q ' "${QEMU[@]}" -append "$CMDLINE" > "$OUT/qemu.cmdline"
echo >> "$OUT/qemu.cmdline"

CONSOLE=$OUT/console.log
# What the share's out/ holds before the guest writes (programs not built).
cp -a "$SHARE/out" "$OUT/out.before-boot"

# boot: one run of the guest; sets qrc, elapsed, idle_kill.
boot() {
tb_log "booting $(basename "$KERNEL") (${MEM} RAM, $n programs, ${TIMEOUT}s each, watchdog ${WATCHDOG}s)"
: > "$CONSOLE"
start=$(date +%s)
if [ "$INTERACTIVE" = 1 ]; then
	# QEMU's -nographic console on this terminal: timeout in the
	# foreground, or reading the terminal would stop it (SIGTTIN).  The
	# firmware's terminal reset, screen clearing and "no line wrap"
	# before the guest's first line are left out.
	qrc=0 idle_kill=0
	timeout --foreground -k 10 "$WATCHDOG" "${QEMU[@]}" -append "$CMDLINE${1:-}" 2>&1 |
		tee "$CONSOLE" | perl -e '$| = 1; my ($b, $seen);
			while (sysread(STDIN, $b, 65536)) {
				unless ($seen) { $b =~ s/\ec|\e\[\?7l|\e\[2J//g; $seen = $b =~ /tracebuf-vm:/ }
				syswrite(STDOUT, $b);
			}' || qrc=${PIPESTATUS[0]}
	# (QEMU restores the terminal unless it was killed)
	[ "$qrc" = 0 ] || [ ! -t 0 ] || stty sane 2>/dev/null || true
	elapsed=$(($(date +%s) - start))
	tb_log "QEMU exited with status $qrc after ${elapsed}s; console log: $CONSOLE"
	return
fi
timeout -k 10 "$WATCHDOG" "${QEMU[@]}" -append "$CMDLINE${1:-}" < /dev/null > "$CONSOLE" 2>&1 &
qpid=$!
if [ "$VERBOSE" = 1 ]; then
	tail -n +1 -f --pid=$qpid "$CONSOLE" | sed -u 's/\r$//' &
else
	tail -n +1 -f --pid=$qpid "$CONSOLE" | grep -a --line-buffered '^tracebuf-vm:' | sed -u 's/\r$//' &
fi
tpid=$!

idle_kill=0
while kill -0 $qpid 2>/dev/null; do
	sleep 2
	if [ $(($(date +%s) - $(stat -c %Y "$CONSOLE"))) -gt $IDLE ]; then
		idle_kill=1
		kill $qpid 2>/dev/null || true
		break
	fi
done
qrc=0
wait $qpid || qrc=$?
wait $tpid 2>/dev/null || true
qpid=''
elapsed=$(($(date +%s) - start))
tb_log "QEMU exited with status $qrc after ${elapsed}s; console log: $CONSOLE"
}

# A guest that dies before it loads the module (seen once on the debug
# kernel under emulation: an oops in the scheduler's clock code at 38 s)
# is a boot failure, not a test failure: it gets one more try.
if [ $FAIL_FIRST = 1 ]; then
	boot " rdinit=/nonexistent"
else
	boot
fi
boot_failures=0
if [ ! -f "$SHARE/out/insmod.rc" ]; then
	boot_failures=1
	mv "$CONSOLE" "$OUT/console.boot-failure.log"
	tb_log "boot failure: the guest never got to load the module; trying once more" \
		"(first console: $OUT/console.boot-failure.log)"
	rm -rf "$SHARE/out"
	cp -a "$OUT/out.before-boot" "$SHARE/out"
	boot
	[ -f "$SHARE/out/insmod.rc" ] || boot_failures=2
fi

{
	echo "QEMU_RC=$qrc"
	echo "ELAPSED=$elapsed"
	echo "BOOT_FAILURES=$boot_failures"
	if [ $idle_kill = 1 ]; then
		echo "WATCHDOG='no console output for ${IDLE}s: QEMU killed'"
	elif [ $qrc = 124 ] || [ $qrc = 137 ]; then
		echo "WATCHDOG='the run took longer than ${WATCHDOG}s: QEMU killed'"
	fi
} > "$OUT/qemu.status"

trap - EXIT
exec "$TB_ROOT/scripts/vm-results.sh" "$OUT"
