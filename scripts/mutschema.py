#!/usr/bin/env python3
"""Mutant schemata: every mutant of a sample in one kernel, switched at run time.

  mutschema.py schema --tree TREE --mutants FILE --out PLAN [--exclude FILE]
  mutschema.py blame --plan PLAN --log BUILD_LOG
  mutschema.py units --bin DIR PROGRAM...
  mutschema.py resume --plan PLAN --results FILE... --root DIR
  mutschema.py report --plan PLAN --results FILE... [--triage F] [--json F]
  mutschema.py shard --shard K/N < MUTANTS

A mutant is a one-change substitution of an fs/fuse file, one a line of
FILE in the form scripts/mutgen.py and scripts/mutation-check.sh print:

    id|file|what|perl substitution (perl -0pe)

`schema` applies each substitution to the file as the tree's HEAD has
it, and writes the file back with both versions and a run-time switch
between them (Untch, Offutt and Harrold's mutant schemata).  The change is
widened to the smallest unit C lets us guard:

  an expression: the operand of the enclosing parenthesis (split at its
      commas and semicolons) becomes
      (fuse_mut_is(SITE, 7) ? (mutated) : (original));
  a statement: the lines of the change become
      if (fuse_mut_is(SITE, 7)) { mutated } else { original };
  the whole condition of an if or a while: as an expression, but the
      original is read as fuse_mut_cond(SITE, !!(original)), which records
      whether it was seen true or false (debugfs fuse_mutant_cond).  A
      mutant that changes the condition only when it is true (never: C to
      0, drop_or) or only when false (drop_and) runs only the tests that
      saw that value; reached by tests none of which did, it is
      "uninfected": a survivor found at no cost.

Mutants whose units overlap share one site and one guard chain.  Each site
records that it ran (debugfs fuse_mutant_reached) whatever mutant is on:
that is the per-test coverage the runner uses.  The switch is the module
parameter fuse.mutant (/sys/module/fuse/parameters/mutant; 0: none).

A mutant that cannot be guarded is excluded, never silently: its reason
goes into PLAN (not in a function, runs only at boot or unload, a label or
a case in the lines, a preprocessor line, the substitution does not apply)
and into the report.  `blame` reads a build log and names the mutants
whose guard did not compile, for the caller to exclude and try again.

`units` lists the kselftest-harness tests of PROGRAMs (their -l table) as
the runner's units.  `resume` writes what a guest that rebooted must not
do again into its initramfs.  `report` scores a run (every shard's
results) with 95% Wilson intervals, per file and per operator, and names
the survivors the triage file (docs/mutant-triage.md) does not explain.

Exit status: 0 done (report: no unexplained survivor), 1 report: a
survivor the triage does not explain, 2 usage error, 3 a file is missing.
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutgen  # noqa: E402

# calls whose parentheses hold no evaluated expression of ours
UNEVALUATED = {'sizeof', 'typeof', '__typeof__', 'typeof_unqual', 'offsetof',
               'sizeof_field', 'BUILD_BUG_ON', 'static_assert', '_Static_assert',
               '__builtin_constant_p', 'ARRAY_SIZE', 'container_of', '__same_type',
               'BUILD_BUG_ON_MSG', 'FIELD_SIZEOF', 'DEFINE_MUTEX', 'DEFINE_SPINLOCK'}
KEYWORDS = {'if', 'while', 'switch', 'return', 'for', 'do', 'else'}
# the word before a function body that makes it run only at boot or unload
BOOT_ONLY = re.compile(r'\b(__init|__exit)\b')
DESIGNATOR = re.compile(r'\s*(?:\.\w+|\[[^\]]+\])\s*=\s*')
RETURN = re.compile(r'\s*return\b\s*')
LABEL = re.compile(r'^\s*(?:case\b[^:]*|default|[A-Za-z_]\w*)\s*:(?!:)\s*$', re.M)


# --- reading C -------------------------------------------------------------

def scan(text):
    """The code of TEXT: (pairs, is_code, preproc) where pairs maps each
    opening bracket's offset to its closing one's (and back), is_code[i]
    says whether offset i is code (not a comment, string or character
    literal) and preproc lists the (start, end) of preprocessor lines."""
    n = len(text)
    is_code = bytearray(n)
    pairs, stack, preproc = {}, [], []
    i, line_start = 0, True
    while i < n:
        c = text[i]
        if line_start and c in ' \t':
            i += 1
            continue
        if line_start and c == '#':
            start = i
            while i < n:
                j = text.find('\n', i)
                if j < 0:
                    j = n
                if j > 0 and text[j - 1] == '\\':
                    i = j + 1
                    continue
                i = j
                break
            preproc.append((start, i))
            continue
        line_start = False
        if c == '\n':
            line_start = True
            i += 1
            continue
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            i = n if j < 0 else j + 2
            continue
        if text.startswith('//', i):
            j = text.find('\n', i)
            i = n if j < 0 else j
            continue
        if c in '"\'':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            for k in range(i, min(j + 1, n)):
                is_code[k] = 0
            i = j + 1
            continue
        is_code[i] = 1
        if c in '([{':
            stack.append(i)
        elif c in ')]}':
            if stack:
                o = stack.pop()
                pairs[o] = i
                pairs[i] = o
        i += 1
    return pairs, is_code, preproc


class Source:
    def __init__(self, text):
        self.text = text
        self.pairs, self.is_code, self.preproc = scan(text)
        self.opens = sorted(o for o, c in self.pairs.items()
                            if o < c and text[o] in '([{')

    def enclosing(self, p, e):
        """The innermost bracket pair (open, close) around [p, e)."""
        best = None
        for o in self.opens:
            if o >= p:
                break
            c = self.pairs[o]
            if c >= e and (best is None or o > best[0]):
                best = (o, c)
        return best

    def word_before(self, pos):
        i = pos - 1
        while i >= 0 and self.text[i] in ' \t\n':
            i -= 1
        j = i
        while j >= 0 and (self.text[j].isalnum() or self.text[j] == '_'):
            j -= 1
        return self.text[j + 1:i + 1]

    def segment(self, o, c, p, e):
        """The operand of the pair (o, c) around [p, e): its text between
        commas or semicolons at the pair's own depth, trimmed."""
        seps, i = [o], o + 1
        while i < c:
            if self.is_code[i] and self.text[i] in '([{' and i in self.pairs:
                i = self.pairs[i] + 1
                continue
            if self.is_code[i] and self.text[i] in ',;':
                seps.append(i)
            i += 1
        seps.append(c)
        for s0, s1 in zip(seps, seps[1:]):
            if s0 < p and e <= s1:
                a, b = s0 + 1, s1
                while a < b and self.text[a] in ' \t\n':
                    a += 1
                while b > a and self.text[b - 1] in ' \t\n':
                    b -= 1
                if a <= p and e <= b and a < b:
                    return a, b
                return None
        return None

    def is_condition(self, o, c, a, b):
        """Whether [a, b) is the whole condition of an if or a while whose
        parentheses are (o, c)."""
        if self.text[o] != '(' or self.word_before(o) not in ('if', 'while'):
            return False
        lo, hi = o + 1, c
        while lo < hi and self.text[lo] in ' \t\n':
            lo += 1
        while hi > lo and self.text[hi - 1] in ' \t\n':
            hi -= 1
        return (a, b) == (lo, hi)

    def initializer(self, o):
        """Whether the brace at O opens an initializer (after '=', or
        inside another initializer), not a block."""
        if self.text[o] != '{':
            return False
        before = self.prev_code(o)
        return before >= 0 and self.text[before] in '=,{' and \
            (self.text[before] != '{' or self.initializer(before)) and \
            (self.text[before] != ',' or self.inside_initializer(before))

    def inside_initializer(self, pos):
        pair = self.enclosing(pos, pos + 1)
        return pair is not None and self.initializer(pair[0])

    def statement(self, o, c, p, e):
        """(start, end) of the statement of block (o, c) that holds
        [p, e): from after the previous ; { } at the block's depth to its
        own ; (end past it), or None when the change spans statements."""
        i, start = o + 1, o + 1
        while i < c:
            if self.is_code[i] and self.text[i] in '([' and i in self.pairs:
                i = self.pairs[i] + 1
                continue
            if self.is_code[i] and self.text[i] == '{' and i in self.pairs:
                if self.pairs[i] >= p:
                    return None
                i = self.pairs[i] + 1
                start = i
                continue
            if self.is_code[i] and self.text[i] == ';':
                if i + 1 > p and i >= e - 1:
                    return start, i + 1
                if i + 1 > p:
                    return None
                start = i + 1
            i += 1
        return None

    def prev_code(self, pos):
        i = pos - 1
        while i >= 0 and (not self.is_code[i] or self.text[i] in ' \t\n'):
            i -= 1
        return i

    def in_preproc(self, a, b):
        return any(s < b and a < t for s, t in self.preproc)

    def function_of(self, pos):
        """(open, close) of the outermost brace pair around POS, or None."""
        for o in self.opens:
            if o >= pos:
                break
            if self.text[o] == '{' and self.pairs[o] >= pos:
                # a function's body follows its parameters' parenthesis;
                # an initializer follows '='
                before = self.prev_code(o)
                if before < 0 or self.text[before] != ')':
                    return None
                return o, self.pairs[o]
        return None

    def function_name(self, brace):
        """The name of the function whose body opens at BRACE."""
        m = re.search(r'(\w+)\s*\(', self.header_of(brace))
        return m.group(1) if m else ''

    def header_of(self, brace):
        """The text between the previous top-level ; or } and BRACE."""
        i = brace - 1
        while i >= 0:
            if self.is_code[i] and self.text[i] in ';}':
                depth_ok = True
                if self.text[i] == '}':
                    o = self.pairs.get(i)
                    depth_ok = o is not None and self.function_of(o) is None
                if depth_ok:
                    break
            i -= 1
        return self.text[i + 1:brace]


