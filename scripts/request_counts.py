#!/usr/bin/env python3
"""The requests each real server got, by opcode and answer, and the rule.

fuse_real_servers_test counts, for each (server, workload), every request
the kernel ended, with the server's answer, and the FORGETs and
INTERRUPTs it queued (kprobe events, scripts/request_probes.py), and
prints one line each:

  # fuse_requests: server=S workload=W total=N lost=0 ops=OP:N,... answers=OP:ERR:N,...

  request_counts.py extract KTAP JSON       those lines -> requests.json
  request_counts.py table BASE PATCHED      the two side by side, and the rule
  request_counts.py rule BASE PATCHED       the rule alone; exit 1 when broken
  request_counts.py answers PATCHED [--date D --kernel K --commit C]
                                            what each server answered to the
                                            series' new opcodes (README's table)
  request_counts.py tolerances RUN.json...  what varies between runs of one
                                            kernel, as request_tolerances.json
  request_counts.py reference RUN.json [--probed PROBE_RUN.json] --date D --kernel K
                            --commit C --command X
                                            a run as the committed reference of
                                            the README's table (with the servers'
                                            packages and versions, from dpkg)
  request_counts.py readme REF.json [README.md]
                                            write the README's answers table
  request_counts.py check-readme REF.json [README.md]
                                            exit 1 when it differs

requests.json = {"probes": "end=... forget=... interrupt=..." or
                 "unavailable: WHY",
                 "probed": {"SERVER": {"init": E, "lookup_handle_flag": "0|1",
                   "compound": E, "lookup_handle": E, "mkobj_handle": E}}
                   (FUSEGATE_REAL_PROBE=1 only: fuse_real_probe's answers),
                 "servers": {"SERVER": {"WORKLOAD": {"total": N, "lost": bool,
                   "ops": {"OPCODE": N}, "answers": {"OPCODE": {"ERR": N}}}}}}

The rule, per (server, workload) counted on the base: with the series,
each opcode's count is at most the base's, and the requests that change
the server's state or end an object's life (MUST_KEEP: FLUSH, FSYNC,
RELEASE, FORGET, WRITE...) are not fewer either.  Exempt, each named in
the row: the first refused FUSE_COMPOUND of a server (discovery); and the
requests a compound (or LOOKUP_HANDLE, MKOBJ_HANDLE) the server answered
replaced, one for one (REPLACES).  Where one kernel's counts vary from
run to run, the spread measured by running the base several times
(scripts/request_tolerances.json) is allowed, no more.
"""

import errno
import json
import os
import re
import sys

LINE = re.compile(r'#\s*fuse_requests: server=(\S+) workload=(\S+) total=(\d+) lost=(\d+) '
                  r'ops=(\S*) answers=(\S*)')
PROBES = re.compile(r'#\s*fuse_request_probes: (.*)$')
# fuse_real_probe's line: what a server answered to the new opcodes sent on purpose
PROBED = re.compile(r'#\s*fuse_probe: server=(\S+) (.*)$')

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
    """{'probes': what the guest said of its probes (None: no line),
    'servers': {SERVER: {WORKLOAD: counts}}} from a KTAP stream."""
    out, probes, probed = {}, None, {}
    for line in lines:
        m = PROBED.search(line)
        if m:
            server, rest = m.groups()
            if rest.startswith('unprobed:'):
                probed[server] = {'unprobed': rest[len('unprobed:'):].strip()}
            else:
                probed[server] = dict(kv.split('=', 1) for kv in rest.split())
            continue
        m = PROBES.search(line)
        if m:
            # the last word of a guest counts: 'unavailable: ...' after
            # the plan line when the kernel refused a probe
            if probes is None or m.group(1).startswith('unavailable'):
                probes = m.group(1).strip()
            continue
        m = LINE.search(line)
        if not m:
            continue
        server, workload, total, lost, ops, answers = m.groups()
        ans = {}
        for part in (p for p in answers.split(',') if p):
            op, err, n = part.split(':')
            ans.setdefault(op, {})[err] = int(n)
        out.setdefault(server, {})[workload] = {
            'total': int(total), 'lost': lost != '0',
            'ops': {o: int(n) for o, n in (p.split(':') for p in ops.split(',') if p)},
            # every ended request's answer: 0 or the server's -errno
            'answers': ans}
    res = {'probes': probes, 'servers': out}
    if probed:
        res['probed'] = probed
    return res


