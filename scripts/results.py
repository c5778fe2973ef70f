#!/usr/bin/env python3
"""The results the runners hand to the gate, as types.

A runner (run_selftests.sh, run_kunit.sh) writes one summary.json per
suite family; the gate reads it back with load_summary().  Nothing reads a
runner's console output to learn what happened.

  summary.json = {
    "verdict": "PASS" | "FAIL" | "INFRA",
    "infra_error": null | "what broke",
    "suites": {suite: {case: "PASS" | "FAIL" | "SKIP"}},
    "logs": {suite: {case: "the case's log lines"}},
    "splats": ["kernel log line", ...],
    "tolerated_warnings": [...],
    "times": {                       (seconds; what the runner measured)
      "boot": s, "guest": s,          the kernel's boot, the whole guest
      "suites": {suite: s},           each selftest program or KUnit suite
      "tests": {suite: {case: s}},    each kselftest harness test
      "steps": {suite: {step: s}},    each timed step (the real servers')
    },
  }

Command line (for the shell runners):
  results.py infra SUMMARY MESSAGE   write an INFRA summary (die_infra)
"""

import enum
import json
import sys
from dataclasses import dataclass, field
from typing import Dict, List, Optional
from xml.sax.saxutils import escape, quoteattr


class Status(enum.Enum):
    """What became of one test."""
    PASS = 'PASS'
    FAIL = 'FAIL'
    SKIP = 'SKIP'
    ABSENT = 'ABSENT'       # not reported at all on this tree
    SPLAT = 'SPLAT'         # a kernel splat in the guest log (a pseudo-test)


class Verdict(enum.Enum):
    """What a runner concluded."""
    PASS = 'PASS'
    FAIL = 'FAIL'
    INFRA = 'INFRA'


@dataclass
class Summary:
    """One runner's results for one tree."""
    verdict: Verdict
    infra_error: Optional[str] = None
    suites: Dict[str, Dict[str, Status]] = field(default_factory=dict)
    logs: Dict[str, Dict[str, str]] = field(default_factory=dict)
    splats: List[str] = field(default_factory=list)
    tolerated_warnings: List[str] = field(default_factory=list)
    times: Dict[str, object] = field(default_factory=dict)

    def cases(self):
        """{(suite, case): Status}"""
        return {(s, c): st for s, cs in self.suites.items() for c, st in cs.items()}

    def log_of(self, suite, case):
        return self.logs.get(suite, {}).get(case, '')

    def counts(self, suite=None):
        """{Status: n} over one suite or all of them."""
        out = {Status.PASS: 0, Status.FAIL: 0, Status.SKIP: 0}
        for (s, _), st in self.cases().items():
            if (suite is None or s == suite) and st in out:
                out[st] += 1
        return out

    def to_json(self):
        return {
            'verdict': self.verdict.value,
            'infra_error': self.infra_error,
            'totals': {k.value: v for k, v in self.counts().items()},
            'suites': {s: {c: st.value for c, st in cs.items()}
                       for s, cs in self.suites.items()},
            'logs': self.logs,
            'splats': self.splats,
            'tolerated_warnings': self.tolerated_warnings,
            'times': self.times,
        }


def save_summary(path, summary):
    with open(path, 'w') as f:
        json.dump(summary.to_json(), f, indent=1)


class BadSummary(Exception):
    """A summary.json that is missing or not one."""


def load_summary(path):
    """The Summary in path; BadSummary when there is none to read."""
    try:
        with open(path) as f:
            d = json.load(f)
        return Summary(
            verdict=Verdict(d['verdict']),
            infra_error=d.get('infra_error'),
            suites={s: {c: Status(st) for c, st in cs.items()}
                    for s, cs in d.get('suites', {}).items()},
            logs=d.get('logs', {}),
            splats=list(d.get('splats', [])),
            tolerated_warnings=list(d.get('tolerated_warnings', [])),
            times=dict(d.get('times') or {}))
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise BadSummary('%s: %s' % (path, e))


@dataclass
class JUnitCase:
    """One <testcase>: a failure carries a message and the log."""
    classname: str
    name: str
    status: Status
    message: str = ''
    log: str = ''


def write_junit(path, title, cases):
    """One JUnit XML writer for every report: a testsuite per classname."""
    by_suite = {}
    for c in cases:
        by_suite.setdefault(c.classname, []).append(c)
    x = ['<?xml version="1.0" encoding="UTF-8"?>', '<testsuites name=%s>' % quoteattr(title)]
    for suite, cs in by_suite.items():
        fails = sum(1 for c in cs if c.status in (Status.FAIL, Status.SPLAT))
        skips = sum(1 for c in cs if c.status == Status.SKIP)
        x.append('  <testsuite name=%s tests="%d" failures="%d" skipped="%d">'
                 % (quoteattr(suite), len(cs), fails, skips))
        for c in cs:
            x.append('    <testcase classname=%s name=%s>' % (quoteattr(c.classname),
                                                            quoteattr(c.name)))
            if c.status in (Status.FAIL, Status.SPLAT):
                x.append('      <failure message=%s>%s</failure>'
                         % (quoteattr(c.message or 'failed'), escape(c.log)))
            elif c.status == Status.SKIP:
                x.append('      <skipped/>')
            x.append('    </testcase>')
        x.append('  </testsuite>')
    x.append('</testsuites>')
    with open(path, 'w') as f:
        f.write('\n'.join(x) + '\n')


def main(argv):
    if len(argv) == 4 and argv[1] == 'infra':
        save_summary(argv[2], Summary(verdict=Verdict.INFRA, infra_error=argv[3]))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
