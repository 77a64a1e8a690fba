#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make run": trace a program of yours on a machine that cannot load
# modules.  Install what is missing, build the module and a static
# tracebufctl, boot Debian's kernel in QEMU, copy the program and the
# files it needs in, load the module, run "tracebufctl record OPTIONS --
# COMMAND" there, and bring the trace, what the command printed and every
# file the recording and the command wrote back to this machine.  The
# path a developer takes on a laptop before a board.  With --shell ("make
# shell"): the same guest with a shell on this terminal instead of one
# recording.
#
#   run.sh [--dest DIR] [--out NAME] [--file PATH]... [--timeout SECS]
#          [--record "OPTIONS"] [--kernel IMAGE --kdir DIR [--moddir DIR]]
#          (--cmd "COMMAND ARGS..." | -- COMMAND ARGS...)
#   run.sh --shell [--dest DIR] [--file PATH]... [--timeout SECS]
#          [--kernel IMAGE --kdir DIR [--moddir DIR]]
#   run.sh --help
#
#   --dest DIR       where the results go (default: the current directory)
#   --out NAME       the trace's name (default trace.fxt; NAME.gz, NAME.zst:
#                    compressed); NAME.stdout and NAME.stderr beside it
#                    are what the command printed
#   --file PATH      a file (or directory) to copy into the guest's working
#                    directory, under its own name; repeatable.  COMMAND's
#                    first word, when it names a file here (it has a
#                    slash: ./app, /usr/bin/app), is copied too and run
#                    from there; a word without a slash is a command of
#                    the guest (busybox's, bash or zstd) or one of the
#                    examples (tracebuf-example, posix-trace-example,
#                    built for it and put on PATH).  A dynamically
#                    linked program gets this machine's libraries in the
#                    guest, found as here (LD_LIBRARY_PATH is passed on).
#   --timeout SECS   the time limit of the recording (default 300): then
#                    COMMAND gets SIGTERM (through record), 10 s later
#                    record stops anyway and writes the trace (and 10 s
#                    later leaves a COMMAND that ignores SIGTERM
#                    running).  With --shell, of the shell (default 3600)
#   --record OPTS    options of tracebufctl record, split at blanks (not
#                    -o: see --out; not --detach); checked before the boot
#   --cmd STRING     COMMAND and its arguments, split as xargs(1) splits
#                    (quotes and backslashes work, nothing is expanded)
#   --shell          no recording: a shell (busybox sh) on the guest's
#                    console, this terminal, in the working directory with
#                    the files, tracebufctl, tracebuf-example and
#                    posix-trace-example (also on PATH), the module
#                    loaded; "exit" (or Ctrl-D) ends it and powers the
#                    guest off
#
# The guest's working directory is writable.  What comes back to DIR,
# under the same relative path, is every file that is new or changed in
# it when the recording ends: the trace, the files a rotation or a
# snapshot wrote (NAME.1.fxt, NAME.snapshot-1.fxt, ...) and whatever the
# command wrote there; it replaces a file of that name in DIR, as if the
# command had run in DIR.  Files copied in and left unchanged do not come
# back.  A run that writes no trace leaves DIR's NAME, NAME.stdout and
# NAME.stderr as they were.  With --shell the same rule brings back what
# the session wrote there (tracebufctl record's trace.fxt, ...).  Input
# errors are refused in one line before anything is built or booted.
#
# The exit status is record's: COMMAND's status, or 3 to 8 when the trace
# is not what was asked (tracebufctl record --help), 1 if no trace was
# written; 2 for a usage error or a failure of this script.  ("make run"
# can only fail with make's own status, 2, and shows record's in its
# "Error N" line.)  With --shell: 0, or 2.  A kernel warning in the guest,
# or a guest that did not finish, makes 0 a 2 (logs: .build/run/vm).
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# the comment above, from its first paragraph to the exit status
usage() {
	sed -n '4,/^set -euo pipefail$/{/^set /d; s/^# \{0,1\}//; p}' "${BASH_SOURCE[0]}"
	exit 0
}

# the names the script itself puts into the guest's working directory
TAKEN='tracebufctl run_record.sh run_shell.sh'
# and those of the examples (--shell, or a COMMAND that is one), unless a
# file of the user's has one
EXAMPLES='tracebuf-example posix-trace-example'

