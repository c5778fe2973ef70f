#!/usr/bin/env python3
"""Generate one-change mutants of fs/fuse, and score a run of them.

  mutgen.py list --tree TREE [--built DIR] [--sample N --seed S]
  mutgen.py score TABLE [--triage FILE]

`list` reads the fs/fuse C files of a prepared tree and prints one mutant
a line, in the form scripts/mutation-check.sh runs:

    id|file|what|perl substitution (perl -0pi -e)

An id is file:function:operator:hash, the hash taken of the line's text
and the operator's detail, so it stays the same when the line moves.
The operators:

  negate        if (C)  ->  if (!(C)) (a condition over several lines
                becomes one line)
  never         if (C)  ->  if (0): the check never fires
  drop_or_K     if (A || B || ...)  ->  the K-th operand removed (also and)
  boundary_K    the K-th comparison of a line moved by one (< <=, > >=)
  errno         -EX -> -EIO (-EIO -> -EINVAL) in a return or assignment
  return_zero   return -EX;  ->  return 0;
  drop_call     a call of fuse_make_bad(), a FORGET or a RELEASE removed
  drop_mask     x & MASK  ->  x (a constant mask: CAPS, hex or octal;
                x &= MASK; removed): a value used without the mask
                stock applies to it; not on the line of an if or while
                (a condition's continuation lines are mutated)
  drop_bound_K  min(a, b)  ->  a or b (min_t, max, umin, clamp: one
                bound dropped): a value used unbounded
  always_allowed  capable(), ns_capable(), current_in_userns(),
                fuse_allow_current_process(), inode_owner_or_capable(),
                in_group_p()...  ->  true: a privilege check that passes
  drop_put      the release of a reference removed (iput, dput, fput,
                folio_put, put_page, path_put...; kfree and kvfree on an
                error path): a leak the books and the leak scans must see

`score` reads mutation-check.sh's table and prints the mutation score
with its 95% Wilson interval, each file's, and the survivors, split into
those the triage file already explains and new ones.
"""
import argparse
import hashlib
import math
import os
import random
import re
import sys

COND = re.compile(r'^(\s*(?:\} else )?(?:if|while) )\((.*)\)(\s*\{?)$')
FUNC_DECL = re.compile(r'^[A-Za-z_][\w\s\*]*?\b(\w+)\s*\(')
ERRNO = re.compile(r'-E[A-Z0-9]+\b')
RETURN_ERR = re.compile(r'^(\s*)return -E[A-Z0-9]+;$')
# a comparison operator that is not part of ->, <<, >> or <<=, >>=
COMPARE = re.compile(r'(?<![-<>=!])(<=|>=|<|>)(?![<>=])')
DROPPED_CALLS = ('fuse_make_bad', 'fuse_queue_forget', 'fuse_force_forget',
                 'fuse_sync_release', 'fuse_file_release', 'fuse_release_common',
                 'fuse_file_put')
BOUNDARY = {'<': '<=', '<=': '<', '>': '>=', '>=': '>'}
# x & MASK: a constant mask (CAPS, ~CAPS, hex, octal) after a binary &
MASK = re.compile(r'(?<=[\w)\]]) & (~?[A-Z][A-Z0-9_]*|0x[0-9a-fA-F]+|0[0-7]+)'
                  r'(?=\)|;|,| \||\s*$| \?| :)')
MASK_ASSIGN = re.compile(r'^\s*[\w.>\-\[\]]+ &= (~?[A-Z][A-Z0-9_]*|0x[0-9a-fA-F]+|0[0-7]+);$')
BOUNDS = ('min', 'max', 'min_t', 'max_t', 'umin', 'umax', 'clamp', 'clamp_t', 'clamp_val')
BOUND_CALL = re.compile(r'\b(%s)\(' % '|'.join(BOUNDS))
ALLOWED = ('capable', 'ns_capable', 'ns_capable_noaudit', 'has_capability_noaudit',
           'current_in_userns', 'fuse_allow_current_process', 'inode_owner_or_capable',
           'capable_wrt_inode_uidgid', 'in_group_p', 'vfsgid_in_group_p')
ALLOWED_CALL = re.compile(r'(?<![\w.>])(%s)\(' % '|'.join(ALLOWED))
PUTS = ('iput', 'dput', 'fput', 'folio_put', 'put_page', 'path_put', 'put_user_ns',
        'put_pid', 'fuse_conn_put', 'fuse_put_request', 'mntput', 'put_cred')
