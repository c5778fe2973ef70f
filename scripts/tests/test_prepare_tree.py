#!/usr/bin/env python3
"""Regression tests of scripts/prepare-tree.sh: a prepared tree is reused
only when it is verified to carry the series, whatever state an earlier run
left it in, and every failure is an exit 3 (or 2) that says why.

They run on a tiny fake kernel tree (a Makefile and fs/fuse/) in a cache
of their own, so they take seconds:

  python3 -m unittest discover -s scripts/tests -p 'test_prepare_tree.py' -v
"""

import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PREPARE = os.path.join(ROOT, 'scripts', 'prepare-tree.sh')

DEV_C = ''.join('line %d of dev.c\n' % i for i in range(1, 41))


def git(cwd, *args, check=True):
    env = dict(os.environ, GIT_AUTHOR_NAME='t', GIT_AUTHOR_EMAIL='t@t', GIT_COMMITTER_NAME='t',
               GIT_COMMITTER_EMAIL='t@t', GIT_AUTHOR_DATE='2026-01-01T00:00:00Z',
               GIT_COMMITTER_DATE='2026-01-01T00:00:00Z')
    return subprocess.run(['git', '-C', cwd] + list(args), check=check, capture_output=True,
                          text=True, env=env).stdout


class PrepareTreeTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='fusegate-prep-test.')
        self.cache = os.path.join(self.tmp, 'cache')
        # the base: a fake kernel tree, and a git repository of it with a
        # series of three commits to turn into patches
        self.base = os.path.join(self.tmp, 'base')
        os.makedirs(os.path.join(self.base, 'fs', 'fuse'))
        self.write(self.base, 'Makefile', 'all:\n')
        self.write(self.base, 'fs/fuse/dev.c', DEV_C)
        self.repo = os.path.join(self.tmp, 'repo')
        shutil.copytree(self.base, self.repo)
        git(self.repo, 'init', '-q')
        git(self.repo, 'add', '-A')
        git(self.repo, 'commit', '-q', '-m', 'base')
        git(self.repo, 'tag', 'base')
        for i, (old, new) in enumerate([('line 5 ', 'LINE 5 '), ('line 20 ', 'LINE 20 '),
                                        ('line 35 ', 'LINE 35 ')], 1):
            p = os.path.join(self.repo, 'fs/fuse/dev.c')
            with open(p) as f:
                text = f.read()
            with open(p, 'w') as f:
                f.write(text.replace(old, new))
            git(self.repo, 'commit', '-q', '-am', 'fuse: change %d' % i)
        self.series = os.path.join(self.tmp, 'series')
        git(self.repo, 'format-patch', '-q', '-n', '--cover-letter', '-o', self.series,
            'base..HEAD')

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def write(self, top, rel, text):
        path = os.path.join(top, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as f:
            f.write(text)
        return path

    def prepare(self, *args, name='t', summary=None):
        env = dict(os.environ, FUSEGATE_CACHE=self.cache)
        env.pop('FUSEGATE_LOCKS_HELD', None)
        env.pop('INFRA_SUMMARY', None)
        if summary:
            env['INFRA_SUMMARY'] = summary
        return subprocess.run([PREPARE, '--tree', self.base, '--name', name] + list(args),
                              capture_output=True, text=True, env=env)

    def tree(self, name='t'):
        return os.path.join(self.cache, 'trees', name)

    def assert_carries_series(self, name='t'):
        t = self.tree(name)
        self.assertEqual(git(t, 'log', '--format=%s', 'fusegate-base..HEAD').split('\n')[:3],
                         ['fuse: change 3', 'fuse: change 2', 'fuse: change 1'])
        self.assertFalse(os.path.exists(os.path.join(t, '.git', 'rebase-apply')))
        self.assertEqual(git(t, 'status', '--porcelain', '--', '.', ':!build-*'), '')
        with open(os.path.join(t, 'fs/fuse/dev.c')) as f:
            text = f.read()
        for n in (5, 20, 35):
            self.assertIn('LINE %d of' % n, text)

    # --- the poisoned-tree class (issue 19) ---

    def test_patch_that_does_not_apply_leaves_the_base_and_names_the_patch(self):
        bad = sorted(os.listdir(self.series))[2]          # 0002-...
        path = os.path.join(self.series, bad)
        with open(path) as f:
            text = f.read()
        with open(path, 'w') as f:
            f.write(text.replace(' line 19 of dev.c', ' line 19 of dev.h'))
        r = self.prepare('--series', self.series)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn('INFRA ERROR', r.stderr)
        self.assertIn('patch 2 of 3', r.stderr)
        self.assertIn('fs/fuse/dev.c', r.stderr)
        t = self.tree()
        self.assertFalse(os.path.exists(os.path.join(t, '.git', 'rebase-apply')))
        self.assertEqual(git(t, 'rev-parse', 'HEAD'), git(t, 'rev-parse', 'fusegate-base'))

    def test_empty_patch_is_refused_then_a_good_series_is_applied(self):
        empty = os.path.join(self.tmp, 'empty-first')
        shutil.copytree(self.series, empty)
        first = sorted(p for p in os.listdir(empty) if p.startswith('0001'))[0]
        with open(os.path.join(empty, first)) as f:
            head = f.read().split('\n---\n')[0]
        with open(os.path.join(empty, first), 'w') as f:
            f.write(head + '\n')
        summary = os.path.join(self.tmp, 'summary.json')
        r = self.prepare('--series', empty, summary=summary)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn('empty patch', r.stderr)
        self.assertIn(first, r.stderr)
        # the gate reads the reason from the summary, not from the output
        with open(summary) as f:
            reason = json.load(f)['infra_error']
        self.assertIn('empty patch', reason)
        self.assertIn(first, reason)
        r = self.prepare('--series', self.series)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assert_carries_series()

    def test_tree_left_in_the_middle_of_git_am_is_reset_and_reapplied(self):
        self.assertEqual(self.prepare('--series', self.series).returncode, 0)
        t = self.tree()
        git(t, 'checkout', '-q', '-f', '--detach', 'fusegate-base')
        patches = sorted(os.path.join(self.series, p) for p in os.listdir(self.series)
                         if not p.startswith('0000'))
        # by hand: patch 1 twice stops mid-way, at the second
        git(t, 'am', '-q', patches[0], patches[0], check=False)
        self.assertTrue(os.path.exists(os.path.join(t, '.git', 'rebase-apply')))
        r = self.prepare('--series', self.series)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('in progress', r.stderr)
        self.assert_carries_series()

    def test_record_that_claims_a_series_head_does_not_carry_is_not_trusted(self):
        self.assertEqual(self.prepare('--series', self.series).returncode, 0)
        t = self.tree()
        git(t, 'checkout', '-q', '-f', '--detach', 'fusegate-base')
        # the record still names the series: it must not matter
        r = self.prepare('--series', self.series)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('0 commit(s) on fusegate-base, the series 3', r.stderr)
        self.assert_carries_series()

    def test_other_commits_with_the_same_count_are_replaced(self):
        self.assertEqual(self.prepare('--series', self.series).returncode, 0)
        t = self.tree()
        git(t, 'reset', '-q', '--hard', 'HEAD~1')
        self.write(t, 'fs/fuse/dev.c', DEV_C.replace('line 40 ', 'OTHER 40 '))
        git(t, 'commit', '-q', '-am', 'fuse: change 3')        # same subject, other diff
        r = self.prepare('--series', self.series)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('not the patches of this series', r.stderr)
        self.assert_carries_series()

    def test_changed_work_tree_is_restored(self):
        self.assertEqual(self.prepare('--series', self.series).returncode, 0)
        t = self.tree()
        self.write(t, 'fs/fuse/dev.c', 'edited\n')
        self.write(t, 'fs/fuse/stray.c', 'new\n')
        os.makedirs(os.path.join(t, 'build-guest'))
        self.write(t, 'build-guest/vmlinux', 'kept\n')
        r = self.prepare('--series', self.series)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('work tree differs', r.stderr)
        self.assert_carries_series()
        self.assertFalse(os.path.exists(os.path.join(t, 'fs/fuse/stray.c')))
        self.assertTrue(os.path.exists(os.path.join(t, 'build-guest/vmlinux')))

    def test_verified_tree_is_reused_without_touching_it(self):
        self.assertEqual(self.prepare('--series', self.series).returncode, 0)
        t = self.tree()
        before = os.stat(os.path.join(t, 'fs/fuse/dev.c')).st_mtime_ns
        r = self.prepare('--series', self.series)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('verified', r.stderr)
        self.assertEqual(os.stat(os.path.join(t, 'fs/fuse/dev.c')).st_mtime_ns, before)

    def test_series_sharing_commits_with_the_tree_rewrites_only_the_rest(self):
        self.assertEqual(self.prepare('--series', self.series).returncode, 0)
        t = self.tree()
        # one more patch, on another file
        self.write(self.repo, 'fs/fuse/file.c', 'file.c\n')
        git(self.repo, 'add', 'fs/fuse/file.c')
        git(self.repo, 'commit', '-q', '-m', 'fuse: change 4')
        longer = os.path.join(self.tmp, 'longer')
        git(self.repo, 'format-patch', '-q', '-n', '-o', longer, 'base..HEAD')
        before = os.stat(os.path.join(t, 'fs/fuse/dev.c')).st_mtime_ns
        r = self.prepare('--series', longer)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('keeping the 3 commit(s) it shares with the series', r.stderr)
        self.assertIn('applying 1 patch(es)', r.stderr)
        self.assertEqual(os.stat(os.path.join(t, 'fs/fuse/dev.c')).st_mtime_ns, before)
        self.assertEqual(git(t, 'rev-list', '--count', 'fusegate-base..HEAD').strip(), '4')
        # and back: the fourth commit goes, the three stay
        r = self.prepare('--series', self.series)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('keeping the 3 commit(s)', r.stderr)
        self.assert_carries_series()
        self.assertFalse(os.path.exists(os.path.join(t, 'fs/fuse/file.c')))

    # --- series forms and the range (issue 18) ---

    def test_range_of_a_repository(self):
        env = dict(os.environ, FUSEGATE_CACHE=self.cache)
        r = subprocess.run([PREPARE, '--tree', self.repo, '--range', 'base..HEAD', '--name', 't'],
                           capture_output=True, text=True, env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assert_carries_series()
        r = subprocess.run([PREPARE, '--tree', self.repo, '--range', 'base..HEAD', '--baseline',
                            '--name', 'b'], capture_output=True, text=True, env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        b = self.tree('b')
        self.assertEqual(git(b, 'rev-parse', 'HEAD'), git(b, 'rev-parse', 'fusegate-base'))
        self.assertNotIn('LINE 5', open(os.path.join(b, 'fs/fuse/dev.c')).read())

    # --- never a bare exit 1 ---

    def test_every_refusal_is_exit_2_or_3_with_a_reason(self):
        mbox = self.write(self.tmp, 'garbage.mbox', 'not a mail at all\n')
        cases = [
            (['--series', os.path.join(self.tmp, 'missing')], 2, 'does not exist'),
            (['--series', mbox], 3, 'INFRA ERROR'),
            (['--range', 'a..b'], 2, 'not a commit'),
            (['--version', 'x'], 2, 'positive number'),
            (['--bogus'], 2, 'unknown argument'),
        ]
        for args, rc, text in cases:
            with self.subTest(args=args):
                r = self.prepare(*args)
                self.assertEqual(r.returncode, rc, r.stderr)
                self.assertIn(text, r.stderr)

    def test_unexpected_failure_is_infra_naming_the_command(self):
        self.assertEqual(self.prepare('--series', self.series).returncode, 0)
        # a git whose patch-id breaks: a failure no code path expects
        bindir = os.path.join(self.tmp, 'bin')
        self.write(bindir, 'git', '#!/bin/sh\ncase "$*" in *patch-id*) exit 7 ;; esac\n'
                   'exec /usr/bin/git "$@"\n')
        os.chmod(os.path.join(bindir, 'git'), 0o755)
        env = dict(os.environ, FUSEGATE_CACHE=self.cache,
                   PATH=bindir + os.pathsep + os.environ['PATH'])
        env.pop('FUSEGATE_LOCKS_HELD', None)
        r = subprocess.run([PREPARE, '--tree', self.base, '--name', 't', '--series', self.series],
                           capture_output=True, text=True, env=env)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertRegex(r.stderr, r"INFRA ERROR: prepare-tree.sh: line \d+ \(in git_tree < "
                         r"series_patch_ids < .*\): .* failed \(exit 7\)")

    # --- two runs at once (issue 20) ---

    def test_second_run_on_a_tree_waits_for_the_first_and_says_so(self):
        self.assertEqual(self.prepare('--series', self.series).returncode, 0)
        lock = os.path.join(self.cache, 'trees', 't.lock')
        holder = subprocess.Popen(['flock', lock, 'sleep', '3'])
        try:
            time.sleep(0.5)         # only to let flock take the lock; the test waits on it
            t0 = time.time()
            r = self.prepare('--series', self.series)
            waited = time.time() - t0
        finally:
            holder.wait()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("tree 't' is in use", r.stderr)
        self.assertIn('after waiting', r.stderr)
        self.assertGreater(waited, 1)

    def test_two_runs_with_different_series_each_get_their_own(self):
        other = os.path.join(self.tmp, 'other')
        git(self.repo, 'format-patch', '-q', '-o', other, 'base..HEAD~2')
        results = {}

        def run(series, name):
            results[name] = self.prepare('--series', series, name='shared')

        a = threading.Thread(target=run, args=(self.series, 'three'))
        b = threading.Thread(target=run, args=(other, 'one'))
        a.start()
        b.start()
        a.join()
        b.join()
        for name, n in (('three', 3), ('one', 1)):
            r = results[name]
            self.assertEqual(r.returncode, 0, r.stderr)
            # each one prepared its own series, whole, one after the other
            self.assertIn("tree 'shared': %d commit(s) on the base" % n, r.stderr)
        n = git(self.tree('shared'), 'rev-list', '--count', 'fusegate-base..HEAD').strip()
        self.assertIn(n, ('1', '3'))


if __name__ == '__main__':
    unittest.main()
