// p-cycles, e-cycles, p-instructions, e-instructions on the perf_event backend: the exact
// perf_event_attr type/config built from fake sysfs PMU trees (Intel hybrid, Asahi M1/M2,
// one core type, no PMU, broken trees), and the real machine's answer through the C API.
#include <linux/perf_event.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "backends/perf_event/core_type_events.hpp"
#include "backends/perf_event/event_group.hpp"
#include "backends/perf_event/generic_map.hpp"
#include "kpc/kpc.h"

namespace {

using kpc::GenericId;
using kpc::perf::Encoding;
using kpc::perf::encode_per_core_type;

// A throw-away /sys/bus/event_source/devices look-alike.
class FakeSysfs {
public:
    FakeSysfs() {
        char tmpl[] = "/tmp/kpc-pmus-XXXXXX";
        const char *made = mkdtemp(tmpl);
        EXPECT_NE(made, nullptr);
        root_ = made ? made : "/nonexistent";
        // Every real tree has these; none is a CPU PMU.
        pmu("software", "1");
        pmu("tracepoint", "2");
        pmu("breakpoint", "5");
    }
    ~FakeSysfs() {
        std::error_code ec;
        std::filesystem::remove_all(root_, ec);
    }
    const std::string &root() const { return root_; }

    void file(const std::string &rel, const std::string &text) {
        const std::filesystem::path path = root_ + "/" + rel;
        std::filesystem::create_directories(path.parent_path());
        std::ofstream(path) << text;
    }
    void pmu(const std::string &name, const std::string &type) { file(name + "/type", type + "\n"); }
    // What Linux's apple_m1_cpu_pmu.c publishes for one Apple core PMU.
    void apple_pmu(const std::string &name, const std::string &type) {
        pmu(name, type);
        file(name + "/cpus", "0-3\n");
        file(name + "/events/cycles", "event=0x0002\n");
        file(name + "/events/instructions", "event=0x008c\n");
        file(name + "/format/event", "config:0-7\n");
    }
    // Intel hybrid: cpu_core is registered as PERF_TYPE_RAW, cpu_atom with a dynamic type.
    void intel_hybrid(const std::string &atom_type = "10") {
        pmu("cpu_core", "4");
        file("cpu_core/cpus", "0-15\n");
        pmu("cpu_atom", atom_type);
        file("cpu_atom/cpus", "16-23\n");
    }

private:
    std::string root_;
};

constexpr uint64_t ext(uint64_t pmu_type, uint64_t hw) { return (pmu_type << 32) | hw; }

void expect_encoding(const Encoding &e, uint32_t type, uint64_t config, const std::string &native) {
    EXPECT_EQ(e.unavailable, "");
    EXPECT_EQ(e.type, type);
    EXPECT_EQ(e.config, config);
    EXPECT_EQ(e.native_name, native);
}

void expect_unavailable(const Encoding &e, const std::string &reason_part) {
    EXPECT_NE(e.unavailable.find(reason_part), std::string::npos)
        << "reason: '" << e.unavailable << "', wanted '" << reason_part << "'";
}

TEST(CoreTypeEvents, IntelHybridUsesTheExtendedHardwareTypeOfEachPmu) {
    FakeSysfs fs;
    fs.pmu("msr", "9");
    fs.intel_hybrid("10");
    const std::string r = fs.root();
    expect_encoding(encode_per_core_type(GenericId::p_cycles, r), PERF_TYPE_HARDWARE,
                    ext(4, PERF_COUNT_HW_CPU_CYCLES), "cpu_core/cycles/");
    expect_encoding(encode_per_core_type(GenericId::p_instructions, r), PERF_TYPE_HARDWARE,
                    ext(4, PERF_COUNT_HW_INSTRUCTIONS), "cpu_core/instructions/");
    expect_encoding(encode_per_core_type(GenericId::e_cycles, r), PERF_TYPE_HARDWARE,
                    ext(10, PERF_COUNT_HW_CPU_CYCLES), "cpu_atom/cycles/");
    expect_encoding(encode_per_core_type(GenericId::e_instructions, r), PERF_TYPE_HARDWARE,
                    ext(10, PERF_COUNT_HW_INSTRUCTIONS), "cpu_atom/instructions/");
}

TEST(CoreTypeEvents, IntelTypesComeFromSysfsNotFromAssumptions) {
    FakeSysfs fs;
    fs.intel_hybrid("37");
    expect_encoding(encode_per_core_type(GenericId::e_cycles, fs.root()), PERF_TYPE_HARDWARE,
                    ext(37, PERF_COUNT_HW_CPU_CYCLES), "cpu_atom/cycles/");
}

TEST(CoreTypeEvents, AppleM1UsesEachPmusOwnTypeAndEventCodes) {
    FakeSysfs fs;
    fs.apple_pmu("apple_icestorm_pmu", "8");
    fs.apple_pmu("apple_firestorm_pmu", "9");
    const std::string r = fs.root();
    expect_encoding(encode_per_core_type(GenericId::p_cycles, r), 9, 0x02, "apple_firestorm_pmu/cycles/");
    expect_encoding(encode_per_core_type(GenericId::p_instructions, r), 9, 0x8c,
                    "apple_firestorm_pmu/instructions/");
    expect_encoding(encode_per_core_type(GenericId::e_cycles, r), 8, 0x02, "apple_icestorm_pmu/cycles/");
    expect_encoding(encode_per_core_type(GenericId::e_instructions, r), 8, 0x8c,
                    "apple_icestorm_pmu/instructions/");
}

TEST(CoreTypeEvents, AppleM2NamesAndTheEventFileDecideTheConfig) {
    FakeSysfs fs;
    fs.apple_pmu("apple_blizzard_pmu", "11");
    fs.apple_pmu("apple_avalanche_pmu", "12");
    // A driver that put the event in other config bits would say so in format/event.
    fs.file("apple_avalanche_pmu/format/event", "config:8-15\n");
    fs.file("apple_avalanche_pmu/events/cycles", "event=0x3\n");
    const std::string r = fs.root();
    expect_encoding(encode_per_core_type(GenericId::p_cycles, r), 12, 0x300, "apple_avalanche_pmu/cycles/");
    expect_encoding(encode_per_core_type(GenericId::e_instructions, r), 11, 0x8c,
                    "apple_blizzard_pmu/instructions/");
}

TEST(CoreTypeEvents, OneCoreTypeIsNoHybridPmu) {
    for (const char *cpu_pmu : {"cpu", "armv8_pmuv3_0"}) {
        FakeSysfs fs;
        fs.pmu(cpu_pmu, "4");
        for (GenericId id : {GenericId::p_cycles, GenericId::e_cycles, GenericId::p_instructions,
                             GenericId::e_instructions}) {
            Encoding e = encode_per_core_type(id, fs.root());
            EXPECT_EQ(e.unavailable, "no hybrid PMU: this CPU has one core type; use cycles/instructions")
                << cpu_pmu;
        }
    }
}

TEST(CoreTypeEvents, NoCpuPmuAtAllSaysSo) {
    FakeSysfs fs;  // software, tracepoint, breakpoint only: a VM without a virtual PMU
    fs.pmu("msr", "9");
    Encoding e = encode_per_core_type(GenericId::p_cycles, fs.root());
    expect_unavailable(e, "no hybrid PMU: the kernel lists no CPU PMU in " + fs.root());
    // Still a valid legacy encoding, so the event can be listed.
    EXPECT_EQ(e.type, static_cast<uint32_t>(PERF_TYPE_HARDWARE));
    EXPECT_EQ(e.config, static_cast<uint64_t>(PERF_COUNT_HW_CPU_CYCLES));
    EXPECT_FALSE(e.native_name.empty());
}

TEST(CoreTypeEvents, UnknownApplePmusAreNotGuessed) {
    FakeSysfs fs;
    fs.apple_pmu("apple_everest_pmu", "8");
    fs.apple_pmu("apple_sawtooth_pmu", "9");
    Encoding e = encode_per_core_type(GenericId::p_cycles, fs.root());
    expect_unavailable(e, "no hybrid PMU libkpc knows");
    expect_unavailable(e, "apple_everest_pmu");
    expect_unavailable(e, "apple_sawtooth_pmu");
}

TEST(CoreTypeEvents, BrokenTreesNameWhatIsWrong) {
    {
        Encoding e = encode_per_core_type(GenericId::p_cycles, "/nonexistent/kpc-pmus");
        expect_unavailable(e, "no hybrid PMU: cannot list /nonexistent/kpc-pmus");
    }
    {  // one side of the pair only
        FakeSysfs fs;
        fs.pmu("cpu_core", "4");
        expect_encoding(encode_per_core_type(GenericId::p_cycles, fs.root()), PERF_TYPE_HARDWARE,
                        ext(4, PERF_COUNT_HW_CPU_CYCLES), "cpu_core/cycles/");
        expect_unavailable(encode_per_core_type(GenericId::e_cycles, fs.root()),
                           "E-core PMU is missing: " + fs.root() + " has cpu_core but no cpu_atom");
    }
    for (const char *bad_type : {"", "ten", "-1", "4294967296", "0x"}) {
        FakeSysfs fs;
        fs.intel_hybrid();
        fs.file("cpu_atom/type", bad_type);
        expect_unavailable(encode_per_core_type(GenericId::e_cycles, fs.root()),
                           fs.root() + "/cpu_atom/type is unreadable or not a PMU type number");
        EXPECT_EQ(encode_per_core_type(GenericId::p_cycles, fs.root()).unavailable, "") << bad_type;
    }
    {  // E cores offline: cpu_atom registered with an empty cpus list
        FakeSysfs fs;
        fs.intel_hybrid();
        fs.file("cpu_atom/cpus", "\n");
        expect_unavailable(encode_per_core_type(GenericId::e_instructions, fs.root()),
                           "the cpu_atom PMU lists no online CPU");
    }
    {  // Apple PMU without its events file, with a malformed one, with a code too wide
        FakeSysfs fs;
        fs.apple_pmu("apple_icestorm_pmu", "8");
        fs.apple_pmu("apple_firestorm_pmu", "9");
        unlink((fs.root() + "/apple_firestorm_pmu/events/cycles").c_str());
        expect_unavailable(encode_per_core_type(GenericId::p_cycles, fs.root()),
                           "apple_firestorm_pmu/events/cycles is missing");
        fs.file("apple_icestorm_pmu/events/instructions", "config=0x8c\n");
        expect_unavailable(encode_per_core_type(GenericId::e_instructions, fs.root()),
                           "reads 'config=0x8c', not event=<code>");
        fs.file("apple_icestorm_pmu/events/cycles", "event=0x1ff\n");
        expect_unavailable(encode_per_core_type(GenericId::e_cycles, fs.root()), "does not fit");
        fs.file("apple_firestorm_pmu/format/event", "config1:0-7\n");
        expect_unavailable(encode_per_core_type(GenericId::p_instructions, fs.root()),
                           "not config:<lo>-<hi>");
    }
}

TEST(CoreTypeEvents, ExplicitPmuTypeAndGroupConflicts) {
    kpc::Event legacy, p, e, sw;
    legacy.name = "cycles";
    legacy.perf_type = PERF_TYPE_HARDWARE;
    legacy.perf_config = PERF_COUNT_HW_CPU_CYCLES;
    p.name = "p-cycles";
    p.native_name = "cpu_core/cycles/";
    p.perf_type = PERF_TYPE_HARDWARE;
    p.perf_config = ext(4, PERF_COUNT_HW_CPU_CYCLES);
    e.name = "e-cycles";
    e.native_name = "cpu_atom/cycles/";
    e.perf_type = PERF_TYPE_HARDWARE;
    e.perf_config = ext(10, PERF_COUNT_HW_CPU_CYCLES);
    sw.name = "task-clock";
    sw.kind = KP_EVENT_SOFTWARE;
    sw.perf_type = PERF_TYPE_SOFTWARE;
    EXPECT_EQ(kpc::perf::explicit_pmu_type(legacy), 0u);
    EXPECT_EQ(kpc::perf::explicit_pmu_type(p), 4u);
    EXPECT_EQ(kpc::perf::explicit_pmu_type(e), 10u);
    kpc::Event apple;
    apple.perf_type = 9;  // a dynamic PMU type (Asahi)
    EXPECT_EQ(kpc::perf::explicit_pmu_type(apple), 9u);

    using kpc::perf::group_pmu_conflict;
    std::string msg = group_pmu_conflict({&sw, &p, &e}, 2);
    EXPECT_NE(msg.find("'e-cycles' (cpu_atom/cycles/) counts on another PMU than 'p-cycles'"),
              std::string::npos)
        << msg;
    EXPECT_EQ(group_pmu_conflict({&p, &p}, 1), "");       // same PMU: another cause
    EXPECT_EQ(group_pmu_conflict({&legacy, &e}, 1), "");  // the kernel chose: no telling
    EXPECT_EQ(group_pmu_conflict({&e, &sw}, 1), "");      // software joins any group
}

TEST(CoreTypeEvents, HardwareEventsExcludeGuestsAsApplesDriverRequires) {
    kpc::Event hw, sw;
    hw.perf_type = PERF_TYPE_HARDWARE;
    sw.kind = KP_EVENT_SOFTWARE;
    sw.perf_type = PERF_TYPE_SOFTWARE;
    EXPECT_EQ(kpc::perf::make_attr(hw).exclude_guest, 1u);
    EXPECT_EQ(kpc::perf::make_attr(sw).exclude_guest, 0u);
}

// This machine, through the C API: without a hybrid PMU in the real sysfs, the four names
// are listed, unavailable, and say why; kp_thread_new refuses them with that reason.
bool real_machine_is_hybrid() {
    for (const char *n : {"cpu_core", "cpu_atom", "apple_firestorm_pmu", "apple_icestorm_pmu",
                          "apple_avalanche_pmu", "apple_blizzard_pmu"})
        if (access((std::string(kpc::perf::kPmuSysfsRoot) + "/" + n).c_str(), F_OK) == 0) return true;
    return false;
}

TEST(CoreTypeEvents, ThisMachineWithoutHybridPmuRefusesThemWithTheReason) {
    if (real_machine_is_hybrid()) GTEST_SKIP() << "this machine has a hybrid PMU";
    kp_sampler_t *s = nullptr;
    ASSERT_EQ(kp_sampler_new(&s, nullptr), KP_OK) << kp_error_last_message();
    for (const char *name : {"p-cycles", "e-cycles", "p-instructions", "e-instructions"}) {
        const kp_event_t *ev = nullptr;
        ASSERT_EQ(kp_sampler_event_find(&ev, s, name), KP_OK) << name;
        EXPECT_EQ(kp_event_is_available(ev), 0) << name;
        EXPECT_EQ(kp_event_is_generic(ev), 1) << name;
        EXPECT_EQ(kp_event_kind(ev), KP_EVENT_CONFIGURABLE) << name;
        const std::string reason = kp_event_unavailable_reason(ev);
        EXPECT_EQ(reason.rfind("no hybrid PMU", 0), 0u) << reason;
        kp_thread_t *t = nullptr;
        const char *names[] = {name};
        EXPECT_EQ(kp_thread_new(&t, s, names, 1), KP_EUNAVAILABLE) << name;
        EXPECT_EQ(t, nullptr);
        EXPECT_NE(std::string(kp_error_last_message()).find(reason), std::string::npos)
            << kp_error_last_message();
    }
    kp_sampler_free(s);
}

}  // namespace
