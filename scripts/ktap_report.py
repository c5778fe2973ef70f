#!/usr/bin/env python3
"""Turn KTAP output and a guest console log into a verdict.

Reads a KTAP (or kselftest TAP) file, counts the leaf test cases per
top-level suite, scans the console log for kernel splats, prints a summary
table, and writes a JSON summary and a JUnit XML file.

Exit status: 0 pass, 1 test failure or splat, 3 infrastructure error (no
KTAP, no plan, plan and results disagree).
"""

import argparse
import json
import re
import sys
from xml.sax.saxutils import escape, quoteattr

EXIT_PASS, EXIT_FAIL, EXIT_INFRA = 0, 1, 3

RESULT = re.compile(r'^(?P<ok>ok|not ok) (?P<num>\d+)(?: -)? ?(?P<name>[^#]*?)\s*(?:#\s*(?P<directive>.*))?$')
PLAN = re.compile(r'^1\.\.(\d+)')

# What a kernel prints when something went wrong, whatever the tests said
SPLATS = [
    re.compile(r'WARNING: CPU: \d+ PID: \d+ at (?P<where>\S+) (?P<func>[\w.]+)'),
    re.compile(r'WARNING: (?!CPU: )'),     # lockdep and friends
    re.compile(r'suspicious RCU usage'),
    re.compile(r'kernel BUG at'),
    re.compile(r'\bBUG: '),
    re.compile(r'\bOops\b'),
    re.compile(r'general protection fault'),
    re.compile(r'Kernel panic'),
    re.compile(r'KASAN: '),
    re.compile(r'UBSAN: '),
    re.compile(r'KFENCE: '),
    re.compile(r'possible circular locking dependency'),
    re.compile(r'possible recursive locking'),
    re.compile(r'inconsistent lock state'),
    re.compile(r'list_(?:add|del) corruption'),
    re.compile(r'refcount_t: '),
    re.compile(r'INFO: task .* blocked for more than'),
    re.compile(r'RCU detected stall|rcu_sched self-detected stall'),
]


def parse_ktap(lines, default_suite):
    """Return (plan, top-level results count, {suite: {case: status}})."""
    suites = {}
    pending = []          # leaves seen below the next top-level result
    plan = None
    top_results = 0
    last_depth_result = {}
    started = False
    for raw in lines:
        line = raw.rstrip('\n')
        stripped = line.lstrip(' ')
        depth = (len(line) - len(stripped)) // 4
        if stripped.startswith(('KTAP version', 'TAP version')):
            started = True
            continue
        if not started:
            continue
        m = PLAN.match(stripped)
        if m and depth == 0 and plan is None:
            plan = int(m.group(1))
            continue
        m = RESULT.match(stripped)
        if not m:
            continue
        directive = (m.group('directive') or '').strip()
        if directive.upper().startswith('SKIP'):
            status = 'SKIP'
        elif m.group('ok') == 'ok':
            status = 'PASS'
        else:
            status = 'FAIL'
        name = m.group('name').strip() or 'test %s' % m.group('num')
        # a result with deeper results just before it is a group
        is_group = last_depth_result.get(depth + 1, False)
        last_depth_result[depth + 1] = False
        last_depth_result[depth] = True
        if depth == 0:
            top_results += 1
            if pending or is_group:
                cases = suites.setdefault(name, {})
                for case, st in pending:
                    cases[case] = st
                if not pending:
                    cases['(suite)'] = status
                elif status == 'FAIL' and all(st != 'FAIL' for _, st in pending):
                    # the suite failed without a failing case: a crash
                    cases['(suite result)'] = 'FAIL'
                pending = []
            else:
                suites.setdefault(default_suite, {})[name] = status
        elif not is_group:
            pending.append((name, status))
    if pending:
        # results after the last top-level line: the run was cut short
        cases = suites.setdefault('(unfinished)', {})
        for case, st in pending:
            cases[case] = st
    return plan, top_results, suites


def scan_splats(path, expected):
    found, tolerated = [], []
    try:
        text = open(path, errors='replace').read().splitlines()
    except OSError:
        return found, tolerated
    for line in text:
        for pat in SPLATS:
            m = pat.search(line)
            if not m:
                continue
            where = ''
            if 'where' in pat.groupindex:
                where = '%s:%s' % (re.sub(r':\d+$', '', m.group('where')), m.group('func').split('+')[0])
            if where and where in expected:
                tolerated.append(line.strip())
            else:
                found.append(line.strip())
            break
    return found, tolerated


