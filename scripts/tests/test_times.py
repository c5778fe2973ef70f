#!/usr/bin/env python3
"""Time accounting: what the guest writes (selftests/guest/run-tests, /init,
printk's stamps) read back into summary.json, and the gate's view of a
guest's time.  Made-up streams, no kernel."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, 'scripts'))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ktap_report  # noqa: E402
from results import Summary, Verdict, load_summary, save_summary  # noqa: E402
from test_gate_reports import gate  # noqa: E402

KTAP = '''KTAP version 1
1..2
    TAP version 13
    1..2
    #  RUN           f.v.one ...
    # fusegate-time: f.v.one 0.30
    ok 1 f.v.one
    # fusegate-time: f.v.two 2.50
    ok 2 f.v.two
# fusegate-time: fuse_a 2.90
ok 1 fuse_a
    TAP version 13
    1..1
        KTAP version 1
        # Subtest: bindfs
        1..2
    # mount: 1.23 s
        ok 1 mount
    # fio: 10.50 s
        ok 2 fio
    # fusegate-time: bindfs 12.00
    ok 1 bindfs
    # the real servers, from the host share to the last unmount: 13.00 s
# fusegate-time: fuse_real_servers 13.50
ok 2 fuse_real_servers
'''

CONSOLE = '''[    0.000000] Linux version 6.12
[    2.100000]     KTAP version 1
[    2.100000]     # Subtest: fuse_compound_stream
[    2.200000]     ok 1 a_case
[    2.600000] ok 1 fuse_compound_stream
[    2.700000]     # Subtest: fuse_handle
[    3.700000] ok 2 fuse_handle
FUSEGATE-BOOT-OK uptime=4.25
'''


class ReadTimes(unittest.TestCase):
    def test_programs_tests_and_steps(self):
        t = ktap_report.read_times(KTAP.splitlines(True))
        self.assertEqual(t['suites'], {'fuse_a': 2.9, 'fuse_real_servers': 13.5})
        self.assertEqual(t['tests']['fuse_a'], {'f.v.one': 0.3, 'f.v.two': 2.5})
        self.assertEqual(t['tests']['fuse_real_servers'], {'bindfs': 12.0})
        # a step belongs to the server named last, until that server's result
        self.assertEqual(t['steps']['fuse_real_servers'], {
            'bindfs.mount': 1.23, 'bindfs.fio': 10.5,
            'the real servers, from the host share to the last unmount': 13.0})

    def test_console_gives_boot_and_kunit_suites(self):
        with tempfile.NamedTemporaryFile('w', suffix='.log') as f:
            f.write(CONSOLE)
            f.flush()
            t = ktap_report.console_times(f.name)
        self.assertEqual(t['boot'], 4.25)
        self.assertEqual(t['suites'], {'fuse_compound_stream': 0.5, 'fuse_handle': 1.0})

    def test_run_tests_writes_what_read_times_reads(self):
        """The guest's driver, run here with busybox: its time lines parse."""
        with tempfile.TemporaryDirectory() as d:
            os.mkdir(os.path.join(d, 'tests'))
            prog = os.path.join(d, 'tests', 'fuse_x_test')
            with open(prog, 'w') as f:
                f.write('#!/bin/sh\necho "TAP version 13"\necho "1..1"\n'
                        'echo "#  RUN           g.one ..."\necho "ok 1 g.one"\n')
            os.chmod(prog, 0o755)
            driver = open(os.path.join(ROOT, 'selftests', 'guest', 'run-tests')).read()
            with open(os.path.join(d, 'run-tests'), 'w') as f:
                f.write(driver.replace('/tests/', d + '/tests/'))
            # the guest's tools are busybox's applets, awk among them
            bb = os.path.join(d, 'bin')
            os.mkdir(bb)
            for tool in ('sh', 'awk', 'sed', 'cat', 'ls', 'basename', 'wc', 'tr', 'setsid',
                         'echo', 'kill'):
                os.symlink(subprocess.run(['which', 'busybox'], capture_output=True,
                                          text=True).stdout.strip(), os.path.join(bb, tool))
            out = subprocess.run([os.path.join(bb, 'sh'), os.path.join(d, 'run-tests')],
                                 capture_output=True, text=True, check=True,
                                 env={'PATH': bb}).stdout
        t = ktap_report.read_times(out.splitlines(True))
        self.assertEqual(set(t['suites']), {'fuse_x'})
        self.assertEqual(set(t['tests']['fuse_x']), {'g.one'})
        self.assertIn('ok 1 fuse_x', out)

    def test_summary_keeps_times(self):
        s = Summary(Verdict.PASS, times={'boot': 3.0, 'suites': {'a': 1.0}})
        with tempfile.NamedTemporaryFile(suffix='.json') as f:
            save_summary(f.name, s)
            self.assertEqual(load_summary(f.name).times, s.times)


