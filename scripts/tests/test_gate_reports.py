#!/usr/bin/env python3
"""The gate's reports: the verdict table and the KCIDB JSON it writes, from
results made up here (no kernel, no guest)."""

import importlib.machinery
import importlib.util
import json
import os
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, 'scripts'))
from results import Status, Summary, Verdict  # noqa: E402


def load_gate():
    loader = importlib.machinery.SourceFileLoader('fusegate_gate', os.path.join(ROOT, 'fusegate'))
    spec = importlib.util.spec_from_loader('fusegate_gate', loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


gate = load_gate()


def summary(cases, splats=()):
    s = Summary(verdict=Verdict.PASS, splats=list(splats))
    for (suite, case), st in cases.items():
        s.suites.setdefault(suite, {})[case] = st
        s.logs.setdefault(suite, {})[case] = '# log of %s' % case
    return s


class Compare(unittest.TestCase):
    def test_verdicts(self):
        base = summary({('s', 'kept'): Status.PASS, ('s', 'broken'): Status.PASS,
                        ('s', 'gone'): Status.PASS, ('s', 'new'): Status.SKIP,
                        ('s', 'known'): Status.FAIL, ('s', 'flaky'): Status.PASS})
        patched = summary({('s', 'kept'): Status.PASS, ('s', 'broken'): Status.FAIL,
                           ('s', 'new'): Status.PASS, ('s', 'known'): Status.FAIL,
                           ('s', 'flaky'): Status.FAIL}, splats=['BUG: oops'])
        rerun = summary({('s', 'flaky'): Status.PASS, ('s', 'broken'): Status.FAIL})
        rows = {(r.suite, r.case): r.verdict for r in gate.compare('selftests', base, patched,
                                                                   rerun)}
        C = gate.Change
        self.assertEqual(rows[('s', 'kept')], C.SAME)
        self.assertEqual(rows[('s', 'broken')], C.REGRESSION)
        self.assertEqual(rows[('s', 'gone')], C.REGRESSION)
        self.assertEqual(rows[('s', 'new')], C.PROGRESS)
        self.assertEqual(rows[('s', 'known')], C.KNOWN_FAILURE)
        self.assertEqual(rows[('s', 'flaky')], C.FLAKY)
        self.assertEqual(rows[('kernel-log', 'BUG: oops')], C.REGRESSION)

    def test_rerun_takes_the_failed_programs_only(self):
        C, S, Row = gate.Change, Status, gate.Row
        rows = [Row('selftests', 'fuse_handles', 'a.b', S.PASS, S.FAIL, C.REGRESSION),
                Row('selftests', 'fuse_stock_io', 'c', S.PASS, S.FAIL, C.REGRESSION),
                Row('selftests', 'fuse_stock_attr', 'd', S.PASS, S.PASS, C.SAME),
                Row('selftests', 'fuse_discovery', 'e', S.SKIP, S.PASS, C.PROGRESS),
                Row('requests', 'fuse_real_servers_requests', 'f', S.PASS, S.FAIL,
                    C.REGRESSION)]
        self.assertEqual(gate.rerun_programs(rows),
                         ('fuse_handles_test', 'fuse_real_servers_test', 'fuse_stock_io_test'))

    def test_rerun_is_the_whole_guest_for_kunit_or_an_unknown_program(self):
        C, S, Row = gate.Change, Status, gate.Row
        sel = Row('selftests', 'fuse_handles', 'a', S.PASS, S.FAIL, C.REGRESSION)
        kunit = Row('kunit', 'fuse_compound_reply', 'x', S.PASS, S.FAIL, C.REGRESSION)
        unknown = Row('selftests', 'no_such_program', 'y', S.PASS, S.FAIL, C.REGRESSION)
        self.assertEqual(gate.rerun_programs([sel, kunit]), ())
        self.assertEqual(gate.rerun_programs([sel, unknown]), ())

    def test_only_cuts_the_selftests_to_the_programs_named(self):
        st = summary({('fuse_a', 'x'): Status.PASS, ('fuse_b', 'y'): Status.PASS})
        st.times = {'suites': {'fuse_a': 1.0, 'fuse_b': 2.0}, 'boot': 3.0}
        ku = summary({('kunit_suite', 'z'): Status.PASS})
        out = gate.restrict({'selftests': st, 'kunit': ku}, ('fuse_b_test',))
        self.assertEqual(set(out['selftests'].cases()), {('fuse_b', 'y')})
        self.assertEqual(out['selftests'].times, {'suites': {'fuse_b': 2.0}, 'boot': 3.0})
        self.assertIs(out['kunit'], ku)
        # a kept whole base against a patched run of one program: the
        # programs left out are not "a passing test disappeared"
        patched = summary({('fuse_b', 'y'): Status.PASS})
        rows = gate.compare('selftests', out['selftests'], patched, None)
        self.assertEqual({r.verdict for r in rows}, {gate.Change.SAME})
        self.assertIs(gate.restrict({'selftests': st}, ())['selftests'], st)

    def test_real_servers_that_all_skipped_judged_nothing(self):
        ktap = ('    ok 1 fuse_overlayfs # SKIP not asked for (FUSEGATE_REAL_SERVERS=quick)\n'
                "    ok 2 bindfs # SKIP no host share: the servers are not reachable (9p 'host')\n")
        skipped = summary({('fuse_real_servers', 'fuse_overlayfs'): Status.SKIP,
                           ('fuse_real_servers', 'bindfs.mount'): Status.SKIP})
        one_ran = summary({('fuse_real_servers', 'fuse_overlayfs'): Status.SKIP,
                           ('fuse_real_servers', 'bindfs.mount'): Status.PASS})
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, 'selftests.ktap'), 'w') as f:
                f.write(ktap)
            old = os.environ.get('FUSEGATE_REAL_SERVERS')
            try:
                os.environ.pop('FUSEGATE_REAL_SERVERS', None)
                why = gate.real_servers_unjudged(skipped, d)
                self.assertIn('no host share', why)
                self.assertIsNone(gate.real_servers_unjudged(one_ran, d))
                # not asked for, or not in this run: nothing to judge there
                self.assertIsNone(gate.real_servers_unjudged(summary({}), d))
                os.environ['FUSEGATE_REAL_SERVERS'] = '0'
                self.assertIsNone(gate.real_servers_unjudged(skipped, d))
            finally:
                if old is None:
                    os.environ.pop('FUSEGATE_REAL_SERVERS', None)
                else:
                    os.environ['FUSEGATE_REAL_SERVERS'] = old

    def test_a_base_failure_beside_the_series_is_rerun_alone(self):
        base = {'selftests': summary({('fuse_stock_io', 'a'): Status.FAIL,
                                      ('fuse_stock_io', 'b'): Status.PASS,
                                      ('fuse_stock_attr', 'c'): Status.PASS}),
                'kunit': summary({('k', 'x'): Status.PASS})}
        rerun = {'selftests': summary({('fuse_stock_io', 'a'): Status.PASS,
                                       ('fuse_stock_io', 'b'): Status.PASS}),
                 'kunit': summary({})}
        calls = []

        def fake_run_guest(tree, results, args, seed=None, only=()):
            calls.append(only)
            return rerun
        real, gate.run_guest = gate.run_guest, fake_run_guest
        try:
            args = type('A', (), {'only': []})()
            phases = {}
            out = gate.rerun_base_failures(None, base, '/nonexistent', args, phases)
        finally:
            gate.run_guest = real
        self.assertEqual(calls, [('fuse_stock_io_test',)])
        self.assertEqual(out['selftests'].suites['fuse_stock_io']['a'], Status.PASS)
        self.assertIn('base rerun', phases)
        # nothing failed: no rerun
        calls.clear()
        gate.run_guest = fake_run_guest
        try:
            gate.rerun_base_failures(None, {'selftests': summary({}), 'kunit': summary({})},
                                     '/nonexistent', args, {})
        finally:
            gate.run_guest = real
        self.assertEqual(calls, [])

    def test_gate_verdict_is_the_worst_blocking_change(self):
        C = gate.Change
        self.assertEqual(gate.gate_verdict({C.SAME, C.PROGRESS, C.KNOWN_FAILURE}), 'PASS')
        self.assertEqual(gate.gate_verdict({C.SAME, C.FLAKY}), 'FLAKY')
        self.assertEqual(gate.gate_verdict({C.FLAKY, C.REGRESSION}), 'REGRESSION')
        self.assertEqual(gate.gate_verdict(set()), 'PASS')


