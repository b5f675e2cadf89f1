"""Loaded by pytest from the root of the assembled transformers test tree (tools/hf_tests/prepare.py puts it there).

Checks that the tests import the installed transformers and damcha, and, when DAMCHA_HF_OUTCOMES names a file, writes
every test's outcome there as JSON: {suite: {test: [outcome, reason]}}, outcome "pass", "fail" or "skip". A test
fails when any of its reports fails, subtests included (pytest's JUnit XML keeps only the last report of a test, so a
test whose subtests failed would read as passed there).
"""
import json
import os

import transformers

assert "site-packages" in transformers.__file__ or "dist-packages" in transformers.__file__, transformers.__file__

_OUT = os.environ.get("DAMCHA_HF_OUTCOMES")
_seen: dict = {}

def _reason(report) -> str:
    r = report.longrepr
    if isinstance(r, tuple):                                                    # a skip: (file, line, reason)
        return str(r[2]).removeprefix("Skipped: ")[:200]
    lines = [l for l in str(r).splitlines() if l.startswith("E ")]
    return (lines[0][1:].strip() if lines else str(r).splitlines()[-1] if r else "")[:200]

def pytest_runtest_logreport(report):
    parts = report.nodeid.split("::")
    if len(parts) < 3:
        return
    suite, test = parts[-2], parts[-1]
    old = _seen.setdefault(suite, {}).get(test)
    if report.failed:
        if old is None or old[0] != "fail":
            _seen[suite][test] = ["fail", _reason(report)]
    elif report.skipped and (old is None or old[0] == "pass"):
        _seen[suite][test] = ["skip", _reason(report)]
    elif report.when == "call" and old is None:
        _seen[suite][test] = ["pass", ""]

def pytest_sessionfinish(session):
    if _OUT:
        with open(_OUT, "w") as f:
            json.dump(_seen, f, indent=1, sort_keys=True)
            f.write("\n")
