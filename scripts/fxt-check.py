#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""fxt-check.py: an FXT reader of its own, to check what tracebuf writes.

    scripts/fxt-check.py [--sched] [--max-padding PCT] FILE...

A second implementation of the Fuchsia trace format, written from the
format's description (userlib/Documentation/trace-format.md §4) and
sharing nothing with libtracebuf's reader, so that a trace both accept
is not just one that agrees with itself.  It walks every record and
decodes what a viewer decodes: provider sections and their string and
thread tables, initialization records, events with their arguments,
kernel objects and scheduling records, with the rules the Perfetto UI's
importer applies besides (a section names a provider seen before, a CPU
below 4096, a thread object carries its process's koid as the koid
argument "process", weights are int32).  Strings are UTF-8, as the format
says: string records, inline strings and provider names; bytes that are
not go in blob records and blob arguments (argument type 10).

With --sched the file must also hold a kernel provider's view: context
switches, each of whose nonzero thread ids some thread object names.

A trace holds records, not padding: the records a writer fills a gap
with (an unnamed data blob whose payload fills the record, as
libtracebuf's engine and the kernel provider end a chunk) are at most
PCT % of the file's bytes (default 1; 100 lets any file by).  Since
every byte is in a record, the file is then at most 1/(1 - PCT %) times
the bytes of its other records.

Prints one summary line per file, with the bytes of padding; exit 0 when
every file checks out, 1 with "FILE: offset N: why" on stderr at the
first fault, 2 on usage.
"""
import struct
import sys

MAGIC = 0x0016547846040010
CPU_MAX = 4096          # Perfetto's CPU tracker aborts above
INLINE = 0x8000


class Fault(Exception):
    pass


def field(w, lo, hi):
    return (w >> lo) & ((1 << (hi - lo + 1)) - 1)


def utf8(data, what):
    """FXT's strings are UTF-8; bytes that are not are a blob's."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Fault(f"{what} is not UTF-8: byte {e.start} of {len(data)}, "
                    f"{data[e.start:e.start + 4].hex()}") from None
    return data


def is_padding(h, n):
    """An unnamed data blob (type 1) whose payload fills its n words."""
    return (field(h, 0, 3) == 5 and field(h, 16, 31) == 0 and
            field(h, 32, 46) == (n - 1) * 8 and field(h, 48, 55) == 1 and
            field(h, 56, 63) == 0)


class Provider:
    def __init__(self, pid, name):
        self.id = pid
        self.name = name
        self.strings = {}
        self.threads = {}
        self.tps = 10**9


class Record:
    """The words of one record, read front to back."""

    def __init__(self, words, start, n):
        self.words = words
        self.pos = start + 1
        self.end = start + n

    def word(self, what):
        if self.pos >= self.end:
            raise Fault(f"{what} runs past the end of its record")
        w = self.words[self.pos]
        self.pos += 1
        return w

    def stream(self, nbytes, what):
        n = (nbytes + 7) // 8
        if self.pos + n > self.end:
            raise Fault(f"{what} ({nbytes} bytes) runs past the end of its record")
        data = struct.pack(f"<{n}Q", *self.words[self.pos:self.pos + n])[:nbytes]
        self.pos += n
        return data


