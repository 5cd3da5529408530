// Fault injection on every simulated entry point: each failure gives a clean error (a
// kp_status code and a message), and afterwards the simulated kernel and the kpep object
// counts are exactly as before. ASan (run by the lead) adds "and nothing leaked".
#include <cerrno>
#include <cstring>

#include "kperf_fixture.hpp"

namespace kperf_test {
namespace {

const char *const kKpcSymbols[] = {
    "kpc_cpu_string", "kpc_pmu_version", "kpc_get_counting", "kpc_set_counting",
    "kpc_get_thread_counting", "kpc_set_thread_counting", "kpc_get_config_count",
    "kpc_get_counter_count", "kpc_get_config", "kpc_set_config", "kpc_get_cpu_counters",
    "kpc_get_thread_counters", "kpc_force_all_ctrs_set", "kpc_force_all_ctrs_get",
    "kperf_action_count_set", "kperf_action_count_get", "kperf_action_samplers_set",
    "kperf_action_samplers_get", "kperf_action_filter_set_by_task",
    "kperf_action_filter_set_by_pid", "kperf_timer_count_set", "kperf_timer_count_get",
    "kperf_timer_period_set", "kperf_timer_period_get", "kperf_timer_action_set",
    "kperf_timer_action_get", "kperf_timer_pet_set", "kperf_timer_pet_get", "kperf_sample_set",
    "kperf_sample_get", "kperf_reset", "kperf_ns_to_ticks", "kperf_ticks_to_ns",
    "kperf_tick_frequency",
};

const char *const kKpepSymbols[] = {
    "kpep_config_create", "kpep_config_add_event", "kpep_config_remove_event",
    "kpep_config_force_counters", "kpep_config_events_count", "kpep_config_events",
    "kpep_config_kpc", "kpep_config_kpc_count", "kpep_config_kpc_classes", "kpep_config_kpc_map",
    "kpep_db_create", "kpep_db_name", "kpep_db_aliases_count", "kpep_db_aliases",
    "kpep_db_counters_count", "kpep_db_events_count", "kpep_db_events", "kpep_db_event",
    "kpep_event_name", "kpep_event_alias", "kpep_event_description", "kpep_db_createx",
};

struct Outcome {
    int first_status = KP_OK;
    std::string first_message;
    std::string bad;  // a contract violation, if any
};

// Records the first failure and checks that every failure is a clean one.
void step(Outcome &o, const char *what, int rc) {
    if (rc == KP_OK) return;
    std::string msg = kp_error_last_message();
    if (rc > KP_OK || rc < KP_EBUFSIZE) o.bad += std::string(what) + " returned " + std::to_string(rc) + "; ";
    if (msg.empty()) o.bad += std::string(what) + " failed with an empty message; ";
    if (o.first_status == KP_OK) {
        o.first_status = rc;
        o.first_message = std::string(what) + ": " + msg;
    }
}

// A whole session: create, count fixed and configurable events, pause, resume, release.
Outcome scenario() {
    Outcome o;
    Sampler s;
    int rc = new_sampler(&s);
    step(o, "kp_sampler_new", rc);
    if (rc != KP_OK) return o;
    step(o, "kp_sampler_access", kp_sampler_access(s.get()));
    Thread t;
    rc = new_thread(&t, s.get(), {"cycles", "instructions", "branches", "l1d-load-misses"});
    step(o, "kp_thread_new", rc);
    if (rc == KP_OK) {
        uint64_t v[4];
        step(o, "kp_thread_start", kp_thread_start(t.get()));
        step(o, "kp_thread_sample", kp_thread_sample(t.get(), v, 4));
        burn(1);
        step(o, "kp_thread_sample", kp_thread_sample(t.get(), v, 4));
        step(o, "kp_thread_stop", kp_thread_stop(t.get()));
        step(o, "kp_thread_start", kp_thread_start(t.get()));
        step(o, "kp_thread_sample", kp_thread_sample(t.get(), v, 4));
        t.reset();  // freed while running
    }
    step(o, "kp_sampler_release", kp_sampler_release(s.get()));
    return o;
}

using Faults = KperfTest;

TEST_F(Faults, EveryKpcEntryPointFailureIsCleanAndLeavesNothingBehind) {
    const kpsim_kernel_state before = kernel_state();
    int injected = 0, surfaced = 0;
    for (const char *sym : kKpcSymbols) {
        for (int err : {EIO, EBUSY, EINVAL, EPERM}) {
            for (int nth = 1; nth <= 3; ++nth) {
                SCOPED_TRACE(std::string(sym) + " call " + std::to_string(nth) + " errno " +
                             std::to_string(err));
                ASSERT_EQ(kpsim_fail(sym, nth, err), 0) << "simulator lacks " << sym;
                ++injected;
                Outcome o = scenario();
                kpsim_clear_faults();
                EXPECT_EQ(o.bad, "");
                if (o.first_status != KP_OK) ++surfaced;
                expect_same_kernel(before, kernel_state(), "after the scenario");
                EXPECT_EQ(kpsim_data_live_dbs(), dbs_);
                EXPECT_EQ(kpsim_data_live_configs(), configs_);
                if (HasFailure()) return;
            }
        }
    }
    EXPECT_GT(surfaced, 0);
    EXPECT_GT(injected, surfaced) << "some faults are absorbed (retries, best-effort calls, "
                                     "entry points libkpc never calls)";
}

TEST_F(Faults, EveryKpepEntryPointFailureIsCleanAndLeavesNothingBehind) {
    const kpsim_kernel_state before = kernel_state();
    for (const char *sym : kKpepSymbols) {
        for (int code : {1, 2, 12, 15}) {
            for (int nth = 1; nth <= 3; ++nth) {
                SCOPED_TRACE(std::string(sym) + " call " + std::to_string(nth) + " kpep error " +
                             std::to_string(code));
                ASSERT_EQ(kpsim_data_fail(sym, nth, code), 0) << "simulator lacks " << sym;
                Outcome o = scenario();
                kpsim_data_clear_faults();
                EXPECT_EQ(o.bad, "");
                if (o.first_status != KP_OK && code != 12) {
                    EXPECT_EQ(o.first_status, KP_EFRAMEWORK) << o.first_message;
                    EXPECT_NE(o.first_message.find(sym), std::string::npos) << o.first_message;
                    EXPECT_NE(o.first_message.find("kpep error " + std::to_string(code)),
                              std::string::npos) << o.first_message;
                }
                expect_same_kernel(before, kernel_state(), "after the scenario");
                EXPECT_EQ(kpsim_data_live_dbs(), dbs_);
                EXPECT_EQ(kpsim_data_live_configs(), configs_);
                if (HasFailure()) return;
            }
        }
    }
}

struct Surfaced {
    const char *symbol;
    int nth;
    int err;
    int status;
};

// Failures libkpc cannot absorb reach the caller with the right code, naming the call.
TEST_F(Faults, KernelFailuresThatMatterReachTheCaller) {
    const Surfaced cases[] = {
        {"kpc_set_config", 1, EIO, KP_EKERNEL},
        {"kpc_set_config", 1, EBUSY, KP_EBUSY},
        {"kpc_set_config", 1, EPERM, KP_EUNAVAILABLE},
        {"kpc_set_counting", 1, EIO, KP_EKERNEL},
        {"kpc_set_counting", 1, EBUSY, KP_EBUSY},
        {"kpc_set_thread_counting", 1, EIO, KP_EKERNEL},
        {"kpc_get_thread_counters", 1, EIO, KP_EKERNEL},
        {"kpc_get_thread_counters", 2, EBUSY, KP_EBUSY},
        {"kpc_set_counting", 2, EIO, KP_EKERNEL},  // switching counting off at stop
    };
    const kpsim_kernel_state before = kernel_state();
    for (const Surfaced &c : cases) {
        SCOPED_TRACE(std::string(c.symbol) + " call " + std::to_string(c.nth));
        ASSERT_EQ(kpsim_fail(c.symbol, c.nth, c.err), 0);
        Outcome o = scenario();
        kpsim_clear_faults();
        EXPECT_EQ(o.bad, "");
        EXPECT_EQ(o.first_status, c.status) << o.first_message;
        std::string call = c.symbol;
        EXPECT_NE(o.first_message.find(call), std::string::npos) << o.first_message;
        expect_same_kernel(before, kernel_state(), "after the scenario");
    }
}

TEST_F(Faults, RestoreRefusedTwiceIsReportedAndRecoverable) {
    Sampler s = must_sampler();
    const kp_kperf_api_t *api = nullptr;
    ASSERT_EQ(kp_sampler_kperf_api(&api, s.get()), KP_OK);
    ASSERT_EQ(kpsim_fail("kpc_force_all_ctrs_set", 1, EIO), 0);
    ASSERT_EQ(kpsim_fail("kpc_force_all_ctrs_set", 2, EIO), 0);
    EXPECT_EQ(kp_sampler_release(s.get()), KP_EKERNEL);
    EXPECT_NE(last_message().find("kpc_force_all_ctrs_set(0)"), std::string::npos) << last_message();
    EXPECT_EQ(kernel_state().force_all_ctrs, 1) << "the simulated kernel refused twice";
    kpsim_clear_faults();
    ASSERT_EQ(api->kpc_force_all_ctrs_set(0), 0);  // what the process exit would do
}

}  // namespace
}  // namespace kperf_test
