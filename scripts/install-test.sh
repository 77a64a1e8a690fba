#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make install" and "make uninstall" as a user meets them, on a copy of
# the tree (the module builds in the tree it is made from), into a
# DESTDIR: every file where it belongs with its mode, a program built
# against the installed library with pkg-config, a POSIX Trace program
# built against the installed libposixtrace with "cc prog.c -lposixtrace"
# and with pkg-config (shared and static) and run, the installed
# posix-trace-example built, the man pages rendering
# without a warning, the module built for KVER, the modprobe.d file
# naming every module parameter, the udev rule doing what it says (udevadm
# test, on this machine, in a mount namespace of its own), and uninstall
# leaving nothing behind.  KTAP, then "N passed, M failed" as the last
# line; exit status 0 iff M is 0.
#
#   install-test.sh --kdir DIR     the kernel build tree to build against
set -uo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

KDIR=
while [ $# -gt 0 ]; do
	case $1 in
	--kdir) KDIR=$2; shift ;;
	*) tb_die "unknown argument '$1'" ;;
	esac
	shift
done
[ -n "$KDIR" ] || tb_die "--kdir DIR is needed"
KVER=$(tb_kernel_release "$KDIR") || tb_die "cannot tell the release of $KDIR"

WORK=$TB_BUILD/install-test
SRC=$WORK/src
DEST=$WORK/dest
PREFIX=/usr/local
rm -rf "$WORK"
mkdir -p "$SRC" "$DEST"

echo "TAP version 13"
echo "1..11"
trap tb_checks_end EXIT

tb_copy_tree "$SRC"
# the libraries' versions: their Makefiles'
tbver=$(sed -n 's/^VERSION := //p' "$SRC/userlib/lib/Makefile")
ptver=$(sed -n 's/^VERSION := //p' "$SRC/userlib/posixtrace/Makefile")