def load(path):
    """requests.json, or an empty count (no file: the program did not run)."""
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {'probes': None, 'servers': {}}
    data.setdefault('probes', None)
    data.setdefault('servers', {})
    return data


# --- the rule ------------------------------------------------------------------

COMPOUND, LOOKUP_HANDLE, MKOBJ_HANDLE, STATX = '54', '55', '56', '52'
OP = {name: str(n) for n, name in OPCODES.items()}
# what one request of the series, answered with success, stands for: the
# classic requests it replaces one for one (a compound of OPEN and
# GETATTR; a lookup by handle; a creation by handle, with its STATX and
# OPEN), and the requests that come with it (a handle reply carries no
# attributes: its STATX)
REPLACES = {
    COMPOUND: ('OPEN', 'GETATTR', 'LOOKUP'),
    LOOKUP_HANDLE: ('LOOKUP',),
    MKOBJ_HANDLE: ('CREATE', 'MKNOD', 'MKDIR', 'SYMLINK'),
}
COMES_WITH = {LOOKUP_HANDLE: (STATX,), MKOBJ_HANDLE: (STATX,)}
# at most this many classic requests for one replacing request (OPEN and
# GETATTR for a compound of both)
PARTS = 2
# requests whose loss is a change of what the server sees, not a saving:
# its data, its metadata, its locks, the end of an open or of an inode
MUST_KEEP = tuple(OP[n] for n in (
    'FLUSH', 'FSYNC', 'FSYNCDIR', 'RELEASE', 'RELEASEDIR', 'FORGET', 'BATCH_FORGET',
    'WRITE', 'SETATTR', 'CREATE', 'MKNOD', 'MKDIR', 'SYMLINK', 'LINK', 'UNLINK', 'RMDIR',
    'RENAME', 'RENAME2', 'SETXATTR', 'REMOVEXATTR', 'SETLK', 'SETLKW', 'FALLOCATE',
    'COPY_FILE_RANGE', 'SYNCFS', 'INIT', 'DESTROY'))
# what the servers' 1 s entry and attribute timeouts drive, expiring or
# not with the guest's speed, in every workload (measured, fio's GETATTRs
# too: docs/real-servers.md): one run's excess there is judged with a rerun
TIMED_OPS = tuple(OP[n] for n in ('LOOKUP', 'GETATTR', 'OPENDIR', 'READDIR', 'READDIRPLUS',
                                  'RELEASEDIR', 'FORGET'))
TIMED_WORKLOADS = ('mount', 'fio', 'script', 'stress-ng', 'notify', 'unmount')
# how far past the measured spread (at least 1) one run's excess may be
# and still be judged with the rerun (the largest seen: 23 LOOKUPs past
# the first run's base where the spread was 7, an OPENDIR more where
# nine runs had seen none; docs/real-servers.md); further, one run decides
TIMED_BOUND = 4
# the requests that make the kernel hold a lookup count, and those that
# give it back
GRANTS = tuple(OP[n] for n in ('LOOKUP', 'CREATE', 'MKNOD', 'MKDIR', 'SYMLINK', 'LINK'))
FORGETS = (OP['FORGET'], OP['BATCH_FORGET'])
TOLERANCES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'request_tolerances.json')


def load_tolerances(path=TOLERANCES):
    """{(server, workload, opcode): spread} measured on one kernel."""
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {}
    return {(s, w, o): n for s, ws in data.get('spread', {}).items()
            for w, ops in ws.items() for o, n in ops.items()}


# answers that are not a server's "not supported" (compound.md section 3):
# the combination refused (EOPNOTSUPP), an interrupted compound, the
# kernel's own ends of a request (the connection aborted, no memory)
NOT_REFUSALS = tuple(str(-e) for e in (errno.EOPNOTSUPP, errno.EINTR, errno.ENOTCONN,
                                       errno.ECONNABORTED, errno.ENOMEM))


def answered(c, op, ok=True):
    """How many requests of op the server answered with success (ok) or
    with an error (not ok)."""
    a = c.get('answers', {}).get(op, {})
    return sum(n for e, n in a.items() if (e == '0') == ok)


def refused(c, op):
    """How many requests of op the server answered "not supported"."""
    a = c.get('answers', {}).get(op, {})
    return sum(n for e, n in a.items() if e != '0' and e not in NOT_REFUSALS)