def line_start(text, pos):
    return text.rfind('\n', 0, pos) + 1


def line_end(text, pos):
    j = text.find('\n', pos)
    return len(text) if j < 0 else j + 1


def depth_range(text):
    """(lowest, final) bracket depth over TEXT's code."""
    _, is_code, _ = scan(text)
    depth = low = 0
    for i, ch in enumerate(text):
        if is_code[i] and ch in '([{':
            depth += 1
        elif is_code[i] and ch in ')]}':
            depth -= 1
            low = min(low, depth)
    return low, depth


def balanced(text):
    pairs, is_code, _ = scan(text)
    depth = 0
    for i, ch in enumerate(text):
        if is_code[i] and ch in '([{':
            depth += 1
        elif is_code[i] and ch in ')]}':
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def last_code_char(text):
    _, is_code, _ = scan(text)
    for i in range(len(text) - 1, -1, -1):
        if is_code[i] and text[i] not in ' \t\n':
            return text[i]
    return ''


# --- one mutant's unit -------------------------------------------------------

class Excluded(Exception):
    pass


# what makes code depend on the kernel's config at compile time
CONFIG_WORDS = re.compile(r'\b(?:IS_ENABLED|IS_BUILTIN|IS_REACHABLE|IS_MODULE)\s*\(|\bCONFIG_\w+')
CONFIG_MACRO = re.compile(r'^#\s*define\s+(\w+)\b.*(?:IS_ENABLED|IS_BUILTIN|IS_REACHABLE|'
                          r'IS_MODULE|\bCONFIG_)', re.M)


