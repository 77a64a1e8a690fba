# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the scripts in this directory; sourced, not run.
# shellcheck shell=bash

TB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TB_BUILD=${TB_BUILD:-$TB_ROOT/.build}

tb_log() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
tb_die() { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit 2; }

# The targets the suite runs on: an architecture and a Debian kernel
# series (and flavour).  "make check" is the first; README's "Supported
# targets" table says how each is tested.
# x86_64-6.1-rt: Debian's PREEMPT_RT kernel (linux-image-rt-amd64).
# armhf-6.1: Debian's 32-bit ARM kernel (armmp) in qemu-system-arm,
# slower to emulate than the others.
TB_TARGETS="x86_64-6.1 x86_64-6.12 x86_64-6.1-rt arm64-6.1 arm64-6.12-16k armhf-6.1"
# Targets tb_target knows that TB_TARGETS (so "make check-all" and CI)
# does not list: run them with "make check TARGET=NAME".  None now.
TB_TARGETS_MORE=""

# tb_target NAME: describe target NAME in
#   TB_ARCH     the guest's architecture, as scripts/vm-run.sh --arch takes it
#   TB_SERIES   the Debian kernel series, TB_FLAVOUR its flavour (amd64,
#               rt-amd64, arm64, arm64-16k)
#   TB_KROOT    where that kernel's packages are: / when installed, else the
#               directory scripts/install-deps.sh --target NAME unpacked them in
#   TB_KPKG     the suffix of its linux-image-* and linux-headers-*
#               metapackages (e.g. 6.12-amd64, rt-amd64, arm64)
#   TB_KARCH    the Debian architecture of those packages (amd64, arm64)
#   TB_KMAKE    extra make arguments for the module build (ARCH=, CROSS_COMPILE=)
#   TB_CC, TB_CC32    the C compilers of the 64-bit and 32-bit test programs
#               (a 32-bit target's programs are 32-bit: TB_CC32 is '')
#   TB_CXX, TB_CXX32  the C++ ones
#   TB_LDFLAGS  linker flags of every test program
#   TB_BUSYBOX  a static busybox for the guest ('' = the host's)
#   TB_NOT_RUN  test programs the target cannot run, TB_NOT_RUN_WHY why
tb_target() {
	TB_KMAKE=() TB_BUSYBOX='' TB_NOT_RUN='' TB_NOT_RUN_WHY='' TB_LDFLAGS=''
	case $1 in
	x86_64-6.1|x86_64-6.12)
		TB_ARCH=x86_64 TB_SERIES=${1#x86_64-} TB_FLAVOUR=amd64 TB_KROOT=/
		TB_KPKG=amd64 TB_KARCH=amd64
		[ "$TB_SERIES" = 6.1 ] || TB_KPKG=$TB_SERIES-amd64
		TB_CC=gcc TB_CC32=i686-linux-gnu-gcc
		TB_CXX=g++ TB_CXX32=i686-linux-gnu-g++ ;;
	x86_64-6.1-rt)
		# PREEMPT_RT: spinlock_t sleeps, interrupt handlers run in
		# threads.  Not installed (it would be a boot kernel of this
		# machine): unpacked like a foreign target's.
		TB_ARCH=x86_64 TB_SERIES=6.1 TB_FLAVOUR=rt-amd64 TB_KPKG=rt-amd64
		TB_KARCH=amd64 TB_KROOT=$TB_BUILD/targets/$1
		TB_CC=gcc TB_CC32=i686-linux-gnu-gcc
		TB_CXX=g++ TB_CXX32=i686-linux-gnu-g++ ;;
	arm64-6.1|arm64-6.12-16k)
		TB_ARCH=arm64 TB_KARCH=arm64 TB_KROOT=$TB_BUILD/targets/$1
		TB_KMAKE=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
		TB_CC=aarch64-linux-gnu-gcc TB_CC32=arm-linux-gnueabihf-gcc
		TB_CXX=aarch64-linux-gnu-g++ TB_CXX32=arm-linux-gnueabihf-g++
		TB_BUSYBOX=$TB_KROOT/bin/busybox
		# The kernel maps a program's segments by whole pages: on a
		# kernel with 16 or 64 KiB pages, segments 4 KiB apart (the
		# armhf linker's default) overlap, and the data segment's
		# mapping takes the end of the code.
		TB_LDFLAGS=-Wl,-z,max-page-size=0x10000
		if [ "$1" = arm64-6.1 ]; then
			TB_SERIES=6.1 TB_FLAVOUR=arm64 TB_KPKG=arm64
			TB_NOT_RUN='uffd_test uffd_test_32'
			TB_NOT_RUN_WHY='userfaultfd write-protect faults reach arm64 in Linux 6.10'
		else
			# 16 KiB pages: what assumed 4 KiB ones shows here
			TB_SERIES=6.12 TB_FLAVOUR=arm64-16k TB_KPKG=6.12-arm64-16k
		fi ;;
	armhf-6.1)
		# ARMv7 with the virtualization extensions (Cortex-A15): the
		# armmp kernel, LPAE off, so buffer pages can be highmem
		TB_ARCH=arm TB_KARCH=armhf TB_KROOT=$TB_BUILD/targets/$1
		TB_SERIES=6.1 TB_FLAVOUR=armmp TB_KPKG=armmp
		TB_KMAKE=(ARCH=arm CROSS_COMPILE=arm-linux-gnueabihf-)
		TB_CC=arm-linux-gnueabihf-gcc TB_CC32=''
		TB_CXX=arm-linux-gnueabihf-g++ TB_CXX32=''
		TB_BUSYBOX=$TB_KROOT/bin/busybox
		TB_NOT_RUN='uffd_test mixed_vmtest'
		TB_NOT_RUN_WHY='32-bit ARM has no userfaultfd write-protect faults; its programs are all 32-bit, with none of another width to mix' ;;
	*) tb_die "unknown target '$1' (known: $TB_TARGETS $TB_TARGETS_MORE)" ;;
	esac
	TB_TARGET=$1
}