def _judge(server, w, b, p, tol, discovery):
    """(status, detail, discovery left) of one (server, workload)."""
    changes, exempt, changed, beyond = [], [], set(), set()
    d = {o: p['ops'].get(o, 0) - b['ops'].get(o, 0)
         for o in set(b['ops']) | set(p['ops'])}
    d = {o: n for o, n in d.items() if n}
    # the series' new requests that the server answered: what they replace,
    # one for one; all of them together may stand for at most PARTS
    # classic requests each (budget), and only for the opcodes they replace
    may_add, replaceable, budget, oks = {}, set(), 0, {}
    for op, classic in REPLACES.items():
        ok = oks[op] = max(0, answered(p, op) - answered(b, op))
        if not ok:
            continue
        dropped = sum(max(0, -d.get(OP[c], 0)) for c in classic)
        may_add[op] = min(ok, dropped)
        replaceable |= {OP[c] for c in classic}
        budget += PARTS * ok
        for extra in COMES_WITH.get(op, ()):
            may_add[extra] = may_add.get(extra, 0) + ok
    # a server's first refused compound is its discovery
    n_refused = refused(p, COMPOUND) - refused(b, COMPOUND)
    probe = 0
    if n_refused > 0 and discovery:
        probe = 1
        may_add[COMPOUND] = may_add.get(COMPOUND, 0) + 1
        exempt.append('COMPOUND +1 refused (%s): discovery' % ', '.join(
            errno_name(e) for e in sorted(p['answers'].get(COMPOUND, {})) if e != '0'))
        discovery = False
    for o in sorted(d, key=int):
        n, t = d[o], tol.get((server, w, o), 0)
        if n > 0:
            free = may_add.get(o, 0)
            replaced = min(n, free) - (probe if o == COMPOUND else 0)
            if replaced > 0:
                exempt.append('%s +%d: comes with or replaces classic requests'
                              % (opname(o), replaced))
            if n - free > t:
                changed.add(o)
                if n - free - t > TIMED_BOUND * max(t, 1):
                    beyond.add(o)
                changes.append('%s +%d' % (opname(o), n) + (
                    ' (%d allowed: %d exempt, a measured spread of %d)' % (free + t, free, t)
                    if free + t else ''))
            elif n > free:
                exempt.append('%s +%d: within the spread measured on one kernel (%d)'
                              % (opname(o), n - free, t))
        else:
            free = min(-n, budget) if o in replaceable else 0
            budget -= free
            if free:
                exempt.append('%s %d: replaced' % (opname(o), -free))
            if o in FORGETS:
                # a FORGET gives back what lookups and creations granted:
                # fewer of those (the servers' timeouts expiring less
                # often) may mean fewer inodes to forget; an answered
                # compound or handle request may have granted one each
                granted = -sum(d.get(g, 0) for g in GRANTS) - sum(oks.values())
                if granted > 0 and -n - free > t:
                    exempt.append('%s %d: with %d fewer lookups and creations'
                                  % (opname(o), max(n, -(granted + free)), granted))
                    free += granted
            if o in MUST_KEEP and -n - free > t:
                changed.add(o)
                changes.append('%s %d (a dropped %s is a change of what the server sees)'
                               % (opname(o), n, opname(o)))
    detail = '; '.join(changes)
    if exempt:
        detail += ('; ' if detail else '') + 'exempt: ' + '; '.join(exempt)
    timed = (bool(changed) and w in TIMED_WORKLOADS and changed <= set(TIMED_OPS) and
             not beyond)
    return ('FAIL' if changes else 'PASS'), detail, discovery, timed