def config_macros(texts):
    """The macros of TEXTS (fs/fuse's headers and file) whose one-line
    definition tests the kernel's config."""
    return {m.group(1) for t in texts for m in CONFIG_MACRO.finditer(t)}


def config_dependent(text, macros):
    """The config test in TEXT (IS_ENABLED(), CONFIG_..., or a macro of
    MACROS), or None."""
    m = CONFIG_WORDS.search(text)
    if m:
        return m.group(0).rstrip('( ')
    for name in sorted(macros):
        if re.search(r'\b%s\b' % re.escape(name), text):
            return name
    return None


def unit_of(src, orig, mutated):
    """(a, b, kind, replacement) of the smallest guardable unit of ORIG
    that holds the change to MUTATED; Excluded with the reason if none."""
    if mutated == orig:
        raise Excluded('the substitution does not apply')
    n = min(len(orig), len(mutated))
    p = 0
    while p < n and orig[p] == mutated[p]:
        p += 1
    s = 0
    while s < n - p and orig[len(orig) - 1 - s] == mutated[len(mutated) - 1 - s]:
        s += 1
    e = len(orig) - s
    # a deletion of whole lines is found shifted by the indentation they
    # share with the next line: slide it back to start at a line
    deletion = p == len(mutated) - s
    while deletion and p > 0 and orig[p - 1] == orig[e - 1] and orig[p - 1] != '\n':
        p, e = p - 1, e - 1
    delta = len(mutated) - len(orig)
    fn = src.function_of(p)
    if fn is None or e > fn[1]:
        raise Excluded('not in a function body')
    if BOOT_ONLY.search(src.header_of(fn[0])):
        raise Excluded('in __init or __exit code: runs only at boot or unload')
    lo, hi = p, e
    while True:
        pair = src.enclosing(lo, hi)
        if pair is None:
            raise Excluded('not in a function body')
        o, c = pair
        if src.text[o] in '([':
            seg = None
            if src.text[o] == '[' or src.word_before(o) not in UNEVALUATED:
                seg = src.segment(o, c, p, e)
            if seg is not None:
                a, b = seg
                kind = 'cond' if src.is_condition(o, c, a, b) else 'expr'
                return a, b, kind, mutated[a:b + delta]
            lo, hi = o, c + 1
            continue
        if src.initializer(o):
            # a member of an initializer: its value, after the designator
            seg = src.segment(o, c, p, e)
            if seg is None:
                raise Excluded('spans members of an initializer')
            a, b = seg
            m = DESIGNATOR.match(orig, a, b)
            if m:
                a = m.end()
            if p < a:
                raise Excluded('changes the designator of an initializer')
            return a, b, 'expr', mutated[a:b + delta]
        stmt = src.statement(o, c, p, e) or (0, 0)
        sa, sb = stmt
        m = RETURN.match(orig, sa, sb) if sb else None
        if m and m.end() <= p and e <= sb - 1:
            # the value of a return: an expression
            a, b = m.end(), sb - 1
            while b > a and orig[b - 1] in ' \t\n':
                b -= 1
            if a < b and e <= b:
                return a, b, 'expr', mutated[a:b + delta]
        # statements: the whole lines of the change, widened until they
        # are whole statements
        a = max(line_start(orig, p), o + 1)
        b = min(line_end(orig, max(e - 1, p)), c)
        for _ in range(12):
            before = src.prev_code(a)
            starts = before < o + 1 or orig[before] in ';{}:)' or \
                src.word_before(before + 1) == 'else'
            low, depth = depth_range(orig[a:b])
            if low < 0 or not starts:
                if a <= o + 1:
                    break
                a = max(line_start(orig, a - 1), o + 1)
                continue
            if depth > 0 or last_code_char(orig[a:b]) not in (';', '}'):
                if b >= c:
                    break
                b = min(line_end(orig, b), c)
                continue
            break
        body, new = orig[a:b], mutated[a:b + delta]
        # one assignment or initialised declaration whose value changed:
        # the value is the unit (in braces a declared name would leave
        # its scope)
        rhs = assigned_value(orig, a, b)
        if rhs and rhs[0] <= p and e <= rhs[1]:
            return rhs[0], rhs[1], 'expr', mutated[rhs[0]:rhs[1] + delta]
        if DECLARATION.match(body):
            raise Excluded('a declaration: guarded in braces, the name it '
                           'declares would leave its scope')
        if src.in_preproc(a, b):
            raise Excluded('a preprocessor line in the changed lines')
        if LABEL.search(body):
            raise Excluded('a label or case in the changed lines')
        if not balanced(body) or not balanced(new):
            raise Excluded('the changed lines are not whole statements')
        before = src.prev_code(a)
        if not new.strip() and before > o and (orig[before] == ')' or
                                              src.word_before(before + 1) == 'else'):
            raise Excluded('deletes the body of a braceless if, else or loop: '
                           'the next statement would become its body')
        if before > o and orig[before] not in ';{}:)' and \
                src.word_before(before + 1) != 'else':
            raise Excluded('the changed lines do not start a statement')
        if last_code_char(body) not in (';', '}') or \
                (new.strip() and last_code_char(new) not in (';', '}')):
            raise Excluded('the changed lines do not end a statement')
        return a, b, 'stmt', new