DEST=$PWD OUT=trace.fxt TIMEOUT='' KERNEL='' KDIR='' MODDIR='' RECORD='' SHELL_MODE=0
FILES=() CMD=() CMD_GIVEN=0
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) usage ;;
	--shell) SHELL_MODE=1 ;;
	--dest|--out|--file|--timeout|--record|--kernel|--kdir|--moddir|--cmd)
		[ $# -ge 2 ] || tb_die "$1 needs a value (see $0 --help)" ;;&
	--dest) DEST=$2; shift ;;
	--out) OUT=$2; shift ;;
	--file) FILES+=("$2"); shift ;;
	--timeout) TIMEOUT=$2; shift ;;
	--record) RECORD=$2; shift ;;
	--kernel) KERNEL=$2; shift ;;
	--kdir) KDIR=$2; shift ;;
	--moddir) MODDIR=$2; shift ;;
	--cmd)
		# xargs says what is wrong in a message of its own: one line of ours
		printf '%s' "$2" | xargs -r printf '%s\0' > /dev/null 2>&1 ||
			tb_die "--cmd: cannot split \"$2\": a quote is not closed (quotes and backslashes work as in xargs)"
		mapfile -d '' CMD < <(printf '%s' "$2" | xargs -r printf '%s\0')
		CMD_GIVEN=1
		shift ;;
	--) shift; CMD=("$@"); CMD_GIVEN=1; break ;;
	*) tb_die "unknown argument '$1' (see $0 --help)" ;;
	esac
	shift
done
WITH_EXAMPLES=$SHELL_MODE

# --- the input, checked before anything is built or booted -------------------

if [ $SHELL_MODE = 1 ]; then
	[ $CMD_GIVEN = 0 ] || tb_die "--shell runs no command: type it at the guest's prompt"
	[ -z "$RECORD" ] || tb_die "--shell takes no --record: type tracebufctl record at the guest's prompt"
	: "${TIMEOUT:=3600}"
else
	[ ${#CMD[@]} -gt 0 ] ||
		tb_die "no command to trace: make run CMD=\"./app args\" (or run.sh -- ./app args; run.sh --help)"
	[ -n "${CMD[0]}" ] || tb_die "the command's first word is empty"
	: "${TIMEOUT:=300}"
fi
[ -d "$DEST" ] && [ -w "$DEST" ] || tb_die "--dest $DEST: not a directory this user can write into"
[[ $OUT =~ ^[A-Za-z0-9_+-][A-Za-z0-9_.+-]*$ ]] ||
	tb_die "--out '$OUT': a file name (letters, digits and _.+-, not starting with a dot)"
for n in $TAKEN; do
	[ "$OUT" != "$n" ] || tb_die "--out $OUT: the name is taken by this script in the guest"
done
[[ $TIMEOUT =~ ^[1-9][0-9]{0,5}$ ]] || tb_die "--timeout '$TIMEOUT': a number of seconds (1 to 999999)"
[ -z "$KERNEL" ] || [ -n "$KDIR" ] || tb_die "--kernel given without --kdir (its build tree)"
tb_no_space "$TB_BUILD"
read -ra RECORD_OPTS <<< "$RECORD"
for o in "${RECORD_OPTS[@]}"; do
	case $o in
	-o|-o*|--output|--output=*) tb_die "--record: no -o: the trace's name is --out NAME (make run OUT=NAME)" ;;
	--detach) tb_die "--record: no --detach: the guest stops when the command ends (sessions: make shell)" ;;
	--) tb_die "--record: no '--': the command is --cmd (make run CMD=...)" ;;
	esac
done

# COMMAND's program, when it is a file here, goes in with the files.
if [ $SHELL_MODE = 0 ] && [[ ${CMD[0]} == */* ]]; then
	[ -f "${CMD[0]}" ] && [ -x "${CMD[0]}" ] || tb_die "${CMD[0]}: not an executable file"
	FILES+=("${CMD[0]}")
	CMD[0]=./$(basename "${CMD[0]}")
fi
declare -A name_of=()
for f in "${FILES[@]}"; do
	[ -e "$f" ] || tb_die "--file $f: no such file"
	name=$(basename "$f")
	case $name in
	.|..|/) tb_die "--file $f: name the files and directories to copy, not $f itself" ;;
	esac
	case " $TAKEN " in
	*" $name "*) tb_die "--file $f: the name $name is taken by this script in the guest" ;;
	esac
	[ -z "${name_of[$name]:-}" ] || tb_die "--file $f: ${name_of[$name]} has the same name"
	name_of[$name]=$f
done
# a word without a slash: a command the guest has (vm-run.sh's initramfs)
if [ $SHELL_MODE = 0 ] && [[ ${CMD[0]} != */* ]]; then
	if [ -n "${name_of[${CMD[0]}]:-}" ]; then
		tb_die "${CMD[0]}: a program of --file runs as ./${CMD[0]} (a word without a slash is a command of the guest)"
	fi
	bb=/bin/busybox
	[ -x "$bb" ] || bb=$(command -v busybox || true)
	# one of the examples: built, and put on the guest's PATH
	[[ " $EXAMPLES " != *" ${CMD[0]} "* ]] || WITH_EXAMPLES=1
	case ${CMD[0]} in
	bash|zstd) ;;
	tracebufctl) tb_die "tracebufctl: make run runs tracebufctl record around CMD; for its other commands: make shell" ;;
	*)
		# (no busybox yet: install-deps.sh brings it; the guest says it)
		[ $WITH_EXAMPLES = 1 ] || [ -z "$bb" ] || grep -qxF -- "${CMD[0]}" <<< "$("$bb" --list)" ||
			tb_die "${CMD[0]}: not a command of the guest (busybox, bash, zstd, the examples); a program of yours is named with a slash: ./${CMD[0]}" ;;
	esac