def write_junit(path, suites, splats):
    out = ['<?xml version="1.0" encoding="UTF-8"?>', '<testsuites>']
    for suite, cases in suites.items():
        fails = sum(1 for s in cases.values() if s == 'FAIL')
        skips = sum(1 for s in cases.values() if s == 'SKIP')
        out.append('  <testsuite name=%s tests="%d" failures="%d" skipped="%d">'
                   % (quoteattr(suite), len(cases), fails, skips))
        for case, st in cases.items():
            out.append('    <testcase classname=%s name=%s>' % (quoteattr(suite), quoteattr(case)))
            if st == 'FAIL':
                out.append('      <failure message="failed"/>')
            elif st == 'SKIP':
                out.append('      <skipped/>')
            out.append('    </testcase>')
        out.append('  </testsuite>')
    if splats:
        out.append('  <testsuite name="kernel-log" tests="1" failures="1" skipped="0">')
        out.append('    <testcase classname="kernel-log" name="no splat in the guest log">')
        out.append('      <failure message=%s>%s</failure>'
                   % (quoteattr('%d kernel splat(s)' % len(splats)), escape('\n'.join(splats))))
        out.append('    </testcase>')
        out.append('  </testsuite>')
    out.append('</testsuites>')
    with open(path, 'w') as f:
        f.write('\n'.join(out) + '\n')


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('ktap', help='KTAP file')
    ap.add_argument('--console', help='guest console log to scan for splats')
    ap.add_argument('--expect-warn', action='append', default=[],
                    help='FILE:FUNCTION of a WARN the tests provoke on purpose')
    ap.add_argument('--suite', default='tests', help='suite name for top-level tests')
    ap.add_argument('--json', help='write the summary here')
    ap.add_argument('--junit', help='write JUnit XML here')
    ap.add_argument('--title', default='Results')
    ap.add_argument('--cut-short-by-crash', action='store_true',
                    help='the run ended early; with a splat in the console that is '
                    'a test failure, without one an infrastructure error')
    args = ap.parse_args()

    infra = None
    try:
        lines = open(args.ktap, errors='replace').readlines()
    except OSError as e:
        lines = []
        infra = 'no KTAP output (%s)' % e
    plan, top, suites = parse_ktap(lines, args.suite)
    if infra is None:
        if not any(l.lstrip().startswith(('KTAP version', 'TAP version')) for l in lines):
            infra = 'no KTAP output'
        elif plan is None:
            infra = 'no plan line in the KTAP output'
        elif plan != top:
            infra = 'plan announces %d results, %d reported' % (plan, top)
    splats, tolerated = ([], [])
    if args.console:
        splats, tolerated = scan_splats(args.console, set(args.expect_warn))

    totals = {'PASS': 0, 'FAIL': 0, 'SKIP': 0}
    rows = []
    for suite, cases in suites.items():
        c = {k: sum(1 for s in cases.values() if s == k) for k in totals}
        for k in totals:
            totals[k] += c[k]
        rows.append((suite, c['PASS'], c['FAIL'], c['SKIP']))

    if infra and splats and args.cut_short_by_crash:
        # the kernel died under the tests: that is the series' fault
        infra = None
        totals['FAIL'] += 1
        suites.setdefault(args.suite, {})['(run cut short by a kernel crash)'] = 'FAIL'
    if infra:
        verdict = 'INFRA'
    elif totals['FAIL'] or splats:
        verdict = 'FAIL'
    else:
        verdict = 'PASS'

    width = max([len(r[0]) for r in rows] + [len('suite'), len('total')])
    print()
    print('%s: %s' % (args.title, verdict))
    print('  %-*s %7s %7s %7s' % (width, 'suite', 'passed', 'failed', 'skipped'))
    print('  ' + '-' * (width + 24))
    for r in rows:
        print('  %-*s %7d %7d %7d' % (width, r[0], r[1], r[2], r[3]))
    print('  ' + '-' * (width + 24))
    print('  %-*s %7d %7d %7d' % (width, 'total', totals['PASS'], totals['FAIL'], totals['SKIP']))
    if tolerated:
        print('  %d warning(s) provoked on purpose by the tests (%s)'
              % (len(tolerated), ', '.join(args.expect_warn)))
    for s in splats:
        print('  KERNEL SPLAT: %s' % s)
    if infra:
        print('  INFRA ERROR: %s' % infra)
    for suite, cases in suites.items():
        for case, st in cases.items():
            if st == 'FAIL':
                print('  FAILED: %s: %s' % (suite, case))
    # the plain closing line CI systems read
    print('%d passed, %d failed, %d skipped' % (totals['PASS'], totals['FAIL'] + len(splats), totals['SKIP']))

    summary = {
        'verdict': verdict, 'infra_error': infra, 'totals': totals,
        'suites': suites, 'splats': splats, 'tolerated_warnings': tolerated,
    }
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(summary, f, indent=1)
    if args.junit:
        write_junit(args.junit, suites, splats)
    return {'PASS': EXIT_PASS, 'FAIL': EXIT_FAIL, 'INFRA': EXIT_INFRA}[verdict]


if __name__ == '__main__':
    sys.exit(main())
