#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages as a user meets them: "make deb" on a copy of the
# tree, lintian on what it made (errors and warnings fail, every other
# tag is shown), then "apt-get install ./*.deb" in a throw-away root: an
# overlay of this machine's root filesystem over a tmpfs, in a mount
# namespace of its own, so the packages' maintainer scripts run for real
# (DKMS builds the module for every kernel with headers) and nothing
# reaches this machine.  There: every file each package lists is in
# place, "dkms status" shows the module installed for each of those
# kernels with its vermagic, the man pages, tracebufctl and its completion
# work, a program builds against libtracebuf-dev with pkg-config and runs
# against libtracebuf1, a POSIX Trace program builds against
# libposixtrace-dev ("cc prog.c -lposixtrace", and pkg-config, shared and
# static) and runs, and so does posix-trace-example, "make install-dkms"
# works the same, and purging the packages leaves nothing.  The DKMS-built modules are copied out,
# and with --tests the module built for each x86-64 kernel that has an
# image in /boot is loaded in QEMU and exercised by the programs of DIR
# (abi_test, state_test, record_vmtest).
# KTAP, then "N passed, M failed" as the last line; exit status 0 iff M
# is 0.
#
#   deb-test.sh [--tests DIR]
set -uo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# --- inside the throw-away root (deb-test.sh --in-root, under chroot) -------
# Prints "ok NAME" / "not ok NAME" lines and "# " diagnostics; the outer
# run numbers them.
if [ "${1:-}" = --in-root ]; then
	debs=$2 out=$3
	export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 PATH=/usr/sbin:/usr/bin:/sbin:/bin
	res() {	# res NAME STATUS [WHY]
		if [ "$2" = 0 ]; then echo "ok $1"
		else [ -z "${3:-}" ] || printf '# %s\n' "$3"; echo "not ok $1"; fi
	}
	packages=$(for d in "$debs"/*.deb; do dpkg-deb -f "$d" Package; done)
	version=$(dpkg-deb -f "$(ls "$debs"/tracebufctl_*.deb)" Version)

	# 1. apt installs them, their dependencies being this machine's
	apt-get install -y -q --no-install-recommends "$debs"/*.deb > "$out/apt-install.log" 2>&1
	st=$?
	[ $st = 0 ] || tail -n 25 "$out/apt-install.log" | tb_say
	res apt_installs_the_packages $st
	[ $st = 0 ] || exit 0

	# 2. every file each package says it has is there; these, with their
	# modes (a symbolic link's target's)
	st=0
	for p in $packages; do
		while read -r f; do
			[ -e "$f" ] || [ -L "$f" ] || { echo "$p: $f missing" | tb_say; st=1; }
		done < <(dpkg -L "$p")
	done
	lib=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)
	for e in "tracebufctl 755 /usr/bin/tracebufctl" \
		 "tracebufctl 644 /usr/share/man/man1/tracebufctl.1.gz" \
		 "tracebufctl 644 /usr/share/bash-completion/completions/tracebufctl" \
		 "libtracebuf1 644 $lib/libtracebuf.so.1" \
		 "libtracebuf-dev 644 /usr/include/tracebuf/linux/tracebuf.h" \
		 "libtracebuf-dev 644 /usr/share/man/man3/libtracebuf.3.gz" \
		 "libtracebuf-dev 644 /usr/share/doc/libtracebuf-dev/examples/tracebuf-example.c" \
		 "libposixtrace1 644 $lib/libposixtrace.so.1" \
		 "libposixtrace-dev 644 /usr/include/trace.h" \
		 "libposixtrace-dev 644 $lib/libposixtrace.a" \
		 "libposixtrace-dev 644 $lib/libposixtrace.so" \
		 "libposixtrace-dev 644 $lib/pkgconfig/libposixtrace.pc" \
		 "libposixtrace-dev 644 /usr/share/man/man7/posix_trace.7.gz" \
		 "libposixtrace-dev 644 /usr/share/doc/libposixtrace-dev/examples/posix-trace-example.c" \
		 "tracebuf-dkms 644 /usr/src/tracebuf-$version/dkms.conf" \
		 "tracebuf-dkms 644 /lib/udev/rules.d/60-tracebuf.rules" \
		 "tracebuf-dkms 644 /etc/modprobe.d/tracebuf.conf" \
		 "tracebuf-dkms 644 /usr/share/man/man4/tracebuf.4.gz"; do
		read -r p mode f <<< "$e"
		if ! grep -qx "$f" <<< "$(dpkg -L "$p")"; then
			echo "$p does not have $f" | tb_say
			st=1
		elif [ "$(stat -L -c %a "$f")" != "$mode" ]; then
			echo "$f: mode $(stat -L -c %a "$f"), expected $mode" | tb_say
			st=1
		fi
	done
	res every_file_where_its_package_says $st

	# 3. DKMS built and installed the module for every kernel with headers
	st=0 kernels=''
	dkms status > "$out/dkms-status.log" 2> "$out/dkms-status.err"
	tb_say < "$out/dkms-status.log"
	for d in /lib/modules/*; do
		k=${d##*/}
		[ -f "$d/build/Makefile" ] || continue
		kernels="$kernels $k"
		grep -q "^tracebuf/$version, $k, [a-z0-9_]*: installed" "$out/dkms-status.log" ||
			{ echo "dkms status: tracebuf not installed for $k" | tb_say; st=1; continue; }
		ko=$(find "$d/updates/dkms" -name 'tracebuf.ko*' | head -n 1)
		vm=$(modinfo -F vermagic "$ko" 2>/dev/null)
		[[ $vm == "$k "* ]] || { echo "$ko: vermagic '$vm'" | tb_say; st=1; continue; }
		mkdir -p "$out/dkms/$k"
		case $ko in
		*.xz) xz -dc "$ko" > "$out/dkms/$k/tracebuf.ko" ;;
		*.zst) zstd -qdc "$ko" > "$out/dkms/$k/tracebuf.ko" ;;
		*) cp "$ko" "$out/dkms/$k/tracebuf.ko" ;;
		esac
	done
	[ -n "$kernels" ] || { echo "no kernel with headers in /lib/modules" | tb_say; st=1; }
	res dkms_installed_the_module_for_every_kernel $st "kernels:$kernels"

	# 4. the manual pages, by name, as "man" finds them
	st=0
	for p in "1 tracebufctl" "3 libtracebuf" "4 tracebuf" "7 posix_trace"; do
		# shellcheck disable=SC2086 # section and name
		MANWIDTH=80 man -P cat $p > "$out/man.txt" 2> "$out/man.err" &&
			[ ! -s "$out/man.err" ] && grep -q "^NAME" "$out/man.txt" ||
			{ echo "man $p: $(head -c 300 "$out/man.err")" | tb_say; st=1; }
	done
	res man_finds_and_renders_every_page $st

	# 5. tracebufctl runs, and bash completes its commands
	st=0
	tracebufctl --help > "$out/help.txt" 2>&1 || { tb_say < "$out/help.txt"; st=1; }
	words=$(bash -c '. /usr/share/bash-completion/bash_completion
		_completion_loader tracebufctl
		COMP_WORDS=(tracebufctl rec); COMP_CWORD=1; COMP_LINE="tracebufctl rec"
		COMP_POINT=${#COMP_LINE}
		$(complete -p tracebufctl | sed "s/.*-F \([^ ]*\) .*/\1/") tracebufctl rec tracebufctl
		echo "${COMPREPLY[@]}"' 2>&1)
	[ "$words" = record ] || { echo "completion of 'rec': '$words'" | tb_say; st=1; }
	res tracebufctl_and_its_completion_work $st

	# 6. a provider built with pkg-config against libtracebuf-dev runs
	# against libtracebuf1
	st=0
	ex=/usr/share/doc/libtracebuf-dev/examples/tracebuf-example.c
	# shellcheck disable=SC2046 # pkg-config prints flags
	gcc $(pkg-config --cflags libtracebuf) "$ex" $(pkg-config --libs libtracebuf) \
		-o "$out/example" > "$out/example.log" 2>&1 &&
		ldd "$out/example" > "$out/ldd.log" 2>&1 &&
		grep -q "=> \(/usr\)\?/lib/[^ ]*/libtracebuf.so.1 " "$out/ldd.log" ||
		{ cat "$out/example.log" "$out/ldd.log" | tb_say; st=1; }
	res example_builds_and_links_libtracebuf1 $st

	# 7. a POSIX Trace program, built as POSIX says ("cc prog.c
	# -lposixtrace"), runs against libposixtrace1 (posix_trace_create():
	# ENODEV without the module)
	ptprog=$out/src/scripts/posix-trace-installed.c
	st=0
	if ! cc -Wall -Wextra -Werror "$ptprog" -lposixtrace -o "$out/pt-plain" \
		> "$out/pt-plain.log" 2>&1; then
		tb_say < "$out/pt-plain.log"
		st=1
	elif ! grep -q "=> \(/usr\)\?/lib/[^ ]*/libposixtrace.so.1 " <<< "$(ldd "$out/pt-plain")"; then
		ldd "$out/pt-plain" 2>&1 | tb_say
		st=1
	elif ! tb_posix_trace_runs "$out/pt-plain"; then
		st=1
	fi
	res posix_trace_program_links_with_lposixtrace $st

	# 8. the same with pkg-config, shared and static (libposixtrace.pc
	# requires libtracebuf.pc: libposixtrace-dev depends on libtracebuf-dev)
	st=0
	# shellcheck disable=SC2086 # pkg-config prints flags
	if ! cflags=$(pkg-config --cflags libposixtrace) ||
		! libs=$(pkg-config --libs libposixtrace) ||
		! slibs=$(pkg-config --static --libs libposixtrace); then
		echo "pkg-config libposixtrace failed" | tb_say
		st=1
	elif ! gcc -std=c11 -Wall -Wextra -Werror $cflags "$ptprog" $libs -o "$out/pt-shared" \
		> "$out/pt-shared.log" 2>&1; then
		tb_say < "$out/pt-shared.log"
		st=1
	elif ! tb_posix_trace_runs "$out/pt-shared"; then
		st=1
	elif ! gcc -std=c11 -Wall -Wextra -Werror -static $cflags "$ptprog" $slibs \
		-o "$out/pt-static" > "$out/pt-static.log" 2>&1; then
		{ echo "pkg-config --static --libs: $slibs"; head -n 20 "$out/pt-static.log"; } |
			tb_say
		st=1
	elif grep -q NEEDED <<< "$(readelf -d "$out/pt-static")"; then
		echo "pt-static needs shared libraries" | tb_say
		st=1
	elif ! tb_posix_trace_runs "$out/pt-static"; then
		st=1
	fi
	res posix_trace_program_builds_with_pkg_config $st

	# 9. posix-trace-example, as libposixtrace-dev has it, with pkg-config
	ex=/usr/share/doc/libposixtrace-dev/examples/posix-trace-example.c
	# shellcheck disable=SC2046 # pkg-config prints flags
	gcc $(pkg-config --cflags libposixtrace) "$ex" $(pkg-config --libs libposixtrace) \
		-o "$out/posix-trace-example" > "$out/posix-trace-example.log" 2>&1
	st=$?
	[ $st = 0 ] || tb_say < "$out/posix-trace-example.log"
	res posix_trace_example_builds_against_libposixtrace_dev $st

	# 10. purged, the packages leave nothing: no module, no source, no conffile
	# shellcheck disable=SC2086 # one package a word
	apt-get purge -y -q $packages > "$out/apt-purge.log" 2>&1
	st=$?
	[ $st = 0 ] || tail -n 20 "$out/apt-purge.log" | tb_say
	left=$( { dkms status 2>&1 | grep tracebuf
		  ls -d /usr/src/tracebuf-* /var/lib/dkms/tracebuf /etc/modprobe.d/tracebuf.conf \
			/lib/udev/rules.d/60-tracebuf.rules /usr/bin/tracebufctl \
			/usr/include/trace.h /usr/lib/*/libposixtrace* 2>/dev/null
		  find /lib/modules -name 'tracebuf.ko*' 2>/dev/null; } )
	[ -z "$left" ] || { echo "left behind: $left" | tb_say; st=1; }
	res purge_leaves_nothing $st

	# 11. without packages: make install-dkms and make uninstall-dkms
	k=${kernels# }; k=${k%% *}
	make -C "$out/src" install-dkms KVER="$k" > "$out/install-dkms.log" 2>&1 &&
		grep -q ': installed' <<< "$(dkms status -m tracebuf -v "$version" -k "$k")" &&
		make -C "$out/src" uninstall-dkms >> "$out/install-dkms.log" 2>&1 &&
		[ -z "$(dkms status -m tracebuf 2>&1)" ] && [ ! -e "/usr/src/tracebuf-$version" ]
	st=$?
	[ $st = 0 ] || tail -n 20 "$out/install-dkms.log" | tb_say
	res make_install_dkms_and_uninstall_dkms $st "for $k"
	exit 0
fi

# --- outside ------------------------------------------------------------------
TESTS=''
while [ $# -gt 0 ]; do
	case $1 in
	--tests) TESTS=$2; shift ;;
	*) tb_die "unknown argument '$1'" ;;
	esac
	shift
done

WORK=$TB_BUILD/deb-test
SRC=$WORK/src
rm -rf "$WORK"
mkdir -p "$WORK"

echo "TAP version 13"
trap tb_checks_end EXIT

tb_copy_tree "$SRC"

# 1. make deb: every package of debian/control, here, each with its size
make -C "$SRC" deb > "$WORK/deb.log" 2>&1
st=$?
tb_say < "$WORK/deb.log"
packages=$(sed -n 's/^Package: //p' "$SRC/debian/control")
for p in $packages; do
	[ -f "$(ls "$SRC/${p}_"*.deb 2>/dev/null | head -n 1)" ] ||
		{ echo "no $p package" | tb_say; st=1; }
done
tb_check make_deb_builds_every_package $st
[ $st = 0 ] || exit 1

# 2. lintian: no error and no warning, source and binaries (every other
# tag is shown; --show-overrides would make the overridden ones fail)
changes=$(ls "$SRC"/.build/deb/*.changes)
lintian --fail-on error,warning --display-info --pedantic "$changes" \
	> "$WORK/lintian.log" 2>&1
st=$?
grep -v 'running with root privileges' "$WORK/lintian.log" | tb_say
tb_check lintian_no_error_no_warning $st

# 3. apt in a throw-away root: see --in-root above.  $WORK is seen there
# as /tmp/tracebuf-deb-test, made on the root's own /tmp: wherever the
# tree is (under /tmp, which that tmpfs hides, or on a filesystem the
# overlay of / does not show), and the copy's scripts run there.
ROOTWORK=$(mktemp -d)
INWORK=/tmp/tracebuf-deb-test
mkdir -p "$WORK/in-root/debs"
cp "$SRC"/*.deb "$WORK/in-root/debs/"
ln -s ../src "$WORK/in-root/src"
if ! command -v unshare > /dev/null; then
	tb_check throw_away_root 1 "no unshare(1): util-linux"
	exit 1
fi
# shellcheck disable=SC2016 # expanded by the inner shell
unshare --mount --propagation private sh -c '
	set -e
	mount -t tmpfs tracebuf-root "$1"
	mkdir "$1/upper" "$1/work" "$1/root"
	mount -t overlay overlay -o "lowerdir=/,upperdir=$1/upper,workdir=$1/work" "$1/root"
	mount --rbind /dev "$1/root/dev"
	mount -t proc proc "$1/root/proc"
	mount --rbind /sys "$1/root/sys"
	mount -t tmpfs tmpfs "$1/root/tmp"
	mount -t tmpfs tmpfs "$1/root/run"
	# the copy of the tree, and what the run leaves for the outside: its
	# logs and the DKMS modules
	mkdir "$1/root/$3"
	mount --bind "$2" "$1/root/$3"
	chroot "$1/root" "$3/src/scripts/deb-test.sh" --in-root "$3/in-root/debs" "$3/in-root"
' deb-test "$ROOTWORK" "$WORK" "$INWORK" > "$WORK/in-root.log" 2>&1
rc=$?
rmdir "$ROOTWORK" 2>/dev/null
while IFS= read -r line; do
	case $line in
	'ok '*) tb_check "${line#ok }" 0 ;;
	'not ok '*) tb_check "${line#not ok }" 1 ;;
	'# '*) printf '%s\n' "$line" ;;
	*) printf '# %s\n' "$line" ;;
	esac
done < "$WORK/in-root.log"
[ $rc = 0 ] || tb_check throw_away_root_ran 1 "exit status $rc"
grep -q '^ok apt_installs_the_packages' "$WORK/in-root.log" || exit 1

# 4. the DKMS-built modules, loaded in QEMU with the run's programs
[ -n "$TESTS" ] || exit 0
echo abi_test > "$WORK/vm.list"
echo state_test >> "$WORK/vm.list"
echo record_vmtest >> "$WORK/vm.list"
for ko in "$WORK"/in-root/dkms/*/tracebuf.ko; do
	[ -f "$ko" ] || continue
	k=$(basename "$(dirname "$ko")")
	[ -f "/boot/vmlinuz-$k" ] && [[ $k == *-amd64 ]] || continue
	"$TB_ROOT/scripts/vm-run.sh" --kernel "/boot/vmlinuz-$k" --module "$ko" \
		--moddir "/lib/modules/$k" --tests "$TESTS" --list "$WORK/vm.list" \
		--out "$WORK/vm-$k" > "$WORK/vm-$k.log" 2>&1
	st=$?
	tail -n 1 "$WORK/vm-$k.log" | tb_say
	[ $st = 0 ] || grep -a 'FAIL\|not ok' "$WORK/vm-$k.log" | head -n 20 | tb_say
	tb_check "dkms_module_runs_in_qemu_$k" $st
done
