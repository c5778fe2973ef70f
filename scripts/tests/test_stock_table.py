#!/usr/bin/env python3
"""docs/stock-checks.md and the stock selftests name each other: every row
of the table has a test named after it (scripts/stock_table.py check)."""

import os
import subprocess
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class StockTable(unittest.TestCase):
    def test_every_row_has_a_test(self):
        r = subprocess.run([os.path.join(ROOT, 'scripts', 'stock_table.py'), 'check'],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn(' 0 without a test', r.stdout)


if __name__ == '__main__':
    unittest.main()
