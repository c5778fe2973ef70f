#!/usr/bin/env python3
"""Compare the exact figures of two benchmark runs, cell by cell.

  bench/compare_counts.py BEFORE.json AFTER.json [--modes compound,enosys]

A change that is not to change behaviour (a refactor, a move) must leave
what the server sees as it was: for every cell (workload x mode x service
delay x writeback cache) present in both runs, the round trips and server
operations per operation, and the request sequence, must be equal.  Latency
and CPU are noise under TCG and are not compared.

Prints one line per cell that differs, then a count of the cells compared
and of those present in one run only.  Exit status: 0 when every common
cell is equal and at least one was compared, 1 when a cell differs (or
none could be compared), 2 on a bad argument or file.
"""

import argparse
import json
import sys

EXACT = ('round_trips_per_op', 'server_ops_per_op', 'sequence')


def key(cell):
    return (cell['workload'], cell['mode'], cell['delay_us'], cell['writeback_cache'])


def load(path, modes):
    try:
        with open(path) as f:
            cells = json.load(f)['cells']
    except (OSError, ValueError, KeyError, TypeError) as e:
        print('error: %s: not a benchmark result (%s)' % (path, e), file=sys.stderr)
        sys.exit(2)
    return {key(c): c for c in cells if not modes or c['mode'] in modes}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('before', help='bench.json of the run before the change')
    ap.add_argument('after', help='bench.json of the run after it')
    ap.add_argument('--modes', default='',
                    help='comma-separated modes to compare (default: all)')
    args = ap.parse_args()
    modes = {m for m in args.modes.split(',') if m}
    before, after = load(args.before, modes), load(args.after, modes)

    common = sorted(set(before) & set(after))
    differ = 0
    for k in common:
        diffs = ['%s %r -> %r' % (f, before[k].get(f), after[k].get(f))
                 for f in EXACT if before[k].get(f) != after[k].get(f)]
        if diffs:
            differ += 1
            print('DIFFERS %s/%s delay=%sus writeback=%s: %s'
                  % (k[0], k[1], k[2], int(k[3]), '; '.join(diffs)))
    only = len(set(before) ^ set(after))
    per_mode = {}
    for k in common:
        per_mode[k[1]] = per_mode.get(k[1], 0) + 1
    print('%d cells compared (%s), %d differ; %d cells in one run only'
          % (len(common), ', '.join('%s %d' % m for m in sorted(per_mode.items())),
             differ, only))
    return 0 if common and not differ else 1


if __name__ == '__main__':
    sys.exit(main())
