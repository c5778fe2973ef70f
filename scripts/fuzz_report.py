#!/usr/bin/env python3
"""What a run of the reply fuzzer found (run_fuzz.sh): the fuzzer's figures
from fuzz.out, the kernel's splats from the console after boot, the leak
scan's count, and the first splat placed at each fuzzer's last mark before
it ("fuzz: seed S reply N", one every 1000 replies; fuzzers run side by
side with seeds S, S+1, ...) so that --replay S:N reproduces it.
Writes summary.json and prints the figures; exit 0 when the run finished
with no splat and no leak, 1 on a splat, a leak or a run that stopped
short (a stall), 3 when the fuzzer never started (infrastructure: nothing
was judged)."""

import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ktap_report import scan_splats  # noqa: E402

FIGURES = ('replies', 'compound', 'mutated', 'refused', 'spliced', 'remounts')
LAST_LINE = re.compile(r'^fuzz: (\d+) replies, (\d+) compound, (\d+) mutated, '
                       r'(\d+) refused, (\d+) spliced, (\d+) remounts$', re.M)
MARK = re.compile(r'fuzz: seed (\d+) reply (\d+)')
MARK_EVERY = 1000


def read(path):
    try:
        return open(path, errors='replace').read()
    except OSError:
        return ''


def first_splat_replies(lines, splat):
    """Where each fuzzer stood when the first splat came, as SEED:REPLY
    (the mark after its last one before the splat), the fuzzer whose mark
    came last first: any of them may have caused it"""
    first = next((i for i, line in enumerate(lines) if splat in line), len(lines))
    last = {}
    for m in filter(None, map(MARK.search, lines[:first])):
        last.pop(int(m.group(1)), None)
        last[int(m.group(1))] = int(m.group(2))
    return ['%d:%d' % (seed, n + MARK_EVERY) for seed, n in reversed(last.items())]


def report(results, seed, rate, guest_exit):
    console = read(os.path.join(results, 'console.log')).splitlines()
    boot = next((i for i, line in enumerate(console) if 'FUSEGATE-BOOT-OK' in line), 0)
    after = console[boot:]
    fuzz_console = os.path.join(results, 'console-fuzz.log')
    with open(fuzz_console, 'w') as f:
        f.write('\n'.join(after) + '\n')
    splats, _ = scan_splats(fuzz_console, set())
    out = read(os.path.join(results, 'fuzz.out'))
    started = re.search(r'^fuzz: seed \d+, \d+ replies', out, re.M)
    m = LAST_LINE.search(out)
    figures = dict(zip(FIGURES, map(int, m.groups()))) if m else {}
    kinds = {k: int(n) for k, n in re.findall(r'^fuzz: (\w+) +(\d+)$', out, re.M)}
    at = first_splat_replies(after, splats[0]) if splats else []
    if splats and not at:
        at = ['%d:%d' % (seed, MARK_EVERY)]
    leaks = re.search(r'^fuzz: (\d+) leaks through FUSE$', out, re.M)
    leaks = int(leaks.group(1)) if leaks else None
    summary = dict(seed=seed, rate=rate, guest_exit=guest_exit, finished=bool(m),
                   stalled=bool(re.search(r'^fuzz: stalled at reply', out, re.M)),
                   splats=splats, kinds=kinds, leaks=leaks,
                   replay=at[0] if at else None, replay_any=at, **figures)
    with open(os.path.join(results, 'summary.json'), 'w') as f:
        json.dump(summary, f, indent=1)

    print('fuzz figures (seed %d, %d%% of replies mutated)' % (seed, rate))
    print('  %-22s %s' % ('mutation', 'replies'))
    for k, n in kinds.items():
        print('  %-22s %d' % (k, n))
    for k in FIGURES:
        if k in figures:
            print('  %-22s %d' % (k, figures[k]))
    print('  %-22s %s' % ('leaks through FUSE', 'not scanned (kmemleak off)'
                              if leaks is None else leaks))
    for s in splats:
        print('  KERNEL SPLAT: %s' % s)
    if at:
        print('the first splat came by %s; to run up to it again:' %
              ' or '.join('reply %s of seed %s' % tuple(reversed(a.split(':'))) for a in at))
        for a in at:
            print('  ./run_fuzz.sh --replay %s' % a)
    stall = re.search(r'^fuzz: stalled at reply .*$', out, re.M)
    if stall:
        print(stall.group(0) + ' (blocked tasks on the console: sysrq w)')
    if not m and not splats:
        print('the fuzzer did not finish (guest exit %d): see fuzz.out and console.log'
              % guest_exit)
    print('fuzz: %d replies, %d mutated, %d splats, %s leaks' % (
        figures.get('replies', 0), figures.get('mutated', 0), len(splats),
        '-' if leaks is None else leaks))
    if not started and not splats:
        # the fuzzer never ran (no mount, a missing binary): nothing was judged
        print('INFRA ERROR: the fuzzer did not start (see fuzz.out and console.log)')
        return 3
    if m and not splats and re.search(r'^fuzz: the leak scan failed', out, re.M):
        # kmemleak was there and its scan did not run: leaks were not judged
        print('INFRA ERROR: the leak scan failed (see fuzz.out)')
        return 3
    return 0 if m and not splats and not leaks else 1


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('results', help="run_fuzz.sh's results directory")
    ap.add_argument('--seed', type=int, required=True)
    ap.add_argument('--rate', type=int, required=True)
    ap.add_argument('--guest-exit', type=int, default=0)
    args = ap.parse_args(argv)
    return report(args.results, args.seed, args.rate, args.guest_exit)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