def real_server_rule(base, patched, tolerances=None, rerun=None):
    """[{server, workload, status: PASS|FAIL, detail, timed}] for every
    (server, workload) counted on the base; base, patched and rerun are
    requests.json's 'servers'.  timed: the case failed on timeout-driven
    requests alone (TIMED_OPS in TIMED_WORKLOADS), which one run cannot
    tell from the timeouts' noise: with the rerun's counts, such a case
    fails only when the rerun breaks the rule too."""
    tol = load_tolerances() if tolerances is None else tolerances
    again = ({(r['server'], r['workload']): r for r in real_server_rule(base, rerun, tol)}
             if rerun is not None else {})
    rows = []
    for server in sorted(base):
        discovery = True
        refused_all = sum(refused(c, COMPOUND) for c in patched.get(server, {}).values())
        refused_all -= sum(refused(c, COMPOUND) for c in base[server].values())
        for w in sorted(base[server]):
            b, p = base[server][w], patched.get(server, {}).get(w)
            row = {'server': server, 'workload': w}
            if p is None:
                row.update(status='FAIL', detail='counted on the base, not with the series '
                           '(the server\'s steps say why)')
            else:
                row['status'], row['detail'], discovery, row['timed'] = _judge(
                    server, w, b, p, tol, discovery)
                r = again.get((server, w))
                if row['timed'] and r is not None:
                    if r['status'] == 'PASS':
                        row.update(status='PASS', detail='first run: %s; the rerun within '
                                   'the rule: the timeouts\' noise, not reproduced'
                                   % row['detail'])
                    else:
                        row['detail'] += '; the rerun too: %s' % r['detail']
            rows.append(row)
        if refused_all > 1:
            rows.append({'server': server, 'workload': 'all', 'status': 'FAIL',
                         'detail': 'FUSE_COMPOUND refused %d times by this server: after '
                         'the first refusal the kernel must not ask again' % refused_all})
    return rows


def unjudged(base, patched):
    """Why the rule cannot judge (the gate's INFRA), or None; base and
    patched are whole requests.json files."""
    for role, c in (('base', base), ('series', patched)):
        if c['probes'] and c['probes'].startswith('unavailable'):
            return 'the %s\'s guest could not count requests: %s' % (role, c['probes'])
        if c['servers'] and c['probes'] and re.search(r'\b(forget|interrupt)=none\b',
                                                      c['probes']):
            return ('the %s\'s guest could not count FORGETs or INTERRUPTs (no single '
                    'function queues them): %s' % (role, c['probes']))
        lost = sorted('%s.%s' % (s, w) for s, ws in c['servers'].items()
                      for w, x in ws.items() if x['lost'])
        if lost:
            return ('the %s\'s trace buffer overflowed (events lost) in %s'
                    % (role, ', '.join(lost)))
    if base['servers'] and not patched['servers']:
        return ('the series\' guest counted no requests where the base counted %d '
                'server(s) (probes: %s)' % (len(base['servers']), patched['probes']))
    if patched['servers'] and not base['servers']:
        return ('the base\'s guest counted no requests where the series counted %d '
                'server(s) (probes: %s)' % (len(patched['servers']), base['probes']))
    return None


def tolerances(runs):
    """{'spread': {server: {workload: {opcode: max - min}}}} of several
    runs of one kernel: only what varies."""
    spread = {}
    servers = set().union(*(r['servers'] for r in runs))
    for s in sorted(servers):
        for w in sorted(set().union(*(r['servers'].get(s, {}) for r in runs))):
            cs = [r['servers'].get(s, {}).get(w) for r in runs]
            if any(c is None for c in cs):
                continue
            for o in set().union(*(c['ops'] for c in cs)):
                n = [c['ops'].get(o, 0) for c in cs]
                if max(n) != min(n):
                    spread.setdefault(s, {}).setdefault(w, {})[o] = max(n) - min(n)
    return {'spread': spread}


# --- reports -----------------------------------------------------------------------

def diff_ops(b, p):
    """'OP +n, OP -n' of the opcodes whose counts differ."""
    ops = sorted(set(b['ops']) | set(p['ops']), key=int)
    d = ['%s %+d' % (opname(o), p['ops'].get(o, 0) - b['ops'].get(o, 0)) for o in ops
         if p['ops'].get(o, 0) != b['ops'].get(o, 0)]
    return ', '.join(d) or 'same'


def table(base, patched):
    """Markdown lines: the counts side by side and the rule's verdict
    (base and patched: requests.json's 'servers')."""
    rules = {(r['server'], r['workload']): r for r in real_server_rule(base, patched)}
    md = ['| server | workload | base requests | with the series | by opcode | rule |',
          '|---|---|---|---|---|---|']
    for server in sorted(set(base) | set(patched)):
        ws = set(base.get(server, {})) | set(patched.get(server, {}))
        ws |= {w for s, w in rules if s == server}
        for w in sorted(ws):
            b = base.get(server, {}).get(w)
            p = patched.get(server, {}).get(w)
            r = rules.get((server, w), {})
            md.append('| %s | %s | %s | %s | %s | %s |' % (
                server, w, b['total'] if b else '-', p['total'] if p else '-',
                diff_ops(b, p) if b and p else '', r.get('status', '') +
                (': ' + r['detail'] if r.get('detail') else '')))
    return md


