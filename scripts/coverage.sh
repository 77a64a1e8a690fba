#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The body of "make coverage": line and branch coverage of the module and
# of the libraries and tracebufctl, from the tests.
#
#   coverage.sh [--host-only | --last-guest] [--programs "PROG..."]
#               [--kernel IMAGE --kdir DIR] [--fault-log DMESG]...
#
#   1. The host unit tests of libtracebuf, tracebufctl and libposixtrace,
#      built with --coverage into .build/coverage/host.
#   2. The guest suite on the coverage kernel (scripts/check.sh
#      --coverage; the newest *.bzImage in $COVERAGE_KERNELS, or --kernel
#      and --kdir): the module built with GCOV_PROFILE, the integration
#      tests with --coverage; the guest copies both kinds of counters back.
#      --programs runs only those; --host-only skips the guest;
#      --last-guest takes the counters of the last guest run
#      ("scripts/check.sh --coverage" run by itself) instead of booting.
#   3. make fault's sweep (faultinj) on the debug kernel, which has the
#      fault injection the coverage kernel lacks, when $DEBUG_KERNELS is
#      set (not with --host-only or --last-guest); or the kernel logs of
#      such runs, --fault-log.
#   4. lcov turns the counters into .build/coverage/{module,user}.info and
#      genhtml into .build/coverage/html/{module,user}/index.html; a table
#      of lines and branches per file and per part goes to stdout, with the
#      targets (module: 90 % of lines, 80 % of branches; each library and
#      tracebufctl: 90 % of lines); then every function of the module with
#      lines no test reached, and how many of the sweep's allocation
#      failures came back through it (scripts/coverage-fault.py).
#
# The exit status is non-zero when a step failed (a test, a build, lcov);
# a target not reached is reported, not a failure.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

HOST_ONLY=0 LAST_GUEST=0 PROGRAMS='' CHECK_ARGS=() FAULT_LOGS=()
while [ $# -gt 0 ]; do
	case $1 in
	--host-only) HOST_ONLY=1 ;;
	--last-guest) LAST_GUEST=1 ;;
	--programs) PROGRAMS=$2; shift ;;
	--fault-log) [ -f "$2" ] || tb_die "--fault-log $2: no such file"
		FAULT_LOGS+=("$2"); shift ;;
	--kernel|--kdir) CHECK_ARGS+=("$1" "$2"); shift ;;
	*) tb_die "unknown argument '$1' (see the comment at the top of $0)" ;;
	esac
	shift
done
command -v lcov > /dev/null && command -v genhtml > /dev/null ||
	tb_die "lcov and genhtml are missing (Debian: apt-get install lcov; scripts/install-deps.sh does)"