class GuestStopped(unittest.TestCase):
    def test_a_stopped_guest_fails_its_power_off_case(self):
        with tempfile.TemporaryDirectory() as d:
            ktap = os.path.join(d, 'k.ktap')
            console = os.path.join(d, 'console.log')
            with open(ktap, 'w') as f:
                f.write('KTAP version 1\n1..1\n# fusegate-time: fuse_a 1.00\nok 1 fuse_a\n')
            with open(console, 'w') as f:
                f.write('FUSEGATE-TESTS-DONE rc=0\nINFO: task sync:1 blocked\n')
            js = os.path.join(d, 's.json')
            # kunit.py's parser, from the tree the gate prepares
            kunit_dir = os.path.join(os.environ.get('FUSEGATE_CACHE', '/var/cache/fusegate'),
                                     'trees', 'baseline', 'tools', 'testing', 'kunit')
            if not os.path.isdir(kunit_dir):
                self.skipTest("no prepared tree with kunit.py's parser")
            base = [sys.executable, os.path.join(ROOT, 'scripts', 'ktap_report.py'), ktap,
                    '--suite', 'selftests', '--console', console, '--json', js,
                    '--kunit-dir', kunit_dir]
            rc = subprocess.run(base, capture_output=True).returncode
            self.assertEqual(rc, 0)
            rc = subprocess.run(base + ['--guest-stopped', 'did not power off'],
                                capture_output=True).returncode
            self.assertEqual(rc, 1)
            s = load_summary(js)
            self.assertEqual(s.suites['selftests'][ktap_report.POWER_OFF_CASE].value, 'FAIL')
            self.assertIn('did not power off', s.log_of('selftests', ktap_report.POWER_OFF_CASE))


class GateTimes(unittest.TestCase):
    def test_slowest_tests_first_and_every_test_kept(self):
        st = Summary(Verdict.PASS, times={
            'boot': 4.0, 'guest': 100.0, 'suites': {'p': 9.0},
            'tests': {'p': {'t%d' % i: float(i) for i in range(30)}}})
        ku = Summary(Verdict.PASS, times={'suites': {'fuse_kunit': 1.5}})
        t = gate.guest_times({'selftests': st, 'kunit': ku})
        self.assertEqual(len(t['slowest_tests']), gate.SLOWEST)
        self.assertEqual(t['slowest_tests'][0], {'suite': 'p', 'test': 't29', 'seconds': 29.0})
        self.assertEqual(len(t['tests']), 30)
        self.assertEqual(t['kunit_suites'], {'fuse_kunit': 1.5})
        md = '\n'.join(gate.times_md({'patched': t}))
        self.assertIn('| KUnit | fuse_kunit | 1.50 |', md)
        self.assertIn('| p | t29 | 29.00 |', md)

    def test_reports_carry_the_times(self):
        st = Summary(Verdict.PASS, times={'boot': 4.0, 'tests': {'p': {'a': 1.0}}})
        t = {'base': gate.guest_times({'selftests': st, 'kunit': Summary(Verdict.PASS)},
                                      kept=True)}
        with tempfile.TemporaryDirectory() as d:
            gate.write_reports(d, 'title', 'PASS', None, None, [], {}, {}, {'base': 3}, {},
                               'now', {}, t)
            g = json.load(open(os.path.join(d, 'gate.json')))
            self.assertTrue(g['times']['base']['kept'])
            self.assertNotIn('tests', g['times']['base'])
            tj = json.load(open(os.path.join(d, 'timings.json')))
            self.assertEqual(tj['guests']['base']['tests'], {'p.a': 1.0})
            self.assertIn('## Where the time went', open(os.path.join(d, 'report.md')).read())


if __name__ == '__main__':
    unittest.main()
