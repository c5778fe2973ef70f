#!/usr/bin/env python3
"""The guest's kprobe events that count the requests of a kernel build.

  request_probes.py BUILD_DIR OUT

The real-server suite counts every request the kernel ends, by opcode and
by the server's answer, with a kprobe event on fuse_request_end() that
reads the request's opcode, unique and out.h.error; FORGETs and
INTERRUPTs, which never end as requests, are counted where the kernel
queues them.  The offsets of those fields are the tested kernel's own:
scripts/request_offsets.c is compiled with the flags of BUILD_DIR's
fs/fuse/dev.o (to assembly only: nothing is linked or loaded), so the
base and any series are measured alike, without patching either.

OUT holds the lines for /sys/kernel/tracing/kprobe_events, after a
comment the guest prints:
  # fuse_request_probes: end=fuse_request_end forget=SYM interrupt=SYM
or, when the offsets or the symbols cannot be found,
  # fuse_request_probes: unavailable: WHY
(no counts then: the gate says INFRA where the base has counts).
"""

import os
import re
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FIELDS = {'opcode': 'u32', 'unique': 'u64', 'error': 's32'}
# where each kind of request that never ends is queued, newest name first
FORGET = ('fuse_chan_queue_forget', 'fuse_queue_forget')
INTERRUPT = ('queue_interrupt',)


def dev_o_command(build):
    """The compiler's argument list that built fs/fuse/dev.o, without
    its dependency file, its output and its source."""
    with open(os.path.join(build, 'fs/fuse/.dev.o.cmd')) as f:
        line = f.readline()
    if ':=' not in line:
        raise ValueError('fs/fuse/.dev.o.cmd has no command line')
    args = shlex.split(line.split(':=', 1)[1])
    while args and args[0] in ('ccache', 'distcc'):
        args.pop(0)
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a == '-o':
            skip = True
        elif a == '-c' or a.startswith('-Wp,-MMD') or a.startswith('-Wp,-MD') \
                or a.endswith('fs/fuse/dev.c'):
            continue
        else:
            out.append(a)
    return out


def offsets(build):
    """{'opcode': N, 'unique': N, 'error': N} of struct fuse_req."""
    cc = dev_o_command(build)
    with tempfile.TemporaryDirectory() as tmp:
        asm = os.path.join(tmp, 'offsets.s')
        r = subprocess.run(cc + ['-S', '-o', asm, os.path.join(HERE, 'request_offsets.c')],
                           cwd=build, capture_output=True, text=True)
        if r.returncode != 0:
            raise ValueError('request_offsets.c did not compile against this tree: ' +
                             (r.stderr.strip().splitlines() or ['?'])[-1])
        text = open(asm).read()
    found = {m.group(1): int(m.group(2)) for m in re.finditer(r'@fusegate (\w+) (\d+)@', text)}
    if set(found) != set(FIELDS):
        raise ValueError('request_offsets.c gave %s' % sorted(found))
    return found


def symbols(build):
    """How many times each function name appears in System.map."""
    n = {}
    with open(os.path.join(build, 'System.map')) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[1] in 'tT':
                n[parts[2]] = n.get(parts[2], 0) + 1
    return n


def unique_symbol(syms, names):
    """The first of names that System.map has exactly once (a kprobe on
    a name shared by two static functions is refused)."""
    for name in names:
        if syms.get(name) == 1:
            return name
    return None


def probes(build):
    """The lines of OUT."""
    try:
        off = offsets(build)
        syms = symbols(build)
    except (OSError, ValueError) as e:
        return ['# fuse_request_probes: unavailable: %s' % e]
    if syms.get('fuse_request_end') != 1:
        return ['# fuse_request_probes: unavailable: no single fuse_request_end in System.map']
    forget = unique_symbol(syms, FORGET)
    interrupt = unique_symbol(syms, INTERRUPT)
    args = ' '.join('%s=+%d(%%di):%s' % (k, off[k], t) for k, t in FIELDS.items())
    lines = ['# fuse_request_probes: end=fuse_request_end forget=%s interrupt=%s'
             % (forget or 'none', interrupt or 'none'),
             'p:fusegate/req_end fuse_request_end %s' % args]
    if forget:
        lines.append('p:fusegate/forget %s' % forget)
    if interrupt:
        lines.append('p:fusegate/interrupt %s' % interrupt)
    return lines


def main(argv):
    if len(argv) != 3 or argv[1] in ('-h', '--help'):
        print(__doc__, file=sys.stderr if len(argv) != 2 else sys.stdout)
        return 0 if len(argv) == 2 else 2
    lines = probes(argv[1])
    with open(argv[2], 'w') as f:
        f.write('\n'.join(lines) + '\n')
    print(lines[0].lstrip('# '))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
