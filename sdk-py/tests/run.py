"""Runs every unittest module under sdk-py/tests against the installed `cap_sdk` and writes the counts in
vitest's JSON report shape (numPassedTests, numFailedTests, numPendingTests, numTodoTests, testResults),
which `npm test` (scripts/quickstart.mjs) sums into its closing line. Exit status 1 on any failure.
Usage: python tests/run.py [--json FILE] [-k PATTERN]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


class _Result(unittest.TextTestResult):
    def __init__(self, *args, **kwargs):  # noqa: ANN002, ANN003
        super().__init__(*args, **kwargs)
        self.records = []
        self._started = 0.0
        self._with_subtests = set()

    def startTest(self, test):  # noqa: N802, ANN001
        self._started = time.monotonic()
        super().startTest(test)

    def _record(self, test, status, message=None):  # noqa: ANN001
        self.records.append(
            {
                "fullName": test.id(),
                "title": test.id().rsplit(".", 1)[-1],
                "status": status,
                "duration": round((time.monotonic() - self._started) * 1000),
                "failureMessages": [message] if message else [],
            }
        )

    def addSuccess(self, test):  # noqa: N802, ANN001
        super().addSuccess(test)
        if test.id() not in self._with_subtests:  # a table test counts its rows, not itself
            self._record(test, "passed")

    def addSubTest(self, test, subtest, err):  # noqa: N802, ANN001
        super().addSubTest(test, subtest, err)
        self._with_subtests.add(test.id())
        self._record(subtest, "passed" if err is None else "failed", None if err is None else self._exc_info_to_string(err, test))

    def addFailure(self, test, err):  # noqa: N802, ANN001
        super().addFailure(test, err)
        self._record(test, "failed", self._exc_info_to_string(err, test))

    def addError(self, test, err):  # noqa: N802, ANN001
        super().addError(test, err)
        self._record(test, "failed", self._exc_info_to_string(err, test))

    def addSkip(self, test, reason):  # noqa: N802, ANN001
        super().addSkip(test, reason)
        self._record(test, "pending", reason)

    def addExpectedFailure(self, test, err):  # noqa: N802, ANN001
        super().addExpectedFailure(test, err)
        self._record(test, "failed", "expected failures are not allowed here")

    def addUnexpectedSuccess(self, test):  # noqa: N802, ANN001
        super().addUnexpectedSuccess(test)
        self._record(test, "failed", "unexpected success")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", help="write a vitest-shaped JSON report here")
    parser.add_argument("-k", dest="pattern", action="append", help="only tests whose id contains this")
    args = parser.parse_args()
    sys.path.insert(0, HERE)
    loader = unittest.TestLoader()
    if args.pattern:
        loader.testNamePatterns = [f"*{p}*" for p in args.pattern]
    suite = loader.discover(HERE, pattern="test_*.py", top_level_dir=HERE)
    runner = unittest.TextTestRunner(resultclass=_Result, verbosity=2, stream=sys.stdout)
    started = time.time()
    result = runner.run(suite)
    records = result.records
    # Every test ran must have a record (a module that failed to import is one failed test).
    recorded = {r["fullName"].split(" ", 1)[0] for r in records}
    missing = result.testsRun - len(recorded)
    records += [{"fullName": "(unrecorded)", "status": "failed", "failureMessages": []}] * max(0, missing)
    counts = {s: sum(1 for r in records if r["status"] == s) for s in ("passed", "failed", "pending")}
    report = {
        "numTotalTests": len(records),
        "numPassedTests": counts["passed"],
        "numFailedTests": counts["failed"],
        "numPendingTests": counts["pending"],
        "numTodoTests": 0,
        "success": counts["failed"] == 0,
        "startTime": int(started * 1000),
        "testResults": [{"name": "sdk-py (unittest)", "assertionResults": records}],
    }
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    print(f"sdk-py: {counts['passed']} passed, {counts['failed']} failed, {counts['pending']} skipped")
    return 0 if result.wasSuccessful() and counts["failed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
