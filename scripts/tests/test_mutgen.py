"""scripts/mutgen.py: the mutants it makes, that perl applies each one
exactly as meant, and the score it gives a run's table."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import mutgen  # noqa: E402

SOURCE = '''static int fuse_check(struct fuse_conn *fc, int len, int err)
{
\tif (len < 8 || len > fc->max)
\t\treturn -EINVAL;
\tif (err) {
\t\tfuse_make_bad(inode);
\t\treturn -EIO;
\t}
\tif (err) {
\t\tfuse_queue_forget(fc, forget,
\t\t\t\t  nodeid, 1);
\t}
\tif (len > 4 &&
\t    len != 100)
\t\treturn -E2BIG;
\tstat->mode = (inode->i_mode & S_IFMT) | (attr->mode & 07777);
\tlen = min_t(u32, len, fc->max);
\tif (!capable(CAP_SYS_ADMIN))
\t\treturn -EPERM;
\tiput(inode);
\tif (err)
\t\tkfree(fa);
\tkfree(other);
\treturn len >= 16;
}
'''


def perl(subst, text):
    with tempfile.NamedTemporaryFile('w', suffix='.c', delete=False) as f:
        f.write(text)
    try:
        subprocess.run(['perl', '-0pi', '-e', subst, f.name], check=True)
        with open(f.name) as g:
            return g.read()
    finally:
        os.unlink(f.name)


class Generate(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        os.makedirs(os.path.join(self.dir, 'fs', 'fuse'))
        with open(os.path.join(self.dir, 'fs', 'fuse', 'x.c'), 'w') as f:
            f.write(SOURCE)
        self.mutants = list(mutgen.all_mutants(self.dir))
        self.ops = {m[0].split(':')[2] for m in self.mutants}

    def test_every_operator_is_made(self):
        for op in ('negate', 'never', 'drop_or_1', 'drop_or_2', 'boundary_1',
                   'boundary_2', 'errno_1', 'return_zero', 'drop_call',
                   'drop_mask', 'drop_mask_2', 'drop_bound_1', 'drop_bound_2',
                   'always_allowed', 'drop_put'):
            self.assertIn(op, self.ops)

    def test_ids_are_unique_and_name_the_function(self):
        ids = [m[0] for m in self.mutants]
        self.assertEqual(len(ids), len(set(ids)))
        self.assertTrue(all(i.startswith('x.c:fuse_check:') for i in ids))

    def test_perl_applies_each_mutant_once_as_python_does(self):
        for mid, _, _, subst, (old, new, occ) in self.mutants:
            want = mutgen.apply(SOURCE, old, new, occ)
            self.assertNotEqual(want, SOURCE, mid)
            self.assertEqual(perl(subst, SOURCE), want, mid)

    def changed(self, op, needle):
        """The line NEEDLE as mutant OP of it leaves it."""
        got = [m for m in self.mutants if m[0].split(':')[2] == op and needle in m[4][0]]
        self.assertEqual(len(got), 1, (op, needle))
        return got[0][4][1]

    def test_each_mask_of_a_server_value_is_dropped_alone(self):
        self.assertEqual(self.changed('drop_mask', 'S_IFMT'),
                         '\tstat->mode = (inode->i_mode) | (attr->mode & 07777);')
        self.assertEqual(self.changed('drop_mask_2', 'S_IFMT'),
                         '\tstat->mode = (inode->i_mode & S_IFMT) | (attr->mode);')

    def test_either_bound_is_dropped(self):
        self.assertEqual(self.changed('drop_bound_1', 'min_t'), '\tlen = ((u32)(fc->max));')
        self.assertEqual(self.changed('drop_bound_2', 'min_t'), '\tlen = ((u32)(len));')

    def test_a_privilege_check_is_made_to_pass(self):
        self.assertEqual(self.changed('always_allowed', 'capable'), '\tif (!true)')

    def test_a_release_becomes_an_empty_statement(self):
        self.assertEqual(self.changed('drop_put', 'iput'), '\t;')
        # kfree only on an error path: after an if on an error, not after
        # a plain statement
        self.assertEqual(self.changed('drop_put', 'kfree(fa)'), '\t\t;')
        self.assertFalse([m for m in self.mutants if 'kfree(other)' in m[4][0]])

    def test_the_second_of_two_equal_lines_is_changed_alone(self):
        second = [m for m in self.mutants if m[4][0] == '\tif (err) {' and
                  m[0].split(':')[2] == 'never' and m[4][2] == 2]
        self.assertEqual(len(second), 1)
        out = perl(second[0][3], SOURCE)
        self.assertEqual(out.count('\tif (err) {'), 1)
        self.assertLess(out.index('\tif (err) {'), out.index('\tif (0) {'))

    def test_a_call_over_two_lines_is_removed_whole(self):
        drop = [m for m in self.mutants if 'fuse_queue_forget' in m[2]]
        self.assertEqual(len(drop), 1)
        out = perl(drop[0][3], SOURCE)
        self.assertNotIn('forget', out)
        self.assertNotIn('nodeid, 1);', out)

    def test_boundaries_move_by_one(self):
        out = {m[4][1] for m in self.mutants if m[0].split(':')[2].startswith('boundary')}
        self.assertIn('\tif (len <= 8 || len > fc->max)', out)
        self.assertIn('\tif (len < 8 || len >= fc->max)', out)
        self.assertIn('\treturn len > 16;', out)

    def test_a_condition_over_two_lines_is_mutated_whole(self):
        multi = {m[0].split(':')[2]: m for m in self.mutants
                 if m[4][0] == '\tif (len > 4 &&\n\t    len != 100)'}
        self.assertEqual(multi['drop_and_1'][4][1], '\tif (len != 100)')
        self.assertEqual(multi['drop_and_2'][4][1], '\tif (len > 4)')
        self.assertEqual(multi['boundary_1'][4][1], '\tif (len >= 4 && len != 100)')
        out = perl(multi['negate'][3], SOURCE)
        self.assertIn('\tif (!(len > 4 && len != 100))\n\t\treturn -E2BIG;', out)

    def test_ids_do_not_move_with_the_line(self):
        with open(os.path.join(self.dir, 'fs', 'fuse', 'x.c'), 'w') as f:
            f.write('/* a comment */\n\n' + SOURCE)
        again = [m[0] for m in mutgen.all_mutants(self.dir)]
        self.assertEqual(again, [m[0] for m in self.mutants])

    def test_a_sample_is_the_same_for_a_seed(self):
        import random
        a = random.Random(3).sample(self.mutants, 4)
        b = random.Random(3).sample(self.mutants, 4)
        self.assertEqual([m[0] for m in a], [m[0] for m in b])


class Score(unittest.TestCase):
    def run_score(self, table, triage=''):
        d = tempfile.mkdtemp()
        with open(os.path.join(d, 't.txt'), 'w') as f:
            f.write(table)
        with open(os.path.join(d, 'triage.md'), 'w') as f:
            f.write(triage)
        return subprocess.run([sys.executable, os.path.join(os.path.dirname(HERE), 'mutgen.py'),
                               'score', os.path.join(d, 't.txt'), '--triage',
                               os.path.join(d, 'triage.md')],
                              capture_output=True, text=True)

    TABLE = ('mutant result what\n'
             'dev.c:f:negate:1 caught a\n'
             'dev.c:f:never:2 SURVIVED b\n'
             'dir.c:g:negate:3 caught c\n'
             'dir.c:g:errno_1:4 caught d\n')

    def test_score_and_interval(self):
        r = self.run_score(self.TABLE)
        self.assertIn('3 of 4 killed, 75.0% (95% interval 30.1% to 95.4%)', r.stdout)
        self.assertIn('survivor (NEW) dev.c:f:never:2', r.stdout)
        self.assertEqual(r.returncode, 1)

    def test_triaged_survivors_are_not_new(self):
        r = self.run_score(self.TABLE, '| `dev.c:f:never:2` | equivalent | why |\n')
        self.assertIn('survivor (triaged: equivalent) dev.c:f:never:2', r.stdout)
        self.assertEqual(r.returncode, 0)

    def test_wilson_bounds(self):
        self.assertEqual(mutgen.wilson(0, 0), (0.0, 0.0))
        lo, hi = mutgen.wilson(10, 10)
        self.assertAlmostEqual(hi, 1.0)
        self.assertGreater(lo, 0.69)


if __name__ == '__main__':
    unittest.main()
