#!/usr/bin/env python3
"""num_check.py - numbers as clients print them

  prom   an exposition on stdin: every sample's value is the shortest text
         that reads back to its double (Python's repr, "1.0" as "1").
  json   JSON on stdin: every number likewise.
Prints "ok", or the first values that are not.
"""
import json
import math
import sys


def short(text):
    f = float(text)
    if math.isnan(f):
        return 'NaN'
    if math.isinf(f):
        return '+Inf' if f > 0 else '-Inf'
    r = repr(f)
    return r[:-2] if r.endswith('.0') else r


def report(bad):
    print('ok' if not bad else 'not shortest: %r' % bad[:5])


def prom():
    bad, n = [], 0
    for line in sys.stdin:
        if line.startswith('#') or not line.strip():
            continue
        v = line.rsplit(' ', 1)[1].strip()
        n += 1
        if short(v) != v:
            bad.append((v, short(v)))
    report(bad if n else ['no sample'])


def js():
    bad = []

    def num(s):
        if short(s) != s:
            bad.append((s, short(s)))
        return 0
    json.load(sys.stdin, parse_float=num, parse_int=num)
    report(bad)


if __name__ == '__main__':
    {'prom': prom, 'json': js}[sys.argv[1]]()