# 1. make install
make -C "$SRC" install DESTDIR="$DEST" PREFIX=$PREFIX KDIR="$KDIR" > "$WORK/install.log" 2>&1
st=$?
[ $st = 0 ] || tail -n 20 "$WORK/install.log" | tb_say
expect=(
	"755 $PREFIX/bin/tracebufctl"
	"644 $PREFIX/lib/libtracebuf.a"
	"755 $PREFIX/lib/libtracebuf.so.$tbver"
	"644 $PREFIX/lib/pkgconfig/libtracebuf.pc"
	"644 $PREFIX/include/tracebuf/tracebuf.h"
	"644 $PREFIX/include/tracebuf/linux/tracebuf.h"
	"644 $PREFIX/lib/libposixtrace.a"
	"755 $PREFIX/lib/libposixtrace.so.$ptver"
	"644 $PREFIX/lib/pkgconfig/libposixtrace.pc"
	"644 $PREFIX/include/trace.h"
	"644 $PREFIX/share/man/man1/tracebufctl.1"
	"644 $PREFIX/share/man/man3/libtracebuf.3"
	"644 $PREFIX/share/man/man4/tracebuf.4"
	"644 $PREFIX/share/man/man7/posix_trace.7"
	"644 $PREFIX/share/doc/tracebuf/examples/tracebuf-example.c"
	"644 $PREFIX/share/doc/tracebuf/examples/posix-trace-example.c"
	"644 $PREFIX/share/bash-completion/completions/tracebufctl"
	"644 /etc/udev/rules.d/60-tracebuf.rules"
	"644 /etc/modprobe.d/tracebuf.conf"
	"644 /lib/modules/$KVER/updates/tracebuf.ko"
)
for e in "${expect[@]}"; do
	mode=${e%% *} f=${e#* }
	if [ ! -f "$DEST$f" ]; then
		echo "missing $f" | tb_say
		st=1
	elif [ "$(stat -c %a "$DEST$f")" != "$mode" ]; then
		echo "$f: mode $(stat -c %a "$DEST$f"), expected $mode" | tb_say
		st=1
	fi
done
for l in "libtracebuf.so.1 libtracebuf.so.$tbver" \
	 "libposixtrace.so.1 libposixtrace.so.$ptver" "libposixtrace.so libposixtrace.so.1"; do
	[ "$(readlink "$DEST$PREFIX/lib/${l% *}")" = "${l#* }" ] ||
		{ echo "${l% *} does not point at ${l#* }" | tb_say; st=1; }
done
grep -q "DESTDIR set: depmod not run" "$WORK/install.log" ||
	{ echo "no word of depmod being skipped for DESTDIR" | tb_say; st=1; }
tb_check make_install_puts_every_file_in_place $st

# 2. the module is the one for KVER
vermagic=$(modinfo -F vermagic "$DEST/lib/modules/$KVER/updates/tracebuf.ko" 2>/dev/null)
[[ $vermagic == "$KVER "* ]]
tb_check module_built_for_kver $? "vermagic '$vermagic', expected $KVER"

# 3. the example, from the installed source, against the installed library
export PKG_CONFIG_SYSROOT_DIR=$DEST PKG_CONFIG_LIBDIR=$DEST$PREFIX/lib/pkgconfig
cflags=$(pkg-config --cflags libtracebuf) && libs=$(pkg-config --libs libtracebuf) &&
	gcc $cflags "$DEST$PREFIX/share/doc/tracebuf/examples/tracebuf-example.c" $libs \
		-o "$WORK/example" > "$WORK/example.log" 2>&1 &&
	grep -q "$DEST$PREFIX/lib/libtracebuf.so.1" <<< "$(LD_LIBRARY_PATH=$DEST$PREFIX/lib ldd "$WORK/example")"
st=$?
[ $st = 0 ] || tb_say < "$WORK/example.log"
tb_check example_builds_against_installed_library $st

# 4. a POSIX Trace program, as POSIX has it built: "cc prog.c
# -lposixtrace", the prefix being on the compiler's paths (headers,
# libraries) and the dynamic linker's, where ld also finds libtracebuf.so.1
# (libposixtrace.so.1 needs it); it runs (posix_trace_create(): ENODEV
# without the module)
ptprog=$SRC/scripts/posix-trace-installed.c
st=0
if ! C_INCLUDE_PATH=$DEST$PREFIX/include LIBRARY_PATH=$DEST$PREFIX/lib \
	LD_LIBRARY_PATH=$DEST$PREFIX/lib cc -Wall -Wextra -Werror "$ptprog" -lposixtrace \
	-o "$WORK/pt-plain" > "$WORK/pt-plain.log" 2>&1; then
	tb_say < "$WORK/pt-plain.log"
	st=1
elif ! grep -q "libposixtrace.so.1 => $DEST$PREFIX/lib/libposixtrace.so.1 " \
	<<< "$(LD_LIBRARY_PATH=$DEST$PREFIX/lib ldd "$WORK/pt-plain")"; then
	echo "pt-plain does not use the installed libposixtrace.so.1" | tb_say
	st=1
elif ! LD_LIBRARY_PATH=$DEST$PREFIX/lib tb_posix_trace_runs "$WORK/pt-plain"; then
	st=1
fi
tb_check posix_trace_program_links_with_lposixtrace $st

# 5. the same with pkg-config: shared, then static (libposixtrace.pc
# requires libtracebuf.pc, whose libraries --static puts after it)
st=0
if ! cflags=$(pkg-config --cflags libposixtrace) || ! libs=$(pkg-config --libs libposixtrace) ||
	! slibs=$(pkg-config --static --libs libposixtrace); then
	echo "pkg-config libposixtrace failed" | tb_say
	st=1
elif ! LD_LIBRARY_PATH=$DEST$PREFIX/lib gcc -std=c11 -Wall -Wextra -Werror $cflags \
	"$ptprog" $libs -o "$WORK/pt-shared" > "$WORK/pt-shared.log" 2>&1; then
	tb_say < "$WORK/pt-shared.log"
	st=1
elif ! LD_LIBRARY_PATH=$DEST$PREFIX/lib tb_posix_trace_runs "$WORK/pt-shared"; then
	st=1
elif ! gcc -std=c11 -Wall -Wextra -Werror -static $cflags "$ptprog" $slibs \
	-o "$WORK/pt-static" > "$WORK/pt-static.log" 2>&1; then
	{ echo "pkg-config --static --libs: $slibs"; head -n 20 "$WORK/pt-static.log"; } | tb_say
	st=1
elif grep -q NEEDED <<< "$(readelf -d "$WORK/pt-static")"; then
	echo "pt-static needs shared libraries" | tb_say
	st=1
elif ! tb_posix_trace_runs "$WORK/pt-static"; then
	st=1
fi
tb_check posix_trace_program_builds_with_pkg_config $st

# 6. the installed posix-trace-example, with pkg-config
LD_LIBRARY_PATH=$DEST$PREFIX/lib gcc $cflags \
	"$DEST$PREFIX/share/doc/tracebuf/examples/posix-trace-example.c" $libs \
	-o "$WORK/posix-trace-example" > "$WORK/posix-trace-example.log" 2>&1
st=$?
[ $st = 0 ] || tb_say < "$WORK/posix-trace-example.log"
tb_check posix_trace_example_builds_against_installed_library $st
unset PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_LIBDIR

# 7. the installed man pages render, without a warning
st=0
for p in man1/tracebufctl.1 man3/libtracebuf.3 man4/tracebuf.4 man7/posix_trace.7; do
	out=$(groff -ww -z -t -man "$DEST$PREFIX/share/man/$p" 2>&1) || st=1
	[ -z "$out" ] || { printf '%s: %s\n' "$p" "$out" | tb_say; st=1; }
	if command -v man > /dev/null; then
		MANWIDTH=80 man -l "$DEST$PREFIX/share/man/$p" 2>&1 > /dev/null | tb_say
		[ "${PIPESTATUS[0]}" = 0 ] || st=1
	fi
done
tb_check man_pages_render $st

# 8. modprobe.d names every parameter the module has, each commented
params=$(grep -hoE 'module_param_(named|cb)\([a-z_]*' "$SRC"/module/*.c | sed 's/.*(//' | sort)
listed=$(sed -n 's/^#options tracebuf \([a-z_]*\)=.*/\1/p' "$DEST/etc/modprobe.d/tracebuf.conf" | sort)
active=$(grep -c '^options' "$DEST/etc/modprobe.d/tracebuf.conf")
[ -n "$params" ] && [ "$params" = "$listed" ] && [ "$active" = 0 ]
tb_check modprobe_conf_lists_every_parameter $? \
	"parameters: $(echo $params); listed: $(echo $listed); uncommented lines: $active"

# 9. the udev rule: it matches the module's device name, and udevadm
# applies it (to a misc device this machine has, the rule's match
# rewritten to it: /dev/tracebuf exists only where the module is loaded),
# with the machine's rules and /dev hidden behind tmpfs mounts in a
# private mount namespace
rule=$DEST/etc/udev/rules.d/60-tracebuf.rules
name=$(sed -n 's/^#define TRACEBUF_DEVICE_NAME[[:space:]]*"\(.*\)"$/\1/p' "$SRC/uapi/linux/tracebuf.h")
st=0
grep -q "^SUBSYSTEM==\"misc\", KERNEL==\"$name\"," "$rule" ||
	{ echo "the rule does not match misc device '$name'" | tb_say; st=1; }
other=$(ls /sys/class/misc 2>/dev/null | head -n 1)
if ! command -v udevadm > /dev/null || [ -z "$other" ] || ! command -v unshare > /dev/null; then
	echo "no udevadm, unshare or misc device here (apt-get install udev)" | tb_say
	st=1
else
	# udevadm test applies what it computes: the node it changes is a
	# copy, mode 0600, in a private /dev (a tmpfs), and its database goes
	# to a private /run/udev, never the machine's
	sed "s/KERNEL==\"$name\"/KERNEL==\"$other\"/" "$rule" > "$WORK/60-tracebuf.rules"
	unshare -m sh -c 'set -e
		for d in /etc/udev/rules.d /lib/udev/rules.d /run/udev /dev; do
			[ ! -d "$d" ] || mount -t tmpfs none "$d"
		done
		mknod -m 0600 "/dev/$2" c $(tr : " " < "/sys/class/misc/$2/dev")
		cp "$1" /etc/udev/rules.d/
		udevadm test --action=add "/sys/class/misc/$2"
		echo "node: $(stat -c "%a %u %g" "/dev/$2")"' \
		udev "$WORK/60-tracebuf.rules" "$other" > "$WORK/udev.log" 2>&1 ||
		{ tb_say < "$WORK/udev.log"; st=1; }
	grep -q "Setting permissions /dev/$other, uid=0, gid=0, mode=0666" "$WORK/udev.log" &&
		grep -qx "node: 666 0 0" "$WORK/udev.log" ||
		{ grep -i "60-tracebuf\|permissions\|error\|node:" "$WORK/udev.log" | tb_say; st=1; }
fi
tb_check udev_rule_makes_the_node_0666_root $st

# 10. the bash completion is the tree's
cmp -s "$SRC/userlib/ctl/tracebufctl.bash" "$DEST$PREFIX/share/bash-completion/completions/tracebufctl"
tb_check bash_completion_installed $?

# 11. make uninstall removes exactly what was installed
make -C "$SRC" uninstall DESTDIR="$DEST" PREFIX=$PREFIX KDIR="$KDIR" > "$WORK/uninstall.log" 2>&1
st=$?
left=$(cd "$DEST" && find . ! -type d | sort)
[ -z "$left" ] || { echo "left behind:"; echo "$left"; } | tb_say
[ $st = 0 ] && [ -z "$left" ]
tb_check make_uninstall_removes_it_all $?
