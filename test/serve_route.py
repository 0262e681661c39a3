#!/usr/bin/env python3
"""serve_route.py INDEX PULL_MD SERVE_MD: the docs' tables against serve's
route rows, as GET / lists them (cmd/serve_route.c). Prints "ok", or one
line per disagreement.

docs/pull.md: the pulls' table names each pull path and its --event word;
its parameter table has a row per pull parameter, whose text holds
"LO to HI, default DEF" when the parameter has a range, and names the
paths (`/mutex`) that take it when not every pull does. docs/serve.md: its
endpoint table has a row for each listed route and none for a route that
is not one.
"""
import re
import sys


def routes(text):
    """[(path, event, {param: (help, range)})] from the index body."""
    out = []
    for line in text.splitlines():
        m = re.match(r'^GET(?:, HEAD)? (\S+): .*?(?:; profile --event (\S+))?$',
                     line)
        if m:
            out.append((m.group(1), m.group(2), {}))
            continue
        m = re.match(r'^  (\w+)=: (.*)$', line)
        if m and out:
            r = re.search(r'(\S+) to (\S+) \(default (\S+)\)$', m.group(2))
            out[-1][2][m.group(1)] = r.groups() if r else None
    return out


def table(md, first):
    """The rows of the markdown table whose header's first cell is first:
    [(first cell, whole row)]."""
    rows, on = [], False
    for line in md.splitlines():
        if line.startswith('| ' + first + ' |'):
            on = True
            continue
        if on and line.startswith('|---'):
            continue
        if on and line.startswith('|'):
            cells = [c.strip() for c in line.strip('|').split('|')]
            rows.append((cells[0], line))
        elif on:
            break
    return rows


def main():
    index = open(sys.argv[1]).read()
    pull = open(sys.argv[2]).read()
    serve = open(sys.argv[3]).read()
    rs = routes(index)
    bad = []
    pulls = [r for r in rs if r[1]]
    if not pulls:
        bad.append('no pull routes in the index')
    paths = {c: row for c, row in table(pull, 'path')}
    for path, event, _ in pulls:
        row = paths.pop('`%s`' % path, None)
        if row is None:
            bad.append('docs/pull.md: no row for %s' % path)
        elif '| `%s`' % event not in row:
            bad.append('docs/pull.md: %s is not --event %s' % (path, event))
    bad += ['docs/pull.md: %s is no route' % p for p in paths]
    params = {}
    for path, _, ps in pulls:
        for name, rng in ps.items():
            params.setdefault(name, [rng, set()])[1].add(path)
    rows = {c.strip('`'): row for c, row in table(pull, 'name')}
    for name, (rng, takers) in params.items():
        row = rows.pop(name, None)
        if row is None:
            bad.append('docs/pull.md: no row for parameter %s' % name)
            continue
        if rng and '%s to %s, default %s' % rng not in row:
            bad.append('docs/pull.md: %s is not "%s to %s, default %s"' %
                       ((name,) + rng))
        named = {'/debug/pprof' + p for p in re.findall(r'`(/\w+)`', row)}
        if len(takers) < len(pulls) and named != takers:
            bad.append('docs/pull.md: %s names %s, taken by %s' %
                       (name, sorted(named), sorted(takers)))
    bad += ['docs/pull.md: %s is no parameter' % n for n in rows]
    eps = {re.match(r'`([^`?]*)', c).group(1) for c, _ in
           table(serve, 'endpoint')}
    listed = {r[0] for r in rs if r[0] != '/'}
    bad += ['docs/serve.md: no row for %s' % p for p in sorted(listed - eps)]
    bad += ['docs/serve.md: %s is no route' % p for p in sorted(eps - listed)]
    print('\n'.join(bad) if bad else 'ok')


main()