class Kcidb(unittest.TestCase):
    def test_structure(self):
        base = summary({('fuse_reply_rules', 'bad_open_reply.sub_unique_reordered.open'):
                        Status.SKIP})
        patched = summary({('fuse_reply_rules', 'bad_open_reply.sub_unique_reordered.open'):
                           Status.PASS,
                           ('fuse_compound_reply', 'compound_reply_validated.sub_unique: reordered'):
                           Status.FAIL})
        rows = gate.compare('selftests', base, patched, None)
        trees = {'base': gate.Tree('base', 'baseline', '/t/b', 'a' * 40, 'a' * 40, 0),
                 'patched': gate.Tree('patched', 'patched', '/t/p', 'b' * 40, 'a' * 40, 2,
                                      'cafe', '/s', ['fuse: one', 'fuse: two'])}
        builds = {r: {'start_time': '2026-01-01T00:00:00+00:00', 'duration': 10,
                      'status': 'PASS'} for r in ('base', 'patched')}
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, 'kcidb.json')
            gate.write_kcidb(path, 'title', trees, builds, rows, '2026-01-01T00:00:00+00:00')
            data = json.load(open(path))
        self.assertEqual(data['version']['major'], 5)
        self.assertEqual(len(data['checkouts']), 1)
        co = data['checkouts'][0]
        self.assertEqual(co['origin'], 'fusegate')
        self.assertEqual(co['git_commit_hash'], 'b' * 40)
        self.assertEqual(len(co['patchset_files']), 2)
        self.assertEqual(len(data['builds']), 2)
        for b in data['builds']:
            self.assertEqual(b['checkout_id'], co['id'])
            self.assertTrue(b['config_name'])
            self.assertIn(b['status'], ('PASS', 'FAIL', 'ERROR'))
        ids = {b['id'] for b in data['builds']}
        paths = set()
        for t in data['tests']:
            self.assertIn(t['build_id'], ids)
            self.assertIn(t['status'], ('PASS', 'FAIL', 'ERROR', 'SKIP', 'MISS'))
            self.assertRegex(t['path'], r'^[A-Za-z0-9_.-]+$')
            self.assertIn('log_excerpt', t)
            paths.add(t['path'])
        self.assertIn('fuse_reply_rules.bad_open_reply.sub_unique_reordered.open', paths)
        self.assertIn('fuse_compound_reply.compound_reply_validated.sub_unique_reordered', paths)


