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
#
# With --arch ARCH (arm64, armhf), the packages cross-built for ARCH
# ("make deb DEB_HOST_ARCH=ARCH"), lintian on them the same way; then
# what they hold, read outside (every ELF file, static libraries'
# members included, is for ARCH, hard-float for armhf; the files are in
# ARCH's multiarch directory and the pkg-config files say so; the
# libraries' symbols files list exactly what they export, with shlibs
# files, and the packages depend on libc6); in the throw-away root, apt
# installs the architecture-dependent ones beside this machine's
# (multiarch, with libc6:ARCH: scripts/install-deps.sh), and under
# qemu-user the installed tracebufctl says its version, a provider built
# with ARCH's compiler and pkg-config loads libtracebuf1, a POSIX Trace
# program built with -lposixtrace and with pkg-config (shared and static)
# runs, and the purge leaves nothing; last, DKMS builds the module of
# tracebuf-dkms against Debian's 6.1 kernel headers of ARCH
# (linux-headers-arm64, linux-headers-armmp, downloaded once into
# .build/deb-headers/ARCH), cross-compiled, or declines the kernel when
# dkms.conf excludes its architecture, and then what the module's build
# says for that kernel is shown.  No binfmt_misc
# entry: a program of ARCH runs as "qemu-aarch64 PROGRAM".
# KTAP, then "N passed, M failed" as the last line; exit status 0 iff M
# is 0.
#
#   deb-test.sh [--tests DIR]
#   deb-test.sh --arch ARCH
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

