#!/usr/bin/env python3
"""guest_stop_when_done (scripts/guest.sh): a guest that printed its
results and did not power off is stopped after its grace period; one
that is still testing, or that ended by itself, is left alone.  A
sleeping process stands in for QEMU."""

import os
import subprocess
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = r'''
source "$1/scripts/guest.sh"
console=$2 grace=$3 life=$4
sleep "$life" &
pid=$!
guest_stop_when_done "$console" "$pid" "$grace"
wait "$pid"; echo "rc=$?"
'''


def run(console_text, grace, life):
    with tempfile.TemporaryDirectory() as d:
        console = os.path.join(d, 'console.log')
        with open(console, 'w') as f:
            f.write(console_text)
        t = time.time()
        out = subprocess.run(['bash', '-c', SCRIPT, '-', ROOT, console, str(grace), str(life)],
                             capture_output=True, text=True, timeout=60)
        took = time.time() - t
        stopped = os.path.exists(console + '.stopped')
    return out, took, stopped


class StopWhenDone(unittest.TestCase):
    def test_done_and_still_running_is_stopped_after_the_grace(self):
        out, took, stopped = run('FUSEGATE-BOOT-OK\nFUSEGATE-TESTS-DONE rc=0\n', 1, 30)
        self.assertTrue(stopped)
        self.assertLess(took, 20)
        self.assertIn('did not power off', out.stderr)

    def test_not_done_is_left_to_end_by_itself(self):
        out, took, stopped = run('FUSEGATE-BOOT-OK\n', 1, 3)
        self.assertFalse(stopped)
        self.assertIn('rc=0', out.stdout)
        self.assertGreaterEqual(took, 3)

    def test_done_and_powering_off_within_the_grace_is_not_stopped(self):
        out, took, stopped = run('FUSEGATE-TESTS-DONE rc=0\n', 10, 2)
        self.assertFalse(stopped)
        self.assertIn('rc=0', out.stdout)


if __name__ == '__main__':
    unittest.main()