fi

# --- build ---------------------------------------------------------------------

t0=$(date +%s)
[ "${NO_DEPS:-0}" = 1 ] || "$TB_ROOT/scripts/install-deps.sh" ||
	tb_die "missing packages (see above)"
if [ -z "$KERNEL" ]; then
	read -r KERNEL KDIR MODDIR <<< "$(tb_find_kernel 6.1)"
fi

WORK=$TB_BUILD/run
PROGS=$WORK/progs
rm -rf "$PROGS" "$WORK/vm"
mkdir -p "$PROGS"
# (a symbolic link given is copied as the file it names)
for f in "${FILES[@]}"; do
	cp -aH "$f" "$PROGS/$(basename "$f")"
done

tb_log "building a static tracebufctl into $PROGS"
make -C "$TB_ROOT/userlib/ctl" "$PROGS/tracebufctl" VMTEST_OUT="$PROGS" >&2 ||
	tb_die "tracebufctl did not build"
# record's options, checked here by record itself (a --config FILE is
# one of the files copied in)
if [ $SHELL_MODE = 0 ] &&
   ! err=$(cd "$PROGS" && ./tracebufctl record "${RECORD_OPTS[@]}" --print-config -- true 2>&1 > /dev/null); then
	err=$(head -n 1 <<< "$err")
	err=${err#tracebufctl: record: }
	tb_die "--record \"$RECORD\": ${err% (see *}"
fi
if [ $WITH_EXAMPLES = 1 ]; then
	tb_log "building the examples, static"
	make -C "$TB_ROOT/userlib/examples" O="$WORK/examples" STATIC=1 >&2 ||
		tb_die "the examples did not build"
	for e in $EXAMPLES; do
		[ -e "$PROGS/$e" ] || cp "$WORK/examples/$e" "$PROGS/$e"
	done
fi
tb_log "building the module for $(basename "$KERNEL")"
KO=$(tb_build_module "$KDIR" "$WORK")

# The guest's lines that put tracebufctl and the examples on PATH.
# shellcheck disable=SC2016 # the guest's shell expands
examples_on_path() {
	local p
	for p in tracebufctl $EXAMPLES; do
		printf '[ ! -x %s ] || ln -sf "$PWD/%s" /usr/bin/%s\n' "$p" "$p" "$p"
	done
}

# What the guest runs, in KTAP like every program there: record around
# the command in the working directory (/mnt/tests, writable here), its
# output and status (record.rc) in /mnt/out.  Nested timeouts send record
# SIGTERM at the limit (passed on to the command), again 10 s later (the
# recording stops then and the trace is written) and 10 s after that (it
# stops waiting for a command that ignores SIGTERM); the guest's own
# limit, 50 s later, would lose record's status.
# shellcheck disable=SC2016 # the guest's shell expands
record_script() {
	echo '#!/bin/sh'
	echo '# generated by scripts/run.sh'
	echo 'echo "TAP version 13"; echo "1..1"'
	examples_on_path
	[ -z "${LD_LIBRARY_PATH:-}" ] || printf 'export LD_LIBRARY_PATH=%q\n' "$LD_LIBRARY_PATH"
	echo 'start=$(date +%s)'
	printf 'timeout -s TERM %d timeout -s TERM %d timeout -s TERM %d ./tracebufctl record' \
		$((TIMEOUT + 20)) $((TIMEOUT + 10)) "$TIMEOUT"
	printf ' %q' "${RECORD_OPTS[@]}" -o "$OUT" -- "${CMD[@]}"
	printf ' > /mnt/out/%q.stdout 2> /mnt/out/%q.stderr\n' "$OUT" "$OUT"
	echo 'rc=$?'
	printf '[ $(($(date +%%s) - start)) -lt %d ] || echo %d > /mnt/out/timed-out\n' "$TIMEOUT" "$TIMEOUT"
	echo 'echo $rc > /mnt/out/record.rc'
	echo 'echo "ok 1 record exited $rc"'
	echo 'echo "# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0"'
}

# --shell: a shell in its own session with the console as its terminal
# (cttyhack finds the console's device), so that Ctrl-C reaches what it
# runs; the kernel's messages off the console meanwhile (dmesg keeps
# them).  The guest's limit ends it.
# shellcheck disable=SC2016 # the guest's shell expands
shell_script() {
	echo '#!/bin/sh'
	echo '# generated by scripts/run.sh --shell'
	echo 'echo "TAP version 13"; echo "1..1"'
	examples_on_path
	[ -z "${LD_LIBRARY_PATH:-}" ] || printf 'export LD_LIBRARY_PATH=%q\n' "$LD_LIBRARY_PATH"
	echo 'export HOME=/root PS1="tracebuf \w # "'
	echo 'level=$(cut -f 1 /proc/sys/kernel/printk)'
	echo 'dmesg -n 1'
	echo ': > /mnt/out/shell.started'
	echo 'cat > /dev/console <<EOF'
	echo 'tracebuf-vm: shell: the module is loaded; tracebufctl, the examples and your files are here,'
	echo 'tracebuf-vm: in $PWD; what is new or changed here when the shell exits comes back'
	printf 'tracebuf-vm: to %s.  "exit" (or Ctrl-D) ends it, at the latest in %d s.\n' "$DEST" "$TIMEOUT"
	echo 'EOF'
	echo 'setsid cttyhack sh -i'
	echo 'echo "ok 1 shell exited with $?"'
	echo 'dmesg -n "$level"'
	echo 'echo "# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0"'
}

if [ $SHELL_MODE = 0 ]; then
	GUEST_SCRIPT=run_record.sh vm_mode=()
	what="tracebufctl record ${RECORD_OPTS[*]} -- ${CMD[*]}"
	record_script > "$PROGS/$GUEST_SCRIPT"
else
	GUEST_SCRIPT=run_shell.sh vm_mode=(--interactive --append quiet)
	what="a shell on this terminal"
	shell_script > "$PROGS/$GUEST_SCRIPT"
fi
chmod +x "$PROGS/$GUEST_SCRIPT"
echo "$GUEST_SCRIPT" > "$WORK/run.list"

tb_log "booting $(basename "$KERNEL") in QEMU: $what"
vm_extra=()
[ -z "$MODDIR" ] || vm_extra=(--moddir "$MODDIR")
vm_ok=1
# shellcheck disable=SC2086 # VM_ARGS is a list of words
"$TB_ROOT/scripts/vm-run.sh" --kernel "$KERNEL" --module "$KO" --tests "$PROGS" \
	--list "$WORK/run.list" --timeout $((TIMEOUT + 70)) --watchdog $((TIMEOUT + 300)) \
	--env TB_TESTS_WRITABLE=1 --out "$WORK/vm" "${vm_mode[@]}" "${vm_extra[@]}" \
	${VM_ARGS:-} >&2 || vm_ok=0

# --- what comes back -----------------------------------------------------------

SHARE_OUT=$WORK/vm/share/out
GUEST_DIR=$WORK/vm/share/tests
if [ $SHELL_MODE = 0 ]; then
	rc=$(cat "$SHARE_OUT/record.rc" 2>/dev/null) ||
		tb_die "the guest ran no recording (logs: $WORK/vm)"
	sed 's/^/  /' "$SHARE_OUT/$OUT.stderr" | tail -n 15 >&2
	[ ! -f "$SHARE_OUT/timed-out" ] ||
		tb_log "the time limit, $TIMEOUT s, passed: the command was sent SIGTERM (--timeout, make run TIMEOUT=)"
else
	rc=0
	[ -f "$SHARE_OUT/shell.started" ] || tb_die "the guest did not get to the shell (logs: $WORK/vm)"
fi

# The files new or changed in the guest's working directory, as paths
# relative to it (NUL-terminated): not in PROGS, or of another size or
# time there and another content.  Left out: the temporary file of a
# recording that could not end (".NAME.XXXXXX", NAME a trace's).
changed_files() {
	local -A before=()
	local p meta name stem=${OUT%%.*}
	[ $SHELL_MODE = 0 ] || stem=''
	while IFS=$'\t' read -r -d '' meta p; do
		before[$p]=$meta
	done < <(find "$PROGS" -mindepth 1 \( -type f -o -type l \) -printf '%s %T@ %l\t%P\0')
	while IFS=$'\t' read -r -d '' meta p; do
		name=${p##*/}
		case $name in
		.*.fxt.??????|.*.fxt.gz.??????|.*.fxt.zst.??????) continue ;;
		esac
		if [ -n "$stem" ] && [[ $name == ".$stem".?????? || $name == ".$stem".*.?????? ]]; then
			continue
		fi
		if [ -n "${before[$p]:-}" ]; then
			[ "${before[$p]}" != "$meta" ] || continue
			if [ -f "$PROGS/$p" ] && [ ! -L "$PROGS/$p" ] && [ -f "$GUEST_DIR/$p" ] &&
			   [ ! -L "$GUEST_DIR/$p" ] && cmp -s "$PROGS/$p" "$GUEST_DIR/$p"; then
				continue
			fi
		fi
		printf '%s\0' "$p"
	done < <(find "$GUEST_DIR" -mindepth 1 \( -type f -o -type l \) -printf '%s %T@ %l\t%P\0' | sort -z -t $'\t' -k 2)
}

# bring_back FROM REL: FROM to DEST/REL, whole or not at all (a
# temporary file renamed over it); says why not.
bring_back() {
	local from=$1 to=$DEST/$2 tmp
	mkdir -p "$(dirname "$to")" 2>/dev/null &&
		tmp=$(mktemp "$(dirname "$to")/.${to##*/}.run-XXXXXX" 2>/dev/null) ||
		{ tb_log "cannot write $to: its directory cannot be made or written"; return 1; }
	if cp -P --remove-destination "$from" "$tmp" && mv -T -f "$tmp" "$to" 2>/dev/null; then
		return 0
	fi
	rm -f "$tmp"
	tb_log "cannot write $to (a directory of that name?)"
	return 1
}

mapfile -d '' changed < <(changed_files)
back=() failed=() new_trace=0
for p in "${changed[@]}"; do
	[ $SHELL_MODE = 1 ] || [ "$p" != "$OUT" ] || new_trace=1
	if bring_back "$GUEST_DIR/$p" "$p"; then back+=("$p"); else failed+=("$p"); fi
done
took="$(($(date +%s) - t0)) s"
if [ $SHELL_MODE = 1 ]; then
	tb_log "$took: the shell ended"
elif [ $new_trace = 0 ]; then
	earlier=()
	for f in "$OUT" "$OUT.stdout" "$OUT.stderr"; do
		[ ! -e "$DEST/$f" ] || earlier+=("$f")
	done
	kept="there was none in $DEST before"
	[ ${#earlier[@]} = 0 ] || kept="in $DEST, ${earlier[*]} of an earlier run left as they were"
	tb_log "$took: no trace written; record exited $rc; $kept" \
		"(this run's output: $SHARE_OUT/$OUT.stdout, .stderr)"
elif [[ " ${failed[*]} " == *" $OUT "* ]]; then
	tb_log "$took: the trace could not be brought back; record exited $rc"
else
	for s in stdout stderr; do
		bring_back "$SHARE_OUT/$OUT.$s" "$OUT.$s" || failed+=("$OUT.$s")
	done
	tb_log "$took: $DEST/$OUT, $(stat -c %s "$DEST/$OUT") bytes; record exited $rc"
fi
if [ ${#back[@]} -gt 0 ]; then
	list=${back[*]:0:12}
	[ ${#back[@]} -le 12 ] || list+=" and $((${#back[@]} - 12)) more"
	tb_log "${#back[@]} file(s) new or changed in the guest's working directory, now in $DEST: $list"
elif [ $SHELL_MODE = 1 ]; then
	tb_log "no file new or changed in the guest's working directory"
fi
if [ ${#failed[@]} -gt 0 ]; then
	tb_log "not brought back (still in $GUEST_DIR until the next run): ${failed[*]}"
	[ "$rc" != 0 ] || rc=2
fi
if [ $vm_ok = 0 ]; then
	tb_log "the guest reported a problem (a kernel warning, or it did not finish): see above and $WORK/vm"
	[ "$rc" != 0 ] || rc=2
fi
exit "$rc"
