#!/usr/bin/env python3
"""scripts/request_counts.py: the count lines of the KTAP stream, and the
per-opcode rule on the real servers' requests: more of any opcode, or
fewer of one that changes what the server sees, breaks it; the discovery
probe, what an answered compound replaced and a measured spread do not;
nothing counted is INFRA, never PASS."""

import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, 'scripts'))
import request_counts  # noqa: E402

PROBES = '        # fuse_request_probes: end=fuse_request_end forget=fuse_queue_forget ' \
    'interrupt=queue_interrupt\n'


def counts(*lines, probes=PROBES):
    """requests.json of count lines of bindfs ('WORKLOAD ops=... answers=...')."""
    out = [probes] if probes else []
    for line in lines:
        w, rest = line.split(' ', 1)
        if ' answers=' not in rest:
            rest += ' answers='
        ops = dict(p.split(':') for p in rest.split(' ')[0][4:].split(',') if p)
        out.append('        # fuse_requests: server=bindfs workload=%s total=%d lost=0 %s\n'
                   % (w, sum(int(n) for n in ops.values()), rest))
    return request_counts.parse(out)


def rule(base, patched, tol=None):
    return {r['workload']: r for r in request_counts.real_server_rule(
        base['servers'], patched['servers'], tol or {})}


# fio: LOOKUP, OPEN, WRITE, FSYNC, FLUSH, RELEASE, FORGET (no answer)
BASE = counts('fio ops=1:2,14:2,16:6,20:1,25:2,18:2,2:1 answers=1:0:1,1:-2:1,14:0:2,16:0:6,'
              '20:0:1,25:0:2,18:0:2',
              'script ops=1:5 answers=1:0:5')


class TestParse(unittest.TestCase):
    def test_a_line_gives_totals_opcodes_and_answers(self):
        fio = BASE['servers']['bindfs']['fio']
        self.assertEqual(fio['total'], 16)
        self.assertFalse(fio['lost'])
        self.assertEqual(fio['ops']['16'], 6)
        self.assertEqual(fio['answers']['1'], {'0': 1, '-2': 1})
        self.assertNotIn('2', fio['answers'])   # a FORGET has no answer
        self.assertTrue(BASE['probes'].startswith('end=fuse_request_end'))

    def test_other_lines_are_ignored(self):
        self.assertEqual(request_counts.parse(['ok 1 bindfs.mount', '# fuse_requests: x']),
                         {'probes': None, 'servers': {}})

    def test_a_refused_probe_is_the_last_word(self):
        c = request_counts.parse([PROBES, '# fuse_request_probes: unavailable: refused'])
        self.assertEqual(c['probes'], 'unavailable: refused')


