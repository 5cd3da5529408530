#!/usr/bin/env python3
"""perf's event modifiers in kpc stat (issue 17, section 4.5): ":u" user mode only, ":k"
kernel mode only, ":uk"/":ku" both, through perf_event's exclude_user/exclude_kernel.

Software events show it on any Linux machine: the kernel honours the exclude bits for page
faults (each fault is taken in user or in kernel mode), and ignores them for the clocks,
which kpc therefore refuses. Hardware events under modifiers are tested in the emulated-PMU
guest (tests/pmu/modifiers_test.cpp), where counts are exact.

Run one test:   python3 test_kpc_modifiers.py --kpc PATH --workload PATH name
"""

import json
import unittest

import test_kpc
from test_kpc import Kpc, event, parse_key_values

PAGES = 3000


class ModifiersTest(unittest.TestCase):

    def require_counting(self):
        reason = test_kpc.software_counting_blocked()
        if reason:
            self.skipTest(reason)

    def test_stat_modifiers_split_page_faults(self):
        """In one run, :u and :k add up to the unmodified count, and a user loop of page
        touches faults in user mode: before the fix ':k' counted every fault."""
        self.require_counting()
        names = ["page-faults", "page-faults:u", "page-faults:k", "page-faults:uk"]
        p, r = Kpc.stat_json(["-e", ",".join(names), "--", test_kpc.WORKLOAD, "touch", str(PAGES)])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(parse_key_values(p.stdout)["pages"], [PAGES])
        count = {n: event(r, n)["raw_values"][0] for n in names}
        print(count)
        for n in names:
            self.assertEqual(event(r, n)["status"], "counted", n)
        self.assertGreaterEqual(count["page-faults:u"], PAGES)
        self.assertEqual(count["page-faults:u"] + count["page-faults:k"], count["page-faults"])
        # The kernel's own faults on the command's behalf (exit, copies to user space): few.
        self.assertLess(count["page-faults:k"], PAGES // 10)
        self.assertEqual(count["page-faults:uk"], count["page-faults"])
        # ":ku" is ":uk": one counter, so kpc refuses the pair as it refuses any repeat.
        p = Kpc.run(["stat", "-e", "page-faults:uk,page-faults:ku", "--", "true"])
        self.assertEqual(p.returncode, 125, p.stderr)
        self.assertIn("are the same counter", p.stderr)

    def test_stat_modifiers_refused_where_ignored(self):
        """The kernel counts a clock's time in every mode: kpc refuses, never reports a
        number that ignores the modifier."""
        self.require_counting()
        for name in ("task-clock:u", "cpu-clock:k"):
            p = Kpc.run(["stat", "-e", name, "--", "true"])
            self.assertEqual(p.returncode, 125, p.stderr)
            self.assertIn("'%s'" % name, p.stderr)
            self.assertIn("ignores :u/:k for a clock", p.stderr)

    # What kpc list says each backend takes (docs/events.md), and a name it refuses.
    LIST_MODIFIERS = {"perf_event": ([":u", ":k", ":uk"], None),
                      "kperf": ([":u", ":uk"], "branches:k"),
                      "recount": ([":uk"], "cycles:u")}

    def test_list_says_which_modifiers(self):
        """kpc list's header and JSON name the modifiers the backend takes; one it does not
        take is refused when named. Before, kpc list said nothing about modifiers."""
        p = Kpc.run(["list", "--json"])
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        accepted, refused = self.LIST_MODIFIERS[doc["backend"]]
        self.assertEqual(doc["modifiers"]["accepted"], accepted)
        self.assertTrue(doc["modifiers"]["where"])
        header = Kpc.run(["list"]).stdout.splitlines()[1]
        self.assertEqual(header, "Modifiers (perf's :u user, :k kernel, :uk both): %s (%s)."
                         % (", ".join(accepted), doc["modifiers"]["where"]))
        if refused:
            p = Kpc.run(["stat", "-e", refused, "--", "true"])
            self.assertEqual(p.returncode, 125, p.stderr)
            self.assertIn("'%s'" % refused, p.stderr)

    def test_stat_modifiers_malformed(self):
        for name, words in (("page-faults:x", "unknown event 'page-faults:x'"),
                            ("page-faults:uu", "unknown event 'page-faults:uu'"),
                            ("page-faults:u:k", "give the modifiers once")):
            p = Kpc.run(["stat", "-e", name, "--", "true"])
            self.assertEqual(p.returncode, 125, p.stderr)
            self.assertIn(words, p.stderr)


if __name__ == "__main__":
    test_kpc.main(ModifiersTest)