FREES = ('kfree', 'kvfree')
# a line that opens an error path: a label, or an if on an error
ERROR_PATH = re.compile(r'^\w+:\s*$|^\s*(?:\} else )?if \((?:!|.*(?:\berr\b|\bret\b|IS_ERR|< 0))')


def call_args(line, open_paren):
    """(arguments, index after the closing parenthesis) of the call whose
    '(' is at OPEN_PAREN in LINE, or None when it does not close there."""
    depth, start, args = 0, open_paren + 1, []
    for i in range(open_paren, len(line)):
        c = line[i]
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
            if depth == 0:
                args.append(line[start:i].strip())
                return args, i + 1
        elif c == ',' and depth == 1:
            args.append(line[start:i].strip())
            start = i + 1
    return None


def bound_alternatives(name, args):
    """What a call of min/max/clamp becomes with one bound dropped."""
    if name in ('min', 'max', 'umin', 'umax') and len(args) == 2:
        return ['(%s)' % args[1], '(%s)' % args[0]]
    if name in ('min_t', 'max_t') and len(args) == 3:
        return ['((%s)(%s))' % (args[0], args[2]), '((%s)(%s))' % (args[0], args[1])]
    if name in ('clamp', 'clamp_val') and len(args) == 3:
        return ['min(%s, %s)' % (args[0], args[2]), 'max(%s, %s)' % (args[0], args[1])]
    if name == 'clamp_t' and len(args) == 4:
        return ['min_t(%s, %s, %s)' % (args[0], args[1], args[3]),
                'max_t(%s, %s, %s)' % (args[0], args[1], args[2])]
    return []


