// libFuzzer target: what kpc diff reads (src/cli/json_reader.cpp, diff_stat_file.cpp,
// diff_compare.cpp). The input is one untrusted "kpc stat --json" file. Reading it either
// gives a result that keeps the loader's promises or throws DiffInputError; a result
// compared with itself never shows a change and never fails a gate.
#include <cstdint>
#include <exception>
#include <string>

#include "cli/diff_compare.hpp"
#include "cli/diff_stat_file.hpp"
#include "fuzz_input.hpp"

namespace {

void check_self_comparison(const kpc_cli::StatResultFile &f) {
    using kpc_cli::ChangeVerdict;
    KPC_FUZZ_CHECK(f.events.size() <= 4096, std::to_string(f.events.size()));
    for (const kpc_cli::StatResultEvent &e : f.events)
        KPC_FUZZ_CHECK(e.values.empty() || e.values.size() == f.runs, e.name);
    kpc_cli::DiffGate gate;
    if (f.runs >= 2) gate.all_pct = 0;  // the strictest gate: any significant growth fails
    kpc_cli::DiffReport r = kpc_cli::compare_stat_results(f, f, gate);
    KPC_FUZZ_CHECK(!r.failed, "a file compared with itself failed the gate");
    KPC_FUZZ_CHECK(r.events.size() == f.events.size(), "events lost in the comparison");
    for (const kpc_cli::EventDiff &d : r.events) {
        KPC_FUZZ_CHECK(d.verdict != ChangeVerdict::increase && d.verdict != ChangeVerdict::decrease,
                       d.name + " changed against itself");
        KPC_FUZZ_CHECK(!d.change_pct || *d.change_pct == 0, d.name);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    std::string text(reinterpret_cast<const char *>(data), size);
    try {
        check_self_comparison(kpc_cli::parse_stat_result(text, "fuzz.json"));
    } catch (const kpc_cli::DiffInputError &e) {
        KPC_FUZZ_CHECK(*e.what() != '\0', "an input error without a message");
    } catch (const std::exception &e) {
        kpc_fuzz::fail("kpc diff's reader threw something other than DiffInputError", e.what());
    }
    return 0;
}
