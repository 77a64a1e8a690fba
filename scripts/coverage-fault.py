#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# The part of "make coverage" that counts make fault's sweep beside the
# gcov report of the module.  The coverage kernel has no fault injection
# and the debug kernel no gcov, so the lines an injected allocation
# failure runs are not in the report; what the sweep leaves instead is a
# stack per failure in the debug kernel's log (faultinj.c sets verbose 2).
# This reads those stacks, takes for each failure the functions of the
# module on its stack (the one whose allocation, or whose call into the
# kernel, failed, and its callers: each saw the failure come back), and
# lists every function of the module with lines no test reached (lcov's
# FN and DA records) with the failures injected under it.  A function the
# compiler inlined is on no stack: its failures count for its caller.  An
# allocation made with __GFP_NOWARN (the buffer's pages, large argument
# copies, netlink messages) is failed without a message: not counted.
#
#   coverage-fault.py MODULE_INFO [DMESG...]
#
# MODULE_INFO: the module's lcov tracefile.  DMESG: kernel logs of make
# fault runs (a guest's dmesg.txt); none: the column says "-".  Exits 2
# on unreadable input.
import re
import sys

# what dump_stack() prints before the frames, which are indented (the
# lines vm-results.sh skips as no kernel report: keep the two in step)
PREAMBLE = (' ', 'name ', 'CPU: ', 'Tainted: ', 'Hardware name: ', 'Call Trace:')
FRAME = re.compile(r'^\s*(\? )?([A-Za-z0-9_.]+)\+0x[0-9a-f]+/0x[0-9a-f]+ \[tracebuf\]')


def injected(paths):
    """Failures per module function on their stacks, those with none, all."""
    per_func, outside, total = {}, 0, 0
    for path in paths:
        with open(path, errors='replace') as f:
            lines = [re.sub(r'^\[[ 0-9.]+\] ?', '', l.rstrip('\r\n')) for l in f]
        i = 0
        while i < len(lines):
            if 'FAULT_INJECTION: forcing a failure' not in lines[i]:
                i += 1
                continue
            total += 1
            funcs = set()
            i += 1
            while i < len(lines) and lines[i].startswith(PREAMBLE):
                m = FRAME.match(lines[i])
                # a frame marked "?" is a guess of the unwinder's
                if m and not m.group(1):
                    funcs.add(m.group(2))
                if '</TASK>' in lines[i]:
                    i += 1
                    break
                i += 1
            for func in funcs:
                per_func[func] = per_func.get(func, 0) + 1
            outside += not funcs
    return per_func, outside, total


def uncovered(info):
    """(file, function, first line, uncovered lines) of each function with some."""
    out = []
    with open(info) as f:
        records = f.read().split('end_of_record')
    for rec in records:
        sf, funcs, da = None, [], {}
        for l in rec.splitlines():
            if l.startswith('SF:'):
                sf = l[3:].rsplit('/', 1)[-1]
            elif l.startswith('FN:'):
                line, name = l[3:].split(',', 1)
                funcs.append((int(line), name))
            elif l.startswith('DA:'):
                line, count = l[3:].split(',')[:2]
                da[int(line)] = int(count)
        if not sf:
            continue
        funcs.sort()
        for k, (start, name) in enumerate(funcs):
            end = funcs[k + 1][0] if k + 1 < len(funcs) else max(da, default=start) + 1
            missed = [l for l in range(start, end) if da.get(l) == 0]
            if missed:
                out.append((sf, name, start, missed))
    return out


def ranges(lines):
    r, s, p = [], None, None
    for l in lines:
        if s is None:
            s = p = l
        elif l == p + 1:
            p = l
        else:
            r.append(f'{s}' if s == p else f'{s}-{p}')
            s = p = l
    if s is not None:
        r.append(f'{s}' if s == p else f'{s}-{p}')
    return ','.join(r)


def main(argv):
    if len(argv) < 2:
        print('usage: coverage-fault.py MODULE_INFO [DMESG...]', file=sys.stderr)
        return 2
    try:
        funcs = uncovered(argv[1])
        per_func, outside, total = injected(argv[2:])
    except (OSError, ValueError) as e:
        print(f'coverage-fault.py: {e}', file=sys.stderr)
        return 2
    have = len(argv) > 2
    print('module functions with lines no test reached, and the allocation failures '
          'make fault injected under them')
    print(f'  {"file":<20} {"function":<36} {"missed":>6} {"injected":>8}  lines')
    reached = 0
    for sf, name, start, missed in sorted(funcs):
        n = per_func.get(name, 0)
        reached += n > 0
        print(f'  {sf:<20} {name:<36} {len(missed):>6} {n if have else "-":>8}  {ranges(missed)}')
    if not have:
        print(f'  {len(funcs)} functions; make fault was not run (DEBUG_KERNELS=, or '
              '--fault-log): allocation failures not counted\n')
        return 0
    print(f'  {len(funcs)} functions, {reached} of them with allocation failures '
          f'injected by make fault')
    print(f'  make fault: {total} injected failures logged with their stacks, {total - outside} under '
          f'{len(per_func)} module functions (each counts for every one on its stack), '
          f'{outside} with none of the module\'s on the stack (a file or an fd the '
          'system call made); failures of __GFP_NOWARN allocations leave no stack')
    for name in sorted(per_func):
        print(f'    {name:<40} {per_func[name]:>5}')
    print()
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
