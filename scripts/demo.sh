#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make demo": the main job on a machine that cannot load modules.  Install
# what is missing, build the example program, run it under "tracebufctl
# record -m streaming" in QEMU (scripts/run.sh, the body of "make run"),
# convert the trace to JSON here, and leave trace.fxt and trace.json in
# DEST (default: the current directory).
#
#   demo.sh [--dest DIR] [--kernel IMAGE --kdir DIR [--moddir DIR]]
#           [-- EXAMPLE ARGS...]
#
# On a real board the same is three lines (see the README):
#   sudo insmod module/tracebuf.ko
#   sudo userlib/ctl/tracebufctl record -m streaming -- userlib/examples/tracebuf-example
#   userlib/ctl/tracebufctl convert trace.fxt
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DEST=$PWD KERNEL='' KDIR='' MODDIR=''
EXAMPLE_ARGS=()
while [ $# -gt 0 ]; do
	case $1 in
	--dest) DEST=$2; shift ;;
	--kernel) KERNEL=$2; shift ;;
	--kdir) KDIR=$2; shift ;;
	--moddir) MODDIR=$2; shift ;;
	--) shift; EXAMPLE_ARGS=("$@"); break ;;
	*) tb_die "unknown argument '$1' (see the comment at the top of $0)" ;;
	esac
	shift
done
[ -d "$DEST" ] && [ -w "$DEST" ] || tb_die "cannot write into $DEST"
for a in "${EXAMPLE_ARGS[@]}"; do
	[[ $a =~ ^[A-Za-z0-9_.,:=+-]+$ ]] ||
		tb_die "example argument '$a': only letters, digits and _.,:=+- please"
done

t0=$(date +%s)
[ "${NO_DEPS:-0}" = 1 ] || "$TB_ROOT/scripts/install-deps.sh" ||
	tb_die "missing packages (see above)"

WORK=$TB_BUILD/demo
rm -rf "$WORK"
mkdir -p "$WORK"
tb_log "building a static tracebuf-example, and tracebufctl for this machine"
make -C "$TB_ROOT/userlib/examples" O="$WORK" STATIC=1 >&2 || tb_die "the example did not build"
make -C "$TB_ROOT/userlib/ctl" >&2 || tb_die "tracebufctl did not build"
TBCTL=$TB_ROOT/userlib/ctl/tracebufctl

# the example in the guest (scripts/run.sh, as "make run" does it)
kernel_args=()
[ -z "$KERNEL" ] || kernel_args=(--kernel "$KERNEL" --kdir "$KDIR")
[ -z "$MODDIR" ] || kernel_args+=(--moddir "$MODDIR")
NO_DEPS=1 "$TB_ROOT/scripts/run.sh" --dest "$DEST" --out trace.fxt --record "-m streaming" \
	"${kernel_args[@]}" -- "$WORK/tracebuf-example" "${EXAMPLE_ARGS[@]}" ||
	tb_die "the demo failed in the VM (logs: $TB_BUILD/run/vm)"

# the rest needs no module: here
"$TBCTL" convert "$DEST/trace.fxt" -o "$DEST/trace.json" || tb_die "convert failed"
"$TBCTL" dump "$DEST/trace.fxt" > "$WORK/trace.dump" || tb_die "dump failed"
rm -f "$DEST/trace.fxt.stdout" "$DEST/trace.fxt.stderr"
events=$(awk '$2 == "event"' "$WORK/trace.dump" | wc -l)
records=$(wc -l < "$WORK/trace.dump")
echo
echo "demo: $(($(date +%s) - t0)) s; in $DEST:"
echo "  trace.fxt   $(stat -c %s "$DEST/trace.fxt") bytes, $records records, $events events"
echo "  trace.json  $(stat -c %s "$DEST/trace.json") bytes (Chrome trace-event JSON)"
echo
echo "Open either in the Perfetto UI: https://ui.perfetto.dev, then \"Open trace"
echo "file\" (or drag the file onto the page); trace.json also opens in"
echo "chrome://tracing.  The trace stays on this machine: the UI reads it locally."