[ $HOST_ONLY = 1 ] || [ $LAST_GUEST = 1 ] || [ -n "${COVERAGE_KERNELS:-}" ] || [ ${#CHECK_ARGS[@]} -gt 0 ] ||
	tb_die "no coverage kernel: set COVERAGE_KERNELS=DIR (a *.bzImage with its *-build.tar.xz), pass --kernel and --kdir, or --host-only"

COV=$TB_BUILD/coverage
HOST=$COV/host
USERLIB=$TB_ROOT/userlib
LCOV=(lcov --quiet --rc lcov_branch_coverage=1)
failed=0
step_failed() {
	echo "  FAIL  $*"
	failed=$((failed + 1))
}

# Counters of an earlier run would add up with this one's (the guest's
# stay in its output directory until they are copied below).
mkdir -p "$COV"
find "$COV" -name '*.gcda' ! -path '*/vm/share/out/*' -delete
rm -rf "$COV/html" "$COV"/*.info

# --- 1. the host tests ---------------------------------------------------------

# (coverage-exit.h: a process that ends with _exit() keeps its counters)
CFL="-O2 -g --coverage -include $TB_ROOT/scripts/coverage-exit.h"
BUILD=(O="$HOST" CFLAGS="$CFL" CXXFLAGS="$CFL" LDFLAGS=--coverage)
tb_flags_dir "$HOST" "${BUILD[@]}"
tb_log "building the host tests with --coverage into $HOST (log: $COV/build.log)"
: > "$COV/build.log"
for dir in userlib/lib userlib/ctl userlib/posixtrace; do
	make -C "$TB_ROOT/$dir" "${BUILD[@]}" tests >> "$COV/build.log" 2>&1 ||
		tb_die "the host tests of $dir did not build with --coverage (see $COV/build.log)"
done
# tracebufctl's tests, its scripts included, through its own runner; the
# others program by program (their scripts check headers and pages).
host_ok=0 host_bad=0
for dir in userlib/lib userlib/posixtrace; do
	while read -r p; do
		case $p in *.sh) continue ;; esac
		if timeout -k 10 300 "$p" > "$COV/$(basename "$p").log" 2>&1 < /dev/null; then
			host_ok=$((host_ok + 1))
		else
			host_bad=$((host_bad + 1))
			step_failed "host test $(basename "$p") (see $COV/$(basename "$p").log)"
		fi
	done < <(make -s --no-print-directory -C "$TB_ROOT/$dir" "${BUILD[@]}" list-tests)
done
if make -s -C "$USERLIB/ctl" "${BUILD[@]}" test > "$COV/ctl-tests.log" 2>&1; then
	host_ok=$((host_ok + 1))
else
	host_bad=$((host_bad + 1))
	step_failed "tracebufctl's host tests (see $COV/ctl-tests.log)"
fi
tb_log "host tests: $host_ok passed, $host_bad failed"

# --- 2. the guest suite on the coverage kernel --------------------------------

GUEST_OUT=''
if [ $HOST_ONLY = 0 ]; then
	if [ $LAST_GUEST = 1 ]; then
		tb_log "the counters of the last guest run"
	elif ! "$TB_ROOT/scripts/check.sh" --coverage "${CHECK_ARGS[@]}" \
		${PROGRAMS:+--programs "$PROGRAMS"} | tee "$COV/check.log"; then
		step_failed "the guest suite on the coverage kernel (see $COV/check.log)"
	fi
	# the newest, should two coverage kernels have been used
	GUEST_OUT=$(ls -dt "$COV"/check-*/vm/share/out 2>/dev/null | head -n 1)
	[ -n "$GUEST_OUT" ] && [ -d "$GUEST_OUT/gcov" ] ||
		tb_die "the guest brought back no counters (no $COV/check-*/vm/share/out/gcov)"
	# The counters come back under their objects' paths on this
	# machine, which are under $COV: put them beside the .gcno files.
	for kind in kernel user; do
		while IFS= read -r -d '' f; do
			dst=${f#"$GUEST_OUT/gcov/$kind"}
			case $dst in
			"$COV"/*) mkdir -p "${dst%/*}" && cp "$f" "$dst" ;;
			*) tb_die "a counter file outside $COV: $dst" ;;
			esac
		done < <(find "$GUEST_OUT/gcov/$kind" -name '*.gcda' -print0)
	done
fi

# --- 3. make fault's sweep on the debug kernel -----------------------------------

if [ ${#FAULT_LOGS[@]} = 0 ] && [ $HOST_ONLY = 0 ] && [ $LAST_GUEST = 0 ] &&
   [ -n "${DEBUG_KERNELS:-}" ]; then
	if make -C "$TB_ROOT" --no-print-directory fault | tee "$COV/fault.log"; then
		log=$(sed -n 's/^logs: \(.*\) (console\.log.*/\1/p' "$COV/fault.log" | tail -n 1)
		if [ -s "$log/share/out/dmesg.txt" ]; then
			cp "$log/share/out/dmesg.txt" "$COV/fault-dmesg.txt"
			FAULT_LOGS=("$COV/fault-dmesg.txt")
		else
			step_failed "make fault left no kernel log (see $COV/fault.log)"
		fi
	else
		step_failed "make fault on the debug kernel (see $COV/fault.log)"
	fi
fi

# --- 4. the reports -----------------------------------------------------------

# capture INFO DIR...: the counters under each DIR into INFO.
capture() {
	local info=$1 d args=()
	shift
	for d in "$@"; do
		[ -d "$d" ] && args+=(--directory "$d")
	done
	[ ${#args[@]} -gt 0 ] || return 1
	"${LCOV[@]}" --capture "${args[@]}" --output-file "$info" 2> "$info.log"
}

if [ $HOST_ONLY = 0 ]; then
	moddir=${GUEST_OUT%/vm/share/out}/src/module
	if capture "$COV/module-all.info" "$moddir" &&
	   "${LCOV[@]}" --extract "$COV/module-all.info" "$moddir/*" \
		--output-file "$COV/module.info" 2>> "$COV/module-all.info.log"; then
		genhtml --quiet --branch-coverage --prefix "${moddir%/module}" \
			-o "$COV/html/module" "$COV/module.info" > /dev/null 2>&1 ||
			step_failed "genhtml of the module (see $COV/module.info)"
	else
		step_failed "lcov of the module (see $COV/module-all.info.log)"
	fi
fi
if capture "$COV/user-all.info" "$HOST" "$COV/out-$(tb_host_arch)" &&
   "${LCOV[@]}" --extract "$COV/user-all.info" "$USERLIB/*" \
	--output-file "$COV/user-src.info" 2>> "$COV/user-all.info.log" &&
   "${LCOV[@]}" --remove "$COV/user-src.info" '*/tests/*' '*/bench/*' '*/examples/*' \
	--output-file "$COV/user.info" 2>> "$COV/user-all.info.log"; then
	genhtml --quiet --branch-coverage --prefix "$TB_ROOT" -o "$COV/html/user" \
		"$COV/user.info" > /dev/null 2>&1 || step_failed "genhtml of the libraries"
else
	step_failed "lcov of the libraries (see $COV/user-all.info.log)"
fi

# table INFO PART PREFIX LINES% BRANCHES%: one row per file of PART (the
# files whose path starts with PREFIX, directly in it), then the part's
# total against its targets (BRANCHES% 0: none).
table() {
	[ -f "$1" ] || return 0
	awk -v part="$2" -v prefix="$3" -v tl="$4" -v tb="$5" '
	function pct(h, f) { return f ? sprintf("%5.1f %%", 100 * h / f) : "    -  " }
	/^SF:/ { f = substr($0, 4); keep = index(f, prefix) == 1 && index(substr(f, length(prefix) + 1), "/") == 0 }
	keep && /^LF:/ { lf[f] = substr($0, 4) } keep && /^LH:/ { lh[f] = substr($0, 4) }
	keep && /^BRF:/ { bf[f] = substr($0, 5) } keep && /^BRH:/ { bh[f] = substr($0, 5) }
	END {
		n = 0
		for (f in lf) names[++n] = f
		for (i = 2; i <= n; i++)	# insertion sort: awk has none
			for (j = i; j > 1 && names[j - 1] > names[j]; j--) {
				t = names[j]; names[j] = names[j - 1]; names[j - 1] = t
			}
		printf "%-30s %13s %17s\n", part, "lines", "branches"
		for (i = 1; i <= n; i++) {
			f = names[i]
			printf "  %-28s %6d %s %8d %s\n", substr(f, length(prefix) + 1), lf[f],
				pct(lh[f], lf[f]), bf[f], pct(bh[f], bf[f])
			LF += lf[f]; LH += lh[f]; BF += bf[f]; BH += bh[f]
		}
		ok = (LF && 100 * LH / LF >= tl) && (!tb || (BF && 100 * BH / BF >= tb))
		verdict = ok ? "met" : "not met"
		printf "  %-28s %6d %s %8d %s   target %d %% of lines%s: %s\n\n", "total",
			LF, pct(LH, LF), BF, pct(BH, BF), tl,
			tb ? sprintf(", %d %% of branches", tb) : "", verdict
	}' "$1"
}

echo
echo "==== coverage (lines and branches hit, per file) ===="
if [ $HOST_ONLY = 0 ]; then
	table "$COV/module.info" "module (guest suite)" "$moddir/" 90 80
fi
table "$COV/user.info" "libtracebuf" "$USERLIB/lib/" 90 0
table "$COV/user.info" "libposixtrace" "$USERLIB/posixtrace/" 90 0
table "$COV/user.info" "tracebufctl" "$USERLIB/ctl/" 90 0
if [ $HOST_ONLY = 0 ] && [ -f "$COV/module.info" ]; then
	python3 "$TB_ROOT/scripts/coverage-fault.py" "$COV/module.info" "${FAULT_LOGS[@]}" ||
		step_failed "coverage-fault.py"
fi
echo "html: $COV/html/*/index.html"
[ $failed = 0 ] || { echo "coverage: $failed step(s) failed (see above)"; exit 1; }