# --- inside, for another architecture (deb-test.sh --in-root-arch) ----------
# The architecture-dependent packages of ARCH, installed by apt beside this
# machine's own (multiarch: libc6:ARCH is installed here), and what they
# install run under qemu-user (qemu-aarch64, qemu-arm), named on each
# command line: no binfmt_misc entry, which would be the whole machine's.
if [ "${1:-}" = --in-root-arch ]; then
	debs=$2 out=$3 arch=$4
	export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 PATH=/usr/sbin:/usr/bin:/sbin:/bin
	res() {	# res NAME STATUS [WHY]
		if [ "$2" = 0 ]; then echo "ok $1"
		else [ -z "${3:-}" ] || printf '# %s\n' "$3"; echo "not ok $1"; fi
	}
	gnu=$(dpkg-architecture -a "$arch" -qDEB_HOST_GNU_TYPE 2>/dev/null)
	multi=$(dpkg-architecture -a "$arch" -qDEB_HOST_MULTIARCH 2>/dev/null)
	qemu=qemu-$(dpkg-architecture -a "$arch" -qDEB_HOST_GNU_CPU 2>/dev/null)
	lib=/usr/lib/$multi
	packages=$(for d in "$debs"/*_"$arch".deb; do dpkg-deb -f "$d" Package; done)
	version=$(dpkg-deb -f "$(ls "$debs"/tracebufctl_*.deb)" Version)
	# pkg-config for ARCH, as Debian's cross wrappers set it up
	xpkg() { PKG_CONFIG_LIBDIR=$lib/pkgconfig:/usr/share/pkgconfig pkg-config "$@"; }
	# run PROGRAM under qemu-user; "ldd PROGRAM": the loader's own list
	run() { "$qemu" "$@"; }
	xldd() { "$qemu" -E LD_TRACE_LOADED_OBJECTS=1 "$1"; }

	# 1. apt installs them, for ARCH, their dependencies being this
	# machine's (libc6:ARCH)
	apt-get install -y -q --no-install-recommends "$debs"/*_"$arch".deb \
		> "$out/apt-install.log" 2>&1
	st=$?
	[ $st = 0 ] || tail -n 25 "$out/apt-install.log" | tb_say
	for p in $packages; do
		[ $st != 0 ] || [ "$(dpkg-query -W -f='${db:Status-Status}' "$p:$arch")" = installed ] ||
			{ echo "$p:$arch is not installed" | tb_say; st=1; }
	done
	res "apt_installs_the_${arch}_packages" $st
	[ $st = 0 ] || exit 0

	# 2. every file each package says it has is there
	st=0
	for p in $packages; do
		while read -r f; do
			[ -e "$f" ] || [ -L "$f" ] || { echo "$p:$arch: $f missing" | tb_say; st=1; }
		done < <(dpkg -L "$p:$arch")
	done
	res every_file_where_its_package_says $st

	# 3. the installed tracebufctl runs and says its version
	st=0
	v=$(run /usr/bin/tracebufctl --version 2>&1) && [[ $v == "tracebufctl $version "* ]] ||
		{ echo "tracebufctl --version: $v" | tb_say; st=1; }
	res "tracebufctl_runs_on_$arch" $st "$v"

	# 4. a provider built with pkg-config against libtracebuf-dev:ARCH
	# loads libtracebuf1:ARCH
	st=0
	ex=/usr/share/doc/libtracebuf-dev/examples/tracebuf-example.c
	# shellcheck disable=SC2046 # pkg-config prints flags
	"$gnu-gcc" $(xpkg --cflags libtracebuf) "$ex" $(xpkg --libs libtracebuf) \
		-o "$out/example" > "$out/example.log" 2>&1 &&
		xldd "$out/example" > "$out/ldd.log" 2>&1 &&
		grep -q "=> \(/usr\)\?/lib/$multi/libtracebuf.so.1 " "$out/ldd.log" ||
		{ cat "$out/example.log" "$out/ldd.log" | tb_say; st=1; }
	res example_builds_and_loads_libtracebuf1 $st

	# 5. a POSIX Trace program, "cc prog.c -lposixtrace" with ARCH's
	# compiler, runs against libposixtrace1:ARCH (and libtracebuf1:ARCH
	# under it); with pkg-config, shared and static, the same
	ptprog=$out/src/scripts/posix-trace-installed.c
	st=0
	if ! "$gnu-gcc" -Wall -Wextra -Werror "$ptprog" -lposixtrace -o "$out/pt-plain" \
		> "$out/pt-plain.log" 2>&1; then
		tb_say < "$out/pt-plain.log"
		st=1
	elif ! grep -q "=> \(/usr\)\?/lib/$multi/libposixtrace.so.1 " <<< "$(xldd "$out/pt-plain")" ||
	     ! grep -q "=> \(/usr\)\?/lib/$multi/libtracebuf.so.1 " <<< "$(xldd "$out/pt-plain")"; then
		xldd "$out/pt-plain" 2>&1 | tb_say
		st=1
	elif ! tb_posix_trace_runs "$out/pt-plain" "$qemu"; then
		st=1
	fi
	res posix_trace_program_links_with_lposixtrace $st
	st=0
	# shellcheck disable=SC2086 # pkg-config prints flags
	if ! cflags=$(xpkg --cflags libposixtrace) || ! libs=$(xpkg --libs libposixtrace) ||
	   ! slibs=$(xpkg --static --libs libposixtrace); then
		echo "pkg-config libposixtrace failed" | tb_say
		st=1
	elif ! "$gnu-gcc" -std=c11 -Wall -Wextra -Werror $cflags "$ptprog" $libs \
		-o "$out/pt-shared" > "$out/pt-shared.log" 2>&1; then
		tb_say < "$out/pt-shared.log"
		st=1
	elif ! tb_posix_trace_runs "$out/pt-shared" "$qemu"; then
		st=1
	elif ! "$gnu-gcc" -std=c11 -Wall -Wextra -Werror -static $cflags "$ptprog" $slibs \
		-o "$out/pt-static" > "$out/pt-static.log" 2>&1; then
		{ echo "pkg-config --static --libs: $slibs"; head -n 20 "$out/pt-static.log"; } |
			tb_say
		st=1
	elif grep -q NEEDED <<< "$(readelf -d "$out/pt-static")"; then
		echo "pt-static needs shared libraries" | tb_say
		st=1
	elif ! tb_posix_trace_runs "$out/pt-static" "$qemu"; then
		st=1
	fi
	res posix_trace_program_builds_with_pkg_config $st

	# 6. purged, the packages leave nothing
	# shellcheck disable=SC2046,SC2086 # one package a word
	apt-get purge -y -q $(printf "%s:$arch " $packages) > "$out/apt-purge.log" 2>&1
	st=$?
	[ $st = 0 ] || tail -n 20 "$out/apt-purge.log" | tb_say
	left=$(ls -d /usr/bin/tracebufctl "$lib"/libtracebuf* "$lib"/libposixtrace* \
		"$lib"/pkgconfig/libtracebuf.pc "$lib"/pkgconfig/libposixtrace.pc \
		/usr/include/trace.h /usr/include/tracebuf 2>/dev/null)
	[ -z "$left" ] || { echo "left behind: $left" | tb_say; st=1; }
	res purge_leaves_nothing $st
	exit 0
fi

# --- outside ------------------------------------------------------------------
TESTS='' ARCH=''
while [ $# -gt 0 ]; do
	case $1 in
	--tests) TESTS=$2; shift ;;
	--arch) ARCH=$2; shift ;;
	*) tb_die "unknown argument '$1'" ;;
	esac
	shift
done

NATIVE=$(dpkg-architecture -qDEB_BUILD_ARCH)
[ -n "$ARCH" ] || ARCH=$NATIVE
WORK=$TB_BUILD/deb-test
[ "$ARCH" = "$NATIVE" ] || WORK=$TB_BUILD/deb-test-$ARCH
SRC=$WORK/src
rm -rf "$WORK"
mkdir -p "$WORK"

# --- another architecture's packages, from outside ---------------------------

# arch_contents: what the packages of $ARCH hold, read with dpkg-deb and
# readelf: every ELF file (program, shared and static library) is for
# $ARCH, the files are where the native packages have them (in $ARCH's
# multiarch directory), each pkg-config file names that directory, and
# the libraries' symbols and shlibs files and the packages' dependencies
# are what dpkg-shlibdeps and dh_makeshlibs make of $ARCH's libraries.
arch_contents() {
	local multi lib machine class p d f st list syms want got vfp
	multi=$(dpkg-architecture -a "$ARCH" -qDEB_HOST_MULTIARCH 2>/dev/null)
	lib=usr/lib/$multi
	case $ARCH in
	arm64) machine=AArch64 class=ELF64 ;;
	armhf) machine=ARM class=ELF32 ;;
	amd64) machine='Advanced Micro Devices X86-64' class=ELF64 ;;
	i386) machine='Intel 80386' class=ELF32 ;;
	*) tb_check "elf_files_are_for_$ARCH" 1 "no ELF machine known for $ARCH"; return ;;
	esac
	rm -rf "$WORK/contents"
	for d in "$SRC"/*_"$ARCH".deb; do
		p=$(dpkg-deb -f "$d" Package)
		mkdir -p "$WORK/contents/$p"
		dpkg-deb -x "$d" "$WORK/contents/$p"
		dpkg-deb -e "$d" "$WORK/contents/$p/DEBIAN"
	done

	# every ELF file, static libraries' members included
	st=0 list=''
	while IFS= read -r -d '' f; do
		case $(head -c 8 "$f" | od -An -c | tr -d ' ') in
		177ELF*|'!<arch>'*) ;;
		*) continue ;;
		esac
		list="$list ${f##*/}"
		readelf -h "$f" > "$WORK/readelf.txt" 2>&1 || { tb_say < "$WORK/readelf.txt"; st=1; continue; }
		if grep -q '^ *Machine:' "$WORK/readelf.txt" &&
		   ! grep '^ *Machine:' "$WORK/readelf.txt" | grep -qv ":  *$machine\$" &&
		   ! grep '^ *Class:' "$WORK/readelf.txt" | grep -qv ":  *$class\$"; then
			vfp=$(readelf -A "$f" | grep 'Tag_ABI_VFP_args:')
			if [ "$ARCH" = armhf ] && { [ -z "$vfp" ] || grep -qv 'VFP registers' <<< "$vfp"; }; then
				echo "${f#"$WORK/contents/"}: not hard-float" | tb_say
				st=1
			fi
			continue
		fi
		grep '^ *\(Machine\|Class\):' "$WORK/readelf.txt" | sort -u |
			sed "s|^ *|${f#"$WORK/contents/"}: |" | tb_say
		st=1
	done < <(find "$WORK/contents" -path '*/DEBIAN' -prune -o -type f -print0)
	for f in tracebufctl libtracebuf.so.1.* libposixtrace.so.1.* libtracebuf.a libposixtrace.a; do
		# shellcheck disable=SC2086 # a pattern
		[[ " $list " == *\ $f\ * ]] || { echo "no ELF file $f" | tb_say; st=1; }
	done
	tb_check "elf_files_are_for_$ARCH" $st "$machine, $class:$list"

	# where the files are, and the pkg-config files
	st=0
	for e in "tracebufctl usr/bin/tracebufctl" \
		 "tracebufctl usr/share/man/man1/tracebufctl.1.gz" \
		 "tracebufctl usr/share/bash-completion/completions/tracebufctl" \
		 "libtracebuf1 $lib/libtracebuf.so.1" \
		 "libtracebuf-dev usr/include/tracebuf/linux/tracebuf.h" \
		 "libtracebuf-dev $lib/libtracebuf.a" \
		 "libtracebuf-dev $lib/libtracebuf.so" \
		 "libtracebuf-dev $lib/pkgconfig/libtracebuf.pc" \
		 "libtracebuf-dev usr/share/doc/libtracebuf-dev/examples/tracebuf-example.c" \
		 "libposixtrace1 $lib/libposixtrace.so.1" \
		 "libposixtrace-dev usr/include/trace.h" \
		 "libposixtrace-dev $lib/libposixtrace.a" \
		 "libposixtrace-dev $lib/libposixtrace.so" \
		 "libposixtrace-dev $lib/pkgconfig/libposixtrace.pc"; do
		read -r p f <<< "$e"
		[ -e "$WORK/contents/$p/$f" ] || [ -L "$WORK/contents/$p/$f" ] ||
			{ echo "$p has no /$f" | tb_say; st=1; }
	done
	for f in "libtracebuf-dev/$lib/pkgconfig/libtracebuf.pc" \
		 "libposixtrace-dev/$lib/pkgconfig/libposixtrace.pc"; do
		[ -f "$WORK/contents/$f" ] || continue
		grep -qx "libdir=/$lib" "$WORK/contents/$f" ||
			{ echo "$f: $(grep '^libdir=' "$WORK/contents/$f")" | tb_say; st=1; }
	done
	tb_check "files_in_${multi}_and_pkg_config_names_it" $st

	# symbols: each library's symbols file lists exactly what it exports
	# (version nodes aside); shlibs; the dependencies on ARCH's libc6
	st=0
	for e in "libtracebuf1 libtracebuf.so.1" "libposixtrace1 libposixtrace.so.1"; do
		read -r p f <<< "$e"
		syms=$WORK/contents/$p/DEBIAN/symbols
		if [ ! -f "$syms" ] || [ ! -f "$WORK/contents/$p/DEBIAN/shlibs" ]; then
			echo "$p has no symbols or no shlibs file" | tb_say
			st=1
			continue
		fi
		want=$(sed -n 's/^ \([^ ]*\) .*/\1/p' "$syms" | awk -F@ '$1 != $2' | sort)
		got=$(readelf --dyn-syms -W "$WORK/contents/$p/$lib/$f" |
			awk '$7 != "UND" && ($5 == "GLOBAL" || $5 == "WEAK") { print $8 }' |
			sed -n 's/@@\?/@/p' | awk -F@ '$1 != $2' | sort)
		if [ -z "$got" ] || [ "$want" != "$got" ]; then
			diff <(echo "$want") <(echo "$got") | sed "s|^|$p symbols vs $f: |" | tb_say
			st=1
		fi
		grep -q "^${f%.so.1} 1 $p (>= " "$WORK/contents/$p/DEBIAN/shlibs" ||
			{ echo "$p shlibs: $(cat "$WORK/contents/$p/DEBIAN/shlibs")" | tb_say; st=1; }
	done
	for p in libtracebuf1 libposixtrace1 tracebufctl; do
		d=$(sed -n 's/^Depends: //p' "$WORK/contents/$p/DEBIAN/control")
		[[ $d == *"libc6 (>= "* ]] || { echo "$p: Depends: $d" | tb_say; st=1; }
	done
	d=$(sed -n 's/^Depends: //p' "$WORK/contents/libposixtrace1/DEBIAN/control")
	[[ $d == *"libtracebuf1 (>= "* ]] || { echo "libposixtrace1: Depends: $d" | tb_say; st=1; }
	tb_check symbols_shlibs_and_dependencies $st
}