# a statement that declares a local: a type, then a name
DECLARATION = re.compile(
    r'\s*(?:const\s+|static\s+|volatile\s+)*'
    r'(?:struct\s+\w+|enum\s+\w+|union\s+\w+|unsigned(?:\s+(?:int|long|char|short))*|'
    r'signed|int|long|short|char|bool|void|[us](?:8|16|32|64)|__[us](?:8|16|32|64)|'
    r'\w+_t)\b[\s\*]*\w+\s*(?:\[[^\]]*\]\s*)?[=;,]')


def assigned_value(text, a, b):
    """(start, end) of the value of the one assignment (or initialised
    declaration) that TEXT[a:b] holds as a single statement, or None."""
    body = text[a:b]
    depth, eq, semis = 0, -1, []
    i = 0
    while i < len(body):
        c = body[i]
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
        elif c in '"\'':
            return None
        elif depth == 0 and c == ';':
            semis.append(i)
        elif depth == 0 and c == '=' and eq < 0 and not semis:
            before = body[i - 1] if i else ''
            after = body[i + 1] if i + 1 < len(body) else ''
            if after != '=' and before not in '=!<>+-*/%&|^':
                eq = i
        i += 1
    if eq < 0 or len(semis) != 1 or body[semis[0] + 1:].strip():
        return None
    start, end = eq + 1, semis[0]
    while start < end and body[start] in ' \t\n':
        start += 1
    while end > start and body[end - 1] in ' \t\n':
        end -= 1
    if start >= end:
        return None
    return a + start, a + end