# each real server: its Debian package, and the implementation of the
# protocol it speaks (with that package's version, in the reference)
IMPLEMENTATIONS = {
    'fuse_overlayfs': ('fuse-overlayfs', 'libfuse3-3'),
    'bindfs': ('bindfs', 'libfuse2'),
    'mergerfs': ('mergerfs', 'its own libfuse 2.9 fork'),
    'unionfs': ('unionfs-fuse', 'libfuse2'),
    'gocryptfs': ('gocryptfs', 'go-fuse (built in)'),
    'rclone': ('rclone', 'bazil.org/fuse (built in)'),
    'ntfs_3g': ('ntfs-3g', 'fuse-lite (built in)'),
    'fuse2fs': ('fuse2fs', 'libfuse2'),
    'squashfuse': ('squashfuse', 'libfuse3-3'),
    'archivemount': ('archivemount', 'libfuse2'),
    'sshfs': ('sshfs', 'libfuse3-3'),
    'passthrough': ('libfuse3-dev', 'libfuse3-3'),
    'passthrough_fh': ('libfuse3-dev', 'libfuse3-3'),
    'notify_store_retrieve': ('libfuse3-dev', 'libfuse3-3'),
    'notify_inval_inode': ('libfuse3-dev', 'libfuse3-3'),
    'notify_inval_entry': ('libfuse3-dev', 'libfuse3-3'),
    'invalidate_path': ('libfuse3-dev', 'libfuse3-3'),
}