def split_top(expr, op):
    """The operands of EXPR joined by OP at parenthesis depth 0."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(expr):
        c = expr[i]
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
            if depth < 0:
                return None
        elif depth == 0 and expr.startswith(op, i):
            parts.append(expr[start:i].strip())
            start = i + len(op)
            i += len(op)
            continue
        i += 1
    if depth:
        return None
    parts.append(expr[start:].strip())
    return parts


def balanced(expr):
    return split_top(expr, '\0') is not None


def functions(lines):
    """Yield (index, function name) for each line inside a function body."""
    name, last = None, None
    for i, line in enumerate(lines):
        m = FUNC_DECL.match(line)
        if m and not line.rstrip().endswith(';'):
            last = m.group(1)
        if line.startswith('{'):
            name = last
            continue
        if line.startswith('}'):
            name = None
            continue
        if name and not line.lstrip().startswith(('*', '/*', '//', '#')):
            yield i, name


def on_error_path(lines, i):
    """Whether line I is the body of an if on an error, or one of the
    first statements of a block of one or after a label."""
    if i and ERROR_PATH.match(lines[i - 1]):
        return True
    for j in range(i - 1, max(-1, i - 4), -1):
        text = lines[j].rstrip()
        if ERROR_PATH.match(text):
            return text.endswith(('{', ':'))
        if not text.endswith(';'):
            return False
    return False


def line_mutants(line, lines, i):
    """(operator, detail, new text of the line or None to remove it,
    lines the change spans) for line I."""
    out = []
    # a condition over several lines is joined into one: the mutant
    # replaces its lines by one line
    cspan, joined = 1, line
    if re.match(r'^\s*(?:\} else )?(?:if|while) \(', line) and not COND.match(line):
        while cspan < 6 and i + cspan < len(lines):
            joined += ' ' + lines[i + cspan].strip()
            cspan += 1
            if COND.match(joined) and balanced(COND.match(joined).group(2)):
                break
    m = COND.match(joined)
    if m and balanced(m.group(2)):
        head, cond, tail = m.groups()
        out.append(('negate', '', '%s(!(%s))%s' % (head, cond, tail), cspan))
        out.append(('never', '', '%s(0)%s' % (head, tail), cspan))
        for op, name in (('||', 'or'), ('&&', 'and')):
            parts = split_top(cond, op)
            if parts and len(parts) > 1:
                for k in range(len(parts)):
                    rest = (' %s ' % op).join(p for j, p in enumerate(parts) if j != k)
                    out.append(('drop_%s_%d' % (name, k + 1), parts[k],
                                '%s(%s)%s' % (head, rest, tail), cspan))
                break
    else:
        cspan, joined = 1, line
    if m or re.match(r'^\s*return\b', line):
        for k, c in enumerate(COMPARE.finditer(joined)):
            new = joined[:c.start()] + BOUNDARY[c.group(1)] + joined[c.end():]
            out.append(('boundary_%d' % (k + 1), c.group(1), new, cspan))
    stripped = line.strip()
    if stripped.startswith('return') or re.match(r'^\s*[\w.>\-\[\]]+ = -E', line):
        for k, e in enumerate(ERRNO.finditer(line)):
            swap = '-EINVAL' if e.group(0) == '-EIO' else '-EIO'
            out.append(('errno_%d' % (k + 1), e.group(0),
                        line[:e.start()] + swap + line[e.end():], 1))
    if RETURN_ERR.match(line):
        out.append(('return_zero', '', RETURN_ERR.sub(r'\1return 0;', line), 1))
    if not m:
        for k, mk in enumerate(MASK.finditer(line)):
            out.append(('drop_mask' if k == 0 else 'drop_mask_%d' % (k + 1), mk.group(1),
                        line[:mk.start()] + line[mk.end():], 1))
    if MASK_ASSIGN.match(line):
        out.append(('drop_mask', MASK_ASSIGN.match(line).group(1),
                    re.sub(r'\S.*', ';', line), 1))
    k = 0
    for c in BOUND_CALL.finditer(line):
        parsed = call_args(line, c.end() - 1)
        if not parsed:
            continue
        for alt in bound_alternatives(c.group(1), parsed[0]):
            k += 1
            out.append(('drop_bound_%d' % k, c.group(1),
                        line[:c.start()] + alt + line[parsed[1]:], 1))
    for k, c in enumerate(ALLOWED_CALL.finditer(line)):
        parsed = call_args(line, c.end() - 1)
        if parsed:
            out.append(('always_allowed' if k == 0 else 'always_allowed_%d' % (k + 1),
                        c.group(1), line[:c.start()] + 'true' + line[parsed[1]:], 1))
    call = re.match(r'^(\s*)(\w+)\(.*\);$', line)
    if call and (call.group(2) in PUTS or (
            call.group(2) in FREES and on_error_path(lines, i))):
        # an empty statement, not a removed line: the body of a braceless
        # if stays a body
        out.append(('drop_put', call.group(2), call.group(1) + ';', 1))
    call = re.match(r'^\s*(\w+)\(', line)
    if call and call.group(1) in DROPPED_CALLS:
        span = 1
        while not lines[i + span - 1].rstrip().endswith(';') and span < 4:
            span += 1
        if lines[i + span - 1].rstrip().endswith(';'):
            out.append(('drop_call', call.group(1), None, span))
    return out


def perl_quote(text):
    """TEXT as a perl regex that matches it literally."""
    return ''.join(c if c.isalnum() or c == '_' else
                   '\\n' if c == '\n' else '\\t' if c == '\t' else '\\' + c
                   for c in text)


def substitution(old, new, occurrence):
    """A perl -0 substitution replacing the OCCURRENCE-th whole-line match
    of OLD (one or several lines) by NEW (None: the lines go)."""
    if new is None:
        pattern, repl = '^%s\\n' % perl_quote(old), ''
    else:
        pattern, repl = '^%s$' % perl_quote(old), new
    return 's/%s/++$n == %d ? pack("H*", "%s") : $&/gme' % (
        pattern, occurrence, repl.encode().hex())


def apply(text, old, new, occurrence):
    """What substitution() does to TEXT, in Python (for the tests)."""
    if new is None:
        pattern, repl = '^%s\n' % re.escape(old), ''
    else:
        pattern, repl = '^%s$' % re.escape(old), new
    seen = [0]

    def one(m):
        seen[0] += 1
        return repl if seen[0] == occurrence else m.group(0)
    return re.sub(pattern, one, text, flags=re.M)


def file_mutants(path, rel):
    with open(path) as f:
        text = f.read()
    lines = text.split('\n')
    seen = {}
    for i, func in functions(lines):
        for op, detail, new, span in line_mutants(lines[i], lines, i):
            old = '\n'.join(lines[i:i + span])
            if new is None:
                before = text[:sum(len(x) + 1 for x in lines[:i])]
                occurrence = len(re.findall('^%s\n' % re.escape(old), before, re.M)) + 1
            else:
                before = '\n'.join(lines[:i])
                occurrence = len(re.findall('^%s$' % re.escape(old), before, re.M)) + 1 \
                    if i else 1
            # the id names the n-th such change in its function, not in
            # the file: it survives edits elsewhere in the file
            key = (func, old.strip(), op, detail)
            seen[key] = seen.get(key, 0) + 1
            digest = hashlib.sha1(('%s\0%s\0%s\0%d' % (old.strip(), op, detail, seen[key]))
                                  .encode()).hexdigest()[:8]
            mid = '%s:%s:%s:%s' % (os.path.basename(rel), func, op, digest)
            what = '%s %s in %s(): %s' % (op, detail, func, lines[i].strip()[:60])
            yield mid, rel, what.replace('|', '!').replace('  ', ' '), \
                substitution(old, new, occurrence), (old, new, occurrence)


def all_mutants(tree, built=None):
    fuse = os.path.join(tree, 'fs', 'fuse')
    for name in sorted(os.listdir(fuse)):
        if not name.endswith('.c'):
            continue
        if built is not None and not os.path.exists(
                os.path.join(built, 'fs', 'fuse', name[:-2] + '.o')):
            continue
        yield from file_mutants(os.path.join(fuse, name), 'fs/fuse/' + name)


def wilson(k, n, z=1.959964):
    if not n:
        return 0.0, 0.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def read_triage(path):
    """id -> (verdict, note) from the triage file's table rows."""
    known = {}
    if path and os.path.exists(path):
        for line in open(path):
            cells = [c.strip() for c in line.split('|')[1:-1]]
            if len(cells) >= 3 and cells[0].startswith('`'):
                known[cells[0].strip('`')] = (cells[1], cells[2])
    return known