def mutated_text(orig, subst):
    """ORIG with the mutant's substitution applied (perl -0pe, as
    scripts/mutation-check.sh applies it)."""
    r = subprocess.run(['perl', '-0pe', subst], input=orig.encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode:
        raise Excluded('the substitution fails: %s' % r.stderr.decode().strip()[:120])
    return r.stdout.decode()


def read_mutants(path):
    out = []
    for line in open(path):
        line = line.rstrip('\n')
        if not line or line.startswith('#'):
            continue
        parts = line.split('|', 3)
        if len(parts) != 4:
            raise SystemExit('mutschema: not a mutant line: %s' % line[:80])
        out.append(parts)
    return out


def head_text(tree, rel):
    r = subprocess.run(['git', '-C', tree, 'show', 'HEAD:' + rel],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode:
        raise SystemExit('mutschema: %s is not in the tree\'s HEAD' % rel)
    return r.stdout.decode()


def tree_headers(tree):
    """The names of fs/fuse's headers in the tree's HEAD."""
    r = subprocess.run(['git', '-C', tree, 'ls-tree', '--name-only', 'HEAD', 'fs/fuse/'],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return [os.path.basename(p) for p in r.stdout.decode().split() if p.endswith('.h')]


def write_new(path, text):
    """Write PATH as a new file: a prepared tree's files are hard links
    into the shared source, never written in place."""
    tmp = path + '.mutschema'
    with open(tmp, 'w') as f:
        f.write(text)
    os.replace(tmp, path)


MUTANT_H = '''/* SPDX-License-Identifier: GPL-2.0 */
/* Generated by fusegate's scripts/mutschema.py: the switch of a mutant schema. */
#ifndef _FS_FUSE_MUTANT_H
#define _FS_FUSE_MUTANT_H
#include <linux/bitops.h>
#include <linux/compiler.h>
#include <linux/types.h>

#define FUSE_MUT_SITES %d

extern unsigned int fuse_mutant;
extern unsigned long fuse_mut_reached[];
extern unsigned long fuse_mut_true[];
extern unsigned long fuse_mut_false[];

/* whether mutant ID (at SITE) is on; SITE is recorded as reached */
static __always_inline bool fuse_mut_is(unsigned int site, unsigned int id)
{
	if (!test_bit(site, fuse_mut_reached))
		set_bit(site, fuse_mut_reached);
	return READ_ONCE(fuse_mutant) == id;
}

/*
 * The unmutated value of the condition at SITE (an if or while), recorded
 * as seen true or seen false: a mutant that changes the condition only
 * when it is true (or only when false) is not infected by a test that
 * never saw that value.
 */
static __always_inline bool fuse_mut_cond(unsigned int site, bool value)
{
	unsigned long *seen = value ? fuse_mut_true : fuse_mut_false;

	if (!test_bit(site, seen))
		set_bit(site, seen);
	return value;
}
#endif
'''

MAKEFILE_TAIL = '''
# fusegate mutant schema (scripts/mutschema.py): the switch and the guards
fuse-y += mutant.o
ccflags-y += -include $(srctree)/fs/fuse/mutant.h
'''


# what a generated mutant of a whole condition changes: the condition's
# value only when the original is true (never: C -> 0; drop_or: a true
# operand dropped) or only when it is false (drop_and: a false operand
# dropped); negate and the rest change it whatever it is
NEEDS = {'never': 'true', 'drop_or': 'true', 'drop_and': 'false'}


def operator_of(mid):
    """The operator of a generated mutant's id (file:function:op:hash),
    its operand number dropped; None for a hand-written mutant."""
    parts = mid.split(':')
    if len(parts) != 4:
        return None
    return re.sub(r'_\d+$', '', parts[2])


# calls that only read: a condition made of these (and operators) has no
# side effect, so a mutant that drops or skips it changes nothing but its
# value
PURE_CALLS = {
    'likely', 'unlikely', 'IS_ERR', 'IS_ERR_OR_NULL', 'PTR_ERR', 'READ_ONCE',
    'test_bit', 'S_ISDIR', 'S_ISREG', 'S_ISLNK', 'S_ISCHR', 'S_ISBLK', 'S_ISFIFO',
    'S_ISSOCK', 'list_empty', 'hlist_unhashed', 'RB_EMPTY_NODE', 'RB_EMPTY_ROOT',
    'get_node_id', 'get_fuse_inode', 'get_fuse_conn', 'get_fuse_mount',
    'get_fuse_conn_super', 'get_fuse_mount_super', 'fuse_is_bad', 'is_bad_inode',
    'is_sync_kiocb', 'iov_iter_is_kvec', 'iov_iter_count', 'i_size_read',
    'file_inode', 'd_inode', 'd_really_is_negative', 'd_really_is_positive',
    'uid_valid', 'gid_valid', 'uid_eq', 'gid_eq', 'kuid_has_mapping',
    'kgid_has_mapping', 'fuse_file_passthrough', 'fuse_inode_backing',
    'sizeof', 'offsetof', 'ARRAY_SIZE', 'IS_DAX', 'IS_AUTOMOUNT', 'S_ISGID',
    'WARN_ON', 'WARN_ON_ONCE', 'waitqueue_active', 'refcount_read', 'atomic_read',
    'fuse_valid_type', 'fuse_invalid_attr', 'fuse_valid_size', 'fuse_stale_inode',
    'memchr', 'memcmp', 'strcmp', 'strncmp', 'strlen', 'strnlen',
}
CALL = re.compile(r'\b([A-Za-z_]\w*)\s*\(')
ASSIGN = re.compile(r'(?<![=!<>+\-*/%&|^])=(?!=)|\+\+|--|[+\-*/%&|^]=|<<=|>>=')
KEYWORDS_NOT_CALLS = {'if', 'while', 'for', 'switch', 'return', 'sizeof', 'typeof',
                      '__typeof__'}


def side_effect(text):
    """The first side effect in condition TEXT (an assignment, ++ or --,
    a call that is not known to only read), or None."""
    m = ASSIGN.search(text)
    if m:
        return m.group(0)
    for c in CALL.finditer(text):
        name = c.group(1)
        if name not in PURE_CALLS and name not in KEYWORDS_NOT_CALLS and not name.isupper():
            return name + '()'
    return None


def infection_need(kind, mid, condition=''):
    """Which value of the site's unmutated CONDITION a test must have
    seen for mutant MID to change anything: 'true', 'false' or 'any'.
    A condition with a side effect (a call that does something, an
    assignment) is 'any': skipping or dropping part of it changes what it
    does, whatever its value."""
    if kind != 'cond' or side_effect(condition):
        return 'any'
    return NEEDS.get(operator_of(mid), 'any')


def guard(kind, site, alternatives, original):
    if kind == 'cond':
        # a condition: every alternative as a truth value, the original's
        # recorded as seen true or false (what infects which mutant)
        chain = ''.join('fuse_mut_is(%d, %d) ? !!(%s) : ' % (site, num, text)
                        for num, text in alternatives)
        return '(%sfuse_mut_cond(%d, !!(%s)))' % (chain, site, original)
    if kind == 'expr':
        chain = ''.join('fuse_mut_is(%d, %d) ? (%s) : ' % (site, num, text)
                        for num, text in alternatives)
        return '(%s(%s))' % (chain, original)
    # in braces of its own: the body of a braceless if stays one statement
    out = '{ '
    for k, (num, text) in enumerate(alternatives):
        out += '%sif (fuse_mut_is(%d, %d)) {\n%s%s}' % (
            '' if k == 0 else ' else ', site, num, text,
            '' if text.endswith('\n') or not text else '\n')
    body = original if original.endswith('\n') else original + '\n'
    return out + ' else {\n%s} }\n' % body


def cmd_schema(args):
    mutants = read_mutants(args.mutants)
    excluded = {}
    if args.exclude and os.path.exists(args.exclude):
        for line in open(args.exclude):
            mid, _, why = line.rstrip('\n').partition(' ')
            if mid:
                excluded[mid] = why or 'excluded'
    # a mutant's number is its line in the whole list (--all): the same in
    # every shard, so that shards' results merge
    index = {}
    if args.all:
        for k, m in enumerate(read_mutants(args.all), 1):
            index.setdefault(m[0], k)
    by_file, plan_mutants = {}, []
    for k, (mid, rel, what, subst) in enumerate(mutants, 1):
        num = index.get(mid, k)
        entry = {'num': num, 'id': mid, 'file': rel, 'what': what}
        plan_mutants.append(entry)
        if mid in excluded:
            entry['excluded'] = excluded[mid]
            continue
        if args.built and rel.endswith('.c') and not os.path.exists(
                os.path.join(args.built, rel[:-2] + '.o')):
            entry['excluded'] = 'not compiled in the guest'
            continue
        by_file.setdefault(rel, []).append((entry, subst))
    sites, site_no = [], 0
    headers = [head_text(args.tree, 'fs/fuse/' + h) for h in tree_headers(args.tree)]
    for rel in sorted(by_file):
        orig = head_text(args.tree, rel)
        src = Source(orig)
        macros = config_macros([orig] + headers)
        units = []
        for entry, subst in by_file[rel]:
            try:
                mutated = mutated_text(orig, subst)
                a, b, kind, new = unit_of(src, orig, mutated)
                # a guarded condition or value that tests the config is no
                # longer a constant: what the config compiles out (a call
                # of a function it leaves out) would be linked
                test = config_dependent(orig[a:b], macros) if kind != 'stmt' else None
                if test:
                    raise Excluded('tests the kernel\'s config (%s): guarded, it would '
                                   'make code that config compiles out reachable' % test)
            except Excluded as why:
                entry['excluded'] = str(why)
                continue
            units.append([a, b, kind, [(entry, new, a, b)]])
        # merge overlapping units into one site
        units.sort(key=lambda u: (u[0], -u[1]))
        merged = []
        for u in units:
            if merged and u[0] < merged[-1][1]:
                # nested or overlapping: one site over the union, a
                # statement if either is one, a condition if the union
                # is the condition (what a condition holds is within it)
                m = merged[-1]
                if u[2] == 'stmt' or m[2] == 'stmt':
                    m[2] = 'stmt'
                elif (m[2] == 'cond' and u[1] <= m[1]) or \
                        (u[2] == 'cond' and u[0] <= m[0] and m[1] <= u[1]):
                    m[2] = 'cond'
                else:
                    m[2] = 'expr'
                m[1] = max(m[1], u[1])
                m[3].extend(u[3])
            else:
                merged.append(u)
        text, pos, out = orig, 0, []
        for a, b, kind, members in merged:
            alternatives = []
            for entry, new, ua, ub in members:
                alternatives.append((entry['num'], orig[a:ua] + new + orig[ub:b]))
            out.append(text[pos:a])
            first_line = ''.join(out).count('\n') + 1
            g = guard(kind, site_no, alternatives, orig[a:b])
            out.append(g)
            last_line = first_line + g.count('\n')
            pos = b
            fn = src.function_of(a)
            sites.append({'site': site_no, 'file': rel, 'kind': kind,
                          'function': src.function_name(fn[0]) if fn else '',
                          'line': orig.count('\n', 0, a) + 1,
                          'schema_lines': [first_line, last_line],
                          'mutants': [m[0]['num'] for m in members]})
            for entry, _, _, _ in members:
                entry['site'] = site_no
                entry['need'] = infection_need(kind, entry['id'], orig[a:b])
                entry['line'] = orig.count('\n', 0, a) + 1
            site_no += 1
        out.append(text[pos:])
        write_new(os.path.join(args.tree, rel), ''.join(out))
    fuse = os.path.join(args.tree, 'fs', 'fuse')
    write_new(os.path.join(fuse, 'mutant.h'), MUTANT_H % max(1, site_no))
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           'mutant', 'mutant.c')) as f:
        write_new(os.path.join(fuse, 'mutant.c'), f.read())
    write_new(os.path.join(fuse, 'Makefile'),
              head_text(args.tree, 'fs/fuse/Makefile') + MAKEFILE_TAIL)
    plan = {'tree': args.tree, 'mutants': plan_mutants, 'sites': sites}
    with open(args.out, 'w') as f:
        json.dump(plan, f, indent=1)
    guarded = sum(1 for m in plan_mutants if 'site' in m)
    print('mutschema: %d mutant(s) guarded at %d site(s), %d excluded' % (
        guarded, site_no, len(plan_mutants) - guarded))
    return 0


def cmd_blame(args):
    """Name the mutants whose guard a compiler error points into."""
    plan = json.load(open(args.plan))
    bad, why = set(), {}
    err = re.compile(r'^(?:\S*/)?(fs/fuse/[\w.-]+\.c):(\d+):\d+: error:')
    # the linker: "in function `F':" then "undefined reference to `X'"
    in_function = re.compile(r"in function [`'](\w+)'")
    undefined = re.compile(r"undefined reference to [`'](\w+)'")
    function = None
    for line in open(args.log, errors='replace'):
        m = in_function.search(line)
        if m:
            function = m.group(1)
        u = undefined.search(line)
        if u and function:
            for s in plan['sites']:
                if s.get('function') == function and s['kind'] != 'stmt':
                    bad.add(s['site'])
                    why[s['site']] = 'its guard links %s(), which the config leaves out' % u.group(1)
        m = err.match(line.strip())
        if not m:
            continue
        rel, ln = m.group(1), int(m.group(2))
        for s in plan['sites']:
            if s['file'] == rel and s['schema_lines'][0] <= ln <= s['schema_lines'][1]:
                bad.add(s['site'])
    for m in plan['mutants']:
        if m.get('site') in bad:
            print('%s %s' % (m['id'], why.get(m['site'], 'its guard does not compile')))
    return 0 if bad else 1


# --- the guest's units ---------------------------------------------------------

def parse_list(table):
    """The tests of a kselftest harness program from its -l table."""
    tests, fixture, variants, names = [], None, [], []

    def flush():
        if fixture is None:
            return
        for v in (variants or ['']):
            for t in names:
                tests.append('%s%s%s.%s' % (fixture, '.' if v else '', v, t))

    for row in table.splitlines():
        if row.startswith('# FIXTURE') or not row.strip():
            continue
        if row.startswith('-----'):
            flush()
            fixture, variants, names = None, [], []
            continue
        fields, pos = [], 0
        for width in (20, 25):
            if pos >= len(row) or row[pos] == ' ':
                fields.append('')
                pos += width + 1
            else:
                tok = row[pos:].split()[0]
                fields.append(tok)
                pos += max(width, len(tok)) + 1
        fields.append(row[pos:].strip() if pos < len(row) else '')
        if fields[0]:
            fixture = fields[0]
        if fields[1]:
            variants.append(fields[1])
        if fields[2]:
            names.append(fields[2])
    flush()
    return tests


def cmd_units(args):
    n = 0
    for prog in args.programs:
        if prog in args.whole:
            continue
        path = os.path.join(args.bin, prog)
        r = subprocess.run([path, '-l'], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)
        table = r.stdout.decode()
        # the harness lists and ends with KSFT_SKIP (4)
        if r.returncode != 4 or not table.startswith('# FIXTURE'):
            print('mutschema: %s -l did not list its tests (status %d)' % (
                prog, r.returncode), file=sys.stderr)
            return 3
        for test in parse_list(table):
            n += 1
            print('%d %s %s' % (n, prog, test))
    for suite in args.kunit:
        n += 1
        print('%d kunit %s' % (n, suite))
    for prog in args.whole:
        n += 1
        print('%d %s *' % (n, prog))
    return 0 if n else 3


# --- results -----------------------------------------------------------------

VERDICTS = ('killed', 'survived', 'uninfected', 'uncovered', 'unjudged')
# what a mutant that no test killed is: survived the tests that changed
# its site's behaviour, reached by tests none of which gave its condition
# the value it changes, or reached by no test
SURVIVORS = ('survived', 'uninfected', 'uncovered')


def read_results(paths):
    """(baseline, verdicts, boots, boot_sites): BASE lines by unit (when
    the baseline is complete: BASE-END), MUT lines by mutant number, the
    boots, and the sites reached while the kernel booted.  A line that
    does not parse (a guest that died mid-line) is left out."""
    base, verdicts, boots, boot_sites, complete = {}, {}, 0, set(), False
    for path in paths:
        if not os.path.exists(path):
            continue
        for line in open(path, errors='replace'):
            if not line.endswith('\n'):
                continue
            f = line.split()
            try:
                if f[:1] == ['BASE'] and len(f) >= 4:
                    sites = f[4] if len(f) > 4 else ''
                    seen = dict(x.split('=', 1) for x in f[5:] if '=' in x)
                    base[int(f[1])] = {'rc': f[2], 'seconds': float(f[3]),
                                       'sites': '' if sites == '-' else sites,
                                       'true': seen.get('t', ''),
                                       'false': seen.get('f', '')}
                elif f[:1] == ['BASE-END']:
                    complete = True
                elif f[:1] == ['MUT'] and len(f) >= 3 and f[2] in VERDICTS:
                    verdicts[int(f[1])] = {'verdict': f[2], 'by': ' '.join(f[3:])}
                elif f[:1] == ['BOOTSITES'] and len(f) > 1:
                    boot_sites |= expand(f[1])
                elif f[:1] == ['BOOT']:
                    boots += 1
            except ValueError:
                continue
    if not complete:
        base = {}
    return base, verdicts, boots, boot_sites


def expand(ranges):
    out = set()
    for part in ranges.split(','):
        if not part:
            continue
        a, _, b = part.partition('-')
        out.update(range(int(a), int(b or a) + 1))
    return out


def cmd_resume(args):
    base, verdicts, _, _ = read_results(args.results)
    mut = os.path.join(args.root, 'etc', 'mut')
    os.makedirs(mut, exist_ok=True)
    with open(os.path.join(mut, 'baseline'), 'w') as f:
        for n in sorted(base):
            b = base[n]
            f.write('BASE %d %s %.2f %s t=%s f=%s\n' % (
                n, b['rc'], b['seconds'], b['sites'] or '-', b['true'], b['false']))
    with open(os.path.join(mut, 'done'), 'w') as f:
        for n in sorted(verdicts):
            v = verdicts[n]
            if v['verdict'] == 'unjudged':
                continue
            f.write('MUT %d %s %s\n' % (n, v['verdict'], v['by']))
    plan = json.load(open(args.plan))
    todo = [m for m in plan['mutants'] if 'site' in m and
            verdicts.get(m['num'], {}).get('verdict', 'unjudged') == 'unjudged']
    print(len(todo))
    return 0


KILLED = ('killed',)


def cmd_report(args):
    plans = [json.load(open(p)) for p in args.plan]
    base, verdicts, boots, boot_sites = read_results(args.results)
    known = mutgen.read_triage(args.triage)
    fresh = set()
    if args.fresh and os.path.exists(args.fresh):
        fresh = {line.strip() for line in open(args.fresh) if line.strip()}
    rows = []
    for plan in plans:
        for m in plan['mutants']:
            v = verdicts.get(m['num'])
            if 'excluded' in m:
                state, by = 'excluded', m['excluded']
            elif v is None:
                state, by = 'not-run', ''
            else:
                state, by = v['verdict'], v['by']
            if state == 'uncovered' and m.get('site') in boot_sites:
                # the guard ran while the kernel booted, before the switch
                # could be set: not a survivor of the tests
                state, by = 'boot-only', 'reached only while the kernel boots'

            op = m['id'].split(':')[2] if m['id'].count(':') >= 3 else 'hand-written'
            op = re.sub(r'_\d+$', '', op)
            rows.append({'id': m['id'], 'file': m['file'], 'operator': op,
                         'state': state, 'by': by, 'what': m['what'],
                         'fresh': m['id'] in fresh})
    judged = [r for r in rows if r['state'] in ('killed',) + SURVIVORS and not r['fresh']]
    k = sum(1 for r in judged if r['state'] == 'killed')
    n = len(judged)
    lo, hi = mutgen.wilson(k, n)
    lines = ['mutation score: %d of %d killed, %.1f%% (95%% interval %.1f%% to %.1f%%)'
             % (k, n, 100.0 * k / n if n else 0.0, 100 * lo, 100 * hi)]
    for key in ('file', 'operator'):
        per = {}
        for r in judged:
            kk, nn = per.get(r[key], (0, 0))
            per[r[key]] = (kk + (r['state'] == 'killed'), nn + 1)
        lines.append('')
        lines.append('| %s | killed | judged | score | 95%% interval |' % key)
        lines.append('|---|---:|---:|---:|---|')
        for name in sorted(per):
            kk, nn = per[name]
            a, b = mutgen.wilson(kk, nn)
            lines.append('| %s | %d | %d | %.0f%% | %.0f%% to %.0f%% |' % (
                name, kk, nn, 100.0 * kk / nn, 100 * a, 100 * b))
    fresh_judged = [r for r in rows if r['state'] in ('killed',) + SURVIVORS and r['fresh']]
    if fresh:
        fk, fn = sum(1 for r in fresh_judged if r['state'] == 'killed'), len(fresh_judged)
        flo, fhi = mutgen.wilson(fk, fn)
        lines.append('')
        lines.append('fresh sample (seed %s, reported, never failing): %d of %d killed, '
                     '%.1f%% (95%% interval %.1f%% to %.1f%%)' % (
                         args.fresh_seed or '?', fk, fn, 100.0 * fk / fn if fn else 0.0,
                         100 * flo, 100 * fhi))
    counts, fresh_counts = {}, {}
    for r in rows:
        which = fresh_counts if r['fresh'] else counts
        which[r['state']] = which.get(r['state'], 0) + 1
    lines.append('')
    lines.append('states: ' + ', '.join('%s %d' % (s, counts[s]) for s in sorted(counts)))
    if fresh_counts:
        lines.append('fresh sample states: ' + ', '.join(
            '%s %d' % (s, fresh_counts[s]) for s in sorted(fresh_counts)))
    lines.append('baseline: %d unit(s), %d passing; guest boots: %d' % (
        len(base), sum(1 for b in base.values() if b['rc'] == '0'), boots))
    new = []
    for r in rows:
        if r['state'] in SURVIVORS:
            t = known.get(r['id'])
            tag = 'triaged: %s' % t[0] if t else 'NEW'
            if r['fresh']:
                lines.append('fresh survivor (%s, %s, reported only) %s  %s' % (
                    r['state'], tag, r['id'], r['what']))
                continue
            if not t:
                new.append(r)
            lines.append('survivor (%s, %s) %s  %s' % (r['state'], tag, r['id'], r['what']))
    for r in rows:
        if r['state'] == 'excluded':
            lines.append('excluded %s: %s' % (r['id'], r['by']))
    for r in rows:
        if r['state'] == 'boot-only':
            lines.append('boot-only %s: %s' % (r['id'], r['by']))
    for r in rows:
        if r['state'] in ('not-run', 'unjudged'):
            lines.append('NOT JUDGED %s%s %s' % ('(fresh) ' if r['fresh'] else '',
                                                r['id'], r['by']))
    print('\n'.join(lines))
    if args.json:
        with open(args.json, 'w') as f:
            json.dump({'killed': k, 'judged': n, 'interval': [lo, hi],
                       'states': counts, 'fresh_states': fresh_counts,
                       'mutants': rows}, f, indent=1)
    # a fresh mutant without a verdict is reported, not an error: the
    # fresh sample never fails a run
    if any(r['state'] in ('not-run', 'unjudged') and not r['fresh'] for r in rows):
        return 3
    return 1 if new else 0


def cmd_shard(args):
    m = re.fullmatch(r'(\d+)/(\d+)', args.shard)
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        raise SystemExit('mutschema: --shard must be K/N with 1 <= K <= N')
    k, n = int(m.group(1)), int(m.group(2))
    for i, line in enumerate(sys.stdin):
        if i % n == k - 1:
            sys.stdout.write(line)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split('\n', 2)[2])
    sub = ap.add_subparsers(dest='cmd', required=True)
    s = sub.add_parser('schema', help='write the schema into a tree')
    s.add_argument('--tree', required=True)
    s.add_argument('--mutants', required=True, help='id|file|what|substitution lines')
    s.add_argument('--out', required=True, help='the plan (JSON) to write')
    s.add_argument('--exclude', help='lines "ID REASON" of mutants to leave out')
    s.add_argument('--all', help='the whole list the mutants were drawn from: '
                   'numbers are lines of it, the same in every shard')
    s.add_argument('--built', help='the build directory: a file it has no object '
                   'of is not compiled, its mutants are excluded')
    b = sub.add_parser('blame', help='the mutants whose guard did not compile')
    b.add_argument('--plan', required=True)
    b.add_argument('--log', required=True)
    u = sub.add_parser('units', help='the harness tests of programs, one a line')
    u.add_argument('--bin', required=True)
    u.add_argument('programs', nargs='+')
    u.add_argument('--whole', nargs='*', default=[],
                   help='programs run whole, one unit each (listed last)')
    u.add_argument('--kunit', nargs='*', default=[],
                   help='KUnit suites, one unit each (run again through debugfs)')
    r = sub.add_parser('resume', help='what a rebooted guest must not do again')
    r.add_argument('--plan', required=True)
    r.add_argument('--results', nargs='+', required=True)
    r.add_argument('--root', required=True)
    p = sub.add_parser('report', help='score a run')
    p.add_argument('--plan', nargs='+', required=True)
    p.add_argument('--results', nargs='+', required=True)
    p.add_argument('--triage')
    p.add_argument('--json')
    p.add_argument('--fresh', help='ids (one a line) of a fresh sample: scored apart, '
                   'its survivors reported, never failing')
    p.add_argument('--fresh-seed', help='the fresh sample\'s seed, for the report')
    h = sub.add_parser('shard', help='keep part K of N of the mutant lines on stdin')
    h.add_argument('--shard', required=True)
    args = ap.parse_args()
    return {'schema': cmd_schema, 'blame': cmd_blame, 'units': cmd_units,
            'resume': cmd_resume, 'report': cmd_report, 'shard': cmd_shard}[args.cmd](args)


if __name__ == '__main__':
    sys.exit(main())