# arch_headers DIR: unpack Debian's 6.1 kernel headers of $ARCH
# (linux-headers-arm64, linux-headers-armmp) into DIR, downloaded once
# (apt-get download + dpkg-deb -x: they are not installed), and make the
# tree work where it is, as install-deps.sh does for a target's: its
# build scripts are this machine's linux-kbuild of the same version.
# Prints the tree's path; the reason on standard output and status 1 if
# it cannot.
arch_headers() {
	local dir=$1 meta headers common kbuild want dl d l src
	case $ARCH in
	arm64) meta=linux-headers-arm64 ;;
	armhf) meta=linux-headers-armmp ;;
	*) echo "no kernel headers known for $ARCH"; return 1 ;;
	esac
	dep() {	# dep PACKAGE [PATTERN]: PACKAGE's first dependency matching PATTERN
		apt-cache depends "$1" 2>/dev/null |
			sed -n 's/^ *Depends: <\?\([^:<>]*\)\(:[a-z0-9]*\)\?>\?$/\1/p' |
			grep -x -- "${2:-.*}" | head -n 1
	}
	headers=$(dep "$meta:$ARCH")
	common=$(dep "$headers:$ARCH" 'linux-headers-.*-common')
	kbuild=$(dep "$headers:$ARCH" 'linux-kbuild-.*')
	if [ -z "$headers" ] || [ -z "$common" ] || [ -z "$kbuild" ]; then
		echo "apt knows no $meta:$ARCH (scripts/install-deps.sh adds $ARCH to dpkg's architectures)"
		return 1
	fi
	[ -d "/usr/lib/$kbuild/scripts" ] ||
		{ echo "$headers needs $kbuild installed here (scripts/install-deps.sh)"; return 1; }
	want="$headers $(apt-cache policy "$headers:$ARCH" | sed -n 's/^ *Candidate: //p')"
	src=$dir/usr/src
	if [ "$(cat "$dir/.unpacked" 2>/dev/null)" != "$want" ]; then
		rm -rf "$dir"
		dl=$dir.download
		rm -rf "$dl"
		mkdir -p "$dir" "$dl"
		chmod 777 "$dl"	# apt's sandbox user writes there
		(cd "$dl" && apt-get download -q "$headers:$ARCH" "$common") > "$dl.log" 2>&1 ||
			{ echo "apt-get download $headers:$ARCH $common: $(tail -n 3 "$dl.log")"; return 1; }
		for d in "$dl"/*.deb; do
			dpkg-deb -x "$d" "$dir"
		done
		rm -rf "$dl" "$dl.log"
		for d in "$src/$headers" "$src/$common"; do
			for l in scripts tools; do
				[ ! -L "$d/$l" ] || ln -sfn "/usr/lib/$kbuild/$l" "$d/$l"
			done
		done
		sed -i "s|^include /usr/src/$common/|include $src/$common/|" "$src/$headers/Makefile"
		grep -q "^include $src/$common/" "$src/$headers/Makefile" ||
			{ echo "$src/$headers/Makefile does not include the common headers as expected"; return 1; }
		echo "$want" > "$dir/.unpacked"
	fi
	echo "$src/$headers"
}

# arch_dkms: DKMS, with its trees in $WORK, builds the module of the
# tracebuf-dkms package against $ARCH's kernel headers, cross-compiled
# (ARCH=, CROSS_COMPILE=), when dkms.conf's BUILD_EXCLUSIVE_ARCH takes
# that architecture: a module for that machine with that kernel's
# vermagic; when it does not, DKMS must decline the kernel, and
# what the module's build says there is shown.
arch_dkms() {
	local hdr kver karch mach machine cross version st dk log ko vm elf
	if ! hdr=$(arch_headers "$TB_BUILD/deb-headers/$ARCH"); then
		tb_check "dkms_builds_the_module_for_$ARCH" 1 "$hdr"
		return
	fi
	kver=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$hdr/include/generated/utsrelease.h")
	case $ARCH in
	arm64) karch=arm64 mach=aarch64 machine=AArch64 ;;
	armhf) karch=arm mach=armv7l machine=ARM ;;
	esac
	cross=$(dpkg-architecture -a "$ARCH" -qDEB_HOST_GNU_TYPE 2>/dev/null)-
	version=$(dpkg-deb -f "$(ls "$SRC"/tracebuf-dkms_*.deb)" Version)
	dk=$WORK/dkms
	rm -rf "$dk"
	mkdir -p "$dk/tree" "$dk/install" "$dk/pkg"
	dpkg-deb -x "$(ls "$SRC"/tracebuf-dkms_*.deb)" "$dk/pkg"
	log=$WORK/dkms-build.log
	# (in a mount namespace with a /var/lib/dkms of its own: DKMS makes
	# its signing key there)
	# shellcheck disable=SC2016 # expanded by the inner shell
	ARCH=$karch CROSS_COMPILE=$cross unshare --mount --propagation private sh -c '
		mount -t tmpfs tmpfs /var/lib/dkms && exec "$@"' dkms-build \
		dkms build -m tracebuf -v "$version" -k "$kver" -a "$mach" \
		--kernelsourcedir "$hdr" --dkmstree "$dk/tree" \
		--sourcetree "$dk/pkg/usr/src" --installtree "$dk/install" > "$log" 2>&1
	st=$?
	if grep -q "BUILD_EXCLUSIVE_ARCH=\"[^\"]*$mach" "$dk/pkg/usr/src/tracebuf-$version/dkms.conf"; then
		ko=$(find "$dk/tree" -name 'tracebuf.ko' | head -n 1)
		if [ $st = 0 ] && [ -n "$ko" ]; then
			vm=$(modinfo -F vermagic "$ko" 2>&1)
			elf=$(readelf -h "$ko" 2>&1 | sed -n 's/^ *Machine: *//p')
			echo "# ${ko#"$dk/"}: $elf, vermagic $vm"
			[[ $vm == "$kver "* ]] && [ "$elf" = "$machine" ] || st=1
		else
			tail -n 30 "$log" | tb_say
			st=1
		fi
		tb_check "dkms_builds_the_module_for_$kver" $st
		return
	fi
	# excluded: DKMS must say so (status 77, "skipped")
	[ $st = 77 ] || { tail -n 20 "$log" | tb_say; }
	tb_check "dkms_declines_$kver" "$([ $st = 77 ] && echo 0 || echo 1)" \
		"dkms.conf's BUILD_EXCLUSIVE_ARCH has no $mach"
	# what the module's build says there, for a port to that architecture
	if make -C "$hdr" ARCH="$karch" CROSS_COMPILE="$cross" \
		M="$dk/pkg/usr/src/tracebuf-$version" modules > "$WORK/module-build.log" 2>&1; then
		echo "# the module builds for $kver: dkms.conf's BUILD_EXCLUSIVE_ARCH can take $mach"
	else
		echo "# the module does not build for $kver (see $WORK/module-build.log):"
		grep -E '(error|warning):|\*\*\*' "$WORK/module-build.log" | sed "s|$dk/pkg/usr/src/tracebuf-$version/||" |
			head -n 20 | tb_say
	fi
}