class TestRule(unittest.TestCase):
    def test_same_counts_pass(self):
        self.assertEqual({r['status'] for r in rule(BASE, BASE).values()}, {'PASS'})

    def test_one_refused_compound_is_discovery(self):
        p = counts('fio ops=1:2,14:2,16:6,20:1,25:2,18:2,2:1,54:1 answers=54:-38:1',
                   'script ops=1:5 answers=1:0:5')
        r = rule(BASE, p)['fio']
        self.assertEqual(r['status'], 'PASS')
        self.assertIn('COMPOUND +1 refused (ENOSYS (-38)): discovery', r['detail'])

    def test_a_second_refusal_breaks_it(self):
        p = counts('fio ops=1:2,14:2,16:6,20:1,25:2,18:2,2:1,54:1 answers=54:-38:1',
                   'script ops=1:5,54:1 answers=54:-38:1')
        r = rule(BASE, p)
        self.assertEqual(r['script']['status'], 'FAIL')
        self.assertIn('COMPOUND +1', r['script']['detail'])
        self.assertIn('must not ask again', r['all']['detail'])

    def test_a_dropped_fsync_breaks_it(self):
        p = counts('fio ops=1:2,14:2,16:6,25:2,18:2,2:1', 'script ops=1:5 answers=1:0:5')
        r = rule(BASE, p)['fio']
        self.assertEqual(r['status'], 'FAIL')
        self.assertIn('FSYNC -1 (a dropped FSYNC', r['detail'])

    def test_a_getattr_with_every_open_breaks_it(self):
        p = counts('fio ops=1:2,3:2,14:2,16:6,20:1,25:2,18:2,2:1', 'script ops=1:5')
        r = rule(BASE, p)['fio']
        self.assertEqual(r['status'], 'FAIL')
        self.assertIn('GETATTR +2', r['detail'])

    def test_a_second_flush_breaks_it(self):
        p = counts('fio ops=1:2,14:2,16:6,20:1,25:4,18:2,2:1', 'script ops=1:5')
        self.assertIn('FLUSH +2', rule(BASE, p)['fio']['detail'])

    def test_a_dropped_forget_breaks_it(self):
        p = counts('fio ops=1:2,14:2,16:6,20:1,25:2,18:2', 'script ops=1:5')
        self.assertIn('FORGET -1', rule(BASE, p)['fio']['detail'])

    def test_fewer_forgets_with_as_many_fewer_lookups_pass(self):
        base = counts('fio ops=1:6,2:4')
        p = counts('fio ops=1:4,2:2')
        r = rule(base, p)['fio']
        self.assertEqual(r['status'], 'PASS', r['detail'])
        self.assertIn('FORGET -2: with 2 fewer lookups', r['detail'])
        p = counts('fio ops=1:5,2:2')
        self.assertIn('FORGET -2 (a dropped FORGET', rule(base, p)['fio']['detail'])

    def test_a_new_opcode_breaks_it(self):
        p = counts('fio ops=1:2,14:2,16:6,20:1,25:2,18:2,2:1,50:1', 'script ops=1:5')
        self.assertIn('SYNCFS +1', rule(BASE, p)['fio']['detail'])

    def test_fewer_reads_or_lookups_are_a_saving(self):
        p = counts('fio ops=14:2,16:6,20:1,25:2,18:2,2:1', 'script ops=1:3')
        self.assertEqual({r['status'] for r in rule(BASE, p).values()}, {'PASS'})

    def test_an_answered_compound_replaces_its_open(self):
        p = counts('fio ops=1:2,54:2,16:6,20:1,25:2,18:2,2:1 answers=54:0:2', 'script ops=1:5')
        r = rule(BASE, p)['fio']
        self.assertEqual(r['status'], 'PASS', r['detail'])
        self.assertIn('OPEN -2: replaced', r['detail'])

    def test_an_answered_compound_replaces_no_more_than_it_stands_for(self):
        # two compounds, two OPENs gone, but also the FLUSHes
        p = counts('fio ops=1:2,54:2,16:6,20:1,18:2,2:1 answers=54:0:2', 'script ops=1:5')
        self.assertIn('FLUSH -2', rule(BASE, p)['fio']['detail'])
        # three compounds where two OPENs went
        p = counts('fio ops=1:2,54:3,16:6,20:1,25:2,18:2,2:1 answers=54:0:3', 'script ops=1:5')
        self.assertIn('COMPOUND +3', rule(BASE, p)['fio']['detail'])

    def test_a_measured_spread_is_allowed_and_no_more(self):
        tol = {('bindfs', 'script', '1'): 2}
        p = counts('fio ops=1:2,14:2,16:6,20:1,25:2,18:2,2:1', 'script ops=1:7')
        self.assertEqual(rule(BASE, p, tol)['script']['status'], 'PASS')
        p = counts('fio ops=1:2,14:2,16:6,20:1,25:2,18:2,2:1', 'script ops=1:8')
        self.assertEqual(rule(BASE, p, tol)['script']['status'], 'FAIL')

    def test_timeout_driven_excess_is_judged_with_the_rerun(self):
        again = counts('fio ops=1:2,14:2,16:6,20:1,25:2,18:2,2:1', 'script ops=1:5')
        first = counts('fio ops=1:2,14:2,16:6,20:1,25:2,18:2,2:1', 'script ops=1:9')
        tol = {('bindfs', 'script', '1'): 1}
        r = {x['workload']: x for x in request_counts.real_server_rule(
            BASE['servers'], first['servers'], tol)}
        self.assertEqual((r['script']['status'], r['script']['timed']), ('FAIL', True))
        r = {x['workload']: x for x in request_counts.real_server_rule(
            BASE['servers'], first['servers'], tol, rerun=again['servers'])}
        self.assertEqual(r['script']['status'], 'PASS')
        self.assertIn('not reproduced', r['script']['detail'])
        r = {x['workload']: x for x in request_counts.real_server_rule(
            BASE['servers'], first['servers'], tol, rerun=first['servers'])}
        self.assertEqual(r['script']['status'], 'FAIL')
        self.assertIn('the rerun too', r['script']['detail'])

    def test_an_excess_far_past_the_spread_is_not_judged_with_the_rerun(self):
        tol = {('bindfs', 'script', '1'): 1}
        again = counts('fio ops=1:2,14:2,16:6,20:1,25:2,18:2,2:1', 'script ops=1:5')
        near = counts('fio ops=1:2,14:2,16:6,20:1,25:2,18:2,2:1', 'script ops=1:10')
        far = counts('fio ops=1:2,14:2,16:6,20:1,25:2,18:2,2:1', 'script ops=1:11')
        for first, want in ((near, 'PASS'), (far, 'FAIL')):
            r = {x['workload']: x for x in request_counts.real_server_rule(
                BASE['servers'], first['servers'], tol, rerun=again['servers'])}
            self.assertEqual(r['script']['status'], want)

    def test_an_excess_where_nothing_varied_is_judged_with_the_rerun_up_to_the_bound(self):
        again = counts('fio ops=1:2,14:2,16:6,20:1,25:2,18:2,2:1', 'script ops=1:5')
        for n, want in ((9, 'PASS'), (10, 'FAIL')):
            first = counts('fio ops=1:2,14:2,16:6,20:1,25:2,18:2,2:1', 'script ops=1:%d' % n)
            r = {x['workload']: x for x in request_counts.real_server_rule(
                BASE['servers'], first['servers'], {}, rerun=again['servers'])}
            self.assertEqual(r['script']['status'], want)

    def test_the_rule_refuses_what_a_compound_cannot_stand_for(self):
        base = counts('fio ops=14:2,35:2,9:1')
        # one answered compound: an OPEN gone is replaced; CREATE and MKDIR are not
        p = counts('fio ops=14:1,54:1 answers=54:0:1')
        d = rule(base, p)['fio']['detail']
        self.assertIn('OPEN -1: replaced', d)
        self.assertIn('CREATE -2 (a dropped CREATE', d)
        self.assertIn('MKDIR -1 (a dropped MKDIR', d)

    def test_forgets_dropped_with_lookups_replaced_by_handles_fail(self):
        base = counts('fio ops=1:3,2:3')
        p = counts('fio ops=55:3,52:3 answers=55:0:3,52:0:3')
        self.assertIn('FORGET -3 (a dropped FORGET', rule(base, p)['fio']['detail'])

    def test_eopnotsupp_and_the_kernels_own_errors_are_no_refusal(self):
        p = counts('fio ops=1:2,14:2,16:6,20:1,25:2,18:2,2:1,54:2 answers=54:-95:1,54:-107:1',
                   'script ops=1:5')
        rows = request_counts.real_server_rule(BASE['servers'], p['servers'], {})
        self.assertFalse([r for r in rows if r['workload'] == 'all'])

    def test_what_timeouts_do_not_drive_is_not_judged_with_the_rerun(self):
        # a dropped FSYNC stays a failure, whatever comes with it
        first = counts('fio ops=1:3,14:2,16:6,25:2,18:2,2:1', 'script ops=1:5')
        r = {x['workload']: x for x in request_counts.real_server_rule(
            BASE['servers'], first['servers'], {}, rerun=BASE['servers'])}
        self.assertEqual((r['fio']['status'], r['fio']['timed']), ('FAIL', False))

    def test_a_workload_counted_only_on_the_base_fails(self):
        p = counts('fio ops=1:2,14:2,16:6,20:1,25:2,18:2,2:1')
        self.assertEqual(rule(BASE, p)['script']['status'], 'FAIL')

    def test_the_table_names_the_opcodes_that_differ(self):
        p = counts('fio ops=1:2,14:2,16:6,20:1,25:2,18:2,2:1,54:1 answers=54:-38:1',
                   'script ops=1:5')
        table = '\n'.join(request_counts.table(BASE['servers'], p['servers']))
        self.assertIn('| bindfs | fio | 16 | 17 | COMPOUND +1 | PASS', table)


