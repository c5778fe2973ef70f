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


# --- the real servers of the gate (fuse_real_servers_test) -----------------
#
# For a server that negotiates none of the series' features (no compound
# ever answered with success, no LOOKUP_HANDLE or MKOBJ_HANDLE sent), the
# series may not send more requests than the base in any workload.  The
# one exception is discovery: a connection's first compound, refused by
# the server, is not counted, and a second refusal on the same server is a
# rule broken (the kernel must remember the answer).  LOOKUP and GETATTR
# are counted and shown, not ruled: the real servers' entry and attribute
# timeouts (1 s) run out during the workloads or not depending on the
# guest's speed under TCG, and with them the revalidations.  The counts
# come from the kernel's tracepoint fuse:fuse_request_send
# (scripts/request_counts.py).

COMPOUND, LOOKUP_HANDLE, MKOBJ_HANDLE = '54', '55', '56'
TIMEOUT_DRIVEN = ('1', '3')     # LOOKUP, GETATTR
# workloads whose totals vary from run to run on one kernel (measured, two
# kernels of one gate run): stress-ng runs its stressors side by side (a
# WRITE, READDIR or READDIRPLUS more or less), and the notification
# examples' file is read until the server's own timer changed it.  Their
# compounds are ruled, their totals shown only.
POLLING = ('stress-ng', 'notify')


def _refused(counts, opcode):
    return sum(n for k, n in counts['errors'].items() if k.split(':')[0] == opcode)


def _answers_known(counts):
    """Whether every request's end (and so its error) was traced."""
    return counts.get('ends') is not None and counts['ends'] >= counts['total']


def real_server_rule(base, patched):
    """[{server, workload, status: PASS|FAIL|SKIP, detail}] for every
    (server, workload) counted with the series."""
    rows = []
    for server in sorted(patched):
        p_all, b_all = patched[server], base.get(server, {})
        negotiated = set()
        refused = 0
        for c in p_all.values():
            sent = c['ops'].get(COMPOUND, 0)
            # without the ends traced, a compound counts as refused: a
            # server that runs them shows it by its answers only
            n = _refused(c, COMPOUND) if _answers_known(c) else sent
            refused += n
            if sent > n:
                negotiated.add('compounds')
            if c['ops'].get(LOOKUP_HANDLE) or c['ops'].get(MKOBJ_HANDLE):
                negotiated.add('file handles')
        for w in sorted(p_all):
            p, b = p_all[w], b_all.get(w)
            row = {'server': server, 'workload': w, 'status': 'PASS', 'detail': ''}
            if negotiated:
                row.update(status='SKIP', detail='negotiates %s: not ruled'
                           % ' and '.join(sorted(negotiated)))
            elif b is None:
                row.update(status='SKIP', detail='not counted on the base')
            elif b['lost'] or p['lost']:
                row.update(status='SKIP', detail='the trace buffer overflowed: events lost')
            else:
                probes = (_refused(p, COMPOUND) if _answers_known(p)
                          else p['ops'].get(COMPOUND, 0))
                timed_p = sum(p['ops'].get(o, 0) for o in TIMEOUT_DRIVEN)
                timed_b = sum(b['ops'].get(o, 0) for o in TIMEOUT_DRIVEN)
                extra = (p['total'] - probes - timed_p) - (b['total'] - timed_b)
                if extra > 0 and w not in POLLING:
                    row.update(status='FAIL', detail='%d request(s) more than the base '
                               '(%d against %d, %d refused compound(s) and LOOKUP, GETATTR '
                               'not counted)' % (extra, p['total'] - probes - timed_p,
                                                 b['total'] - timed_b, probes))
                elif probes and refused > 1:
                    row.update(status='FAIL', detail='FUSE_COMPOUND refused %d time(s) '
                               'by this server, %d in this workload: after the first '
                               'refusal the kernel must not ask again' % (refused, probes))
                elif probes:
                    row['detail'] = 'one refused compound (discovery) not counted'
            rows.append(row)
    return rows
