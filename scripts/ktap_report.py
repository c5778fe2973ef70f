#!/usr/bin/env python3
"""Turn KTAP output and a guest console log into a runner's verdict.

Parses a KTAP (KUnit) or TAP 13 (kselftest) file with kunit.py's own
parser (tools/testing/kunit/kunit_parser.py of the kernel tree), counts
the leaf test cases per top-level suite, scans the console log for kernel
splats, prints a summary table, and writes summary.json (scripts/results.py)
and JUnit XML.

Exit status: 0 pass, 1 test failure or splat, 3 infrastructure error (no
KTAP, a plan and results that disagree, no test at all).
"""

import argparse
import io
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results import JUnitCase, Status, Summary, Verdict, save_summary, write_junit  # noqa: E402

EXIT = {Verdict.PASS: 0, Verdict.FAIL: 1, Verdict.INFRA: 3}

# What a kernel prints when something went wrong, whatever the tests said.
# Not kmemleak's "N new suspected memory leaks": the guest scans only when
# a test asks (fuse_stress, the fuzzer), and that test judges the objects
# whose allocation passed through FUSE; the rest of the kernel's suspects
# (boot-time objects, the detector's known false positives) are not ours.
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
    # an unmount that found inodes still referenced: a leaked reference
    re.compile(r'Busy inodes after unmount'),
]

LOG_LINES = 40      # the end of a case's log that goes into the results

# the case a guest that did not power off after its results fails
POWER_OFF_CASE = 'the_guest_powers_off_after_its_tests'

# Time, as the guest wrote it (selftests/guest/run-tests): "# fusegate-time:
# NAME SECONDS" before each program's result (no indent) and before each
# of its tests' results (4 spaces); a program's own timed steps ("# WHAT:
# S.CC s", the real servers') under the subtest named last.
TIME_LINE = re.compile(r'^(?P<indent> *)# fusegate-time: (?P<name>\S+) (?P<s>\d+(?:\.\d+)?)\s*$')
STEP_LINE = re.compile(r'^    # (?P<what>[^:]+): (?P<s>\d+\.\d\d) s\s*$')
SUBTEST_LINE = re.compile(r'^        # Subtest: (?P<name>\S+)\s*$')
# the console: printk's time stamp, a KUnit suite's start and its result
# (CONFIG_PRINTK_TIME), and /init's line once the kernel has booted
STAMPED = re.compile(r'^\[\s*(?P<t>\d+\.\d+)\] (?P<line>.*)$')
KUNIT_SUITE_START = re.compile(r'^    # Subtest: (?P<name>\S+)\s*$')
KUNIT_SUITE_END = re.compile(r'^(?:not )?ok \d+ (?P<name>\S+)')
BOOTED = re.compile(r'FUSEGATE-BOOT-OK uptime=(?P<t>\d+(?:\.\d+)?)')


def load_kunit_parser(kunit_dir):
    sys.path.insert(0, kunit_dir)
    try:
        import kunit_parser
    except ImportError as e:
        raise SystemExit('INFRA ERROR: kunit.py\'s parser not found in %s (%s)' % (kunit_dir, e))
    return kunit_parser


def leaf_status(kp, status):
    return {kp.TestStatus.SUCCESS: Status.PASS,
            kp.TestStatus.SKIPPED: Status.SKIP,
            kp.TestStatus.NO_TESTS: Status.SKIP}.get(status, Status.FAIL)


def flatten(kp, main, default_suite):
    """({suite: {case: Status}}, {suite: {case: log}}) of a parsed run.

    A top-level test with subtests is a suite whose cases are its leaves
    (a parameterised case gives 'case.param'); a top-level leaf is a case
    of default_suite, as kselftest writes them.
    """
    suites, logs = {}, {}

    def add(suite, case, test):
        suites.setdefault(suite, {})[case] = leaf_status(kp, test.status)
        logs.setdefault(suite, {})[case] = '\n'.join(test.log[-LOG_LINES:])

    def leaves(suite, test, prefix):
        for t in test.subtests:
            name = (prefix + '.' if prefix else '') + (t.name or 'test')
            if t.subtests:
                leaves(suite, t, name)
            else:
                add(suite, name, t)

    for top in main.subtests:
        if top.subtests:
            leaves(top.name, top, '')
            if (top.status in (kp.TestStatus.FAILURE, kp.TestStatus.TEST_CRASHED) and
                    Status.FAIL not in suites.get(top.name, {}).values()):
                # the suite failed without a failing case: a crash
                add(top.name, '(suite result)', top)
        else:
            add(default_suite, top.name or 'test', top)
    return suites, logs


