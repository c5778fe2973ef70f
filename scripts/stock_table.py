#!/usr/bin/env python3
"""The table of stock checks (docs/stock-checks.md) against the selftests.

Every row names a check of stock 6.12 that a server can reach; the
selftests of selftests/filesystems/fuse_compound/fuse_stock_*_test.c name
each fixture variant (or test) after the row it holds.  This script
finds, for every row, the tests named after it:

  scripts/stock_table.py check     every row has a test (but the rows whose
                                   notes call the mutant equivalent); exit 1
                                   naming the rows without one
  scripts/stock_table.py update    rewrite the table's 'selftest' column
  scripts/stock_table.py counts    rows, tests, mutants

A row is matched by its name with '-' made '_': the variant
'reply_error_too_negative' and its boundary cases
('reply_error_too_negative_int_min') belong to row
'reply-error-too-negative'.
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = os.path.join(ROOT, 'docs', 'stock-checks.md')
TESTS = os.path.join(ROOT, 'selftests', 'filesystems', 'fuse_compound')
COLUMN = 'selftest'


def rows(lines):
    """(index, cells) of every table row with a `name` in its first cell."""
    for i, line in enumerate(lines):
        cells = line.rstrip('\n').split('|')[1:-1]
        if cells and re.fullmatch(r'\s*`[a-z0-9-]+`\s*', cells[0]):
            yield i, [c.strip() for c in cells]


def test_names():
    """{name: [file: fixture.name]} of every variant and test of the stock programs."""
    found = {}
    for f in sorted(os.listdir(TESTS)):
        if not (f.startswith('fuse_stock_') and f.endswith('_test.c')):
            continue
        text = open(os.path.join(TESTS, f)).read()
        for m in re.finditer(r'^(FIXTURE_VARIANT_ADD|TEST_F)\((\w+),\s*(\w+)\)', text, re.M):
            found.setdefault(m.group(3), []).append('%s: %s.%s' % (f, m.group(2), m.group(3)))
    return found


def match(name, tests):
    """The tests named after row @name: exactly, or with a suffix."""
    key = name.replace('-', '_')
    return sorted(t for n, ts in tests.items() if n == key or n.startswith(key + '_')
                  for t in ts)


def main(argv):
    if len(argv) != 2 or argv[1] not in ('check', 'update', 'counts'):
        print(__doc__, file=sys.stderr)
        return 2
    lines = open(TABLE).readlines()
    tests = test_names()
    table = list(rows(lines))
    names = {cells[0].strip('`') for _, cells in table}
    if argv[1] == 'counts':
        matched = sum(1 for _, c in table if match(c[0].strip('`'), tests))
        mutants = sum(1 for _, c in table if any('`s/' in x for x in c))
        print('rows %d, rows with a test %d, test variants %d, mutants %d' % (
            len(table), matched, sum(len(v) for v in tests.values()), mutants))
        return 0
    if argv[1] == 'check':
        # a row marked equivalent has no input that tells the mutant apart
        missing = [c[0] for _, c in table if not match(c[0].strip('`'), tests)
                   and 'equivalent' not in c[6].lower()]
        keys = {n.replace('-', '_') for n in names}
        orphans = sorted(t for n, ts in tests.items()
                         if not any(n == k or n.startswith(k + '_') for k in keys)
                         for t in ts)
        for m in missing:
            print('row without a test: %s' % m)
        # controls and test bodies shared by a fixture's variants need no row
        print('%d rows, %d without a test; %d variants or tests beside them '
              '(controls, shared bodies)' % (len(table), len(missing), len(orphans)))
        return 1 if missing else 0
    # update: the last column is the selftest column (added if absent)
    out = list(lines)
    for i, line in enumerate(lines):
        if line.startswith('| name |') and COLUMN not in line:
            out[i] = line.rstrip('\n') + ' %s |\n' % COLUMN
            out[i + 1] = lines[i + 1].rstrip('\n') + '---|\n'
    for i, cells in table:
        t = match(cells[0].strip('`'), tests)
        cell = '<br>'.join('`%s`' % x.split(': ', 1)[1] for x in t) or 'no test'
        header = next(lines[j] for j in range(i, -1, -1) if lines[j].startswith('| name |'))
        has_col = COLUMN in header
        parts = out[i].rstrip('\n').split('|')
        if has_col:
            parts[-2] = ' %s ' % cell
            out[i] = '|'.join(parts) + '\n'
        else:
            out[i] = out[i].rstrip('\n') + ' %s |\n' % cell
    open(TABLE, 'w').write(''.join(out))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
