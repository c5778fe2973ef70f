#!/usr/bin/env python3
"""scripts/check-layering.sh: a tree laid out as the series lays fs/fuse/
out passes, and each way of breaking the layering is caught, by name."""

import os
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, 'scripts', 'check-layering.sh')

# The smallest fs/fuse/ with the series' layering
LAYERED = {
    'args.h': '#include <linux/types.h>\nstruct fuse_args {\n};\n',
    'dev.h': '#include "args.h"\nstruct fuse_chan {\n};\n',
    'fuse_dev_i.h': '#include "dev.h"\nstruct fuse_copy_state {\n};\n',
    'fuse_trace.h': '#include <linux/tracepoint.h>\n',
    'dev.c': '#include "fuse_dev_i.h"\n#include "fuse_trace.h"\n',
    'fuse_i.h': '#include "args.h"\n#include "dev.h"\nstruct fuse_conn {\n};\n',
    'dir.c': '#include "fuse_i.h"\n',
    'tests/fuse_kunit.h': '#include "../fuse_i.h"\n',
}


def check(files):
    """Run the script on a tree holding FILES; return (exit code, output)"""
    with tempfile.TemporaryDirectory() as tree:
        for name, text in files.items():
            path = os.path.join(tree, 'fs', 'fuse', name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, 'w') as f:
                f.write(text)
        r = subprocess.run(['bash', SCRIPT, tree], capture_output=True, text=True)
        return r.returncode, r.stdout + r.stderr


def changed(**edits):
    files = dict(LAYERED)
    files.update(edits)
    return files


class CheckLayering(unittest.TestCase):
    def assert_violation(self, files, expected):
        rc, out = check(files)
        self.assertEqual(rc, 1, out)
        self.assertIn(expected, out)

    def test_the_series_layout_passes(self):
        rc, out = check(LAYERED)
        self.assertEqual(rc, 0, out)
        self.assertIn('layered', out)

    def test_dev_c_including_fuse_i_h_is_caught(self):
        self.assert_violation(
            changed(**{'dev.c': '#include "fuse_dev_i.h"\n#include "fuse_i.h"\n'}),
            'dev.c: transport file includes fuse_i.h')

    def test_dev_c_reaching_fuse_i_h_through_another_header_is_caught(self):
        self.assert_violation(
            changed(**{'fuse_trace.h': '#include "fuse_i.h"\n'}),
            'dev.c -> fuse_trace.h -> fuse_i.h')

    def test_an_api_header_including_fuse_i_h_is_caught(self):
        self.assert_violation(
            changed(**{'args.h': '#include "fuse_i.h"\nstruct fuse_args {\n};\n'}),
            'args.h: includes fuse_i.h')

    def test_an_api_header_including_fuse_dev_i_h_is_caught(self):
        self.assert_violation(
            changed(**{'dev.h': '#include "fuse_dev_i.h"\nstruct fuse_chan {\n};\n'}),
            'dev.h: API header includes fuse_dev_i.h')

    def test_a_filesystem_file_including_fuse_dev_i_h_is_caught(self):
        self.assert_violation(
            changed(**{'dir.c': '#include "fuse_i.h"\n#include "fuse_dev_i.h"\n'}),
            'dir.c: includes fuse_dev_i.h')

    def test_a_kunit_test_including_fuse_dev_i_h_is_caught(self):
        self.assert_violation(
            changed(**{'tests/fuse_kunit.h': '#include "../fuse_dev_i.h"\n'}),
            'tests/fuse_kunit.h: includes fuse_dev_i.h')

    def test_the_transport_state_defined_outside_dev_h_is_caught(self):
        self.assert_violation(
            changed(**{'fuse_i.h': LAYERED['fuse_i.h'] + 'struct fuse_chan {\n};\n'}),
            'fuse_i.h: defines struct fuse_chan (its place is dev.h)')

    def test_a_tree_without_the_split_fails(self):
        files = {n: t for n, t in LAYERED.items() if n not in ('dev.h', 'fuse_dev_i.h')}
        files['dev.c'] = '#include "fuse_i.h"\n'
        rc, out = check(files)
        self.assertEqual(rc, 1, out)
        self.assertIn('dev.h: header missing', out)
        self.assertIn('dev.c: transport file includes fuse_i.h', out)

    def test_a_tree_without_fs_fuse_is_a_usage_error(self):
        with tempfile.TemporaryDirectory() as tree:
            r = subprocess.run(['bash', SCRIPT, tree], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn('has no fs/fuse/', r.stderr)


if __name__ == '__main__':
    unittest.main()
