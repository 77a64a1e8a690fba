#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Description: the built and installed library.  The shared object's
# soname and exported symbols (only tracebuf_* and __tracebuf_*, each in
# a version TRACEBUF_1.N; "make lint" checks them against the map name by
# name), "make install" into
# a DESTDIR, the pkg-config file, and a program built from the installed
# headers with pkg-config and linked against the shared and against the
# static library.
# KTAP output; run after "make -C userlib".
set -u

# the library's folder (userlib/lib)
LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
DEST=$TMP/dest
PREFIX=/usr

# shellcheck source=../../tests/ktap.sh
. "$LIB/../tests/ktap.sh"
echo "TAP version 13"
echo "1..7"

so=$LIB/libtracebuf.so.1
# 1. soname
soname=$(readelf -d "$so" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = libtracebuf.so.1 ]
result soname $? "soname '$soname'"

# 2. exported symbols: defined, global, versioned, prefixed
exports=$(readelf --dyn-syms -W "$so" 2>/dev/null |
	awk '$5 == "GLOBAL" && $7 != "UND" && $8 != "" { print $8 }')
bad=$(printf '%s\n' "$exports" | grep -v -E '^(__)?tracebuf_[A-Za-z0-9_]+@@TRACEBUF_1\.[0-9]+$' |
	grep -v -x -E 'TRACEBUF_1\.[0-9]+' | grep . || true)
printf '%s\n' "$exports" | grep -q '^tracebuf_reader_open_mem@@TRACEBUF_1.0$' &&
	printf '%s\n' "$exports" | grep -q '^tracebuf_session_rotate@@TRACEBUF_1.1$' &&
	printf '%s\n' "$exports" | grep -q '^tracebuf_session_write@@TRACEBUF_1.3$' &&
	printf '%s\n' "$exports" | grep -q '^tracebuf_buffer_size_for@@TRACEBUF_1.4$' &&
	[ -z "$bad" ]
st=$?
[ $st = 0 ] || { echo "exports:"; printf '%s\n' "$exports"; } | say
result exported_symbols $st "unexpected: ${bad//$'\n'/ }"

# 3. make install (of the version userlib/lib/Makefile names)
version=$(sed -n 's/^VERSION := //p' "$LIB/Makefile")
make -s -C "$LIB" install DESTDIR="$DEST" PREFIX=$PREFIX > "$TMP/install.log" 2>&1
st=$?
for f in include/tracebuf/tracebuf.h include/tracebuf/tracebuf_fxt.h \
	 include/tracebuf/tracebuf_reader.h include/tracebuf/linux/tracebuf.h \
	 lib/libtracebuf.a lib/libtracebuf.so lib/libtracebuf.so.1 lib/libtracebuf.so.$version \
	 lib/pkgconfig/libtracebuf.pc; do
	[ -e "$DEST$PREFIX/$f" ] || { echo "missing $PREFIX/$f" | say; st=1; }
done
[ $st = 0 ] || say < "$TMP/install.log"
result make_install $st

# 4. the pkg-config file
export PKG_CONFIG_PATH=$DEST$PREFIX/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$DEST
read -ra cflags < <(pkg-config --cflags libtracebuf 2>&1)
read -ra libs < <(pkg-config --libs libtracebuf 2>&1)
read -ra static_libs < <(pkg-config --static --libs libtracebuf 2>&1)
[ "${cflags[*]}" = "-I$DEST$PREFIX/include/tracebuf" ] &&
	[ "${libs[*]}" = "-L$DEST$PREFIX/lib -ltracebuf" ]
result pkg_config $? "cflags '${cflags[*]}', libs '${libs[*]}'"

# 5. and 6. a consumer of the installed headers, shared and static
cat > "$TMP/consumer.c" <<'EOF'
#include <stdio.h>
#include <tracebuf.h>
#include <linux/tracebuf.h>

int main(void)
{
	struct tracebuf_reader_record rec;
	struct tracebuf_reader *r;
	uint64_t buf[4];
	int n = 0, ret;

	if (tracebuf_fxt_magic_write(buf, sizeof(buf)) != 8 ||
	    tracebuf_fxt_init_write(buf + 1, 24, 1000) != 16)
		return 1;
	if (tracebuf_reader_open_mem(buf, 24, TRACEBUF_LIB_READER_MAGIC, &r))
		return 1;
	while ((ret = tracebuf_reader_next(r, &rec)) == 1)
		n++;
	tracebuf_reader_close(r);
	printf("%d records, header magic %llx\n", n,
	       (unsigned long long)TRACEBUF_HEADER_MAGIC);
	return ret == 0 && n == 2 ? 0 : 1;
}
EOF
${CC:-cc} -std=c11 -Wall -Wextra -Werror "${cflags[@]}" "$TMP/consumer.c" "${libs[@]}" \
	-o "$TMP/consumer" > "$TMP/cc.log" 2>&1 &&
	out=$(LD_LIBRARY_PATH=$DEST$PREFIX/lib "$TMP/consumer" 2>&1) &&
	LD_LIBRARY_PATH=$DEST$PREFIX/lib ldd "$TMP/consumer" |
	grep -q "libtracebuf.so.1 => $DEST$PREFIX/lib/libtracebuf.so.1"
st=$?
[ $st = 0 ] || { cat "$TMP/cc.log"; echo "${out:-}"; } | say
result consumer_shared $st

${CC:-cc} -std=c11 -Wall -Wextra -Werror -static "${cflags[@]}" "$TMP/consumer.c" \
	"${static_libs[@]}" -o "$TMP/consumer-static" > "$TMP/cc.log" 2>&1 &&
	"$TMP/consumer-static" > /dev/null 2>&1
st=$?
[ $st = 0 ] || say < "$TMP/cc.log"
result consumer_static $st

# 7. make uninstall leaves nothing of ours
make -s -C "$LIB" uninstall DESTDIR="$DEST" PREFIX=$PREFIX > "$TMP/uninstall.log" 2>&1
st=$?
left=$(find "$DEST" -name '*tracebuf*' | sed "s|^$DEST||")
[ -z "$left" ] || { echo "left: $left" | say; st=1; }
result make_uninstall $st

ktap_totals
