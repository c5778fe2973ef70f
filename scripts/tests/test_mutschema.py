"""scripts/mutschema.py: the guard each kind of mutant gets, what it
refuses to guard and why, that a guarded file compiles and switches, the
units it reads off a harness's -l table, shards, and the score."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import mutgen  # noqa: E402
import mutschema  # noqa: E402

SOURCE = '''#include <errno.h>
static int table[4] = { 1, 2, 3, 4 };

static int __init fuse_setup(int x)
{
\tif (x > 3)
\t\treturn -EINVAL;
\treturn 0;
}

int fuse_check(int len, int max, int *calls)
{
\tint i;

\tif (len < 8 || len > max)
\t\treturn -EINVAL;
\tfor (i = 0; i < 2; i++)
\t\t(*calls)++;
\tif (len == 9)
\t\tgoto out;
\t(*calls)++;
out:
\treturn len >= 16;
}
'''


def unit(old, new, count=1):
    mutated = SOURCE.replace(old, new, count)
    return mutschema.unit_of(mutschema.Source(SOURCE), SOURCE, mutated)


class Units(unittest.TestCase):
    def test_a_condition_is_guarded_as_its_operand(self):
        a, b, kind, new = unit('if (len < 8 || len > max)', 'if (len < 8)')
        self.assertEqual(kind, 'cond')
        self.assertEqual(SOURCE[a:b], 'len < 8 || len > max')
        self.assertEqual(new, 'len < 8')

    def test_a_call_argument_is_guarded_alone(self):
        a, b, kind, new = unit('i < 2; i++', 'i <= 2; i++')
        self.assertEqual((kind, SOURCE[a:b], new), ('expr', 'i < 2', 'i <= 2'))

    def test_part_of_a_condition_is_a_condition_only_when_whole(self):
        # a boundary inside a call's argument within the condition is an
        # expression; a return's value is no condition
        src = SOURCE.replace('if (len == 9)', 'if (f(len < 9))')
        mutated = src.replace('f(len < 9)', 'f(len <= 9)')
        a, b, kind, _ = mutschema.unit_of(mutschema.Source(src), src, mutated)
        self.assertEqual((kind, src[a:b]), ('expr', 'len < 9'))
        a, b, kind, _ = unit('return len >= 16;', 'return len > 16;')
        self.assertNotEqual(kind, 'cond')

    def test_a_changed_value_of_a_declaration_is_guarded_as_the_value(self):
        src = SOURCE.replace('\tint i;\n', '\tint i;\n\tint cap = capable(CAP_SYS_ADMIN);\n')
        mutated = src.replace('capable(CAP_SYS_ADMIN)', 'true')
        a, b, kind, new = mutschema.unit_of(mutschema.Source(src), src, mutated)
        # guarded in braces, "cap" would leave its scope
        self.assertEqual((kind, src[a:b], new), ('expr', 'capable(CAP_SYS_ADMIN)', 'true'))

    def test_a_changed_name_of_a_declaration_is_refused(self):
        src = SOURCE.replace('\tint i;\n', '\tint i;\n\tint cap = capable(CAP_SYS_ADMIN);\n')
        mutated = src.replace('int cap =', 'int cap2 =')
        with self.assertRaises(mutschema.Excluded) as e:
            mutschema.unit_of(mutschema.Source(src), src, mutated)
        self.assertIn('a declaration', str(e.exception))

    def test_what_infects_a_mutant_of_a_condition(self):
        need = mutschema.infection_need
        self.assertEqual(need('cond', 'dev.c:f:never:1a2b3c4d'), 'true')
        self.assertEqual(need('cond', 'dev.c:f:drop_or_2:1a2b3c4d'), 'true')
        self.assertEqual(need('cond', 'dev.c:f:drop_and_1:1a2b3c4d'), 'false')
        self.assertEqual(need('cond', 'dev.c:f:negate:1a2b3c4d'), 'any')
        self.assertEqual(need('cond', 'dev.c:f:boundary_1:1a2b3c4d'), 'any')
        # a hand-written mutant, or a site that is no whole condition
        self.assertEqual(need('cond', 'handles_need_compounds'), 'any')
        self.assertEqual(need('expr', 'dev.c:f:never:1a2b3c4d'), 'any')

    def test_a_condition_that_does_something_infects_whatever_its_value(self):
        need = mutschema.infection_need
        # skipping it skips the copy, the decrement, the assignment
        for cond in ('copy_from_user(&map, buf, sizeof(map))',
                     'atomic_dec_and_test(&fc->num_waiting) && !fc->connected',
                     '(req = list_first_entry_or_null(&q, struct r, list)) != NULL',
                     'n++ > 3'):
            self.assertEqual(need('cond', 'dev.c:f:never:1a2b3c4d', cond), 'any', cond)
        # reading only: the value is all it has
        for cond in ('!fc->connected', 'IS_ERR(inode) || get_node_id(inode) != 1',
                     'S_ISDIR(attr->mode) && attr->size >= 0', 'err == -ENOSYS',
                     'unlikely(!test_bit(FR_SENT, &req->flags))'):
            self.assertEqual(need('cond', 'dev.c:f:never:1a2b3c4d', cond), 'true', cond)

    def test_a_removed_statement_is_guarded_as_its_lines(self):
        a, b, kind, new = unit('\tif (len == 9)\n\t\tgoto out;\n', '')
        self.assertEqual(kind, 'stmt')
        self.assertEqual(SOURCE[a:b], '\tif (len == 9)\n\t\tgoto out;\n')
        self.assertEqual(new, '')

    def test_deleting_the_body_of_a_braceless_if_is_refused(self):
        # perl's mutant makes the next statement the body; a guard would not
        with self.assertRaisesRegex(mutschema.Excluded, 'braceless'):
            unit('\t\tgoto out;\n', '')

    def test_a_label_in_the_lines_is_refused(self):
        with self.assertRaisesRegex(mutschema.Excluded, 'label'):
            unit('\t(*calls)++;\nout:\n\treturn', '\treturn')

    def test_boot_only_code_is_refused(self):
        with self.assertRaisesRegex(mutschema.Excluded, '__init'):
            unit('if (x > 3)', 'if (x >= 3)')

    def test_file_scope_is_refused(self):
        with self.assertRaisesRegex(mutschema.Excluded, 'not in a function'):
            unit('{ 1, 2, 3, 4 }', '{ 1, 2, 3, 5 }')

    def test_a_substitution_that_does_not_apply_is_refused(self):
        with self.assertRaisesRegex(mutschema.Excluded, 'does not apply'):
            unit('no such text', 'x')


@unittest.skipUnless(shutil.which('gcc') and shutil.which('git') and shutil.which('perl'),
                     'needs gcc, git and perl')
class Schema(unittest.TestCase):
    """A schema of three mutants on a fake tree: it compiles, each switch
    value gives that mutant's behaviour, and the sites record that they ran."""

    def setUp(self):
        self.tree = tempfile.mkdtemp()
        fuse = os.path.join(self.tree, 'fs', 'fuse')
        os.makedirs(fuse)
        with open(os.path.join(fuse, 'check.c'), 'w') as f:
            f.write(SOURCE.replace('#include <errno.h>\n', '#include <errno.h>\n#include "mutant.h"\n'))
        with open(os.path.join(fuse, 'Makefile'), 'w') as f:
            f.write('obj-y += check.o\n')
        subprocess.run(['git', 'init', '-q', self.tree], check=True)
        subprocess.run(['git', '-C', self.tree, 'add', '.'], check=True)
        subprocess.run(['git', '-C', self.tree, '-c', 'user.name=t', '-c', 'user.email=t@t',
                        'commit', '-qm', 'base'], check=True)
        self.mutants = os.path.join(self.tree, 'mutants.txt')
        with open(self.mutants, 'w') as f:
            f.write('check.c:fuse_check:drop_or_2:0000000a|fs/fuse/check.c|drop|'
                    's/len < 8 \\|\\| len > max/len < 8/\n')
            f.write('b|fs/fuse/check.c|boundary|s/return len >= 16;/return len > 16;/\n')
            f.write('c|fs/fuse/check.c|nested in a|s/len > max/len >= max/\n')
            f.write('d|fs/fuse/check.c|drop goto|s/\\tif \\(len == 9\\)\\n\\t\\tgoto out;\\n//\n')
            f.write('e|fs/fuse/check.c|boot|s/x > 3/x >= 3/\n')

    def tearDown(self):
        shutil.rmtree(self.tree)

    def test_each_switch_value_is_its_mutant(self):
        plan = os.path.join(self.tree, 'plan.json')
        subprocess.run([sys.executable, os.path.join(HERE, '..', 'mutschema.py'), 'schema',
                        '--tree', self.tree, '--mutants', self.mutants, '--out', plan],
                       check=True, stdout=subprocess.DEVNULL)
        p = json.load(open(plan))
        by_id = {m['id']: m for m in p['mutants']}
        by_id['a'] = by_id['check.c:fuse_check:drop_or_2:0000000a']
        # a drops an operand of a whole condition: only a test that saw
        # the condition true can tell
        self.assertEqual(by_id['a']['need'], 'true')
        self.assertEqual(by_id['b']['need'], 'any')
        self.assertIn('__init', by_id['e']['excluded'])
        # a and c overlap: one site
        self.assertEqual(by_id['a']['site'], by_id['c']['site'])
        self.assertEqual(len(p['sites']), 3)
        fuse = os.path.join(self.tree, 'fs', 'fuse')
        # the kernel's header, with a user-space stand-in for its helpers
        header = open(os.path.join(fuse, 'mutant.h')).read()
        self.assertIn('#define FUSE_MUT_SITES 3', header)
        with open(os.path.join(fuse, 'linux_stub.h'), 'w') as f:
            f.write('#include <stdbool.h>\n#define __always_inline inline\n'
                    '#define READ_ONCE(x) (x)\n#define __init\n'
                    'extern unsigned long fuse_mut_true[], fuse_mut_false[];\n'
                    'static inline int test_bit(int n, unsigned long *b) { return b[0] >> n & 1; }\n'
                    'static inline void set_bit(int n, unsigned long *b) { b[0] |= 1UL << n; }\n')
        with open(os.path.join(fuse, 'mutant.h'), 'w') as f:
            f.write('#include "linux_stub.h"\n' + header.split('#include <linux/types.h>')[1]
                    .replace('#endif', ''))
        with open(os.path.join(fuse, 'main.c'), 'w') as f:
            f.write('#include <stdio.h>\n#include <stdlib.h>\n'
                    'unsigned int fuse_mutant; unsigned long fuse_mut_reached[1];\n'
                    'unsigned long fuse_mut_true[1], fuse_mut_false[1];\n'
                    'int fuse_check(int, int, int *);\n'
                    'int main(int c, char **v) { int calls = 0; fuse_mutant = atoi(v[1]);\n'
                    '  int r1 = fuse_check(20, 10, &calls), r2 = fuse_check(16, 16, &calls);\n'
                    '  int r3 = fuse_check(9, 16, &calls);\n'
                    '  printf("%d %d %d %d %lu %lu %lu\\n", r1, r2, r3, calls, fuse_mut_reached[0],\n'
                    '         fuse_mut_true[0], fuse_mut_false[0]); return 0; }\n')
        exe = os.path.join(self.tree, 'check')
        subprocess.run(['gcc', '-w', '-o', exe, os.path.join(fuse, 'check.c'),
                        os.path.join(fuse, 'main.c')], check=True)

        def run(num):
            return subprocess.run([exe, str(num)], stdout=subprocess.PIPE,
                                  check=True).stdout.decode().split()

        # off: as the original (calls: none for the refused length, 2 for
        # the loop and 1 after it, 2 for the loop before the goto)
        cond_site = by_id['a']['site']
        # the condition of a and c was seen true (20 > 10) and false (16,
        # 9): both bits of its site; no other site is a condition
        self.assertEqual(run(0), ['-22', '1', '0', '5', '7', str(1 << cond_site),
                                  str(1 << cond_site)])
        self.assertEqual(run(by_id['a']['num'])[:2], ['1', '1'])      # len > max not checked
        self.assertEqual(run(by_id['b']['num'])[:2], ['-22', '0'])    # 16 > 16 is false
        self.assertEqual(run(by_id['c']['num'])[:2], ['-22', '-22'])  # 16 >= 16 refused
        self.assertEqual(run(by_id['d']['num'])[3], '6')             # the goto is gone

    def test_numbers_are_lines_of_the_whole_list(self):
        # a shard's mutants keep the numbers they have in the whole list
        whole = os.path.join(self.tree, 'all.txt')
        shard = os.path.join(self.tree, 'shard.txt')
        lines = open(self.mutants).read().splitlines(True)
        open(whole, 'w').write(''.join(lines))
        open(shard, 'w').write(''.join(lines[1::2]))
        plan = os.path.join(self.tree, 'plan.json')
        subprocess.run([sys.executable, os.path.join(HERE, '..', 'mutschema.py'), 'schema',
                        '--tree', self.tree, '--mutants', shard, '--all', whole, '--out', plan],
                       check=True, stdout=subprocess.DEVNULL)
        self.assertEqual([m['num'] for m in json.load(open(plan))['mutants']], [2, 4])

    def test_a_guard_that_does_not_link_is_blamed_by_its_function(self):
        plan = os.path.join(self.tree, 'plan.json')
        subprocess.run([sys.executable, os.path.join(HERE, '..', 'mutschema.py'), 'schema',
                        '--tree', self.tree, '--mutants', self.mutants, '--out', plan],
                       check=True, stdout=subprocess.DEVNULL)
        log = os.path.join(self.tree, 'build.log')
        with open(log, 'w') as f:
            f.write("ld: vmlinux.o: in function `fuse_check':\n"
                    "(.text+0x8560ee): undefined reference to `fuse_dax_break_layouts'\n")
        r = subprocess.run([sys.executable, os.path.join(HERE, '..', 'mutschema.py'), 'blame',
                            '--plan', plan, '--log', log], stdout=subprocess.PIPE)
        out = r.stdout.decode()
        # the condition's site (a and c), not the statements' (b, d)
        self.assertIn('check.c:fuse_check:drop_or_2:0000000a its guard links '
                      'fuse_dax_break_layouts()', out)
        self.assertIn('\nc its guard links', out)
        self.assertNotIn('\nd ', out)
        self.assertNotIn('\nb ', out)

    def test_a_condition_on_the_config_is_not_guarded(self):
        src = SOURCE.replace('if (len == 9)', 'if (FUSE_IS_DAX(len) && len == 9)')
        with open(os.path.join(self.tree, 'fs', 'fuse', 'check.c'), 'w') as f:
            f.write(src)
        with open(os.path.join(self.tree, 'fs', 'fuse', 'fuse_i.h'), 'w') as f:
            f.write('#define FUSE_IS_DAX(inode) (IS_ENABLED(CONFIG_FUSE_DAX) && (inode))\n')
        subprocess.run(['git', '-C', self.tree, 'add', '.'], check=True)
        subprocess.run(['git', '-C', self.tree, '-c', 'user.name=t', '-c', 'user.email=t@t',
                        'commit', '-qm', 'dax'], check=True)
        with open(self.mutants, 'w') as f:
            f.write('x|fs/fuse/check.c|never|s/if \\(FUSE_IS_DAX\\(len\\) && len == 9\\)/if (0)/\n')
        plan = os.path.join(self.tree, 'plan.json')
        subprocess.run([sys.executable, os.path.join(HERE, '..', 'mutschema.py'), 'schema',
                        '--tree', self.tree, '--mutants', self.mutants, '--out', plan],
                       check=True, stdout=subprocess.DEVNULL)
        m = json.load(open(plan))['mutants'][0]
        self.assertIn("tests the kernel's config (FUSE_IS_DAX)", m['excluded'])

    def test_a_guard_that_does_not_compile_is_blamed(self):
        plan = os.path.join(self.tree, 'plan.json')
        subprocess.run([sys.executable, os.path.join(HERE, '..', 'mutschema.py'), 'schema',
                        '--tree', self.tree, '--mutants', self.mutants, '--out', plan],
                       check=True, stdout=subprocess.DEVNULL)
        p = json.load(open(plan))
        site = [s for s in p['sites'] if s['kind'] == 'stmt'][0]
        log = os.path.join(self.tree, 'build.log')
        with open(log, 'w') as f:
            f.write('../fs/fuse/check.c:%d:3: error: something\n' % site['schema_lines'][0])
        r = subprocess.run([sys.executable, os.path.join(HERE, '..', 'mutschema.py'), 'blame',
                            '--plan', plan, '--log', log], stdout=subprocess.PIPE)
        self.assertEqual(r.stdout.decode().split()[0], 'd')


