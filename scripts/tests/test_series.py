"""Tests of scripts/series.py (and gate-fixtures/mail/make-fixtures.py).

Run from the repository root:
  python3 -m unittest discover -s scripts/tests -v

Mails and mboxes are built in a temporary directory; the command line is
run as a subprocess, as the gate's shell scripts run it.
"""

import contextlib
import importlib.util
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, 'scripts', 'series.py')
MAKE_FIXTURES = os.path.join(ROOT, 'gate-fixtures', 'mail', 'make-fixtures.py')
KERNEL_PATCHES = os.path.join(ROOT, 'kernel-patches')


def load_module():
    """scripts/series.py as a module (it is not in a package)."""
    sys.dont_write_bytecode = True      # no scripts/__pycache__ in the repository
    spec = importlib.util.spec_from_file_location('series', SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


series = load_module()

FROM = 'From 1234567890abcdef1234567890abcdef12345678 Mon Sep 17 00:00:00 2001\n'
DIFF = """diff --git a/fs/fuse/f{k}.c b/fs/fuse/f{k}.c
index 1111111..2222222 100644
--- a/fs/fuse/f{k}.c
+++ b/fs/fuse/f{k}.c
@@ -1,3 +1,3 @@
 int a;
-int old{k};
+int {new}{k};
 int b;
"""


def make_mail(subject, k=1, diff=True, message=None, new='new', date='01:00:00',
              headers='', from_line=True):
    """A format-patch style mail (bytes); subject is the raw header value."""
    body = message if message is not None else 'Change number %d.\n' % k
    text = ((FROM if from_line else '')
            + 'From: Dev <dev@example.org>\n'
            + 'Date: Thu, 3 Dec 2026 %s +0000\n' % date
            + 'Subject: %s\n' % subject
            + headers
            + '\n' + body)
    if diff:
        text += '---\n fs/fuse/f%d.c | 2 +-\n\n' % k + DIFF.format(k=k, new=new)
    return text.encode('utf-8')


def patch_subject(k, total, version=None, title=None):
    """'[PATCH vV kk/NN] title' (no vV when version is None)."""
    v = ' v%d' % version if version else ''
    return '[PATCH%s %02d/%02d] %s' % (v, k, total, title or 'change %d' % k)


def make_series(total, version=None, cover=True, skip=(), date='01:00:00'):
    """The mails of a series (bytes each): cover letter (0/N) then 1..N."""
    mails = []
    if cover:
        mails.append(make_mail(patch_subject(0, total, version, 'the cover'),
                               diff=False, message='This series...\n', date=date))
    for k in range(1, total + 1):
        if k not in skip:
            mails.append(make_mail(patch_subject(k, total, version), k=k, date=date))
    return mails


class SeriesTestCase(unittest.TestCase):
    """A temporary directory, and the command line run as a subprocess."""

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name
        self.count = 0

    def tearDown(self):
        self._tmp.cleanup()

    def path(self, *names):
        return os.path.join(self.tmp, *names)

    def write(self, name, data):
        """Write data (bytes) to name in the temporary directory."""
        path = self.path(name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'wb') as f:
            f.write(data)
        return path

    def run_cli(self, *args, script=SCRIPT):
        """(exit status, stdout, stderr) of the script; never a traceback."""
        proc = subprocess.run([sys.executable, script] + list(args), capture_output=True,
                              text=True, cwd=self.tmp)
        self.assertNotIn('Traceback', proc.stderr)
        self.assertNotIn('Traceback', proc.stdout)
        return proc.returncode, proc.stdout, proc.stderr

    def split(self, source, *extra, expect=0):
        """Split source into a fresh directory; return (out, stdout, stderr)."""
        self.count += 1
        out = self.path('out%d' % self.count)
        rc, stdout, stderr = self.run_cli('split', source, '--out', out, *extra)
        self.assertEqual(rc, expect, stderr)
        return out, stdout, stderr

    def refused(self, source, *extra):
        """stderr of a split that must be refused (exit 3, one INFRA ERROR line)."""
        out, _, stderr = self.split(source, *extra, expect=3)
        errors = [line for line in stderr.splitlines() if line.startswith('INFRA ERROR: ')]
        self.assertEqual(len(errors), 1, stderr)
        self.assertFalse(os.path.exists(out), 'a refused split must write nothing')
        return errors[0]

    def manifest(self, out):
        with open(os.path.join(out, 'manifest.json'), encoding='utf-8') as f:
            return json.load(f)

    def subjects(self, out):
        return [p['subject'] for p in self.manifest(out)['patches']]

    def ident(self, out):
        rc, stdout, stderr = self.run_cli('id', out)
        self.assertEqual(rc, 0, stderr)
        self.assertRegex(stdout.strip(), r'^[0-9a-f]{16}$')
        return stdout.strip()

    def read(self, path):
        with open(path, 'rb') as f:
            return f.read()


class SourceKinds(SeriesTestCase):
    """The four kinds of SOURCE."""

    def test_directory_with_series_file(self):
        mails = make_series(3)
        self.write('shared/0002-b.patch', mails[2])
        self.write('dir/0000-cover-letter.patch', mails[0])
        self.write('dir/0001-a.patch', mails[1])
        self.write('dir/0003-c.patch', mails[3])
        self.write('dir/series', b'# order\n0000-cover-letter.patch\n0001-a.patch\n\n'
                   b'../shared/0002-b.patch\n0003-c.patch\n')
        out, stdout, stderr = self.split(self.path('dir'))
        files = stdout.splitlines()
        self.assertEqual([os.path.basename(f) for f in files],
                         ['0001.patch', '0002.patch', '0003.patch'])
        self.assertTrue(all(os.path.isabs(f) for f in files))
        self.assertEqual(self.read(files[1]), mails[2])
        m = self.manifest(out)
        self.assertEqual((m['version'], m['count']), (1, 3))
        self.assertEqual(m['skipped'][0]['reason'], 'cover letter')
        self.assertIn('series: skipped: cover letter', stderr)

    def test_series_file_including_another_series(self):
        mails = make_series(3)
        self.write('base/0001-a.patch', mails[1])
        self.write('base/0002-b.patch', mails[2])
        self.write('base/series', b'0001-a.patch\n0002-b.patch\n')
        self.write('top/0003-c.patch', mails[3])
        self.write('top/series', b'include ../base\n0003-c.patch\n')
        out, stdout, _ = self.split(self.path('top'))
        self.assertEqual([self.read(f) for f in stdout.splitlines()], mails[1:4])
        self.write('loop/series', b'include .\n')
        rc, _, stderr = self.run_cli('split', self.path('loop'), '--out', self.path('o2'))
        self.assertEqual(rc, 3)
        self.assertIn('includes itself', stderr)

    def test_series_file_naming_a_missing_file(self):
        self.write('dir/0001-a.patch', make_mail(patch_subject(1, 2)))
        self.write('dir/series', b'0001-a.patch\n0002-gone.patch\n')
        line = self.refused(self.path('dir'))
        self.assertIn('0002-gone.patch', line)

    def test_series_file_listing_a_mail_without_diff(self):
        self.write('dir/0001-a.patch', make_mail('[PATCH] no diff here', diff=False))
        self.write('dir/series', b'0001-a.patch\n')
        line = self.refused(self.path('dir'))
        self.assertIn('empty patch', line)
        self.assertIn('0001-a.patch', line)

    def test_series_file_takes_listed_order_and_rejects_version(self):
        self.write('dir/x.patch', make_mail('[PATCH 3/5] third', k=3))
        self.write('dir/y.patch', make_mail('[PATCH] lone', k=9))
        self.write('dir/series', b'x.patch\ny.patch\n')
        out, _, _ = self.split(self.path('dir'))
        self.assertEqual(self.subjects(out), ['[PATCH 3/5] third', '[PATCH] lone'])
        self.assertEqual([p['n'] for p in self.manifest(out)['patches']], [1, 2])
        rc, _, stderr = self.run_cli('split', self.path('dir'), '--out', self.path('o'),
                                     '--version', '2')
        self.assertEqual(rc, 2)

    def test_directory_of_mails(self):
        mails = make_series(4, version=2)
        # file names in reverse order: the n/N numbering decides
        self.write('mails/a.eml', mails[4])
        self.write('mails/b.patch', mails[3])
        self.write('mails/c.mbox', mails[0] + mails[1] + mails[2])
        self.write('mails/.hidden', b'not a mail')
        out, stdout, _ = self.split(self.path('mails'))
        self.assertEqual(self.subjects(out), [patch_subject(k, 4, 2) for k in range(1, 5)])
        sources = [p['source'] for p in self.manifest(out)['patches']]
        self.assertEqual(sources[0], os.path.join(self.path('mails'), 'c.mbox#2'))
        self.assertEqual(self.read(stdout.splitlines()[3]), mails[4])

    def test_mbox_file(self):
        mails = make_series(3)
        mbox = self.write('s.mbox', mails[0] + mails[3] + mails[2] + mails[1])
        out, stdout, _ = self.split(mbox)
        files = stdout.splitlines()
        self.assertEqual(len(files), 3)
        for k, f in enumerate(files, 1):    # raw bytes, From line included
            self.assertEqual(self.read(f), mails[k])
        self.assertEqual(self.manifest(out)['patches'][0]['source'], mbox + '#4')

    def test_single_patch_file_lone_patch(self):
        path = self.write('one.patch', make_mail('[PATCH] fuse: a fix', from_line=False))
        out, stdout, _ = self.split(path)
        m = self.manifest(out)
        self.assertEqual((m['version'], m['count']), (1, 1))
        self.assertEqual((m['patches'][0]['n'], m['patches'][0]['total']), (1, 1))
        self.assertEqual(self.read(stdout.strip()), self.read(path))

    def test_single_numbered_patch_is_incomplete(self):
        path = self.write('p.patch', make_mail('[PATCH 2/3] second', k=2))
        line = self.refused(path)
        self.assertIn('incomplete series v1: missing 1/3, 3/3', line)


class Classification(SeriesTestCase):
    """Cover letters, replies, trailers, empty and malformed mails."""

    def test_replies_are_skipped_even_with_a_diff(self):
        mails = make_series(2)
        quoted = make_mail('Re: ' + patch_subject(1, 2), diff=False,
                           message='> diff --git a/fs/fuse/dev.c b/fs/fuse/dev.c\n'
                           '> @@ -1,3 +1,3 @@\n> -int old;\n\nWhy?\n')
        unquoted = make_mail('RE: re: ' + patch_subject(2, 2), k=2, new='suggested',
                             message='Try this instead.\n\nReviewed-by: R <r@example.org>\n')
        aw = make_mail('Aw: ' + patch_subject(1, 2), k=1, new='aw')
        fwd = make_mail('Fwd: ' + patch_subject(2, 2), k=2, new='fwd')
        mbox = self.write('s.mbox', mails[0] + mails[1] + quoted + mails[2]
                          + unquoted + aw + fwd)
        out, _, stderr = self.split(mbox)
        m = self.manifest(out)
        self.assertEqual(m['count'], 2)
        reasons = {s['source']: s['reason'] for s in m['skipped']}
        self.assertEqual(reasons, {mbox + '#1': 'cover letter', mbox + '#3': 'a reply (Re:)',
                                   mbox + '#5': 'a reply (Re:)', mbox + '#6': 'a reply (Aw:)',
                                   mbox + '#7': 'a forward (Fwd:)'})
        self.assertIn('series: skipped: a reply (Re:)', stderr)
        self.assertNotIn(b'suggested', self.read(os.path.join(out, '0002.patch')))

    def test_trailer_in_a_patch_is_kept(self):
        mails = make_series(2)
        trailer = make_mail(patch_subject(2, 2), k=2,
                            message='Change 2.\n\nReviewed-by: R <r@example.org>\n')
        out, _, _ = self.split(self.write('s.mbox', mails[1] + trailer))
        self.assertEqual(self.read(os.path.join(out, '0002.patch')), trailer)

    def test_empty_numbered_patch_is_refused(self):
        mails = make_series(3)
        mails[2] = make_mail(patch_subject(2, 3, title='nothing'), k=2, diff=False)
        line = self.refused(self.write('s.mbox', b''.join(mails)))
        self.assertIn('s.mbox#3', line)
        self.assertIn('[PATCH 02/03] nothing', line)
        self.assertIn('empty patch', line)

    def test_plain_mail_without_diff_is_skipped(self):
        note = make_mail('a note to the list', diff=False)
        mbox = self.write('s.mbox', note + b''.join(make_series(1, cover=False)))
        out, _, _ = self.split(mbox)
        self.assertEqual(self.manifest(out)['skipped'][0]['reason'], 'not a patch (no diff)')

    def test_malformed_mail_in_mbox_is_refused(self):
        junk = (FROM + 'this is not a header line\n\nnor is this\n').encode()
        mails = make_series(2)
        line = self.refused(self.write('s.mbox', mails[1] + junk + mails[2]))
        self.assertIn('s.mbox#2', line)
        self.assertIn('malformed mail', line)

    def test_mail_without_subject_in_directory_is_refused(self):
        self.write('d/1.patch', make_series(1, cover=False)[0])
        self.write('d/2.eml', b'From: x@example.org\nDate: today\n\nbody\n')
        line = self.refused(self.path('d'))
        self.assertIn('2.eml', line)
        self.assertIn('malformed mail: no Subject', line)

    def test_folded_and_encoded_subjects(self):
        folded = make_mail('[PATCH v2\n 1/2] fuse: a long subject that git\n folds', k=1)
        encoded = make_mail('=?UTF-8?Q?[PATCH_v2_2/2]_fuse:_caf=C3=A9?=\n'
                            ' =?UTF-8?Q?_and_more?=', k=2)
        out, stdout, _ = self.split(self.write('s.mbox', encoded + folded))
        self.assertEqual(self.subjects(out), [
            '[PATCH v2 1/2] fuse: a long subject that git folds',
            '[PATCH v2 2/2] fuse: caf\u00e9 and more'])
        self.assertEqual(self.read(stdout.splitlines()[0]), folded)   # still folded

    def test_subject_prefixes(self):
        cases = {
            '[PATCH 3/13] x': (1, 3, 13), '[PATCH v2 03/13] x': (2, 3, 13),
            '[RFC PATCH v3 1/5] x': (3, 1, 5), '[PATCH RFC v2 2/4] x': (2, 2, 4),
            '[PATCH 1/2 v2] x': (2, 1, 2), '[PATCH] x': (1, None, None),
            '[PATCH v4] x': (4, None, None), '[PATCHv5 2/3] x': (5, 2, 3),
            'no prefix': (1, None, None),
        }
        for subject, want in cases.items():
            p = series.Prefix(subject)
            self.assertEqual((p.version, p.n, p.total), want, subject)

    def test_quoted_printable_patch(self):
        body = DIFF.format(k=1, new='new').replace('=', '=3D')
        mail = make_mail('[PATCH] qp', diff=False, message='msg\n---\n' + body,
                         headers='Content-Transfer-Encoding: quoted-printable\n')
        out, _, _ = self.split(self.write('qp.patch', mail))
        self.assertEqual(self.manifest(out)['count'], 1)


class Versions(SeriesTestCase):
    """Choosing among the versions of a series."""

    def test_newest_complete_version_is_the_default(self):
        mbox = self.write('s.mbox', b''.join(make_series(3, 2) + make_series(3)))
        out, _, stderr = self.split(mbox)
        m = self.manifest(out)
        self.assertEqual(m['version'], 2)
        self.assertEqual(self.subjects(out), [patch_subject(k, 3, 2) for k in (1, 2, 3)])
        self.assertIn('series: skipped: v1 (older than v2)', stderr)
        self.assertIn('v1 (older than v2)', [s['reason'] for s in m['skipped']])

    def test_requested_version(self):
        mbox = self.write('s.mbox', b''.join(make_series(3, 2) + make_series(3)))
        out, _, _ = self.split(mbox, '--version', '1')
        self.assertEqual(self.subjects(out), [patch_subject(k, 3) for k in (1, 2, 3)])
        line = self.refused(mbox, '--version', '3')
        self.assertIn('no patches of v3', line)

    def test_requested_version_must_be_complete(self):
        mbox = self.write('s.mbox', b''.join(make_series(3, 2) + make_series(3, skip=(2,))))
        line = self.refused(mbox, '--version', '1')
        self.assertIn('incomplete series v1: missing 2/3', line)

    def test_incomplete_newest_falls_back_to_complete_older(self):
        mbox = self.write('s.mbox', b''.join(make_series(5, 3, skip=(2,)) + make_series(5, 2)))
        out, _, stderr = self.split(mbox)
        self.assertEqual(self.manifest(out)['version'], 2)
        self.assertIn('series: skipped: v3 (incomplete: missing 2/5)', stderr)

    def test_no_complete_version_is_refused(self):
        mbox = self.write('s.mbox', b''.join(make_series(13, skip=(4, 7))))
        line = self.refused(mbox)
        self.assertIn('incomplete series v1: missing 4/13, 7/13', line)
        self.assertTrue(line.startswith('INFRA ERROR: %s: ' % mbox), line)

    def test_duplicate_number_is_refused(self):
        mails = make_series(3, cover=False)
        mails.append(make_mail(patch_subject(3, 3), k=3, new='again'))
        line = self.refused(self.write('s.mbox', b''.join(mails)))
        self.assertIn('3/3 appears twice', line)

    def test_different_totals_are_refused(self):
        mails = make_series(2, cover=False) + [make_mail(patch_subject(3, 3), k=3)]
        line = self.refused(self.write('s.mbox', b''.join(mails)))
        self.assertIn('different totals (2, 3)', line)


class Identity(SeriesTestCase):
    """series.py id: the same content gives the same id, whatever the form."""

    def test_same_content_in_every_form(self):
        mails = make_series(3)
        for k in (1, 2, 3):
            self.write('dir/%04d-p.patch' % k, mails[k])
        self.write('dir/series', b'0001-p.patch\n0002-p.patch\n0003-p.patch\n')
        self.write('mails/0001-p.patch', mails[1])
        self.write('mails/0002-p.patch', mails[2])
        self.write('mails/0003-p.patch', mails[3])
        resend = make_series(3, version=2, date='09:30:00')
        resend[2] = resend[2].replace(b'Change number 2.\n',
                                      b'Change number 2.\n\nReviewed-by: R <r@example.org>\n')
        resend = [m.replace(b'From: Dev', b'Message-Id: <x@y>\nFrom: Dev') for m in resend]
        forms = [self.path('dir'), self.path('mails'),
                 self.write('cover.mbox', b''.join(mails)),
                 self.write('v2.mbox', b''.join(resend)),
                 self.write('crlf.mbox', b''.join(mails).replace(b'\n', b'\r\n'))]
        ids = {form: self.ident(self.split(form)[0]) for form in forms}
        self.assertEqual(len(set(ids.values())), 1, ids)

        changed = make_series(3)
        changed[3] = make_mail(patch_subject(3, 3), k=3, new='newer')
        other = self.ident(self.split(self.write('changed.mbox', b''.join(changed)))[0])
        self.assertNotEqual(other, ids[forms[0]])

        message = make_series(3)
        message[1] = make_mail(patch_subject(1, 3), k=1, message='Another text.\n')
        other = self.ident(self.split(self.write('message.mbox', b''.join(message)))[0])
        self.assertNotEqual(other, ids[forms[0]])

    def test_id_errors(self):
        rc, _, stderr = self.run_cli('id', self.path('nowhere'))
        self.assertEqual(rc, 2)
        self.assertTrue(stderr.startswith('error: '), stderr)
        os.makedirs(self.path('empty'))
        rc, _, stderr = self.run_cli('id', self.path('empty'))
        self.assertEqual(rc, 3)
        self.assertIn('INFRA ERROR: ', stderr)


class CommandLine(SeriesTestCase):
    """Exit status 0/2/3, output directory rules, no traceback."""

    def test_help(self):
        rc, stdout, _ = self.run_cli('--help')
        self.assertEqual(rc, 0)
        self.assertIn('split SOURCE', stdout)
        self.assertIn('id DIR', stdout)

    def test_usage_errors(self):
        mbox = self.write('s.mbox', b''.join(make_series(1)))
        for args in ([], ['split'], ['split', mbox], ['frobnicate'],
                     ['split', self.path('nowhere'), '--out', self.path('o')],
                     ['split', mbox, '--out', self.path('o'), '--version', 'two'],
                     ['split', mbox, '--out', self.path('o'), '--version', '0']):
            rc, stdout, stderr = self.run_cli(*args)
            self.assertEqual(rc, 2, (args, stderr))
            self.assertTrue(stderr.startswith('error: '), (args, stderr))
            self.assertEqual(stdout, '')

    def test_output_directory_must_be_absent_or_empty(self):
        mbox = self.write('s.mbox', b''.join(make_series(2)))
        self.write('full/keep', b'x')
        rc, stdout, stderr = self.run_cli('split', mbox, '--out', self.path('full'))
        self.assertEqual(rc, 3)
        self.assertIn('INFRA ERROR: %s: output directory is not empty' % self.path('full'),
                      stderr)
        self.assertEqual(os.listdir(self.path('full')), ['keep'])
        rc, _, stderr = self.run_cli('split', mbox, '--out', self.path('full', 'keep'))
        self.assertEqual(rc, 3)
        os.makedirs(self.path('empty'))
        rc, stdout, _ = self.run_cli('split', mbox, '--out', self.path('empty'))
        self.assertEqual((rc, len(stdout.splitlines())), (0, 2))

    def test_internal_error_is_one_line_and_exit_3(self):
        mbox = self.write('s.mbox', b''.join(make_series(1)))
        saved = series.classify_all

        def broken(*args, **kwargs):
            raise RuntimeError('boom')
        series.classify_all = broken
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                rc = series.main(['split', mbox, '--out', self.path('o')])
        finally:
            series.classify_all = saved
        self.assertEqual(rc, 3)
        self.assertEqual(err.getvalue(),
                         'INFRA ERROR: series.py: internal error: RuntimeError: boom\n')

    def test_repository_gate_fixture(self):
        out, stdout, _ = self.split(os.path.join(ROOT, 'gate-fixtures',
                                                 'sub_unique_not_checked'))
        kernel = self.split(os.path.join(ROOT, 'kernel-patches'))[1].splitlines()
        # the whole series (included), then the patch that breaks it
        self.assertEqual(len(stdout.splitlines()), len(kernel) + 1)
        self.assertEqual(len(stdout.splitlines()), self.manifest(out)['count'])


class MailFixtures(SeriesTestCase):
    """gate-fixtures/mail/make-fixtures.py against the repository's series."""

    def setUp(self):
        super().setUp()
        rc, _, stderr = self.run_cli(self.path('fx'), script=MAKE_FIXTURES)
        self.assertEqual(rc, 0, stderr)
        with open(os.path.join(KERNEL_PATCHES, 'series'), encoding='utf-8') as f:
            self.total = len([line for line in f if line.strip() and not line.startswith('#')])
        self.reference = self.ident(self.split(KERNEL_PATCHES)[0])

    def fixture(self, name):
        return self.path('fx', name)

    def test_fixtures_give_the_series_of_kernel_patches(self):
        for name in ('with-cover.mbox', 'with-replies.mbox', 'v1-and-v2.mbox'):
            out, stdout, _ = self.split(self.fixture(name))
            self.assertEqual(len(stdout.splitlines()), self.total, name)
            self.assertEqual(self.ident(out), self.reference, name)

    def test_with_replies_skips_both_replies(self):
        out, _, _ = self.split(self.fixture('with-replies.mbox'))
        replies = [s for s in self.manifest(out)['skipped'] if s['reason'] == 'a reply (Re:)']
        self.assertEqual([s['subject'].split(']')[0] for s in replies],
                         ['Re: [PATCH 02/%d' % self.total, 'Re: [PATCH 05/%d' % self.total])
        self.assertEqual([s['source'].rsplit('#')[1] for s in replies], ['4', '8'])
        self.assertIn(b'\nReviewed-by: A Reviewer <reviewer@example.org>\n---\n',
                      self.read(os.path.join(out, '0003.patch')))

    def test_v1_is_older_and_different(self):
        out, _, stderr = self.split(self.fixture('v1-and-v2.mbox'))
        self.assertEqual(self.manifest(out)['version'], 2)
        self.assertIn('skipped: v1 (older than v2)', stderr)
        v1, _, _ = self.split(self.fixture('v1-and-v2.mbox'), '--version', '1')
        self.assertNotEqual(self.ident(v1), self.reference)

    def test_missing_patch_is_refused(self):
        line = self.refused(self.fixture('missing-patch.mbox'))
        self.assertIn('missing 7/%d' % self.total, line)

    def test_empty_patch_is_refused_by_name(self):
        line = self.refused(self.fixture('empty-patch.mbox'))
        self.assertIn('[PATCH 01/%d' % self.total, line)
        self.assertIn('empty patch', line)

    def test_missing_kernel_patch_file(self):
        self.write('kp/series', b'0001-gone.patch\n')
        self.write('kp/0000-cover-letter.patch', make_mail('[PATCH 0/1] c', diff=False))
        rc, _, stderr = self.run_cli(self.path('fx2'), '--patches', self.path('kp'),
                                     script=MAKE_FIXTURES)
        self.assertEqual(rc, 3)
        self.assertIn('INFRA ERROR:', stderr)
        self.assertIn('0001-gone.patch', stderr)


if __name__ == '__main__':
    unittest.main()