class Checker:
    def __init__(self, sched):
        self.sched = sched
        self.providers = {}
        self.cur = None
        self.records = 0
        self.events = 0
        self.switches = 0
        self.wakeups = 0
        self.cpus = set()
        self.named = {}             # thread koid -> process koid
        self.processes = set()
        self.switch_tids = set()
        self.padding = 0            # bytes

    def string(self, r, ref, what):
        if ref == 0:
            return b""
        if ref & INLINE:
            n = ref & 0x7fff
            if n > 32000:
                raise Fault(f"inline {what} of {n} bytes")
            return utf8(r.stream(n, what), what)
        if ref not in self.cur.strings:
            raise Fault(f"{what}: string index {ref} not defined")
        return self.cur.strings[ref]

    def thread(self, r, ref):
        if ref == 0:
            return r.word("process koid"), r.word("thread koid")
        if ref not in self.cur.threads:
            raise Fault(f"thread index {ref} not defined")
        return self.cur.threads[ref]

    def args(self, r, n):
        out = {}
        for i in range(n):
            start = r.pos
            h = r.word("argument header")
            size = field(h, 4, 15)
            if size == 0 or start + size > r.end:
                raise Fault(f"argument {i} of {size} words")
            sub = Record(r.words, start, size)
            name = self.string(sub, field(h, 16, 31), "argument name")
            typ = field(h, 0, 3)
            if typ in (1, 2, 9):
                val = field(h, 32, 63)
                if typ == 1 and val >= 1 << 31:
                    val -= 1 << 32
            elif typ in (3, 4, 5, 7, 8):
                val = sub.word("argument value")
            elif typ == 6:
                val = self.string(sub, field(h, 32, 47), "string argument")
            elif typ == 10:
                val = sub.stream(field(h, 32, 63), "blob argument")
            else:
                val = None
            out[name] = (typ, val)
            r.pos = start + size
        return out

    def record(self, words, i):
        h = words[i]
        typ = field(h, 0, 3)
        n = field(h, 4, 35) if typ == 15 else field(h, 4, 15)
        if n == 0:
            raise Fault("record of size 0" if h else "a zero word")
        if i + n > len(words):
            raise Fault(f"record of {n} words runs past the end")
        r = Record(words, i, n)
        if typ == 0:
            self.metadata(r, h)
        elif self.cur is None:
            raise Fault(f"record of type {typ} before any provider")
        elif typ == 1:
            if n != 2:
                raise Fault(f"initialization record of {n} words")
            self.cur.tps = r.word("ticks per second")
            if not self.cur.tps:
                raise Fault("0 ticks per second")
        elif typ == 2:
            idx, length = field(h, 16, 30), field(h, 32, 46)
            if length > 32000:
                raise Fault(f"string of {length} bytes")
            s = utf8(r.stream(length, "string"), f"string {idx}")
            if idx:
                self.cur.strings[idx] = s
        elif typ == 3:
            idx = field(h, 16, 23)
            self.cur.threads[idx] = (r.word("process koid"), r.word("thread koid"))
        elif typ == 4:
            self.event(r, h)
        elif typ == 5:
            self.string(r, field(h, 16, 31), "blob name")
            r.stream(field(h, 32, 46), "blob payload")
            if is_padding(h, n):
                self.padding += n * 8
        elif typ == 7:
            self.kobj(r, h)
        elif typ == 8:
            self.scheduling(r, h)
        return n

    def metadata(self, r, h):
        mtype = field(h, 16, 19)
        if mtype == 1:
            pid, length = field(h, 20, 51), field(h, 52, 59)
            name = utf8(r.stream(length, "provider name"), "provider name")
            self.cur = self.providers[pid] = Provider(pid, name)
        elif mtype == 2:
            pid = field(h, 20, 51)
            if pid not in self.providers:
                raise Fault(f"section of provider {pid}, never introduced")
            self.cur = self.providers[pid]

    def event(self, r, h):
        etype = field(h, 16, 19)
        r.word("timestamp")
        self.thread(r, field(h, 24, 31))
        self.string(r, field(h, 32, 47), "category")
        self.string(r, field(h, 48, 63), "name")
        self.args(r, field(h, 20, 23))
        if etype == 1 or 4 <= etype <= 10:
            r.word("the event's last word")
        self.events += 1

    def kobj(self, r, h):
        otype = field(h, 16, 23)
        koid = r.word("koid")
        self.string(r, field(h, 24, 39), "object name")
        args = self.args(r, field(h, 40, 43))
        if otype == 2:
            proc = args.get(b"process")
            if not proc or proc[0] != 8:
                raise Fault(f"thread {koid} without a koid argument 'process'")
            self.named[koid] = proc[1]
        elif otype == 1:
            self.processes.add(koid)

    def scheduling(self, r, h):
        etype = field(h, 60, 63)
        if etype not in (1, 2):
            return
        cpu = field(h, 20, 35)
        if cpu >= CPU_MAX:
            raise Fault(f"CPU {cpu}")
        ts = r.word("timestamp")
        if ts >= 1 << 63:
            raise Fault("negative timestamp")
        tids = [r.word("outgoing thread")] if etype == 1 else []
        tids.append(r.word("thread"))
        args = self.args(r, field(h, 16, 19))
        for name, (typ, _) in args.items():
            if name in (b"incoming_weight", b"outgoing_weight", b"weight") and typ != 1:
                raise Fault(f"weight {name.decode()} of argument type {typ}, not int32")
        if etype == 1:
            self.switches += 1
            self.cpus.add(cpu)
            self.switch_tids.update(t for t in tids if t)
        else:
            self.wakeups += 1

    def check(self, data):
        if len(data) % 8:
            raise Fault(f"{len(data) % 8} trailing bytes", len(data) - len(data) % 8)
        words = struct.unpack(f"<{len(data) // 8}Q", data)
        if not words or words[0] != MAGIC:
            raise Fault("no magic record", 0)
        i = self.records = 1
        while i < len(words):
            try:
                i += self.record(words, i)
            except Fault as f:
                raise Fault(str(f), i * 8) from None
            self.records += 1
        if self.sched:
            if not self.switches:
                raise Fault("no context switch", len(data))
            unnamed = self.switch_tids - set(self.named)
            if unnamed:
                raise Fault(f"{len(unnamed)} switching threads never named, e.g. "
                            f"{sorted(unnamed)[:5]}", len(data))


def main(argv):
    sched = "--sched" in argv
    argv = [a for a in argv if a != "--sched"]
    max_padding = 1.0
    if "--max-padding" in argv:
        i = argv.index("--max-padding")
        try:
            max_padding = float(argv[i + 1])
        except (IndexError, ValueError):
            max_padding = -1
        del argv[i:i + 2]
    files = argv
    if not files or any(f.startswith("-") for f in files) or not 0 <= max_padding <= 100:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    status = 0
    for name in files:
        c = Checker(sched)
        try:
            with open(name, "rb") as f:
                data = f.read()
            c.check(data)
            if c.padding * 100 > max_padding * len(data):
                raise Fault(f"{c.padding} bytes of padding, {100 * c.padding / len(data):.1f} % "
                            f"of the file: more than {max_padding:g} %", len(data))
        except OSError as e:
            print(f"{name}: {e.strerror}", file=sys.stderr)
            status = 1
            continue
        except Fault as f:
            print(f"{name}: offset {f.args[1]}: {f.args[0]}", file=sys.stderr)
            status = 1
            continue
        # the kernel's part only where there is one: "0 context switches
        # on 0 CPUs" tells a user nothing
        sched = (f"{c.switches} context switches on {len(c.cpus)} CPUs, {c.wakeups} wakeups, "
                 if c.switches or c.wakeups else "")
        print(f"{name}: {c.records} records, {len(c.providers)} providers, {c.events} events, "
              f"{sched}{len(c.named)} threads and {len(c.processes)} processes named, "
              f"{c.padding} bytes of padding ({100 * c.padding / len(data):.2f} %)")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