# tb_host_arch: this machine's architecture, in TB_ARCH's names.
tb_host_arch() {
	local m
	m=$(uname -m)
	[ "$m" != aarch64 ] || m=arm64
	printf '%s\n' "$m"
}

# tb_find_kernel SERIES [FLAVOUR [ROOT]]: print "IMAGE KDIR MODDIR" for the
# newest Debian kernel of SERIES (e.g. 6.1) and FLAVOUR (default amd64)
# under ROOT (default /) that has an image in boot/, a build tree and a
# modules directory.  Nothing is hard-coded beyond the series.
tb_find_kernel() {
	local series=$1 flavour=${2:-amd64} root=${3:-/} img ver mods
	root=${root%/}
	while read -r img; do
		[ -f "$img" ] || continue
		ver=${img#"$root"/boot/vmlinuz-}
		mods=$root/lib/modules/$ver
		if [ -f "$mods/build/Makefile" ] && [ -f "$mods/modules.dep" ]; then
			[ -r "$img" ] || tb_die "$img is not readable (run as root or chmod a+r it)"
			printf '%s %s %s\n' "$img" "$mods/build" "$mods"
			return 0
		fi
	done < <(printf '%s\n' "$root"/boot/vmlinuz-"$series".*-"$flavour" | sort -V -r)
	if [ -z "$root" ]; then
		tb_die "no Debian $series $flavour kernel with headers found (need /boot/vmlinuz-$series.*-$flavour and /lib/modules/<ver>/build; run scripts/install-deps.sh)"
	fi
	tb_die "no Debian $series $flavour kernel with headers in $root (run scripts/install-deps.sh --target ${TB_TARGET:-<name>})"
}

# The checks of a script of its own (install-test.sh, deb-test.sh,
# run-test.sh) in KTAP: tb_check NAME STATUS [WHY] prints "ok N NAME", or
# WHY as a diagnostic and "not ok N NAME"; tb_checks_end, as the script's
# EXIT trap, the totals and "N passed, M failed" as the last line;
# tb_say turns standard input into diagnostics.
tb_check_n=0 tb_check_pass=0 tb_check_fail=0
tb_check() {
	tb_check_n=$((tb_check_n + 1))
	if [ "$2" = 0 ]; then
		echo "ok $tb_check_n $1"
		tb_check_pass=$((tb_check_pass + 1))
	else
		[ -z "${3:-}" ] || printf '# %s\n' "$3"
		echo "not ok $tb_check_n $1"
		tb_check_fail=$((tb_check_fail + 1))
	fi
}
tb_checks_end() {
	echo "# Totals: pass:$tb_check_pass fail:$tb_check_fail"
	echo "$tb_check_pass passed, $tb_check_fail failed"
}
tb_say() { sed 's/^/# /'; }

# tb_posix_trace_runs PROGRAM [RUNNER]: run PROGRAM (under RUNNER, e.g.
# qemu-aarch64, when given), built from
# scripts/posix-trace-installed.c, and say whether it printed what this
# machine should give: libposixtrace's genversion, then
# posix_trace_create() failing with ENODEV where there is no
# /dev/tracebuf (the module is not loaded: the build machine), else
# succeeding (root) or failing with EPERM.  What it printed otherwise
# goes to standard output, as diagnostics.
tb_posix_trace_runs() {
	local out create='ENODEV'
	[ ! -e /dev/tracebuf ] || create='0|EPERM'
	out=$(${2:+"$2"} "$1" 2>&1) && grep -qx 'genversion: .*libposixtrace.*' <<< "$out" &&
		grep -qxE "create: ($create)" <<< "$out" && return 0
	printf '%s: %s (expected create: %s)\n' "${1##*/}" "${out//$'\n'/; }" "$create" | tb_say
	return 1
}

# tb_git_top: whether the tree is the top of a git work tree.
tb_git_top() {
	[ "$(git -C "$TB_ROOT" rev-parse --show-toplevel 2>/dev/null)" = \
	  "$(cd "$TB_ROOT" && pwd -P)" ]
}

# tb_copy_tree DIR: copy the tree as a user gets it into DIR, nothing
# built.  At the top of a git work tree: the files git tracks, as they are
# in the work tree (modified or not; those deleted there left out), and no
# untracked file.  Else (an unpacked tarball, or a copy made by this
# function in another tree's .build): every file but .git and .build that
# no .gitignore names (all of them when there is no git to read those).
tb_copy_tree() {
	local gitdir st=0
	mkdir -p "$1"
	if tb_git_top; then
		git -C "$TB_ROOT" ls-files -z -c |
			(cd "$TB_ROOT" && while IFS= read -r -d '' f; do
				[ ! -e "$f" ] && [ ! -L "$f" ] || printf '%s\0' "$f"
			done) |
			tar -C "$TB_ROOT" --null --verbatim-files-from -T - -cf - |
			tar -C "$1" -xf -
	elif command -v git > /dev/null && gitdir=$(mktemp -d) &&
	     git init -q --bare "$gitdir"; then
		# an empty repository: every file is untracked, .gitignore applies
		git --git-dir="$gitdir" --work-tree="$TB_ROOT" ls-files -z -o \
			--exclude-standard -x /.build/ |
			tar -C "$TB_ROOT" --null --verbatim-files-from -T - -cf - |
			tar -C "$1" -xf - || st=$?
		rm -rf "$gitdir"
		return $st
	else
		tar -C "$TB_ROOT" --exclude=./.build --exclude=./.git -cf - . | tar -C "$1" -xf -
	fi
}

# tb_guest_bench PROGRAM LOG [CHECK_ARGS...]: run the guest program
# PROGRAM alone (check.sh CHECK_ARGS --programs PROGRAM), check.sh's
# output in LOG; print the path of the standard output PROGRAM left in
# this run, nothing when it did not run.  The status is check.sh's.
tb_guest_bench() {
	local prog=$1 log=$2 start st=0
	shift 2
	start=$(date +%s)
	mkdir -p "$TB_BUILD"
	"$TB_ROOT/scripts/check.sh" "$@" --programs "$prog" > "$log" 2>&1 || st=$?
	find "$TB_BUILD" -path "*/vm/share/out/$prog.stdout" -newermt "@$start" 2>/dev/null |
		head -n 1
	return $st
}

# tb_no_space DIR: refuse, in one line, to build in DIR if its path has a
# space (or another blank): make takes it for two words, and kbuild
# refuses it (the top-level Makefile refuses such a tree too).
tb_no_space() {
	[[ $1 != *[[:space:]]* ]] ||
		tb_die "'$1' has a space: make and kbuild cannot build in such a path; clone or move the tree to one without"
}

# tb_flags_dir DIR FLAGS...: make does not rebuild what the compiler
# flags alone changed, so a build directory whose objects were made with
# other FLAGS (its .flags file says which) is emptied first.
tb_flags_dir() {
	local dir=$1 flags
	shift
	flags="$*"
	if [ "$(cat "$dir/.flags" 2>/dev/null)" != "$flags" ]; then
		rm -rf "$dir"
	fi
	mkdir -p "$dir"
	printf '%s\n' "$flags" > "$dir/.flags"
}

# tb_build_module KDIR DIR [MAKEARGS...]: copy the module sources into
# DIR/src (so builds for different kernels never share objects with each
# other or with the tree) and build them there.  Prints the .ko path.
tb_build_module() {
	local kdir=$1 dir=$2 ko
	shift 2
	tb_no_space "$dir"
	[ -f "$TB_ROOT/Kbuild" ] || tb_die "no Kbuild at the top of $TB_ROOT: nothing to build"
	[ -f "$kdir/Makefile" ] || tb_die "KDIR $kdir is not a kernel build tree (no Makefile)"
	rm -rf "$dir/src"
	mkdir -p "$dir/src"
	tar -C "$TB_ROOT" --exclude=./.git --exclude=./.build --exclude=./selftests \
	    --exclude=./userlib \
	    --exclude='*.o' --exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c' \
	    --exclude='.*.cmd' --exclude=Module.symvers --exclude=modules.order \
	    -cf - . | tar -C "$dir/src" -xf -
	tb_log "building the module against $kdir"
	make -C "$kdir" M="$dir/src" "$@" modules >&2 ||
		tb_die "module build against $kdir failed"
	ko=$dir/src/module/tracebuf.ko
	[ -f "$ko" ] || tb_die "the build did not produce module/tracebuf.ko"
	# the in-kernel API's example, a module of its own on tracebuf.ko's
	# symbols (module/examples/tracebuf_kexample.ko, beside it in the guest)
	make -C "$kdir" M="$dir/src/module/examples" \
		KBUILD_EXTRA_SYMBOLS="$dir/src/Module.symvers" "$@" modules >&2 ||
		tb_die "the example module's build against $kdir failed"
	printf '%s\n' "$ko"
}

# tb_kernel_release KDIR: the release (uname -r) a build tree builds for.
tb_kernel_release() {
	sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$1/include/generated/utsrelease.h" 2>/dev/null | grep . ||
		cat "$1/include/config/kernel.release" 2>/dev/null
}

# tb_ktap FILE: print "pass fail skip seen plan totals" for the KTAP output
# in FILE (plan -1 without a plan line, totals 1 if a "# Totals" line is
# there), then the result lines that did not pass, a failed one followed
# by the first lines of its output that say where a check failed.
tb_ktap() {
	awk '
	{ sub(/\r$/, "") }
	/^1\.\.[0-9]+/ && plan < 0 { plan = substr($1, 4) + 0 }
	/^# Totals:/ { totals = 1 }
	# where a check failed ("# file.c:LINE: ..."), since the last result
	/^#[ \t]+[^ \t]+\.(c|h|sh):[0-9]+:/ && nwhere < 8 { where = where "\n  " $0; nwhere++ }
	/^(not )?ok [0-9]+/ {
		seen++
		if ($0 ~ /^not ok/) { fail++; bad = bad "\n" $0 where }
		else if ($0 ~ /#[ \t]*[Ss][Kk][Ii][Pp]([^A-Za-z]|$)/) { skip++; bad = bad "\n" $0 }
		else pass++
		where = ""; nwhere = 0
	}
	BEGIN { plan = -1 }
	END { printf "%d %d %d %d %d %d%s\n", pass, fail, skip, seen, plan, totals, bad }' "$1"
}

# tb_report_program RESDIR NAME TIMEOUT NOTRUN SPLATS: judge one test
# program from RESDIR/NAME.missing (why it was not run), NAME.stdout (its
# KTAP output), NAME.stderr and NAME.rc ("exit-status seconds"), print
# one PASS or FAIL line (for a failure, the reasons, the failing subtests
# and the end of its output) and add its counts to tb_passed and
# tb_failed.  A passing subtest counts as passed; a failing or skipped
# one as failed; a program that crashed, timed out, exited oddly, printed
# no plan or "# Totals" line, or did not run (NOTRUN says why) counts at
# least one failure; SPLATS more failures are added (kernel warnings).
tb_passed=0
tb_failed=0
tb_report_program() {
	local res=$1 t=$2 timeout=$3 notrun=$4 k=$5
	local why=() p=0 f=0 s=0 extra=0 bad='' seen plan totals rc secs
	local nfail secs_txt='' joined stream fn

	if [ -f "$res/$t.missing" ]; then
		why+=("$(cat "$res/$t.missing")")
	elif [ ! -f "$res/$t.rc" ]; then
		why+=("$notrun")
	fi
	if [ -f "$res/$t.stdout" ]; then
		{ read -r p f s seen plan totals; bad=$(cat); } < <(tb_ktap "$res/$t.stdout")
		if [ -f "$res/$t.rc" ]; then
			read -r rc secs < "$res/$t.rc"
			if [ "$rc" != 0 ] && [ "$secs" -ge "$timeout" ]; then
				why+=("timed out after ${secs}s")
			elif [ "$rc" = 127 ]; then
				why+=("could not be executed (exit 127; in the VM: dynamically linked? build with EXTRA_LDFLAGS=-static)")
			elif [ "$rc" -gt 128 ]; then
				why+=("killed by signal $((rc - 128))")
			elif [ "$rc" = 1 ] && [ "$f" = 0 ]; then
				why+=("exit 1 without a failing subtest")
			elif [ "$rc" = 4 ] && [ "$s" = 0 ]; then
				why+=("exit 4 (skipped)")
			elif [ "$rc" != 0 ] && [ "$rc" != 1 ] && [ "$rc" != 4 ]; then
				why+=("exit $rc")
			fi
		fi
		if [ "$plan" -lt 0 ]; then
			why+=("no KTAP plan (1..N)")
		elif [ "$seen" -lt "$plan" ]; then
			extra=$((plan - seen))
			why+=("$extra of $plan planned results missing")
		fi
		[ "$totals" = 1 ] || why+=("no '# Totals' line")
	fi
	if [ ${#why[@]} -gt 0 ] && [ $((f + s + extra)) -eq 0 ]; then
		extra=1
	fi
	[ "$k" = 0 ] || why+=("$k kernel splat(s)")
	nfail=$((f + s + extra + k))
	tb_passed=$((tb_passed + p))
	tb_failed=$((tb_failed + nfail))
	[ ! -f "$res/$t.rc" ] || secs_txt=" ($(cut -d' ' -f2 "$res/$t.rc")s)"
	if [ $nfail -eq 0 ]; then
		printf '  PASS  %-28s %d passed%s\n' "$t" "$p" "$secs_txt"
		return 0
	fi
	printf '  FAIL  %-28s %d passed, %d failed%s' "$t" "$p" "$nfail" "$secs_txt"
	if [ ${#why[@]} -gt 0 ]; then
		joined=$(IFS=';'; echo "${why[*]}")
		printf ': %s' "${joined//;/; }"
	fi
	echo
	[ -z "$bad" ] || printf '%s\n' "$bad" | grep -v '^$' | sed 's/^/          /'
	for stream in stdout stderr; do
		fn=$res/$t.$stream
		[ -s "$fn" ] || continue
		echo "        last lines of $fn:"
		tail -n 15 "$fn" | sed -e 's/\r$//' -e 's/^/          | /'
	done
}
