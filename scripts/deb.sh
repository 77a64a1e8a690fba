#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The body of "make deb": build the Debian packages (debian/) with
# dpkg-buildpackage, source and binaries, unsigned, in a copy of the tree
# under .build/deb (dpkg-buildpackage writes beside the tree it builds,
# and never into this one), then copy the binary packages to DIR.  The
# copy has the files git tracks, as they are in the work tree: an
# untracked file never reaches the source package (it is named, in case
# it should have been added); without git, every file no .gitignore names
# (lib.sh: tb_copy_tree).
#
#   deb.sh --out DIR      where the .deb files go (make deb: the top of
#                         the tree, for "apt install ./*.deb")
#   deb.sh --arch ARCH    the packages for Debian architecture ARCH (make
#                         deb DEB_HOST_ARCH=ARCH): cross-built with
#                         "dpkg-buildpackage -a ARCH" when it is not this
#                         machine's, in .build/deb-ARCH (scripts/
#                         install-deps.sh installs what arm64 and armhf
#                         need)
#
# The packages of an earlier "make deb" in DIR, of any architecture, are
# replaced, so that "apt install ./*.deb" never sees two versions or two
# architectures.  The rest (source package, .changes, .buildinfo, debug
# symbols) stays in .build/deb (.build/deb-ARCH).
# Prints each package with its size.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

OUT='' ARCH=''
while [ $# -gt 0 ]; do
	case $1 in
	--out) OUT=$2; shift ;;
	--arch) ARCH=$2; shift ;;
	*) tb_die "unknown argument '$1'" ;;
	esac
	shift
done
[ -n "$OUT" ] || tb_die "--out DIR is needed"
[ -d "$OUT" ] || tb_die "$OUT is not a directory"
tb_no_space "$TB_BUILD"
PACKAGES=$(sed -n 's/^Package: //p' "$TB_ROOT/debian/control")

command -v dpkg-buildpackage > /dev/null ||
	tb_die "dpkg-buildpackage not found: apt-get install dpkg-dev"
native=$(dpkg-architecture -qDEB_BUILD_ARCH)
[ -n "$ARCH" ] || ARCH=$native
dpkg-architecture -a "$ARCH" -qDEB_HOST_ARCH > /dev/null 2>&1 ||
	tb_die "unknown Debian architecture '$ARCH'"
# "make deb DEB_HOST_ARCH=..." exports it: dpkg-buildpackage -a says it
unset DEB_HOST_ARCH
CROSS=()
if [ "$ARCH" != "$native" ]; then
	CROSS=(-a "$ARCH")
	gnu=$(dpkg-architecture -a "$ARCH" -qDEB_HOST_GNU_TYPE 2> /dev/null)
	command -v "$gnu-gcc" > /dev/null ||
		tb_die "no $gnu-gcc to cross-build for $ARCH: scripts/install-deps.sh"
	[ "$(dpkg-query -W -f='${db:Status-Status}' "libc6:$ARCH" 2>/dev/null)" = installed ] ||
		tb_die "libc6:$ARCH is not installed (dpkg-shlibdeps needs it): scripts/install-deps.sh"
fi
# what the build needs, with dpkg's own check and a command that fixes it
if ! (cd "$TB_ROOT" && dpkg-checkbuilddeps "${CROSS[@]}") 2> "$TB_BUILD.deb-deps" ; then
	sed 's/^/  /' "$TB_BUILD.deb-deps" >&2
	rm -f "$TB_BUILD.deb-deps"
	tb_die "missing build dependencies: as root, apt-get build-dep ./ (or scripts/install-deps.sh)"
fi
rm -f "$TB_BUILD.deb-deps"

version=$(sed -n '1s/^tracebuf (\([^)]*\)).*/\1/p' "$TB_ROOT/debian/changelog")
[ -n "$version" ] || tb_die "no version in debian/changelog's first line"
WORK=$TB_BUILD/deb
[ "$ARCH" = "$native" ] || WORK=$TB_BUILD/deb-$ARCH
SRC=$WORK/tracebuf-$version
rm -rf "$WORK"
tb_copy_tree "$SRC"
if tb_git_top; then
	mapfile -t untracked < <(git -C "$TB_ROOT" ls-files -o --exclude-standard \
		--directory --no-empty-directory)
	if [ ${#untracked[@]} -gt 0 ]; then
		more=''
		[ ${#untracked[@]} -le 5 ] || more=" and $((${#untracked[@]} - 5)) more"
		tb_log "left out, as git does not track them (git add those the packages need): ${untracked[*]:0:5}$more"
	fi
fi
tb_log "dpkg-buildpackage ${CROSS[*]} in $SRC (log: $WORK/build.log)"
if ! (cd "$SRC" && dpkg-buildpackage -us -uc "${CROSS[@]}") > "$WORK/build.log" 2>&1; then
	tail -n 30 "$WORK/build.log" >&2
	tb_die "dpkg-buildpackage failed (see $WORK/build.log)"
fi

arch=$ARCH
for p in $PACKAGES; do
	rm -f "$OUT/${p}_"*.deb
done
for p in $PACKAGES; do
	deb=$WORK/${p}_${version}_$arch.deb
	[ -f "$deb" ] || deb=$WORK/${p}_${version}_all.deb
	[ -f "$deb" ] || tb_die "dpkg-buildpackage made no package $p"
	cp "$deb" "$OUT/"
	printf '%-45s %s\n' "${deb##*/}" "$(du -h --apparent-size "$deb" | cut -f1)"
done
