#include "cli/usage.hpp"

namespace kpc_cli {
namespace {

const char kMain[] =
    "usage: kpc [--backend NAME] <command> [options]\n"
    "\n"
    "Read CPU performance counters with libkpc.\n"
    "\n"
    "commands:\n"
    "  info [--json]        backend, CPU, counters, and whether this process may count\n"
    "  list [--json]        every event and whether this machine can count it\n"
    "  stat [-e EV,...] [-r N] [-I MS] [-o FILE] [-x SEP | --json] [--] CMD [ARG...]\n"
    "                       run CMD and count it and all of its threads (like perf stat)\n"
    "  stat ... -p PID[,PID...] [--per-thread] [CMD...]\n"
    "                       count running processes until they end (or CMD does)\n"
    "  stat ... -a [CMD...]  count every CPU while CMD runs, or until Ctrl-C\n"
    "  check [--quick] [--json]\n"
    "                       measure known workloads with every generic event and judge\n"
    "                       the counts (for bug reports)\n"
    "  diff [--fail-above [EV=]PCT] BASE.json NEW.json\n"
    "                       compare two kpc stat -r N --json results, event by event,\n"
    "                       with a significance test (a regression gate for CI)\n"
    "  help [COMMAND]       show this text, or the options of COMMAND\n"
    "\n"
    "options:\n"
    "  --backend NAME       auto, kperf, perf_event or recount (default: $KPC_BACKEND,\n"
    "                       else the platform's own; on macOS kperf as root, recount\n"
    "                       otherwise); may also follow the command\n"
    "  -h, --help           show help\n"
    "  -V, --version        show the version\n"
    "  -j, --json           JSON output (after the command)\n"
    "\n"
    "environment: KPC_BACKEND, KPC_KPERF_PATH, KPC_KPERFDATA_PATH, KPC_LIBSYSTEM_PATH,\n"
    "             KPC_USER_READS\n"
    "\n"
    "exit status: 0 ok, 1 error, 2 bad usage; kpc stat, check and diff: see their help\n";

const char kInfo[] =
    "usage: kpc info [--json] [--backend NAME]\n"
    "\n"
    "Show the backend, the CPU and its PMU, the number of fixed and configurable counters,\n"
    "the event count, and whether this process may count hardware events (with the reason\n"
    "and the fix when it may not).\n"
    "\n"
    "  --json               print JSON (schema kpc-info/1, see docs/cli.md)\n"
    "  --backend NAME       auto, kperf, perf_event or recount\n";

const char kList[] =
    "usage: kpc list [--json] [--backend NAME]\n"
    "\n"
    "List every event of the backend's database: generic and native name, kind, whether\n"
    "this machine can count it (and why not), and its description; on kperf also the alias,\n"
    "errata, fallback, counter mask and selector.\n"
    "\n"
    "  --json               print JSON (schema kpc-list/1, see docs/cli.md)\n"
    "  --backend NAME       auto, kperf, perf_event or recount\n";

const char kStat[] =
    "usage: kpc stat [-e EV[,EV...]] [-r N] [-I MS] [-o FILE] [-x SEP | --json]\n"
    "                [--backend NAME] [--] CMD [ARG...]\n"
    "       kpc stat [-e EV[,EV...]] [-I MS] [-o FILE] [-x SEP | --json]\n"
    "                [--backend NAME] -p PID[,PID...] [--per-thread] [[--] CMD [ARG...]]\n"
    "       kpc stat -a [-e EV[,EV...]] [-r N] [-I MS] [-o FILE] [-x SEP | --json]\n"
    "                [--backend NAME] [[--] CMD [ARG...]]\n"
    "\n"
    "Run CMD, count events in it and in every thread and process it starts, and report the\n"
    "totals on stderr like perf stat. Events this machine cannot count show as\n"
    "<not supported> with the reason, never as 0.\n"
    "\n"
    "  -e, --event EV,...   events to count (generic or native names; repeatable); default:\n"
    "                       task-clock,context-switches,cpu-migrations,page-faults,\n"
    "                       cycles,instructions,branches,branch-misses\n"
    "                       {EV,EV...} is a group: its events are counted over the same\n"
    "                       time (one perf_event group), or none of them is counted,\n"
    "                       e.g. -e '{cycles,instructions},page-faults'\n"
    "  -r, --repeat N       run CMD N times; report means and the spread (+- stddev %)\n"
    "  -p, --pid PID,...    count these running processes (their threads and the ones\n"
    "                       they create) from now until they all end or Ctrl-C, summed;\n"
    "                       with CMD, while CMD runs (CMD itself not counted); no -r\n"
    "  --per-thread         with -p: one line per thread and event instead of the sums;\n"
    "                       a thread's counts include the threads it created since\n"
    "  -a, --all-cpus       count every CPU, whatever runs there, while CMD runs (CMD\n"
    "                       itself is not counted apart), or until Ctrl-C without CMD.\n"
    "                       Linux: root, CAP_PERFMON or kernel.perf_event_paranoid <= 0;\n"
    "                       Apple: the kperf backend (root)\n"
    "  -I, --interval-print MS\n"
    "                       also print the counts of every MS milliseconds (10 or more)\n"
    "                       while counting, each line led by the time; under --json, an\n"
    "                       \"intervals\" array; not with -r\n"
    "  -o, --output FILE    write the report to FILE instead of stderr\n"
    "  -x, --field-separator SEP\n"
    "                       CSV as perf stat -x prints it, one line per event: value,\n"
    "                       unit, event, [stddev % with -r], run time ns, % of the time\n"
    "                       counted, metric value, metric unit\n"
    "  -j, --json           write the report as JSON (schema kpc-stat/1, see docs/cli.md);\n"
    "                       not with -x\n"
    "  --backend NAME       auto, kperf, perf_event or recount\n"
    "\n"
    "exit status: CMD's own (128+N if signal N killed it; with -r, the last run's);\n"
    "with -p, or -a without CMD, 0 (also after Ctrl-C);\n"
    "125 if kpc failed, 126 if CMD could not be executed, 127 if CMD was not found,\n"
    "2 for bad usage.\n";

const char kCheck[] =
    "usage: kpc check [--quick] [--json] [--backend NAME]\n"
    "\n"
    "Report the environment (OS, chip, counters, permission; on kperf the database names,\n"
    "layout and lazy thread buffers), then count known workloads with each generic event\n"
    "and judge the numbers: an exact instruction and branch count from a loop of known\n"
    "length, linearity over four loop lengths, mispredictions of random branches, cache\n"
    "misses against the working-set size, cycles against CPU time (implied GHz), page\n"
    "faults against pages touched, task-clock against thread CPU time, and \"suspect\n"
    "zero\" for an event that reads 0 where the workload must move it. Takes a few seconds.\n"
    "\n"
    "  --quick              a quarter of the work (for tests)\n"
    "  --json               print JSON (schema kpc-check/1, see docs/cli.md)\n"
    "  --backend NAME       auto, kperf, perf_event or recount\n"
    "\n"
    "exit status: 0 if every check that could count passed (and at least one did),\n"
    "3 if a check failed, 4 if nothing could be counted here, 1 if kpc failed,\n"
    "2 for bad usage.\n";

const char kDiff[] =
    "usage: kpc diff [--fail-above [EVENT=]PCT]... [--alpha A] [--json] BASE.json NEW.json\n"
    "\n"
    "Compare two results of kpc stat -r N --json (same events, same backend): per event the\n"
    "base and new mean, the change in percent, and whether the change is significant by\n"
    "Welch's t-test over the runs (two-sided, at level A). Instruction counts are stable\n"
    "where time is not: gate pull requests on them.\n"
    "\n"
    "  --fail-above PCT     exit 1 if any counted event grew significantly by more than\n"
    "                       PCT percent (e.g. 1 or 0.5%); needs at least 2 runs per file\n"
    "  --fail-above EV=PCT  the same for event EV only (repeatable; wins over PCT)\n"
    "  --alpha A            significance level, 0 < A < 1 (default 0.05)\n"
    "  -j, --json           print JSON (schema kpc-diff/1, see docs/cli.md)\n"
    "\n"
    "exit status: 0 if no gate failed, 1 if an event grew past its threshold, 2 for bad\n"
    "usage or files that cannot be compared (malformed, different events or backends).\n";

}  // namespace

const char *usage_text(const std::string &topic) {
    if (topic == "info") return kInfo;
    if (topic == "list") return kList;
    if (topic == "stat") return kStat;
    if (topic == "check") return kCheck;
    if (topic == "diff") return kDiff;
    return kMain;
}

}  // namespace kpc_cli
