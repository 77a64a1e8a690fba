#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The body of "make check", "make check TARGET=..." and "make check-debug":
# install what is missing, run the host unit tests of libtracebuf
# (scripts/host-tests.sh; the default target only: they do not depend on
# the kernel), build tracebuf.ko for the kernel under test (in .build/,
# never in the tree), build the test programs statically for the busybox
# guest (64-bit and 32-bit), boot the kernel in QEMU and run them
# (scripts/vm-run.sh).
#
#   check.sh [--target NAME] [--kernel IMAGE] [--kdir DIR] [--moddir DIR]
#       NAME: one of lib.sh's TB_TARGETS, default x86_64-6.1: the newest
#       Debian kernel of the target's series and architecture, installed
#       (x86_64) or unpacked into .build/targets/NAME (arm64) by
#       scripts/install-deps.sh --target NAME.  With only --kdir
#       /lib/modules/<ver>/build, the image and modules are taken from
#       /boot and /lib/modules/<ver>.
#   check.sh --debug [--kernel IMAGE] [--kdir DIR] [--moddir DIR]
#       The debug kernel: IMAGE, or else the newest *.bzImage in
#       $DEBUG_KERNELS (a directory; none by default: one of the two is
#       needed); its build tree DIR, or else the *-build.tar.xz beside the
#       image (extracted once into .build/).  More memory, longer
#       timeouts, and a kmemleak scan.
#
#   check.sh --coverage [--kernel IMAGE] [--kdir DIR]
#       The coverage kernel (gcov and KCOV support; IMAGE, or else the
#       newest *.bzImage in $COVERAGE_KERNELS, with its build tree as for
#       --debug): the module built with GCOV_PROFILE and KCOV_INSTRUMENT,
#       the 64-bit integration tests built with --coverage into
#       .build/coverage/, and the counters of both copied back
#       (vm-run.sh --gcov).  No host tests, no 32-bit or unit tests:
#       scripts/coverage.sh runs this and makes the report.
#
#   check.sh ... --programs "PROG..." [--env NAME=VALUE]... [--timeout SECS]
#                [--watchdog SECS]
#       Only these programs (selftests or integration tests, by name), no
#       host tests and no runner self-check: "make fault", "make fuzz" and
#       "make soak".  --env, --timeout and --watchdog go to vm-run.sh.
#
# Other settings (environment): MEM, TIMEOUT_MULT, VM_ARGS (more arguments
# for vm-run.sh, e.g. "-v"), NO_DEPS=1 (do not run install-deps.sh).
# The two parts end with "host: N passed, M failed" and "vm: N passed, M
# failed"; the last line printed is their sum, "N passed, M failed"; exit
# status 0 iff M is 0.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DEBUG=0 COVERAGE=0 KERNEL='' KDIR='' MODDIR='' PROGRAMS='' TARGET=''
VM_OPTS=()
while [ $# -gt 0 ]; do
	case $1 in
	--debug) DEBUG=1 ;;
	--coverage) COVERAGE=1 ;;
	--target) TARGET=$2; shift ;;
	--programs) PROGRAMS=$2; shift ;;
	--env|--timeout|--watchdog) VM_OPTS+=("$1" "$2"); shift ;;
	--kernel) KERNEL=$2; shift ;;
	--kdir) KDIR=$2; shift ;;
	--moddir) MODDIR=$2; shift ;;
	*) tb_die "unknown argument '$1' (see the comment at the top of $0)" ;;
	esac
	shift
done

# A step that fails (a host test, install-test.sh, deb-test.sh,
# run-test.sh, the runner's self-check, the guest suite) prints its FAIL
# line and the run goes on.  What stops the run is a build (or setup)
# that what follows needs: it prints a FAIL line with the reason, then the
# last line, in its format, counts the host tests that ran and one failure.
host_passed=0 host_failed=0
reported=0
TALLY=$(mktemp -d)
STOPPED=$TALLY/stopped
stopped() {
	local rc=$1 why="exit status $1; see the messages above"
	[ ! -s "$STOPPED" ] || why=$(cat "$STOPPED")
	rm -rf "$TALLY"
	[ $reported = 0 ] || return 0
	printf '  FAIL  %s: %s\n' "check.sh stopped before the guest suite" "$why"
	echo "$host_passed passed, $((host_failed + 1)) failed"
}
trap 'stopped $?' EXIT
# tb_die, here: the reason is kept for that FAIL line (also from a
# subshell, $(...)).
tb_die() {
	printf '%s\n' "$*" > "$STOPPED"
	printf '%s: error: %s\n' "${0##*/}" "$*" >&2
	exit 2
}

