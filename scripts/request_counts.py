#!/usr/bin/env python3
"""The requests each real server got, by opcode, from the selftests' KTAP.

fuse_real_servers_test counts, for each (server, workload), the requests
the kernel sent (tracepoint fuse:fuse_request_send) and the errors the
server answered (fuse:fuse_request_end), and prints one line each:

  # fuse_requests: server=S workload=W total=N lost=0 ops=OP:N,... errors=OP:ERR:N,...

  request_counts.py extract KTAP JSON    those lines -> requests.json
  request_counts.py table BASE PATCHED   the two side by side, and the rule
  request_counts.py answers PATCHED      what each server answered to the new opcodes

requests.json = {"SERVER": {"WORKLOAD": {"total": N, "lost": bool,
                 "ops": {"OPCODE": N}, "errors": {"OPCODE:ERR": N}}}}
"""

import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'bench'))
from check_rules import real_server_rule  # noqa: E402

LINE = re.compile(r'#\s*fuse_requests: server=(\S+) workload=(\S+) total=(\d+) lost=(\d+) '
                  r'ops=(\S*) errors=(\S*)(?: ends=(\d+))?')

# opcode names for the report (include/uapi/linux/fuse.h, and the series')
OPCODES = {
    1: 'LOOKUP', 2: 'FORGET', 3: 'GETATTR', 4: 'SETATTR', 5: 'READLINK', 6: 'SYMLINK',
    8: 'MKNOD', 9: 'MKDIR', 10: 'UNLINK', 11: 'RMDIR', 12: 'RENAME', 13: 'LINK', 14: 'OPEN',
    15: 'READ', 16: 'WRITE', 17: 'STATFS', 18: 'RELEASE', 20: 'FSYNC', 21: 'SETXATTR',
    22: 'GETXATTR', 23: 'LISTXATTR', 24: 'REMOVEXATTR', 25: 'FLUSH', 26: 'INIT',
    27: 'OPENDIR', 28: 'READDIR', 29: 'RELEASEDIR', 30: 'FSYNCDIR', 31: 'GETLK', 32: 'SETLK',
    33: 'SETLKW', 34: 'ACCESS', 35: 'CREATE', 36: 'INTERRUPT', 37: 'BMAP', 38: 'DESTROY',
    39: 'IOCTL', 40: 'POLL', 41: 'NOTIFY_REPLY', 42: 'BATCH_FORGET', 43: 'FALLOCATE',
    44: 'READDIRPLUS', 45: 'RENAME2', 46: 'LSEEK', 47: 'COPY_FILE_RANGE', 48: 'SETUPMAPPING',
    49: 'REMOVEMAPPING', 50: 'SYNCFS', 51: 'TMPFILE', 52: 'STATX', 54: 'COMPOUND',
    55: 'LOOKUP_HANDLE', 56: 'MKOBJ_HANDLE',
}


def opname(op):
    return OPCODES.get(int(op), str(op))


def parse(lines):
    out = {}
    for line in lines:
        m = LINE.search(line)
        if not m:
            continue
        server, workload, total, lost, ops, errors, ends = m.groups()
        out.setdefault(server, {})[workload] = {
            'total': int(total), 'lost': lost != '0',
            # the requests whose end was traced too (None: not counted)
            'ends': int(ends) if ends is not None else None,
            'ops': {o: int(n) for o, n in (p.split(':') for p in ops.split(',') if p)},
            'errors': {p.rsplit(':', 1)[0]: int(p.rsplit(':', 1)[1])
                       for p in errors.split(',') if p}}
    return out


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def diff_ops(b, p):
    """'OP +n, OP -n' of the opcodes whose counts differ."""
    ops = sorted(set(b['ops']) | set(p['ops']), key=int)
    d = ['%s %+d' % (opname(o), p['ops'].get(o, 0) - b['ops'].get(o, 0)) for o in ops
         if p['ops'].get(o, 0) != b['ops'].get(o, 0)]
    return ', '.join(d) or 'same'


def table(base, patched):
    """Markdown lines: the counts side by side and the rule's verdict."""
    rules = {(r['server'], r['workload']): r for r in real_server_rule(base, patched)}
    md = ['| server | workload | base requests | with the series | by opcode | rule |',
          '|---|---|---|---|---|---|']
    for server in sorted(set(base) | set(patched)):
        for w in sorted(set(base.get(server, {})) | set(patched.get(server, {}))):
            b = base.get(server, {}).get(w)
            p = patched.get(server, {}).get(w)
            r = rules.get((server, w), {})
            md.append('| %s | %s | %s | %s | %s | %s |' % (
                server, w, b['total'] if b else '-', p['total'] if p else '-',
                diff_ops(b, p) if b and p else '', r.get('status', '') +
                (': ' + r['detail'] if r.get('detail') else '')))
    return md


def answers(patched):
    """Markdown lines: per server, what the series kernel sent of its new
    opcodes and what the server answered (the README's answers table)."""
    md = ['| server | FUSE_COMPOUND (54) sent | answered | LOOKUP_HANDLE (55), '
          'MKOBJ_HANDLE (56) sent |', '|---|---|---|---|']
    for server in sorted(patched):
        sent = {o: sum(c['ops'].get(o, 0) for c in patched[server].values())
                for o in ('54', '55', '56')}
        errs = {}
        for c in patched[server].values():
            for k, n in c['errors'].items():
                op, err = k.split(':')
                if op in ('54', '55', '56'):
                    errs.setdefault(op, {}).setdefault(err, 0)
                    errs[op][err] += n
        ans = ', '.join('%s x%d' % (errno_name(e), n) for e, n in sorted(errs.get('54', {}).items()))
        known = all(c.get('ends') is not None and c['ends'] >= c['total']
                    for c in patched[server].values())
        ok = sent['54'] - sum(errs.get('54', {}).values())
        if ok and known:
            ans = (ans + ', ' if ans else '') + 'success x%d' % ok
        elif ok:
            ans = (ans + ', ' if ans else '') + 'not traced x%d' % ok
        md.append('| %s | %d | %s | %d, %d |' % (server, sent['54'], ans or '-', sent['55'],
                                                 sent['56']))
    return md


def errno_name(err):
    import errno
    e = -int(err)
    return '%s (%s)' % (errno.errorcode.get(e, '?'), err)


def main(argv):
    if len(argv) == 4 and argv[1] == 'extract':
        with open(argv[2], errors='replace') as f:
            counts = parse(f)
        with open(argv[3], 'w') as f:
            json.dump(counts, f, indent=1, sort_keys=True)
        return 0
    if len(argv) == 3 and argv[1] == 'answers':
        print('\n'.join(answers(load(argv[2]))))
        return 0
    if len(argv) == 4 and argv[1] == 'table':
        print('\n'.join(table(load(argv[2]), load(argv[3]))))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
