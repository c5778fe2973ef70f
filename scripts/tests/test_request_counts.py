#!/usr/bin/env python3
"""scripts/request_counts.py and the real servers' rule of
bench/check_rules.py: the count lines of the KTAP stream, and a series
that sends more requests, or asks again after a refused compound, breaks
the rule while the discovery probe alone does not."""

import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, 'scripts'))
import request_counts  # noqa: E402


def counts(*lines, ends=True):
    """Count lines of bindfs; with ends, every request's end was traced."""
    return request_counts.parse(
        ['        # fuse_requests: server=bindfs workload=%s%s\n' % (l, ' ends=99999' if ends else '')
         for l in lines])


def rule(base, patched):
    return {r['workload']: r for r in request_counts.real_server_rule(base, patched)}


BASE = counts('fio total=10 lost=0 ops=1:2,14:2,16:6 errors=1:-2:1',
              'script total=5 lost=0 ops=1:5 errors=')


class TestParse(unittest.TestCase):
    def test_a_line_gives_totals_opcodes_and_errors(self):
        fio = BASE['bindfs']['fio']
        self.assertEqual(fio['total'], 10)
        self.assertFalse(fio['lost'])
        self.assertEqual(fio['ops'], {'1': 2, '14': 2, '16': 6})
        self.assertEqual(fio['errors'], {'1:-2': 1})
        self.assertEqual(BASE['bindfs']['script']['errors'], {})

    def test_other_lines_are_ignored(self):
        self.assertEqual(request_counts.parse(['ok 1 bindfs.mount', '# fuse_requests: x']), {})


class TestRule(unittest.TestCase):
    def test_same_counts_pass(self):
        self.assertEqual({r['status'] for r in rule(BASE, BASE).values()}, {'PASS'})

    def test_one_refused_compound_is_discovery(self):
        p = counts('fio total=11 lost=0 ops=1:2,14:2,16:6,54:1 errors=1:-2:1,54:-38:1',
                   'script total=5 lost=0 ops=1:5 errors=')
        self.assertEqual(rule(BASE, p)['fio']['status'], 'PASS')

    def test_a_second_refusal_breaks_it(self):
        p = counts('fio total=11 lost=0 ops=1:2,14:2,16:6,54:1 errors=54:-38:1',
                   'script total=5 lost=0 ops=1:4,54:1 errors=54:-38:1')
        r = rule(BASE, p)
        self.assertEqual(r['script']['status'], 'FAIL')
        self.assertIn('must not ask again', r['script']['detail'])

    def test_more_requests_break_it(self):
        p = counts('fio total=12 lost=0 ops=1:2,14:3,16:7 errors=',
                   'script total=5 lost=0 ops=1:5 errors=')
        r = rule(BASE, p)
        self.assertEqual(r['fio']['status'], 'FAIL')
        self.assertIn('2 request(s) more', r['fio']['detail'])

    def test_lookups_and_getattrs_are_shown_not_ruled(self):
        p = counts('fio total=14 lost=0 ops=1:4,3:2,14:2,16:6 errors=',
                   'script total=5 lost=0 ops=1:5 errors=')
        self.assertEqual(rule(BASE, p)['fio']['status'], 'PASS')
        self.assertIn('LOOKUP +2, GETATTR +2', '\n'.join(request_counts.table(BASE, p)))

    def test_a_server_that_runs_compounds_is_not_ruled(self):
        p = counts('fio total=30 lost=0 ops=54:20,16:10 errors=',
                   'script total=5 lost=0 ops=1:5 errors=')
        self.assertEqual({r['status'] for r in rule(BASE, p).values()}, {'SKIP'})

    def test_a_polling_workload_rules_its_compounds_not_its_total(self):
        base = counts('notify total=10 lost=0 ops=14:5,15:5 errors=')
        more = counts('notify total=14 lost=0 ops=14:7,15:7 errors=')
        self.assertEqual(rule(base, more)['notify']['status'], 'PASS')
        again = counts('notify total=14 lost=0 ops=14:6,15:6,54:2 errors=54:-38:2')
        self.assertEqual(rule(base, again)['notify']['status'], 'FAIL')

    def test_without_the_ends_a_compound_counts_as_refused(self):
        one = counts('fio total=11 lost=0 ops=1:2,14:2,16:6,54:1 errors=',
                     'script total=5 lost=0 ops=1:5 errors=', ends=False)
        self.assertEqual({r['status'] for r in rule(BASE, one).values()}, {'PASS'})
        two = counts('fio total=11 lost=0 ops=1:2,14:2,16:6,54:1 errors=',
                     'script total=6 lost=0 ops=1:5,54:1 errors=', ends=False)
        self.assertEqual(rule(BASE, two)['script']['status'], 'FAIL')

    def test_lost_events_are_not_judged(self):
        p = counts('fio total=30 lost=1 ops=16:30 errors=', 'script total=5 lost=0 ops=1:5 errors=')
        self.assertEqual(rule(BASE, p)['fio']['status'], 'SKIP')

    def test_the_table_names_the_opcodes_that_differ(self):
        p = counts('fio total=11 lost=0 ops=1:2,14:2,16:6,54:1 errors=54:-38:1',
                   'script total=5 lost=0 ops=1:5 errors=')
        table = '\n'.join(request_counts.table(BASE, p))
        self.assertIn('| bindfs | fio | 10 | 11 | COMPOUND +1 | PASS', table)


if __name__ == '__main__':
    unittest.main()
