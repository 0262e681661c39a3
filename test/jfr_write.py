#!/usr/bin/env python3
"""jfr_write.py - write small JFR recordings for tests and fuzz seeds

Written from docs/jfr.md: a 68-byte header, a metadata record (string
table of char arrays, element tree), one checkpoint with the pools, and
events. `good` holds three ExecutionSamples, two ObjectAllocationSamples and
a ThreadPark whose folded stacks test/jfr.test knows; the other shapes are
hostile: each breaks one bound the reader must keep.

usage: jfr_write.py SHAPE FILE     (shapes: see SHAPES below)
"""
import struct
import sys


def varint(v, pad=0):
    v &= (1 << 64) - 1
    out = bytearray()
    for i in range(8):
        b = v & 0x7F
        v >>= 7
        if v or i < pad - 1:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)
    out.append(v & 0xFF)
    return bytes(out)


def utf8(s):
    b = s.encode()
    return b"\x03" + varint(len(b)) + b


def chars(s):
    return b"\x04" + varint(len(s)) + b"".join(varint(ord(c)) for c in s)


def record(rtype, payload, pad=4):
    body = varint(rtype) + payload
    pad = pad or 1
    n = len(body) + pad
    return varint(n, pad) + body


class Meta:
    def __init__(self):
        self.strings = []
        self.index = {}

    def s(self, text):
        if text not in self.index:
            self.index[text] = len(self.strings)
            self.strings.append(text)
        return self.index[text]

    def element(self, name, attrs, children=()):
        out = varint(self.s(name)) + varint(len(attrs))
        for k, v in attrs:
            out += varint(self.s(k)) + varint(self.s(str(v)))
        out += varint(len(children))
        for c in children:
            out += c
        return out


# type ids (arbitrary, like the JDK's)
T = dict(boolean=4, int=5, long=6, String=7, Thread=30, Symbol=31, Class=32,
         Method=33, StackFrame=34, StackTrace=35, Exec=101, Alloc=102,
         Park=103, Timespan=40, Loop=41)


def metadata(shape):
    m = Meta()

    def field(name, tid, pool=False, dim=False, ticks=False):
        a = [("name", name), ("class", tid)]
        if pool:
            a.append(("constantPool", "true"))
        if dim:
            a.append(("dimension", "1"))
        kids = []
        if ticks:
            kids.append(m.element("annotation", [("class", T["Timespan"]),
                                                 ("value", "TICKS")]))
        return m.element("field", a, kids)

    def cls(tid, name, fields=(), extra=()):
        return m.element("class", [("id", tid), ("name", name)] + list(extra),
                         list(fields))

    classes = [
        cls(T["boolean"], "boolean"), cls(T["int"], "int"),
        cls(T["long"], "long"), cls(T["String"], "java.lang.String"),
        cls(T["Timespan"], "jdk.jfr.Timespan"),
        cls(T["Thread"], "java.lang.Thread",
            [field("osName", T["String"]), field("javaName", T["String"])]),
        cls(T["Symbol"], "jdk.types.Symbol", [field("string", T["String"])],
            [("simpleType", "true")]),
        cls(T["Class"], "java.lang.Class",
            [field("name", T["Symbol"], pool=True),
             field("hidden", T["boolean"])]),
        cls(T["Method"], "jdk.types.Method",
            [field("type", T["Class"], pool=True),
             field("name", T["Symbol"], pool=True)]),
        cls(T["StackFrame"], "jdk.types.StackFrame",
            [field("method", T["Method"], pool=True),
             field("lineNumber", T["int"])]),
        cls(T["StackTrace"], "jdk.types.StackTrace",
            [field("truncated", T["boolean"]),
             field("frames", T["StackFrame"], dim=True)]),
        cls(T["Exec"], "jdk.ExecutionSample",
            [field("startTime", T["long"]),
             field("sampledThread", T["Thread"], pool=True),
             field("stackTrace", T["StackTrace"], pool=True)],
            [("superType", "jdk.jfr.Event")]),
        cls(T["Alloc"], "jdk.ObjectAllocationSample",
            [field("startTime", T["long"]),
             field("eventThread", T["Thread"], pool=True),
             field("stackTrace", T["StackTrace"], pool=True),
             field("objectClass", T["Class"], pool=True),
             field("weight", T["long"])], [("superType", "jdk.jfr.Event")]),
        cls(T["Park"], "jdk.ThreadPark",
            [field("startTime", T["long"]),
             field("duration", T["long"], ticks=True),
             field("eventThread", T["Thread"], pool=True),
             field("stackTrace", T["StackTrace"], pool=True)],
            [("superType", "jdk.jfr.Event")]),
    ]
    if shape == "selfstruct":  # a struct that holds itself inline
        classes.append(cls(T["Loop"], "x.Loop", [field("next", T["Loop"])]))
    tree_meta = m.element("metadata", [], classes)
    if shape == "deep":  # elements nested far past any real depth
        for _ in range(5000):
            tree_meta = m.element("x", [], [tree_meta])
    root = m.element("root", [], [tree_meta, m.element("region", [])])
    body = varint(0) + varint(0) + varint(1) + varint(len(m.strings))
    body += b"".join(chars(s) for s in m.strings)
    return body + root


