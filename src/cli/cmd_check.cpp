// kpc check: measures known workloads with each generic event and judges the numbers
// (docs/cli.md, "kpc check"). Built on the public C API only.
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/check_counter.hpp"
#include "cli/check_environment.hpp"
#include "cli/check_report.hpp"
#include "cli/check_verdicts.hpp"
#include "cli/check_workloads.hpp"
#include "cli/cli_error.hpp"
#include "cli/commands.hpp"
#include "cli/sampler.hpp"
#include "cli/text_format.hpp"

namespace kpc_cli {
namespace {

// Workload sizes. --quick divides the work by four, still far above the noise.
struct Scale {
    uint64_t loop_iterations;  // smallest counted loop; the others are 2x, 3x, 4x
    size_t branch_elements;
    size_t chase_steps;
    size_t l1_bytes;
    size_t dram_bytes;
    size_t pages;
    uint64_t burn_ns;
    int runs;  // repetitions per size; the smallest count is kept
};
constexpr Scale kFull = {1000000, 1000000, 200000, 16 << 10, 128u << 20, 4096, 50000000, 3};
constexpr Scale kQuick = {250000, 250000, 50000, 16 << 10, 64u << 20, 1024, 20000000, 3};
constexpr int kLoopSizes = 4;

enum class Workload { loop, branches, working_set, pages };

// What each generic event is checked with ("nonzero" = suspect zero; always first).
struct EventPlan {
    const char *event;
    Workload workload;
    std::vector<const char *> checks;
};
const std::vector<EventPlan> &plans() {
    static const std::vector<EventPlan> p = {
        {"cycles", Workload::loop, {"nonzero", "linearity", "ghz"}},
        {"instructions", Workload::loop, {"nonzero", "exact", "linearity"}},
        {"branches", Workload::loop, {"nonzero", "exact", "linearity"}},
        {"branch-misses", Workload::branches, {"nonzero", "random-branches"}},
        {"cache-misses", Workload::working_set, {"nonzero", "working-set"}},
        {"l1d-load-misses", Workload::working_set, {"nonzero", "working-set"}},
        {"task-clock", Workload::loop, {"nonzero", "cpu-time", "linearity"}},
        {"page-faults", Workload::pages, {"nonzero", "touch"}},
    };
    return p;
}

// Inputs built once, only when an event that needs them can count.
struct SharedData {
    std::vector<uint8_t> random, constant;
    std::unique_ptr<PointerChase> l1, dram;
};

using Results = std::vector<CheckResult>;

CheckResult &find(Results &rs, const std::string &check) {
    for (CheckResult &r : rs)
        if (r.check == check) return r;
    throw std::logic_error("kpc check: no check " + check);
}

void mark_all(Results &rs, Verdict v, const std::string &message) {
    for (CheckResult &r : rs) {
        r.verdict = v;
        r.message = message;
    }
}

// Judges "nonzero"; when the event read 0 the other checks fail without numbers to judge.
bool moved(Results &rs, double total, const std::string &workload) {
    judge_nonzero(rs.front(), total, workload);
    if (total > 0) return true;
    for (size_t i = 1; i < rs.size(); ++i) {
        rs[i].verdict = Verdict::fail;
        rs[i].message = "not judged: the event read 0 across " + workload + " (suspect zero)";
    }
    return false;
}

void run_loop(EventCounter &c, Results &rs, const Scale &sc) {
    std::vector<double> sizes, counts;
    Measurement largest;
    double total = 0;
    for (int k = 1; k <= kLoopSizes; ++k) {
        const uint64_t n = sc.loop_iterations * k;
        largest = c.min_of(sc.runs, [n] { counted_loop(n); });
        sizes.push_back(static_cast<double>(n));
        counts.push_back(largest.count);
        total += largest.count;
    }
    if (!moved(rs, total, "the counted loop")) return;
    // Interference (other processes, a VM's host) only adds to a count. When the sizes stray
    // from a line, measure them once more and keep each size's smaller count, so that a busy
    // machine does not fail a counter that follows the work; one that does not still fails.
    if (fit_line(sizes, counts).max_relative_deviation > kLinearityTolerance) {
        for (int k = 1; k <= kLoopSizes; ++k) {
            const uint64_t n = sc.loop_iterations * k;
            Measurement again = c.min_of(sc.runs, [n] { counted_loop(n); });
            counts[k - 1] = std::min(counts[k - 1], again.count);
            if (k == kLoopSizes && again.count < largest.count) largest = again;
        }
    }
    const std::string event = rs.front().event;
    for (CheckResult &r : rs) {
        if (r.check == "linearity") {
            judge_linearity(r, sizes, counts);
        } else if (r.check == "ghz") {
            judge_ghz(r, largest.count, largest.cpu_ns);
        } else if (r.check == "exact") {
            if (!kHaveExactLoop) {
                r.verdict = Verdict::cannot_count;
                r.message = "kpc check has a loop of known length only for x86-64 and AArch64";
                continue;
            }
            bool instructions = event == "instructions";
            judge_exact(r, fit_line(sizes, counts).slope,
                        instructions ? kLoopInstructions : kLoopBranches,
                        instructions ? "instructions" : "branches");
            if (c.counts_kernel() == 1)
                r.message += "; the event counts kernel mode too, so only the slope over " +
                             format("%d loop lengths", kLoopSizes) +
                             " is judged (the kernel's fixed cost per read cancels)";
        } else if (r.check == "cpu-time") {
            Measurement m = c.min_of(sc.runs, [&sc] { burn_cpu(sc.burn_ns); });
            judge_cpu_time(r, m.count, m.cpu_ns);
        }
    }
}

void run_branches(EventCounter &c, Results &rs, const Scale &sc, SharedData &d) {
    if (d.random.empty()) {
        d.random = random_bits(sc.branch_elements);
        d.constant = constant_bits(sc.branch_elements);
    }
    Measurement random = c.min_of(sc.runs, [&d] { branch_loop(d.random); });
    Measurement constant = c.min_of(sc.runs, [&d] { branch_loop(d.constant); });
    if (!moved(rs, random.count, "a loop of random branches")) return;
    const double n = static_cast<double>(sc.branch_elements);
    judge_random_branches(find(rs, "random-branches"), random.count / n, constant.count / n);
}

void run_working_set(EventCounter &c, Results &rs, const Scale &sc, SharedData &d) {
    if (!d.dram) {
        d.l1 = std::make_unique<PointerChase>(sc.l1_bytes);
        d.dram = std::make_unique<PointerChase>(sc.dram_bytes);
    }
    Measurement l1 = c.min_of(sc.runs, [&] { d.l1->walk(sc.chase_steps); });
    Measurement dram = c.min_of(sc.runs, [&] { d.dram->walk(sc.chase_steps); });
    if (!moved(rs, dram.count, format("a walk over %zu MiB", sc.dram_bytes >> 20))) return;
    const double n = static_cast<double>(sc.chase_steps);
    judge_working_set(find(rs, "working-set"), l1.count / n, dram.count / n);
}

void run_pages(EventCounter &c, Results &rs, const Scale &sc) {
    Measurement m = c.min_of(sc.runs, [&sc] { touch_fresh_pages(sc.pages); });
    if (!moved(rs, m.count, format("touching %zu fresh pages", sc.pages))) return;
    judge_page_faults(find(rs, "touch"), m.count, static_cast<double>(sc.pages));
}

Results run_event(kp_sampler_t *s, const EventPlan &plan, const Scale &sc, SharedData &d) {
    Results rs;
    for (const char *check : plan.checks) {
        CheckResult r;
        r.event = plan.event;
        r.check = check;
        rs.push_back(r);
    }
    EventCounter counter(s, plan.event);
    for (CheckResult &r : rs) r.counts_kernel = counter.counts_kernel();
    if (!counter.ok()) {
        mark_all(rs, Verdict::cannot_count, counter.reason());
        return rs;
    }
    try {
        switch (plan.workload) {
        case Workload::loop: run_loop(counter, rs, sc); break;
        case Workload::branches: run_branches(counter, rs, sc, d); break;
        case Workload::working_set: run_working_set(counter, rs, sc, d); break;
        case Workload::pages: run_pages(counter, rs, sc); break;
        }
    } catch (const CliError &e) {
        // A counter that opened but then failed to read is a failure of that event.
        mark_all(rs, Verdict::fail, e.what());
    }
    return rs;
}

}  // namespace

int run_check(const Options &o) {
    Sampler sampler(o.backend, kExitError);
    kp_sampler_t *s = sampler.get();
    const Scale &sc = o.quick ? kQuick : kFull;
    Environment env = probe_environment(s);
    SharedData data;
    Results results;
    for (const EventPlan &plan : plans())
        for (CheckResult &r : run_event(s, plan, sc, data)) results.push_back(std::move(r));
    const int status = check_exit_status(results);
    if (o.json)
        print_check_json(s, env, results, status);
    else
        print_check_text(s, env, results, status);
    return status;
}

}  // namespace kpc_cli
