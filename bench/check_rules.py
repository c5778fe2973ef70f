#!/usr/bin/env python3
"""Check a benchmark run against the rules the series is held to.

  bench/check_rules.py results/bench/bench.json

For every cell (workload x writeback cache x service delay) and every
mode of the patched kernel that answers or refuses compounds (compound,
enosys, eopnotsupp; handles: file handles with compounds; handles_enosys:
file handles negotiated, compounds refused):

  1. no more round trips per operation than the stock kernel (each cell
     is warmed up, so the one discovery probe of a connection is not in
     the figures);
  2. no more server operations per operation than stock, unless the cell
     saves a round trip, or is one where the GETATTR that comes with the
     open is the point: O_APPEND (the write lands at the server's size)
     and read prefetch (an open for reading with stale attributes fetches
     them for the read; with open+close the read never comes, which is
     the accepted cost), or is a handles cell: LOOKUP_HANDLE and
     MKOBJ_HANDLE replies carry no attributes, so their STATX (and the
     OPEN of a create) rides in the same compound.

handles_enosys is held to the rules like every other mode: without
compounds the kernel sends the classic requests (a lookup by handle
would take LOOKUP_HANDLE and STATX in turn, two round trips where LOOKUP
takes one), so no cell may cost more than stock.

Prints one line per cell that breaks a rule and a count; exit status 0
when none does, 1 otherwise, 2 on a bad argument or file.
"""
import argparse
import json
import sys

MODES = ('compound', 'enosys', 'eopnotsupp', 'handles', 'handles_enosys')
# modes where every extra server operation is the attributes' own request
ALLOWED_EXTRA_SERVER_OPS_BY_MODE = {
    'handles': 'handle replies carry no attributes',
}
# cells where a GETATTR riding with the open is allowed without a saving
ALLOWED_EXTRA_SERVER_OPS = {
    'append_write_attr_expired': 'O_APPEND',
    'append_open_close': 'O_APPEND',
    'read_attr_expired': 'read prefetch',
    'open_close_attr_expired': 'read prefetch (the read never comes)',
}
TOLERANCE = 0.02        # per operation: an asynchronous RELEASE at a run's edge


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('bench_json', help="bench.json written by bench/report.py")
    args = ap.parse_args()
    try:
        cells = json.load(open(args.bench_json))['cells']
    except (OSError, ValueError, KeyError) as e:
        print('error: %s: %s' % (args.bench_json, e), file=sys.stderr)
        return 2
    stock = {(c['workload'], c['writeback_cache'], c['delay_us']): c
             for c in cells if c['mode'] == 'stock'}
    if not stock:
        print('error: %s has no stock cells to compare with' % args.bench_json,
              file=sys.stderr)
        return 2
    broken = checked = allowed = 0
    for c in cells:
        if c['mode'] not in MODES:
            continue
        key = (c['workload'], c['writeback_cache'], c['delay_us'])
        s = stock.get(key)
        if s is None:
            continue
        checked += 1
        rt, srt = c['round_trips_per_op'], s['round_trips_per_op']
        ops, sops = c['server_ops_per_op'], s['server_ops_per_op']
        where = '%-26s wb %-3s %5d us %-14s' % (c['workload'], 'on' if c['writeback_cache']
                                               else 'off', c['delay_us'], c['mode'])
        if rt > srt + TOLERANCE:
            broken += 1
            print('%s round trips %.2f > stock %.2f' % (where, rt, srt))
        if ops > sops + TOLERANCE:
            if rt < srt - TOLERANCE:
                continue            # more work, but a round trip saved
            why = (ALLOWED_EXTRA_SERVER_OPS_BY_MODE.get(c['mode']) or
                   ALLOWED_EXTRA_SERVER_OPS.get(c['workload']))
            if why:
                allowed += 1
                continue
            broken += 1
            print('%s server ops %.2f > stock %.2f without a round trip saved'
                  % (where, ops, sops))
    print('%d cells checked: %d break a rule; %d have more server operations where '
          'allowed (%s)' % (checked, broken, allowed, ', '.join(sorted(
              ALLOWED_EXTRA_SERVER_OPS) + ['handles mode'])))
    return 1 if broken else 0


if __name__ == '__main__':
    sys.exit(main())