echo "TAP version 13"
trap tb_checks_end EXIT

tb_copy_tree "$SRC"

# 1. make deb: every package of debian/control, here, each with its size
if [ "$ARCH" = "$NATIVE" ]; then
	make -C "$SRC" deb > "$WORK/deb.log" 2>&1
else
	make -C "$SRC" deb DEB_HOST_ARCH="$ARCH" > "$WORK/deb.log" 2>&1
fi
st=$?
tb_say < "$WORK/deb.log"
packages=$(sed -n 's/^Package: //p' "$SRC/debian/control")
for p in $packages; do
	[ -f "$(ls "$SRC/${p}_"*_"$ARCH".deb "$SRC/${p}_"*_all.deb 2>/dev/null | head -n 1)" ] ||
		{ echo "no $p package for $ARCH" | tb_say; st=1; }
done
tb_check "make_deb_builds_every_package_for_$ARCH" $st
[ $st = 0 ] || exit 1

# 2. lintian: no error and no warning, source and binaries (every other
# tag is shown; --show-overrides would make the overridden ones fail)
if [ "$ARCH" = "$NATIVE" ]; then
	changes=$(ls "$SRC"/.build/deb/*.changes)
else
	changes=$(ls "$SRC/.build/deb-$ARCH"/*.changes)
fi
lintian --fail-on error,warning --display-info --pedantic "$changes" \
	> "$WORK/lintian.log" 2>&1
st=$?
grep -v 'running with root privileges' "$WORK/lintian.log" | tb_say
tb_check lintian_no_error_no_warning $st

[ "$ARCH" = "$NATIVE" ] || arch_contents

# 3. apt in a throw-away root: see --in-root above (--in-root-arch for
# another architecture).  $WORK is seen there
# as /tmp/tracebuf-deb-test, made on the root's own /tmp: wherever the
# tree is (under /tmp, which that tmpfs hides, or on a filesystem the
# overlay of / does not show), and the copy's scripts run there.
INMODE=--in-root
[ "$ARCH" = "$NATIVE" ] || INMODE=--in-root-arch
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
	chroot "$1/root" "$3/src/scripts/deb-test.sh" "$4" "$3/in-root/debs" "$3/in-root" "$5"
' deb-test "$ROOTWORK" "$WORK" "$INWORK" "$INMODE" "$ARCH" > "$WORK/in-root.log" 2>&1
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
grep -q '^ok apt_installs_the_' "$WORK/in-root.log" || exit 1

# 4. another architecture: the module DKMS builds from tracebuf-dkms
# against that architecture's kernel headers
if [ "$ARCH" != "$NATIVE" ]; then
	arch_dkms
	exit 0
fi

# 5. the DKMS-built modules, loaded in QEMU with the run's programs
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