def pools(shape):
    def pool(tid, entries):
        return varint(tid) + varint(len(entries)) + b"".join(
            varint(k) + v for k, v in entries)

    sym = [(1, utf8("com/example/Main")), (2, utf8("main")),
           (3, utf8("work")), (4, utf8("java/lang/Thread")), (5, utf8("run")),
           (6, utf8("[B")), (7, utf8("Main$$Lambda/0x0000000801000a00")),
           (8, utf8("[[Ljava/lang/String;"))]
    classes = [(10, varint(1) + b"\x00"), (11, varint(4) + b"\x00"),
               (12, varint(6) + b"\x00"), (13, varint(7) + b"\x01"),
               (14, varint(8) + b"\x00")]
    methods = [(20, varint(10) + varint(2)), (21, varint(10) + varint(3)),
               (22, varint(11) + varint(5)), (23, varint(13) + varint(5))]

    def st(trunc, frames):
        return (b"\x01" if trunc else b"\x00") + varint(len(frames)) + b"".join(
            varint(mk) + varint(line & 0xFFFFFFFF) for mk, line in frames)

    traces = [(1, st(False, [(21, 12), (20, 5), (22, 833)])),
              (2, st(False, [(20, 7), (22, 833)])),
              (3, st(True, [(23, -1), (21, 12)]))]
    nframes = 3
    if shape == "own":  # JFR's own code under a thread's run()
        sym.append((9, utf8("jdk/jfr/internal/PlatformRecorder")))
        sym.append((15, utf8("periodicTask")))
        classes.append((16, varint(9) + b"\x00"))
        methods.append((24, varint(16) + varint(15)))
        traces.append((5, st(False, [(24, 40), (22, 833)])))
    if shape == "hugeframes":  # a frame count far past the bytes left
        traces.append((4, b"\x00" + varint(1 << 60)))
    threads = [(1, b"\x00" + utf8("main")), (2, utf8("os-2") + b"\x01")]
    body = pool(T["Symbol"], sym) + pool(T["Class"], classes)
    body += pool(T["Method"], methods) + pool(T["StackTrace"], traces)
    body += pool(T["Thread"], threads)
    n = 5
    if shape == "hugecount":  # an entry count no record can hold
        body += varint(T["Symbol"]) + varint(1 << 62) + varint(99) + utf8("x")
        n += 1
    if shape == "selfstruct":
        body += pool(T["Loop"], [(1, b"")])
        n += 1
    return varint(n) + body, nframes


def events(shape):
    ev = [record(T["Exec"], varint(1000) + varint(1) + varint(1), 0),
          record(T["Exec"], varint(2000) + varint(1) + varint(1), 0),
          record(T["Exec"], varint(3000) + varint(2) + varint(3), 0),
          record(T["Exec"], varint(4000) + varint(1) + varint(0), 0),
          record(T["Alloc"], varint(5000) + varint(1) + varint(2) + varint(12) +
                 varint(4096), 0),
          record(T["Alloc"], varint(6000) + varint(2) + varint(2) + varint(14) +
                 varint(100), 0),
          record(T["Park"], varint(7000) + varint(30000000) + varint(1) +
                 varint(1), 0),
          record(T["Exec"], varint(8000) + varint(1) + varint(99), 0)]
    if shape == "own":  # a sample, an allocation and a park in JFR's code
        ev += [record(T["Exec"], varint(8500) + varint(1) + varint(5), 0),
               record(T["Alloc"], varint(8600) + varint(1) + varint(5) +
                      varint(12) + varint(512), 0),
               record(T["Park"], varint(8700) + varint(20000000) + varint(1) +
                      varint(5), 0)]
    if shape == "bigweight":  # weights whose sum overflows 64 bits
        ev += [record(T["Alloc"], varint(5000) + varint(1) + varint(2) +
                      varint(12) + varint((1 << 63) - 1), 0)] * 3
    return b"".join(ev)


def chunk(shape, start_ns=1_700_000_000_000_000_000):
    md = record(0, metadata(shape))
    cp_body, _ = pools(shape)
    ev = events(shape)
    md_off = 68 + len(ev)
    cp_off = md_off + len(md)
    delta = 0
    if shape == "cycle":  # the chain points at itself
        delta = 0
    cp = record(1, varint(0) + varint(0) + varint(delta) + b"\x00" + cp_body, 9)
    if shape == "cycle":
        cp = record(1, varint(0) + varint(0) + varint(-len(ev) - 1) +
                    b"\x00" + cp_body, 9)
        # also a second checkpoint whose delta points forward
        cp += record(1, varint(0) + varint(0) + varint(5) + b"\x00" +
                     varint(0), 9)
    size = cp_off + len(cp)
    if shape == "cycle":
        cp_off = size - len(record(1, varint(0) + varint(0) + varint(5) +
                                   b"\x00" + varint(0), 9))
    hdr = b"FLR\x00" + struct.pack(">HHQQQQQQQ", 2, 1, size, cp_off, md_off,
                                   start_ns, 1_000_000_000, 0, 1_000_000_000)
    hdr += b"\x00\x00\x00\x01"
    return hdr + ev + md + cp


SHAPES = ["good", "twochunks", "truncated", "live", "hugecount", "hugeframes",
          "cycle", "deep", "selfstruct", "bigweight", "random", "nometa", "own"]


def main():
    shape, path = sys.argv[1], sys.argv[2]
    if shape == "twochunks":
        data = chunk("good") + chunk("good", 1_700_000_000_000_000_000 + 10**9)
    elif shape == "truncated":  # a whole chunk, then one cut short
        data = chunk("good") + chunk("good")[:300]
    elif shape == "live":  # generation 7: still being written
        c = bytearray(chunk("good"))
        c[64] = 7
        data = bytes(c) + b"\xff" * 100  # unpublished bytes after it
    elif shape == "random":
        import random
        r = random.Random(42)
        data = b"FLR\x00" + bytes(r.getrandbits(8) for _ in range(4000))
    elif shape == "nometa":
        c = bytearray(chunk("good"))
        c[24:32] = struct.pack(">Q", 1 << 40)
        data = bytes(c)
    else:
        data = chunk(shape)
    with open(path, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main()