def package_version(pkg):
    import subprocess
    r = subprocess.run(['dpkg-query', '-W', '-f', '${Version}', pkg],
                       capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 and r.stdout.strip() else None


def reference(counts, probed, provenance):
    """The committed reference of the README's answers table: the series'
    run's requests.json, the probe run's answers, where and when they were
    measured, and each server's package and protocol implementation with
    their versions here."""
    impl = {}
    for server in set(counts['servers']) | set(probed.get('probed', {})):
        pkg, lib = IMPLEMENTATIONS.get(server, (server, 'unknown'))
        v = package_version(pkg)
        libv = package_version(lib) if lib.startswith('libfuse') else None
        name = 'libfuse %s' % libv.split('-')[0] if libv else lib
        impl[server] = '%s %s, %s' % (pkg if pkg != 'libfuse3-dev' else 'libfuse example',
                                      v or '?', name)
    return {'provenance': provenance, 'implementations': impl,
            'probes': counts['probes'], 'servers': counts['servers'],
            'probed': probed.get('probed', {})}


README_BEGIN = '<!-- answers: generated by scripts/request_counts.py readme; do not edit -->'
README_END = '<!-- answers: end -->'


def readme_block(ref):
    return [README_BEGIN] + answers(ref, ref.get('provenance')) + [README_END]


def update_readme(path, ref):
    """README.md with its answers table replaced by the reference's."""
    text = open(path).read()
    a, b = text.index(README_BEGIN), text.index(README_END) + len(README_END)
    return text[:a] + '\n'.join(readme_block(ref)) + text[b:]


# the series' new opcodes, in the README's answers table
NEW = (COMPOUND, LOOKUP_HANDLE, MKOBJ_HANDLE)


def answer_text(hist):
    """'ENOSYS (-38) x1, success x3' of an answer histogram."""
    parts = ['%s x%d' % (errno_name(e), n) for e, n in
             sorted(hist.items(), key=lambda x: int(x[0])) if e != '0']
    if hist.get('0'):
        parts.append('success x%d' % hist['0'])
    return ', '.join(parts) or '-'


def probe_text(v):
    """A probed answer: 0, -errno, or a word of fuse_real_probe's."""
    if v is None or v == '-':
        return 'not asked'
    if v == 'none':
        return 'no answer in 10 s'
    if v == 'closed':
        return 'closed the connection'
    if v == '0':
        return 'success'
    try:
        return errno_name(v)
    except ValueError:
        return v


def answers(ref, provenance=None):
    """Markdown lines: per server, what the series' kernel sent it of
    FUSE_COMPOUND in the measured run and what the server answered, and
    what it answered to the new opcodes sent on purpose (fuse_real_probe)."""
    md = []
    if provenance:
        md += ['Measured %s: %s.' % (provenance.get('date', '?'), '; '.join(
            '%s: %s' % (k, v) for k, v in sorted(provenance.items()) if k != 'date')), '']
    impl = ref.get('implementations', {})
    probed = ref.get('probed', {})
    md += ['| server | implementation | FUSE_COMPOUND (54) from the series\' kernel | '
           'on purpose: FUSE_COMPOUND | LOOKUP_HANDLE (55) | MKOBJ_HANDLE (56) | '
           'FUSE_HAS_LOOKUP_HANDLE at INIT | FUSE_EXPORT_SUPPORT at INIT |',
           '|---|---|---|---|---|---|---|---|']
    for server in sorted(set(ref['servers']) | set(probed)):
        if server in ref['servers']:
            hist, sent = {}, 0
            for c in ref['servers'][server].values():
                sent += c['ops'].get(COMPOUND, 0)
                for e, n in c.get('answers', {}).get(COMPOUND, {}).items():
                    hist[e] = hist.get(e, 0) + n
            kernel = 'not sent' if not sent else answer_text(hist)
        else:
            kernel = 'not in the run'
        p = probed.get(server)
        if p is None:
            cells = ['not probed'] * 5
        elif 'unprobed' in p:
            cells = ['could not be probed: %s' % p['unprobed'].replace('|', '/')] + [''] * 4
        elif p.get('init') != '0':
            cells = ['INIT answered %s' % probe_text(p.get('init'))] + [''] * 4
        else:
            cells = [probe_text(p.get('compound')), probe_text(p.get('lookup_handle')),
                     probe_text(p.get('mkobj_handle')),
                     'accepted' if p.get('lookup_handle_flag') == '1' else 'not accepted',
                     {'1': 'set', '0': 'not set'}.get(p.get('export_support'), 'not probed')]
        md.append('| %s | %s | %s | %s |' % (server, impl.get(server, '-'), kernel,
                                             ' | '.join(cells)))
    return md


def errno_name(err):
    e = -int(err)
    return '%s (%s)' % (errno.errorcode.get(e, '?'), err)


def main(argv):
    if len(argv) == 4 and argv[1] == 'extract':
        with open(argv[2], errors='replace') as f:
            counts = parse(f)
        with open(argv[3], 'w') as f:
            json.dump(counts, f, indent=1, sort_keys=True)
        return 0
    if len(argv) >= 3 and argv[1] in ('reference', 'readme', 'check-readme'):
        if argv[1] == 'reference':
            rest = argv[3:]
            probed = {}
            if rest[:1] == ['--probed']:
                probed, rest = load(rest[1]), rest[2:]
            prov = dict(zip((a[2:] for a in rest[0::2]), rest[1::2]))
            print(json.dumps(reference(load(argv[2]), probed, prov), indent=1,
                             sort_keys=True))
            return 0
        ref, readme = load(argv[2]), argv[3] if len(argv) > 3 else 'README.md'
        new = update_readme(readme, ref)
        if argv[1] == 'readme':
            with open(readme, 'w') as f:
                f.write(new)
            return 0
        if new != open(readme).read():
            print('%s: the answers table is not what %s gives; run: '
                  'scripts/request_counts.py readme %s %s' % (readme, argv[2], argv[2], readme),
                  file=sys.stderr)
            return 1
        return 0
    if len(argv) >= 3 and argv[1] == 'answers':
        prov = {}
        rest = argv[3:]
        while len(rest) >= 2 and rest[0] in ('--date', '--kernel', '--commit', '--command'):
            prov[rest[0][2:]] = rest[1]
            rest = rest[2:]
        if rest:
            print(__doc__, file=sys.stderr)
            return 2
        print('\n'.join(answers(load(argv[2]), prov or None)))
        return 0
    if len(argv) == 4 and argv[1] in ('table', 'rule'):
        base, patched = load(argv[2]), load(argv[3])
        why = unjudged(base, patched)
        if why:
            print('INFRA: ' + why)
            return 3
        if argv[1] == 'table':
            print('\n'.join(table(base['servers'], patched['servers'])))
            return 0
        rows = real_server_rule(base['servers'], patched['servers'])
        for r in rows:
            print('%-4s %s.%s%s' % (r['status'], r['server'], r['workload'],
                                    ': ' + r['detail'] if r['detail'] else ''))
        return 1 if any(r['status'] == 'FAIL' for r in rows) else 0
    if len(argv) >= 3 and argv[1] == 'tolerances':
        print(json.dumps(tolerances([load(a) for a in argv[2:]]), indent=1, sort_keys=True))
        return 0
    if len(argv) == 2 and argv[1] in ('-h', '--help'):
        print(__doc__)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
