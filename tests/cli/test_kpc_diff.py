#!/usr/bin/env python3
"""Black-box tests of kpc diff on real kpc stat results and on hostile files.

Run one test:   python3 test_kpc_diff.py --kpc PATH --workload PATH test_name
CTest registers every `def test_*` below as cli.<name>, like test_kpc.py, whose helpers
and runner this file uses.
"""

import json
import os
import tempfile
import unittest

import test_kpc
from test_kpc import Kpc


class KpcDiffTest(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def stat(self, name, pages, runs=5):
        """kpc stat -r N --json of the workload touching `pages` fresh pages."""
        reason = test_kpc.software_counting_blocked()
        if reason:
            self.skipTest(reason)
        out = self.path(name)
        p = Kpc.run(["stat", "-r", str(runs), "--json", "-o", out, "-e", "page-faults,task-clock,cycles",
                     "--", test_kpc.WORKLOAD, "touch", str(pages)])
        self.assertEqual(p.returncode, 0, p.stderr)
        return out

    def write(self, name, text):
        path = self.path(name)
        with open(path, "w" if isinstance(text, str) else "wb") as f:
            f.write(text)
        return path

    def assertInputError(self, args, fragment):
        p = Kpc.run(["diff"] + args)
        self.assertEqual(p.returncode, 2, "kpc diff %s: %s" % (args, p.stderr))
        self.assertEqual(p.stdout, "")
        self.assertTrue(p.stderr.startswith("kpc: "), p.stderr)
        self.assertIn(fragment, p.stderr)
        self.assertNotIn("internal error", p.stderr)
        # The same failure as a kpc-error/1 record under -j.
        p = Kpc.run(["diff", "-j"] + args)
        self.assertEqual(p.returncode, 2)
        self.assertIn(fragment, json.loads(p.stderr)["message"])

    # ---- real workloads -----------------------------------------------------------------

    def test_diff_identical_workloads_pass(self):
        base, new = self.stat("base.json", 400), self.stat("new.json", 400)
        p = Kpc.run(["diff", "--fail-above", "page-faults=2", base, new])
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("gate: passed", p.stdout)
        p = Kpc.run(["diff", "-j", "--fail-above", "page-faults=2", base, new])
        r = json.loads(p.stdout)
        self.assertEqual(r["schema"], "kpc-diff/1")
        self.assertEqual(r["test"], "welch-t-two-sided")
        faults = r["events"][0]
        self.assertEqual(faults["name"], "page-faults")
        self.assertEqual(faults["base"]["runs"], 5)
        self.assertLess(abs(faults["change_pct"]), 2)
        self.assertFalse(faults["failed"])
        self.assertEqual(r["gate"], "passed")
        cycles = r["events"][2]
        if cycles["verdict"] == "not_counted":  # no PMU here: shown, never a number
            self.assertIsNone(cycles["change_pct"])
            self.assertIsNone(cycles["base"])

    def test_diff_growth_fails_the_gate(self):
        base, new = self.stat("base.json", 400), self.stat("new.json", 800)
        p = Kpc.run(["diff", "-j", "--fail-above", "page-faults=5", base, new])
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        r = json.loads(p.stdout)
        faults = r["events"][0]
        self.assertEqual(faults["verdict"], "increase")
        self.assertLess(faults["p_value"], 0.05)
        # 400 more pages fault about 400 more times; up to an eighth more in a sanitizer
        # build, whose workload also faults in the shadow memory of those pages.
        grew = faults["new"]["mean"] - faults["base"]["mean"]
        self.assertGreater(grew, 360)
        self.assertLess(grew, 500)
        self.assertTrue(faults["failed"])
        self.assertEqual(r["exit_status"], 1)
        # Text: the failed event is named; the reverse direction passes (a decrease).
        p = Kpc.run(["diff", "--fail-above", "5", base, new])
        self.assertEqual(p.returncode, 1)
        self.assertIn("gate: FAILED: page-faults", p.stdout)
        p = Kpc.run(["diff", "--fail-above", "5", new, base])
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn("decrease", p.stdout)

    def test_diff_refuses_mismatched_results(self):
        base = self.stat("base.json", 200, runs=2)
        with open(base) as f:
            doc = json.load(f)
        other_backend = dict(doc, backend="kperf")
        other_events = dict(doc, events=doc["events"][:2])
        renamed = json.loads(json.dumps(doc))
        renamed["events"][0]["name"] = "minor-faults"
        other_schema = dict(doc, schema="kpc-stat/2")
        for name, variant, fragment in (("backend.json", other_backend, "backend \"perf_event\""),
                                        ("events.json", other_events, "3 events in"),
                                        ("renamed.json", renamed, "is \"page-faults\""),
                                        ("schema.json", other_schema, "is not kpc-stat/1")):
            self.assertInputError([base, self.write(name, json.dumps(variant))], fragment)
        one_run = self.stat("one.json", 200, runs=1)
        self.assertInputError(["--fail-above", "1", one_run, one_run], "at least 2 runs")
        self.assertInputError(["--fail-above", "page-fault=1", base, base], "names \"page-fault\"")

    # ---- hostile and broken files ---------------------------------------------------------

    def test_diff_rejects_malformed_files(self):
        good = json.dumps({"schema": "kpc-stat/1", "backend": "perf_event", "scope": "process",
                           "cpu": {"id": "x"}, "command": ["w"], "runs": 2, "interrupted": False,
                           "events": [{"name": "page-faults", "status": "counted", "unit": "",
                                       "value": {"values": [1, 2]}}]})
        good_path = self.write("good.json", good)
        p = Kpc.run(["diff", good_path, good_path])
        self.assertEqual(p.returncode, 0, p.stderr)
        cases = (
            ("truncated.json", good[: len(good) // 2], "unexpected end of input"),
            ("empty.json", "", "unexpected end of input"),
            ("garbage.json", b"\x00\xff\xfe binary", "not valid JSON"),
            ("deep.json", "[" * 1000000, "nested deeper than 64"),
            ("dupkey.json", good.replace('"runs": 2', '"runs": 2, "runs": 3'), "duplicate key"),
            ("nan.json", good.replace("[1, 2]", "[1, NaN]"), "not valid JSON"),
            ("negative.json", good.replace("[1, 2]", "[1, -2]"), "not a count"),
            ("short.json", good.replace("[1, 2]", "[1]"), "1 values for 2 runs"),
            ("hugeruns.json", good.replace('"runs": 2', '"runs": 1e300'), "whole number"),
            ("escape.json", good.replace('"page-faults"', '"pf\\u001b[2J"'), "not printable"),
            ("array.json", "[1, 2, 3]", "not a kpc stat --json result"),
            ("info.json", '{"schema": "kpc-info/1"}', "is not kpc-stat/1"),
        )
        for name, text, fragment in cases:
            self.assertInputError([self.write(name, text), good_path], fragment)
        self.assertInputError([self.path("missing.json"), good_path], "cannot open")
        self.assertInputError([self.dir.name, good_path], "cannot read")
        huge = self.path("huge.json")
        with open(huge, "wb") as f:
            f.write(b" " * (65 << 20))
        self.assertInputError([huge, good_path], "larger than 64 MiB")

    def test_diff_usage(self):
        for args in (["diff"], ["diff", "a.json"], ["diff", "a", "b", "c"],
                     ["diff", "--fail-above", "x", "a", "b"], ["diff", "--fail-above", "-1", "a", "b"],
                     ["diff", "--alpha", "1", "a", "b"], ["diff", "--fail-above", "=3", "a", "b"]):
            p = Kpc.run(args)
            self.assertEqual(p.returncode, 2, args)
            self.assertIn("usage: kpc diff", p.stderr, args)
        p = Kpc.run(["help", "diff"])
        self.assertEqual(p.returncode, 0)
        self.assertTrue(p.stdout.startswith("usage: kpc diff"))


if __name__ == "__main__":
    test_kpc.main(KpcDiffTest)