def cmd_list(args):
    mutants = list(all_mutants(args.tree, args.built))
    if args.sample:
        rng = random.Random(args.seed)
        mutants = rng.sample(mutants, min(args.sample, len(mutants)))
    if args.count:
        per = {}
        for m in mutants:
            per[m[1]] = per.get(m[1], 0) + 1
        for f in sorted(per):
            print('%-28s %d' % (f, per[f]))
        print('%-28s %d' % ('total', len(mutants)))
        return 0
    for mid, rel, what, subst, _ in mutants:
        print('%s|%s|%s|%s' % (mid, rel, what, subst))
    return 0


def cmd_score(args):
    known = read_triage(args.triage)
    per, survivors = {}, []
    for line in open(args.table):
        parts = line.split(None, 2)
        if len(parts) < 2 or parts[1] not in ('caught', 'SURVIVED'):
            continue
        mid, result = parts[0], parts[1]
        f = mid.split(':')[0]
        k, n = per.get(f, (0, 0))
        per[f] = (k + (result == 'caught'), n + 1)
        if result == 'SURVIVED':
            survivors.append(mid)
    k = sum(v[0] for v in per.values())
    n = sum(v[1] for v in per.values())
    lo, hi = wilson(k, n)
    print('mutation score: %d of %d killed, %.1f%% (95%% interval %.1f%% to %.1f%%)' % (
        k, n, 100.0 * k / n if n else 0.0, 100 * lo, 100 * hi))
    print('%-16s %7s %7s' % ('file', 'killed', 'run'))
    for f in sorted(per):
        print('%-16s %7d %7d' % (f, per[f][0], per[f][1]))
    new = [s for s in survivors if s not in known]
    for s in survivors:
        if s in known:
            print('survivor (triaged: %s) %s' % (known[s][0], s))
    for s in new:
        print('survivor (NEW) %s' % s)
    return 1 if new else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    li = sub.add_parser('list', help='print the mutants of a tree')
    li.add_argument('--tree', required=True, help='a prepared kernel tree')
    li.add_argument('--built', help='a build directory: only files it compiled')
    li.add_argument('--sample', type=int, default=0, help='a random sample of N')
    li.add_argument('--seed', type=int, default=1, help='the sample\'s seed (default 1)')
    li.add_argument('--count', action='store_true', help='count per file instead')
    sc = sub.add_parser('score', help='score a mutation-check.sh table')
    sc.add_argument('table')
    sc.add_argument('--triage', help='the triage file (docs/mutant-triage.md)')
    args = ap.parse_args()
    if args.cmd == 'list':
        if not os.path.isdir(os.path.join(args.tree, 'fs', 'fuse')):
            ap.error('not a kernel tree (no fs/fuse): %s' % args.tree)
        if args.sample < 0:
            ap.error('--sample must not be negative')
        return cmd_list(args)
    if not os.path.exists(args.table):
        ap.error('no such table: %s' % args.table)
    return cmd_score(args)


if __name__ == '__main__':
    sys.exit(main())