tb_no_space "$TB_ROOT"
tb_no_space "$TB_BUILD"
# The debug and coverage kernels are x86-64 ones.
[ $DEBUG = 0 ] || [ -z "$TARGET" ] || tb_die "--debug and --target do not go together"
[ $COVERAGE = 0 ] || [ -z "$TARGET" ] || tb_die "--coverage and --target do not go together"
[ $COVERAGE = 0 ] || [ $DEBUG = 0 ] || tb_die "--coverage and --debug do not go together"
DEFAULT_TARGET=${TB_TARGETS%% *}
tb_target "${TARGET:-$DEFAULT_TARGET}"
[ "${NO_DEPS:-0}" = 1 ] || "$TB_ROOT/scripts/install-deps.sh" --target "$TB_TARGET" ||
	tb_die "missing packages (see above)"
# The host tests and the runner's self-check run once, with the default
# target.
FIRST=0
[ $DEBUG = 1 ] || [ $COVERAGE = 1 ] || [ -n "$PROGRAMS" ] || [ "$TB_TARGET" != "$DEFAULT_TARGET" ] ||
	FIRST=1

# tally LABEL: copy standard input to standard output, but print its
# "N passed, M failed" lines as "LABEL: N passed, M failed" and keep the
# numbers of the last one in $TALLY/LABEL.
tally() {
	local line
	while IFS= read -r line; do
		if [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
			echo "$1: $line"
			echo "${BASH_REMATCH[1]} ${BASH_REMATCH[2]}" > "$TALLY/$1"
		else
			printf '%s\n' "$line"
		fi
	done
}
# counts LABEL: "passed failed" of a tallied part; a part that printed no
# summary line counts one failure.
counts() {
	cat "$TALLY/$1" 2>/dev/null || echo "0 1"
}

if [ $FIRST = 1 ]; then
	"$TB_ROOT/scripts/host-tests.sh" --out "$TB_BUILD/host-tests" | tally host || true
	read -r host_passed host_failed < <(counts host)
fi

SELFTESTS=$TB_ROOT/selftests/tracebuf
[ -f "$SELFTESTS/Makefile" ] || tb_die "no $SELFTESTS/Makefile: no selftests to run"

# kernel_from_dir VAR DIR: KERNEL, else the newest *.bzImage in DIR (the
# directory variable VAR names, for the messages); KDIR, else the
# *-build.tar.xz beside the image, extracted once into .build/.
kernel_from_dir() {
	local var=$1 dir=$2 tarball cache stamp
	if [ -z "$KERNEL" ]; then
		[ -n "$dir" ] ||
			tb_die "no kernel image: pass --kernel IMAGE --kdir DIR, or $var=DIR"
		KERNEL=$(printf '%s\n' "$dir"/*.bzImage | sort -V | tail -n 1)
		[ -f "$KERNEL" ] || tb_die "no *.bzImage in $dir ($var)"
	fi
	if [ -z "$KDIR" ]; then
		tarball=${KERNEL%.bzImage}-build.tar.xz
		[ -f "$tarball" ] || tb_die "no build tree for $KERNEL: expected $tarball (or pass --kdir)"
		cache=$TB_BUILD/kernels/$(basename "${tarball%.tar.xz}")
		stamp="$(stat -c '%s %Y' "$tarball")"
		if [ "$(cat "$cache/.extracted" 2>/dev/null || true)" != "$stamp" ]; then
			tb_log "extracting $tarball"
			rm -rf "$cache"
			mkdir -p "$cache"
			tar -xJf "$tarball" -C "$cache"
			echo "$stamp" > "$cache/.extracted"
		fi
		KDIR=$cache/build
	fi
}

KMAKE=("${TB_KMAKE[@]}")
if [ $DEBUG = 1 ]; then
	[ -n "$KERNEL" ] || [ -n "${DEBUG_KERNELS:-}" ] ||
		tb_die "no debug kernel: pass --kernel IMAGE --kdir DIR (make: DEBUG_KERNEL= DEBUG_KDIR=), or DEBUG_KERNELS=DIR"
	kernel_from_dir DEBUG_KERNELS "${DEBUG_KERNELS:-}"
	MEM=${MEM:-3G}
	TIMEOUT_MULT=${TIMEOUT_MULT:-4}
	# A burst of providers takes seconds a run there: 10 runs, not 50.
	# Both vCPUs run on one host thread (vm-run.sh: the debug kernel met
	# QEMU's int3 race too), where 32 providers released at once took
	# 9 s to be started: they wait up to 30 s for a START.  The POSIX
	# online runs read some 35 times slower there (80,000 events: 204 s
	# against 6 s; each read of a running stream takes a snapshot of all
	# it holds, so a run's cost grows with the square of its events):
	# a 64th of their events (a sixteenth still took 214 s of 240).
	VM_EXTRA=(--kmemleak --env TB_BURST_RUNS=10 --env TB_START_TIMEOUT_MS=30000
		  --env TB_ONLINE_DIV=64)
elif [ $COVERAGE = 1 ]; then
	[ -n "$KERNEL" ] || [ -n "${COVERAGE_KERNELS:-}" ] ||
		tb_die "no coverage kernel: pass --kernel IMAGE --kdir DIR, or COVERAGE_KERNELS=DIR"
	kernel_from_dir COVERAGE_KERNELS "${COVERAGE_KERNELS:-}"
	KMAKE+=(GCOV_PROFILE=y KCOV_INSTRUMENT=y)
	MEM=${MEM:-1G}
	TIMEOUT_MULT=${TIMEOUT_MULT:-2}
	VM_EXTRA=(--gcov)
else
	if [ -z "$KERNEL" ] && [ -z "$KDIR" ]; then
		kinfo=$(tb_find_kernel "$TB_SERIES" "$TB_FLAVOUR" "$TB_KROOT")
		read -r KERNEL KDIR MODDIR <<< "$kinfo"
	elif [ -z "$KERNEL" ]; then
		ver=$(tb_kernel_release "$KDIR") ||
			tb_die "cannot tell the release of $KDIR: set KERNEL= too"
		KERNEL=/boot/vmlinuz-$ver
		[ -n "$MODDIR" ] || MODDIR=/lib/modules/$ver
	elif [ -z "$KDIR" ]; then
		tb_die "KERNEL= given without KDIR= (its build tree)"
	fi
	MEM=${MEM:-1G}
	TIMEOUT_MULT=${TIMEOUT_MULT:-1}
	VM_EXTRA=()
fi
[ -f "$KERNEL" ] || tb_die "kernel image $KERNEL not found"
[ -f "$KDIR/Makefile" ] || tb_die "$KDIR is not a kernel build tree"
KDIR=$(cd "$KDIR" && pwd)
[ -z "$MODDIR" ] || VM_EXTRA+=(--moddir "$MODDIR")

release=$(tb_kernel_release "$KDIR" || basename "$KERNEL")
WORK=$TB_BUILD/check-$release
[ $COVERAGE = 0 ] || WORK=$TB_BUILD/coverage/check-$release
mkdir -p "$WORK"
tb_log "target $TB_TARGET: kernel $KERNEL, build tree $KDIR"

t0=$(date +%s)
KO=$(tb_build_module "$KDIR" "$WORK" "${KMAKE[@]}")

# A build tree of another architecture than the compiler's (here the
# host's gcc, given explicitly: a 6.12 tree names its own compiler) is
# refused in one line (module/Kbuild), not with pages of compiler errors.
if [ $FIRST = 0 ] && [ -n "${TB_KMAKE[*]}" ] && [ -z "$PROGRAMS" ]; then
	check_name="module build refuses the $TB_ARCH tree with the host's compiler"
	if (STOPPED=/dev/null; tb_build_module "$KDIR" "$WORK/wrong-cc" "${TB_KMAKE[@]}" CC=gcc) \
		> "$WORK/wrong-cc.log" 2>&1; then
		echo "  FAIL  $check_name: it built"
		host_failed=$((host_failed + 1))
	elif grep -q "Kbuild:[0-9]*: \*\*\* tracebuf: .* is an $TB_ARCH kernel tree but .* builds for x86_64-linux-gnu (pass CROSS_COMPILE=" "$WORK/wrong-cc.log"; then
		echo "  PASS  $check_name"
		host_passed=$((host_passed + 1))
	else
		echo "  FAIL  $check_name: not with the one-line reason (see $WORK/wrong-cc.log)"
		host_failed=$((host_failed + 1))
	fi
fi

# One directory of programs per architecture.
TESTS=$TB_BUILD/programs-$TB_ARCH
UOUT=$TB_BUILD/out-$TB_ARCH
UFLAGS=(LDFLAGS="$TB_LDFLAGS")
if [ $COVERAGE = 1 ]; then
	TESTS=$TB_BUILD/coverage/programs-$TB_ARCH
	UOUT=$TB_BUILD/coverage/out-$TB_ARCH
	UFLAGS=(CFLAGS="-O2 -g --coverage -include $TB_ROOT/scripts/coverage-exit.h"
		LDFLAGS="$TB_LDFLAGS --coverage")
	tb_flags_dir "$UOUT" "${UFLAGS[@]}"
fi
mkdir -p "$TESTS"
tb_log "building the selftests (static, $TB_CC${TB_CC32:+ and $TB_CC32}) into $TESTS"
make -C "$SELFTESTS" OUTPUT="$TESTS" CC="$TB_CC" CC32="$TB_CC32" \
	EXTRA_LDFLAGS="-static $TB_LDFLAGS" >&2 ||
	tb_die "the selftests did not build"
# (a 32-bit target's programs are its 32-bit ones: TB_CC32 is '')
[ -z "$TB_CC32" ] || [ -x "$TESTS/abi_test_32" ] ||
	tb_die "no 32-bit selftests: '$TB_CC32' cannot link a static program (scripts/install-deps.sh)"
# the debug kernel has no userfaultfd and no memory cgroups: the
# programs that need them run on Debian's kernel only (list-debug)
LIST_TARGET=list
[ $DEBUG = 0 ] || LIST_TARGET=list-debug
make -s --no-print-directory -C "$SELFTESTS" OUTPUT="$TESTS" CC="$TB_CC" CC32="$TB_CC32" \
	$LIST_TARGET > "$WORK/tests.list" ||
	tb_die "'make -C $SELFTESTS $LIST_TARGET' failed"
[ -s "$WORK/tests.list" ] || tb_die "'make -C $SELFTESTS list' printed no programs"
# The integration tests of libtracebuf, tracebufctl (with tracebufctl
# and the example program beside them) and libposixtrace, before the
# script that reloads the module.
: > "$WORK/vmtests.list"
# Their objects and libraries go to one directory per architecture, never
# into the tree.
for dir in userlib/lib userlib/ctl userlib/posixtrace; do
	tb_log "building the integration tests of $dir (static) into $TESTS"
	make -C "$TB_ROOT/$dir" O="$UOUT" CC="$TB_CC" CC32="$TB_CC32" "${UFLAGS[@]}" \
		vmtests VMTEST_OUT="$TESTS" >&2 ||
		tb_die "the integration tests of $dir did not build"
	make -s --no-print-directory -C "$TB_ROOT/$dir" list-vmtests >> "$WORK/vmtests.list" ||
		tb_die "'make -C $dir list-vmtests' failed"
done
# The unit tests of libtracebuf and tracebufctl, and the integration tests
# of libtracebuf, once more as 32-bit programs; the unit tests also as
# 64-bit programs where this machine cannot run them (host-tests.sh runs
# them here otherwise).  Plain and static, in the guest.  The debug
# kernel runs no 32-bit program (every Debian target runs them, and its
# suite would not fit its time on one host thread) and no unit test (they
# never reach the module).
: > "$WORK/unit.list"
# unit CC CXX SUFFIX: build them with CC and CXX, as NAMESUFFIX.
unit() {
	local dir goals lists
	for dir in userlib/lib userlib/ctl; do
		goals=unit-tests lists=list-unit-tests
		if [ "$dir$3" = userlib/lib_32 ]; then
			goals="unit-tests vmtests" lists="list-unit-tests list-vmtests"
		fi
		tb_log "building the $goals of $dir ($1) into $TESTS"
		# shellcheck disable=SC2086 # goals, lists: make goals, one per word
		make -C "$TB_ROOT/$dir" O="$TB_BUILD/out-$TB_ARCH$3" CC="$1" CXX="$2" \
			LDFLAGS="$TB_LDFLAGS" UNIT_OUT="$TESTS" VMTEST_OUT="$TESTS" SUFFIX="$3" \
			$goals >&2 || tb_die "the $goals of $dir did not build with $1"
		# shellcheck disable=SC2086
		make -s --no-print-directory -C "$TB_ROOT/$dir" SUFFIX="$3" $lists \
			>> "$WORK/unit.list" || tb_die "'make -C $dir $lists' failed"
	done
}
if [ $DEBUG = 0 ] && [ $COVERAGE = 0 ]; then
	[ -z "$TB_CC32" ] || unit "$TB_CC32" "$TB_CXX32" _32
	[ "$TB_ARCH" = "$(tb_host_arch)" ] || unit "$TB_CC" "$TB_CXX" ''
else
	grep -v '_32$' "$WORK/tests.list" > "$WORK/tests.list.new" || true
	mv "$WORK/tests.list.new" "$WORK/tests.list"
fi
{ grep -vx 'insmod_test.sh' "$WORK/tests.list" || true
  cat "$WORK/unit.list" "$WORK/vmtests.list"
  grep -x 'insmod_test.sh' "$WORK/tests.list" || true
} > "$WORK/tests.list.new"
mv "$WORK/tests.list.new" "$WORK/tests.list"
if [ -n "$TB_NOT_RUN" ]; then
	echo "  note: not run on $TB_TARGET: $TB_NOT_RUN ($TB_NOT_RUN_WHY)"
	grep -vxF "${TB_NOT_RUN// /$'\n'}" "$WORK/tests.list" > "$WORK/tests.list.new" || true
	mv "$WORK/tests.list.new" "$WORK/tests.list"
fi
if [ -n "$PROGRAMS" ]; then
	: > "$WORK/tests.list.new"
	for p in $PROGRAMS; do
		[ -x "$TESTS/$p" ] || [ -x "$SELFTESTS/$p" ] ||
			tb_die "--programs: no program '$p' (see $WORK/tests.list)"
		echo "$p" >> "$WORK/tests.list.new"
	done
	mv "$WORK/tests.list.new" "$WORK/tests.list"
fi
tb_log "built in $(($(date +%s) - t0))s; programs: $(tr '\n' ' ' < "$WORK/tests.list")"

# host_script [--as LABEL] NAME ARGS...: run scripts/NAME (KTAP, then "N
# passed, M failed"), log in $WORK/NAME.log (LABEL.log, and LABEL on its
# line, for a script run more than once); one line for it, and its
# numbers added to the host's.  When it fails, the line says why: each "not ok" with
# the diagnostics just before it (tb_check prints the reason there), or,
# when it stopped before its summary, its exit status and last lines.  A
# script that fails never stops this one.
host_script() {
	local label='' name log p='' f='' rc=0 why=''
	if [ "$1" = --as ]; then
		label=$2
		shift 2
	fi
	name=$1 log=$WORK/${label:-${1%.sh}}.log
	shift
	"$TB_ROOT/scripts/$name" "$@" > "$log" 2>&1 || rc=$?
	name=${label:-$name}
	read -r p f < <(tail -n 1 "$log" |
		sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p') || true
	if [ -z "$p" ]; then
		p=0 f=1 why="stopped (exit status $rc) before its summary"
	elif [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		f=1 why="exit status $rc"
	fi
	if [ "$f" = 0 ]; then
		printf '  PASS  %-28s %s passed\n' "$name" "$p"
	else
		printf '  FAIL  %-28s %s passed, %s failed%s (see %s)\n' "$name" "$p" "$f" \
			"${why:+: $why}" "$log"
		if [ -n "$why" ]; then
			tail -n 5 "$log"
		else
			awk '/^(not )?ok / {
				if (/^not ok/) { for (i = 0; i < n; i++) print d[i]; print }
				n = 0; next }
			/^# / && !/^# Totals/ {
				if (n == 6) { for (i = 1; i < 6; i++) d[i - 1] = d[i]; n = 5 }
				d[n++] = $0 }' "$log" | head -n 40
		# (head may end awk with SIGPIPE: not a failure of the run)
		fi | sed 's/^/          | /' || true
	fi
	host_passed=$((host_passed + p))
	host_failed=$((host_failed + f))
}

# make install and make uninstall, against this target's kernel; make deb,
# lintian, the packages installed in a throw-away root (DKMS), and the
# DKMS-built modules in QEMU; the same cross-built for arm64 and armhf,
# installed beside this machine's and run under qemu-user, and DKMS
# against their kernels' headers (about 50 s each); make run (once: with
# the host tests).
if [ $FIRST = 1 ]; then
	host_script install-test.sh --kdir "$KDIR"
	host_script deb-test.sh --tests "$TESTS"
	grep -a '^# [a-z0-9-]*_[^ ]*\.deb ' "$WORK/deb-test.log" | sed 's/^# /        /' || true
	for a in arm64 armhf; do
		host_script --as "deb-test-$a" deb-test.sh --arch "$a"
	done
	host_script run-test.sh --kernel "$KERNEL" --kdir "$KDIR" ${MODDIR:+--moddir "$MODDIR"}
fi

# The runner itself: a first boot that fails before the module is loaded
# is retried and the run goes on (not on the debug kernel: a minute a boot).
if [ $FIRST = 1 ]; then
	echo abi_test > "$WORK/retry.list"
	if "$TB_ROOT/scripts/vm-run.sh" --kernel "$KERNEL" --module "$KO" --tests "$TESTS" \
		--list "$WORK/retry.list" --mem "$MEM" --out "$WORK/vm-retry" \
		--fail-first-boot ${MODDIR:+--moddir "$MODDIR"} > "$WORK/vm-retry.log" 2>&1 &&
	   grep -q '^note: the first boot failed before the module was loaded' "$WORK/vm-retry.log"; then
		echo "  PASS  runner retries a failed boot"
		host_passed=$((host_passed + 1))
	else
		echo "  FAIL  runner retries a failed boot (see $WORK/vm-retry.log)"
		host_failed=$((host_failed + 1))
	fi
fi

reported=1
vm_rc=0
# shellcheck disable=SC2086 # VM_ARGS is a list of words
# The kernel provider is registered by default; the suite starts without
# it, so a test sees in the registry what it registered (ksched_vmtest
# sets kernel_provider itself, insmod_test checks the default).
"$TB_ROOT/scripts/vm-run.sh" --kernel "$KERNEL" --module "$KO" --module-args kernel_provider=N \
	--tests "$TESTS" --list "$WORK/tests.list" --scripts-dir "$SELFTESTS" \
	--mem "$MEM" --timeout-mult "$TIMEOUT_MULT" --out "$WORK/vm" \
	--arch "$TB_ARCH" ${TB_BUSYBOX:+--busybox "$TB_BUSYBOX"} \
	"${VM_EXTRA[@]}" "${VM_OPTS[@]}" ${VM_ARGS:-} | tally vm || vm_rc=$?
read -r vm_passed vm_failed < <(counts vm)
if [ "$vm_rc" != 0 ] && [ "$vm_failed" = 0 ]; then
	vm_failed=1	# vm-run.sh failed although no test did
fi
echo "$((host_passed + vm_passed)) passed, $((host_failed + vm_failed)) failed"
[ $((host_failed + vm_failed)) = 0 ]
