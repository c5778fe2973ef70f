#!/usr/bin/env python3
"""scripts/fuzz_report.py: a run with a splat fails and names the reply to
replay up to (of every fuzzer run side by side); a leak through FUSE
fails; a run cut short without a splat fails; a clean finished run
passes.  Only splats after boot count (KUnit's expected warnings come
before it)."""

import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import fuzz_report  # noqa: E402

START = 'fuzz: seed 7, 30000 replies, 50% mutated\n'
LAST = START + 'fuzz: 30000 replies, 1500 compound, 15000 mutated, 11000 refused, 3700 spliced, 2 remounts\n'


class FuzzReport(unittest.TestCase):
    def run_report(self, console, out):
        d = tempfile.mkdtemp()
        with open(os.path.join(d, 'console.log'), 'w') as f:
            f.write(console)
        with open(os.path.join(d, 'fuzz.out'), 'w') as f:
            f.write(out)
        with open(os.devnull, 'w') as null:
            stdout, sys.stdout = sys.stdout, null
            try:
                rc = fuzz_report.report(d, 7, 50, 0)
            finally:
                sys.stdout = stdout
        return rc, json.load(open(os.path.join(d, 'summary.json')))

    def test_a_clean_finished_run_passes_with_its_figures(self):
        rc, s = self.run_report(
            'WARNING: CPU: 0 PID: 1 at fs/fuse/dev.c:99 kunit_thing+0x1\n'
            'FUSEGATE-BOOT-OK\nfuzz: seed 7 reply 0\n', 'fuzz: bitflip 10\n' + LAST)
        self.assertEqual(0, rc)
        self.assertEqual([], s['splats'])
        self.assertEqual(30000, s['replies'])
        self.assertEqual(1500, s['compound'])
        self.assertIsNone(s['replay'])

    def test_a_splat_fails_and_is_placed_after_the_last_mark_before_it(self):
        rc, s = self.run_report(
            'FUSEGATE-BOOT-OK\nfuzz: seed 7 reply 0\nfuzz: seed 7 reply 1000\n'
            'fuzz: seed 7 reply 2000\nBUG: KASAN: slab-out-of-bounds in parse_dirfile\n'
            'fuzz: seed 7 reply 3000\n', LAST)
        self.assertEqual(1, rc)
        self.assertEqual(1, len(s['splats']))
        self.assertEqual('7:3000', s['replay'])

    def test_a_splat_names_where_each_fuzzer_side_by_side_stood(self):
        rc, s = self.run_report(
            'FUSEGATE-BOOT-OK\nfuzz: seed 7 reply 0\nfuzz: seed 8 reply 0\n'
            'fuzz: seed 7 reply 1000\nfuzz: seed 8 reply 1000\nfuzz: seed 8 reply 2000\n'
            'BUG: KASAN: use-after-free in fuse_dev_do_write\n', LAST)
        self.assertEqual(1, rc)
        self.assertEqual(['8:3000', '7:2000'], s['replay_any'])

    def test_a_leak_through_fuse_fails_a_run_without_splats(self):
        rc, s = self.run_report('FUSEGATE-BOOT-OK\nfuzz: seed 7 reply 0\n',
                                START + 'fuzz: 1 leaks through FUSE\n' + LAST[len(START):])
        self.assertEqual(1, rc)
        self.assertEqual(1, s['leaks'])
        rc, s = self.run_report('FUSEGATE-BOOT-OK\nfuzz: seed 7 reply 0\n',
                                START + 'fuzz: 0 leaks through FUSE\n' + LAST[len(START):])
        self.assertEqual(0, rc)
        self.assertEqual(0, s['leaks'])

    def test_a_leak_scan_that_failed_is_infra_not_a_pass(self):
        rc, s = self.run_report('FUSEGATE-BOOT-OK\nfuzz: seed 7 reply 0\n',
                                START + 'fuzz: the leak scan failed: Permission denied\n' +
                                LAST[len(START):])
        self.assertEqual(3, rc)
        self.assertIsNone(s['leaks'])

    def test_a_fuzzer_that_never_started_is_infra_not_a_failure(self):
        rc, s = self.run_report('FUSEGATE-BOOT-OK\n', 'fuse_fuzz: mount: No such device\n')
        self.assertEqual(3, rc)
        self.assertFalse(s['finished'])

    def test_a_run_cut_short_without_a_splat_fails(self):
        rc, s = self.run_report('FUSEGATE-BOOT-OK\nfuzz: seed 7 reply 0\n',
                                'fuzz: seed 7, 30000 replies, 50% mutated\n')
        self.assertEqual(1, rc)
        self.assertFalse(s['finished'])


if __name__ == '__main__':
    unittest.main()
