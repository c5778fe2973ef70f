#!/usr/bin/env python3
"""What a fresh clone gets: every file that starts with '#!' is committed
executable, so .ci/run and the README can call it by its path (a clone
keeps git's mode bits, not the working copy's)."""

import os
import subprocess
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def committed_files():
    out = subprocess.run(['git', '-C', ROOT, 'ls-files', '-s'], capture_output=True,
                         text=True, check=True).stdout
    for line in out.splitlines():
        meta, path = line.split('\t', 1)
        yield meta.split()[0], path


class RepoFiles(unittest.TestCase):
    def test_files_with_a_shebang_are_committed_executable(self):
        not_exec = []
        for mode, path in committed_files():
            full = os.path.join(ROOT, path)
            if not os.path.isfile(full):
                continue
            with open(full, 'rb') as f:
                if f.read(2) != b'#!':
                    continue
            if mode != '100755':
                not_exec.append(path)
        self.assertEqual(not_exec, [], 'chmod +x and git add these')


if __name__ == '__main__':
    unittest.main()