class Reports(unittest.TestCase):
    def test_a_blocking_case_carries_its_log(self):
        base = summary({('fuse_real_servers', 'bindfs.fio_seq'): Status.PASS,
                        ('fuse_real_servers', 'bindfs.mount'): Status.PASS})
        patched = summary({('fuse_real_servers', 'bindfs.fio_seq'): Status.FAIL,
                           ('fuse_real_servers', 'bindfs.mount'): Status.PASS})
        patched.logs['fuse_real_servers']['bindfs.fio_seq'] = (
            '        # task 101 (fio), state D:\n        # hung: not ended within its limit')
        rows = gate.compare('selftests', base, patched, None)
        trees = {'base': gate.Tree('base', 'baseline', '/t/b', 'a' * 40, 'a' * 40, 0),
                 'patched': gate.Tree('patched', 'patched', '/t/p', 'b' * 40, 'a' * 40, 1)}
        with tempfile.TemporaryDirectory() as d:
            gate.write_reports(d, 'title', 'REGRESSION', None, None, rows,
                               {'selftests': (base, patched)}, trees, {'total': 1}, {},
                               '2026-01-01T00:00:00+00:00')
            data = json.load(open(os.path.join(d, 'gate.json')))
            md = open(os.path.join(d, 'report.md')).read()
        logs = {t['test']: t.get('log') for t in data['tests']}
        self.assertIn('hung: not ended', logs['bindfs.fio_seq'])
        self.assertIsNone(logs['bindfs.mount'])
        self.assertIn('bindfs.fio_seq` (base PASS, with the series FAIL): '
                      '`hung: not ended within its limit`', md)


class Locks(unittest.TestCase):
    """Two gates at once: the tree locks last for the whole run, even where
    the caller keeps no reference to what lock_trees() returned."""

    def test_tree_lock_is_held_after_lock_trees_returns(self):
        import gc
        import subprocess
        with tempfile.TemporaryDirectory() as cache:
            old_cache, old_held = gate.CACHE, os.environ.get('FUSEGATE_LOCKS_HELD')
            gate.CACHE = cache
            try:
                gate.lock_trees(['patched'])     # the result dropped on purpose
                gc.collect()
                lock = os.path.join(cache, 'trees', 'patched.lock')
                r = subprocess.run(['flock', '-n', lock, 'true'])
                self.assertEqual(r.returncode, 1, 'another process could take the lock')
            finally:
                for _, f in gate.HELD_LOCKS:
                    f.close()
                gate.HELD_LOCKS.clear()
                gate.CACHE = old_cache
                if old_held is None:
                    os.environ.pop('FUSEGATE_LOCKS_HELD', None)
                else:
                    os.environ['FUSEGATE_LOCKS_HELD'] = old_held


if __name__ == '__main__':
    unittest.main()