def read_times(lines):
    """{'suites': {program: s}, 'tests': {program: {test: s}}, 'steps':
    {program: {step: s}}} of a selftest KTAP stream (run-tests' lines)."""
    suites, tests, steps = {}, {}, {}
    p_tests, p_steps, sub = {}, {}, None
    for line in lines:
        line = line.rstrip('\n')
        m = TIME_LINE.match(line)
        if m and m.group('indent') == '':
            name = m.group('name')
            suites[name] = float(m.group('s'))
            if p_tests:
                tests[name] = p_tests
            if p_steps:
                steps[name] = p_steps
            p_tests, p_steps, sub = {}, {}, None
        elif m and m.group('indent') == '    ':
            p_tests[m.group('name')] = float(m.group('s'))
        elif re.match(r'^    (?:not )?ok \d+ ', line):
            sub = None          # the subtest ended
        elif SUBTEST_LINE.match(line):
            sub = SUBTEST_LINE.match(line).group('name')
        elif STEP_LINE.match(line):
            m = STEP_LINE.match(line)
            p_steps[(sub + '.' if sub else '') + m.group('what')] = float(m.group('s'))
    return {'suites': suites, 'tests': tests, 'steps': steps}


def console_times(path):
    """{'boot': s, 'suites': {KUnit suite: s}} from a console log with
    printk time stamps; what it does not show is left out."""
    out, starts, suites = {}, {}, {}
    try:
        text = open(path, errors='replace').read().splitlines()
    except OSError:
        return out
    for raw in text:
        b = BOOTED.search(raw)
        if b:
            out['boot'] = float(b.group('t'))
        m = STAMPED.match(raw)
        if not m:
            continue
        t, line = float(m.group('t')), m.group('line')
        st = KUNIT_SUITE_START.match(line)
        if st:
            starts[st.group('name')] = t
            continue
        end = KUNIT_SUITE_END.match(line)
        if end and end.group('name') in starts:
            suites[end.group('name')] = round(t - starts.pop(end.group('name')), 2)
    if suites:
        out['suites'] = suites
    return out


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
                where = '%s:%s' % (re.sub(r':\d+$', '', m.group('where')),
                                   m.group('func').split('+')[0])
            if where and where in expected:
                tolerated.append(line.strip())
            else:
                found.append(line.strip())
            break
    return found, tolerated


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('ktap', help='KTAP file')
    ap.add_argument('--console', help='guest console log to scan for splats')
    ap.add_argument('--expect-warn', action='append', default=[],
                    help='FILE:FUNCTION of a WARN the tests provoke on purpose')
    ap.add_argument('--suite', default='tests', help='suite name for top-level tests')
    ap.add_argument('--kunit-dir', default='tools/testing/kunit',
                    help="directory of kunit.py's parser (default: the tree's)")
    ap.add_argument('--json', help='write the summary here')
    ap.add_argument('--junit', help='write JUnit XML here')
    ap.add_argument('--title', default='Results')
    ap.add_argument('--times-from', choices=('ktap', 'console'), default='ktap',
                    help="where the suites' times are: run-tests' lines in the KTAP "
                    "(selftests, the default) or printk's time stamps in --console (KUnit)")
    ap.add_argument('--guest-stopped', metavar='WHY',
                    help='the guest wrote its results but had to be stopped (WHY): '
                    'the case the_guest_powers_off_after_its_tests of --suite fails')
    ap.add_argument('--guest-seconds', type=float,
                    help='how long the guest ran, as the host measured it')
    ap.add_argument('--cut-short-by-crash', action='store_true',
                    help='the run ended early; with a splat in the console that is '
                    'a test failure, without one an infrastructure error')
    args = ap.parse_args()
    kp = load_kunit_parser(args.kunit_dir)

    infra = None
    try:
        lines = open(args.ktap, errors='replace').readlines()
    except OSError as e:
        lines = []
        infra = 'no KTAP output (%s)' % e
    # kunit.py's own account of the run, as it prints it, then ours
    parser_out = io.StringIO()
    kp.stdout._output = parser_out
    try:
        main_test = kp.parse_run_tests(lines)
    except ValueError as e:
        # kunit_parser reads past the end of a KTAP stream cut short in
        # the middle of a subtest (the guest hit its time limit): nothing
        # can be judged from it, and that is not a test failure
        main_test = None
        infra = infra or 'the KTAP output is cut short (%s)' % str(e).split(',')[0]
    sys.stdout.write(parser_out.getvalue())
    suites, logs = flatten(kp, main_test, args.suite) if main_test else ({}, {})
    if infra is None:
        if main_test.status == kp.TestStatus.FAILURE_TO_PARSE_TESTS:
            infra = 'no KTAP output'
        elif main_test.status == kp.TestStatus.NO_TESTS or not suites:
            infra = 'no test ran'
        elif main_test.counts.errors:
            errs = [l for l in parser_out.getvalue().splitlines() if '[ERROR]' in l]
            infra = 'the KTAP output does not add up: %s' % (
                re.sub(r'^.*\[ERROR\]\s*', '', errs[0]) if errs else
                '%d parse error(s)' % main_test.counts.errors)
    splats, tolerated = ([], [])
    if args.console:
        splats, tolerated = scan_splats(args.console, set(args.expect_warn))

    times = {}
    if args.console:
        times.update(console_times(args.console))
    if args.times_from == 'ktap':
        times.update({k: v for k, v in read_times(lines).items() if v})
    if args.guest_seconds is not None:
        times['guest'] = args.guest_seconds
    summary = Summary(verdict=Verdict.PASS, suites=suites, logs=logs, splats=splats,
                      tolerated_warnings=tolerated, times=times)
    if args.guest_stopped is not None and not infra:
        suites.setdefault(args.suite, {})[POWER_OFF_CASE] = Status.FAIL
        try:
            tail = open(args.console, errors='replace').read().splitlines()[-LOG_LINES:]
        except (OSError, TypeError):
            tail = []
        logs.setdefault(args.suite, {})[POWER_OFF_CASE] = '\n'.join(
            ['the guest %s; the console ends:' % args.guest_stopped] + tail)
    if infra and splats and args.cut_short_by_crash:
        # the kernel died under the tests: that is the series' fault
        infra = None
        suites.setdefault(args.suite, {})['(run cut short by a kernel crash)'] = Status.FAIL
    if infra:
        summary.verdict, summary.infra_error = Verdict.INFRA, infra
    elif summary.counts()[Status.FAIL] or splats:
        summary.verdict = Verdict.FAIL

    totals = summary.counts()
    rows = [(s, summary.counts(s)) for s in suites]
    width = max([len(r[0]) for r in rows] + [len('suite'), len('total')])
    print()
    print('%s: %s' % (args.title, summary.verdict.value))
    print('  %-*s %7s %7s %7s' % (width, 'suite', 'passed', 'failed', 'skipped'))
    print('  ' + '-' * (width + 24))
    for s, c in rows:
        print('  %-*s %7d %7d %7d' % (width, s, c[Status.PASS], c[Status.FAIL], c[Status.SKIP]))
    print('  ' + '-' * (width + 24))
    print('  %-*s %7d %7d %7d' % (width, 'total', totals[Status.PASS], totals[Status.FAIL],
                                  totals[Status.SKIP]))
    if tolerated:
        print('  %d warning(s) provoked on purpose by the tests (%s)'
              % (len(tolerated), ', '.join(args.expect_warn)))
    for s in splats:
        print('  KERNEL SPLAT: %s' % s)
    if infra:
        print('  INFRA ERROR: %s' % infra)
    for (suite, case), st in summary.cases().items():
        if st == Status.FAIL:
            print('  FAILED: %s: %s' % (suite, case))
    # the plain closing line CI systems read
    print('%d passed, %d failed, %d skipped' % (totals[Status.PASS],
                                                totals[Status.FAIL] + len(splats),
                                                totals[Status.SKIP]))

    if args.json:
        save_summary(args.json, summary)
    if args.junit:
        cases = [JUnitCase(s, c, st, log=summary.log_of(s, c))
                 for (s, c), st in summary.cases().items()]
        if splats:
            cases.append(JUnitCase('kernel-log', 'no splat in the guest log', Status.SPLAT,
                                   '%d kernel splat(s)' % len(splats), '\n'.join(splats)))
        write_junit(args.junit, args.title, cases)
    return EXIT[summary.verdict]


if __name__ == '__main__':
    sys.exit(main())