TABLE = '''# FIXTURE            VARIANT                   TEST
global                                         plain_test
--------------------------------------------------------------------------------
lookup_reply         lookup_nodeid_zero        the_entry_is_refused
                     lookup_invalid_attr_but_llong_max_is_taken second_test
--------------------------------------------------------------------------------
a_fixture_name_longer_than_twenty                           only_test
'''


class Listing(unittest.TestCase):
    def test_the_table_gives_every_variant_of_every_test(self):
        self.assertEqual(mutschema.parse_list(TABLE), [
            'global.plain_test',
            'lookup_reply.lookup_nodeid_zero.the_entry_is_refused',
            'lookup_reply.lookup_nodeid_zero.second_test',
            'lookup_reply.lookup_invalid_attr_but_llong_max_is_taken.the_entry_is_refused',
            'lookup_reply.lookup_invalid_attr_but_llong_max_is_taken.second_test',
            'a_fixture_name_longer_than_twenty.only_test',
        ])


class Results(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.plan = os.path.join(self.dir, 'plan.json')
        muts = [{'num': i, 'id': 'dev.c:f:negate:%d' % i, 'file': 'fs/fuse/dev.c',
                 'what': 'w', 'site': i} for i in (1, 2, 3, 4)]
        muts.append({'num': 5, 'id': 'dir.c:g:never:5', 'file': 'fs/fuse/dir.c',
                     'what': 'w', 'excluded': 'a label or case in the changed lines'})
        json.dump({'mutants': muts, 'sites': []}, open(self.plan, 'w'))

    def tearDown(self):
        shutil.rmtree(self.dir)

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        with open(path, 'w') as f:
            f.write(text)
        return path

    def report(self, *results):
        return subprocess.run([sys.executable, os.path.join(HERE, '..', 'mutschema.py'),
                               'report', '--plan', self.plan, '--results', *results],
                              stdout=subprocess.PIPE)

    def test_two_shards_merge_into_one_score(self):
        a = self.write('a.out', 'BOOT 1\nBASE 1 0 0.5 0-3\nMUT 1 killed 1 1\nMUT 3 survived 1/1\n')
        b = self.write('b.out', 'BOOT 1\nMUT 2 killed 1 splat\nMUT 4 uncovered\n')
        r = self.report(a, b)
        out = r.stdout.decode()
        self.assertIn('mutation score: 2 of 4 killed, 50.0%', out)
        self.assertIn('survivor (survived, NEW) dev.c:f:negate:3', out)
        self.assertIn('survivor (uncovered, NEW) dev.c:f:negate:4', out)
        self.assertIn('excluded dir.c:g:never:5: a label', out)
        self.assertEqual(r.returncode, 1)

    def test_an_uninfected_mutant_is_a_survivor(self):
        a = self.write('a.out', 'MUT 1 killed 1 1\nMUT 2 killed 1 1\nMUT 3 killed 1 1\n'
                       'MUT 4 uninfected 12 true\n')
        r = self.report(a)
        out = r.stdout.decode()
        self.assertIn('mutation score: 3 of 4 killed', out)
        self.assertIn('survivor (uninfected, NEW) dev.c:f:negate:4', out)
        self.assertEqual(r.returncode, 1)

    def test_the_seen_values_survive_a_resume(self):
        a = self.write('a.out', 'BASE 1 0 0.50 0-3 t=1 f=2-3\nBASE 2 0 0.10 - t= f=\n'
                       'BASE-END\n')
        root = os.path.join(self.dir, 'root')
        subprocess.run([sys.executable, os.path.join(HERE, '..', 'mutschema.py'), 'resume',
                        '--plan', self.plan, '--results', a, '--root', root],
                       stdout=subprocess.PIPE, check=True)
        self.assertEqual(open(os.path.join(root, 'etc/mut/baseline')).read(),
                         'BASE 1 0 0.50 0-3 t=1 f=2-3\nBASE 2 0 0.10 - t= f=\n')

    def test_a_fresh_survivor_is_reported_and_does_not_fail(self):
        fresh = self.write('fresh.txt', 'dev.c:f:negate:4\n')
        a = self.write('a.out', 'MUT 1 killed 1 1\nMUT 2 killed 1 1\nMUT 3 killed 1 1\n'
                       'MUT 4 survived 3/3\n')
        r = subprocess.run([sys.executable, os.path.join(HERE, '..', 'mutschema.py'),
                            'report', '--plan', self.plan, '--results', a,
                            '--fresh', fresh, '--fresh-seed', '77'], stdout=subprocess.PIPE)
        out = r.stdout.decode()
        self.assertIn('mutation score: 3 of 3 killed', out)
        self.assertIn('fresh sample (seed 77, reported, never failing): 0 of 1 killed', out)
        self.assertIn('fresh survivor (survived, NEW, reported only) dev.c:f:negate:4', out)
        self.assertEqual(r.returncode, 0)
        # the same survivor not fresh fails
        self.assertEqual(self.report(a).returncode, 1)

    def test_a_mutant_without_a_verdict_is_not_a_pass(self):
        a = self.write('a.out', 'MUT 1 killed 1 1\nMUT 2 killed 1 1\nMUT 3 killed 1 1\n')
        r = self.report(a)
        self.assertIn('NOT JUDGED dev.c:f:negate:4', r.stdout.decode())
        self.assertEqual(r.returncode, 3)

    def test_every_mutant_killed_passes(self):
        a = self.write('a.out', ''.join('MUT %d killed 1 1\n' % i for i in (1, 2, 3, 4)))
        self.assertEqual(self.report(a).returncode, 0)

    def test_a_flaky_kill_is_not_a_verdict(self):
        a = self.write('a.out', 'MUT 1 killed 1 1\nMUT 2 killed 1 1\nMUT 3 killed 1 1\n'
                       'MUT 4 unjudged flaky:7:1\n')
        r = self.report(a)
        self.assertIn('NOT JUDGED dev.c:f:negate:4 flaky:7:1', r.stdout.decode())
        self.assertEqual(r.returncode, 3)

    def test_a_line_cut_by_a_dying_guest_is_left_out(self):
        a = self.write('a.out', 'MUT 1 killed 1 1\nMUT 2 killed 1 1\nMUT 3 killed 1 1\nMUT 4 surv')
        r = self.report(a)
        self.assertIn('NOT JUDGED dev.c:f:negate:4', r.stdout.decode())

    def test_a_site_reached_only_at_boot_is_not_a_survivor(self):
        a = self.write('a.out', 'BOOTSITES 2-4\nMUT 1 killed 1 1\nMUT 2 killed 1 1\n'
                       'MUT 3 killed 1 1\nMUT 4 uncovered\n')
        r = self.report(a)
        self.assertIn('boot-only dev.c:f:negate:4', r.stdout.decode())
        self.assertEqual(r.returncode, 0)

    def test_an_incomplete_baseline_is_run_again(self):
        a = self.write('a.out', 'BASE 1 0 0.50 0-3\nBASE 2 0 0.50 0-3\n')
        root = os.path.join(self.dir, 'root')
        subprocess.run([sys.executable, os.path.join(HERE, '..', 'mutschema.py'), 'resume',
                        '--plan', self.plan, '--results', a, '--root', root],
                       stdout=subprocess.PIPE, check=True)
        self.assertEqual(open(os.path.join(root, 'etc/mut/baseline')).read(), '')

    def test_resume_gives_the_guest_what_it_has_done(self):
        a = self.write('a.out', 'BASE 1 0 0.50 0-3\nBASE-END\nRUN 1 1\nMUT 1 killed 1 1\n')
        root = os.path.join(self.dir, 'root')
        r = subprocess.run([sys.executable, os.path.join(HERE, '..', 'mutschema.py'), 'resume',
                            '--plan', self.plan, '--results', a, '--root', root],
                           stdout=subprocess.PIPE, check=True)
        self.assertEqual(r.stdout.decode().strip(), '3')
        self.assertEqual(open(os.path.join(root, 'etc/mut/baseline')).read(),
                         'BASE 1 0 0.50 0-3 t= f=\n')
        self.assertEqual(open(os.path.join(root, 'etc/mut/done')).read(), 'MUT 1 killed 1 1\n')

    def test_shards_split_every_line_once(self):
        lines = ''.join('m%d\n' % i for i in range(7))
        got = []
        for k in (1, 2, 3):
            r = subprocess.run([sys.executable, os.path.join(HERE, '..', 'mutschema.py'), 'shard',
                                '--shard', '%d/3' % k], input=lines.encode(),
                               stdout=subprocess.PIPE, check=True)
            got += r.stdout.decode().split()
        self.assertEqual(sorted(got), sorted(lines.split()))
        r = subprocess.run([sys.executable, os.path.join(HERE, '..', 'mutschema.py'), 'shard',
                            '--shard', '4/3'], input=b'', stderr=subprocess.PIPE)
        self.assertNotEqual(r.returncode, 0)



class GuestOrder(unittest.TestCase):
    """run-mutants' order(): the units a mutant runs, in busybox sh."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        text = open(os.path.join(HERE, '..', '..', 'selftests', 'guest', 'run-mutants')).read()
        start = text.index('\norder() {') + 1
        body = text[start:text.index('\n}\n', start) + 3]
        self.script = os.path.join(self.dir, 'order.sh')
        with open(self.script, 'w') as f:
            f.write(re.sub(r'/etc/mut/|/tmp/', self.dir + '/', body))
            f.write('order "$@"\n')
        units = '1 prog a\n2 prog b\n3 prog c\n4 prog d\n'
        # unit 1 saw site 5 true, unit 2 false, unit 3 reached only 7,
        # unit 4 failed unmutated
        base = ('BASE 1 0 0.50 5,7 t=5 f=7\nBASE 2 0 0.20 4-6 t= f=5\n'
                'BASE 3 0 0.10 7 t=7 f=\nBASE 4 1 0.10 5 t=5 f=\n')
        for name, text in (('units', units), ('base', base), ('kills', '1\n')):
            with open(os.path.join(self.dir, name), 'w') as f:
                f.write(text)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def order(self, *args):
        r = subprocess.run(['busybox', 'sh', self.script, *args], stdout=subprocess.PIPE,
                           check=True)
        return [line.split()[0] for line in r.stdout.decode().splitlines()]

    def test_every_unit_that_reaches_runs_kills_first(self):
        self.assertEqual(self.order('5'), ['1', '2'])
        self.assertEqual(self.order('5', 'any'), ['1', '2'])

    def test_only_the_units_that_saw_the_value_run(self):
        self.assertEqual(self.order('5', 'true'), ['1'])
        self.assertEqual(self.order('5', 'false'), ['2'])
        self.assertEqual(self.order('7', 'false'), ['1'])
        self.assertEqual(self.order('6', 'true'), [])

    def test_a_unit_that_reached_nothing_reaches_no_site(self):
        # "-" is no range: not site 0
        with open(os.path.join(self.dir, 'base'), 'a') as f:
            f.write('BASE 5 0 0.01 - t= f=\n')
        self.assertEqual(self.order('0'), [])


if __name__ == '__main__':
    unittest.main()