class TestUnjudged(unittest.TestCase):
    def test_counts_on_both_are_judged(self):
        self.assertIsNone(request_counts.unjudged(BASE, BASE))

    def test_no_counts_with_the_series_is_infra(self):
        none = counts(probes='# fuse_request_probes: unavailable: no fuse_request_end\n')
        self.assertIn('unavailable', request_counts.unjudged(BASE, none))
        self.assertIn('counted no requests', request_counts.unjudged(BASE, counts()))

    def test_forgets_not_countable_are_infra(self):
        c = counts('fio ops=1:2', probes='# fuse_request_probes: end=fuse_request_end '
                   'forget=none interrupt=queue_interrupt\n')
        self.assertIn('FORGET', request_counts.unjudged(BASE, c))

    def test_lost_events_are_infra(self):
        lost = request_counts.parse([PROBES, '# fuse_requests: server=bindfs workload=fio '
                                     'total=3 lost=1 ops=16:3 answers=16:0:3'])
        self.assertIn('overflowed', request_counts.unjudged(BASE, lost))

    def test_no_real_servers_on_either_is_not_judged_here(self):
        self.assertIsNone(request_counts.unjudged(request_counts.load('/nonexistent'),
                                                  request_counts.load('/nonexistent')))


class TestAnswers(unittest.TestCase):
    def test_what_the_kernel_sent_and_what_was_probed(self):
        p = counts('fio ops=14:2,54:1 answers=54:-38:1,14:0:2')
        p['probed'] = request_counts.parse([
            '# fuse_probe: server=bindfs init=0 lookup_handle_flag=0 export_support=1 compound=-38 '
            'lookup_handle=-38 mkobj_handle=none',
            '# fuse_probe: server=rclone unprobed: exit 1'])['probed']
        md = '\n'.join(request_counts.answers(p, {'date': '2026-12-07', 'kernel': 'x'}))
        self.assertIn('Measured 2026-12-07: kernel: x.', md)
        self.assertIn('| bindfs | - | ENOSYS (-38) x1 | ENOSYS (-38) | ENOSYS (-38) | '
                      'no answer in 10 s | not accepted | set |', md)
        self.assertIn('| rclone | - | not in the run | could not be probed: exit 1 |', md)


class TestReadme(unittest.TestCase):
    def test_the_readme_table_is_the_committed_reference(self):
        ref = os.path.join(ROOT, 'docs', 'real-servers-answers.json')
        readme = os.path.join(ROOT, 'README.md')
        self.assertEqual(request_counts.update_readme(readme, request_counts.load(ref)),
                         open(readme).read(),
                         'run: scripts/request_counts.py readme docs/real-servers-answers.json')


class TestTolerances(unittest.TestCase):
    def test_only_what_varies(self):
        a = counts('fio ops=1:2,14:2', 'script ops=1:5')
        b = counts('fio ops=1:4,14:2', 'script ops=1:5')
        self.assertEqual(request_counts.tolerances([a, b]),
                         {'spread': {'bindfs': {'fio': {'1': 2}}}})


if __name__ == '__main__':
    unittest.main()
