#!/usr/bin/env python3
"""kunit/ is the one source of our KUnit suites: the series carries them in
fs/fuse/tests/, as scripts/export-series.sh writes them.  This checks that
the two never drift apart: applying the series' changes to fs/fuse/tests/
(files the series itself creates, so no kernel tree is needed) must leave
exactly kunit/."""

import os
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PATCHES = os.path.join(ROOT, 'kernel-patches')
KUNIT = os.path.join(ROOT, 'kunit')


def series_tests(work):
    """Apply the fs/fuse/tests/ part of every patch, in series order, in
    WORK; return {name: bytes} of what is left there"""
    subprocess.run(['git', 'init', '-q', work], check=True)
    with open(os.path.join(PATCHES, 'series')) as f:
        names = [n.strip() for n in f if n.strip() and not n.startswith('#')]
    for name in names:
        subprocess.run(['git', 'apply', '--include=fs/fuse/tests/*',
                        os.path.join(PATCHES, name)], cwd=work, check=True)
    tests = os.path.join(work, 'fs', 'fuse', 'tests')
    return {n: open(os.path.join(tests, n), 'rb').read() for n in os.listdir(tests)}


class KunitCopy(unittest.TestCase):
    def test_the_series_leaves_in_fs_fuse_tests_exactly_kunit(self):
        with tempfile.TemporaryDirectory() as work:
            series = series_tests(work)
        ours = {n: open(os.path.join(KUNIT, n), 'rb').read() for n in os.listdir(KUNIT)}
        self.assertEqual(sorted(series), sorted(ours))
        for name in sorted(ours):
            self.assertEqual(series[name], ours[name],
                             'kunit/%s differs from the series\' fs/fuse/tests/%s '
                             '(scripts/export-series.sh)' % (name, name))


if __name__ == '__main__':
    unittest.main()
