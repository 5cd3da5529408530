// Loading kperf.framework / kperfdata.framework: paths, missing files, missing symbols,
// optional symbols, and the raw function table.
#include <stdlib.h>

#include "kperf_fixture.hpp"

namespace kperf_test {
namespace {

using Loading = KperfTest;

TEST_F(Loading, MissingKperfFileNamesPathAndFix) {
    Sampler s;
    EXPECT_EQ(new_sampler(&s, "/nonexistent/kperf.framework/kperf"), KP_ELOAD);
    EXPECT_EQ(s, nullptr);
    std::string msg = last_message();
    EXPECT_NE(msg.find("/nonexistent/kperf.framework/kperf"), std::string::npos) << msg;
    EXPECT_NE(msg.find("KPC_KPERF_PATH"), std::string::npos) << msg;
    EXPECT_NE(msg.find("perf_event"), std::string::npos) << msg;
}

TEST_F(Loading, MissingKperfdataFileNamesItsVariable) {
    Sampler s;
    EXPECT_EQ(new_sampler(&s, kperf_path(), "/nonexistent/kperfdata"), KP_ELOAD);
    std::string msg = last_message();
    EXPECT_NE(msg.find("/nonexistent/kperfdata"), std::string::npos) << msg;
    EXPECT_NE(msg.find("KPC_KPERFDATA_PATH"), std::string::npos) << msg;
}

TEST_F(Loading, MissingRequiredSymbolIsNamedWithDlerror) {
    Sampler s;
    EXPECT_EQ(new_sampler(&s, KPSIM_TEST_KPERF_MISSING), KP_ELOAD);
    EXPECT_EQ(s, nullptr);
    std::string msg = last_message();
    EXPECT_NE(msg.find("kpc_get_thread_counters"), std::string::npos) << msg;
    EXPECT_NE(msg.find("dlsym"), std::string::npos) << msg;
    EXPECT_NE(msg.find(KPSIM_TEST_KPERF_MISSING), std::string::npos) << msg;
}

TEST_F(Loading, MissingOptionalSymbolDoesNotBlockCounting) {
    Sampler s;
    ASSERT_EQ(new_sampler(&s, kperf_path(), KPSIM_TEST_KPERFDATA_NOCREATEX), KP_OK)
        << last_message();
    const kp_kperf_api_t *api = nullptr;
    ASSERT_EQ(kp_sampler_kperf_api(&api, s.get()), KP_OK);
    EXPECT_EQ(api->kpep_db_createx, nullptr);
    EXPECT_NE(api->kpep_db_create, nullptr);

    Thread t;
    ASSERT_EQ(new_thread(&t, s.get(), {"cycles", "branches"}), KP_OK) << last_message();
    uint64_t v[2] = {};
    ASSERT_EQ(kp_thread_start(t.get()), KP_OK) << last_message();
    burn(5);
    ASSERT_EQ(kp_thread_sample(t.get(), v, 2), KP_OK) << last_message();
    EXPECT_GT(v[0], 0u);
    EXPECT_GT(v[1], 0u);
}

TEST_F(Loading, EnvironmentSelectsBackendAndPaths) {
    ASSERT_EQ(setenv("KPC_BACKEND", "kperf", 1), 0);
    ASSERT_EQ(setenv("KPC_KPERF_PATH", kperf_path(), 1), 0);
    ASSERT_EQ(setenv("KPC_KPERFDATA_PATH", kperfdata_path(), 1), 0);
    kp_sampler_t *raw = nullptr;
    ASSERT_EQ(kp_sampler_new(&raw, nullptr), KP_OK) << last_message();
    Sampler s(raw);
    EXPECT_EQ(kp_sampler_backend(s.get()), KP_BACKEND_KPERF);
    EXPECT_STREQ(kp_sampler_backend_name(s.get()), "kperf");
    EXPECT_STREQ(kp_sampler_cpu_id(s.get()), "a14");
}

TEST_F(Loading, EnvironmentPathIsUsedAndReportedWhenWrong) {
    ASSERT_EQ(setenv("KPC_KPERF_PATH", "/env/path/kperf", 1), 0);
    kp_sampler_options_t opts;
    kp_sampler_options_init(&opts, KP_SAMPLER_OPTIONS_VERSION);
    opts.backend = KP_BACKEND_KPERF;
    kp_sampler_t *raw = nullptr;
    EXPECT_EQ(kp_sampler_new(&raw, &opts), KP_ELOAD);
    EXPECT_NE(last_message().find("/env/path/kperf"), std::string::npos) << last_message();
}

TEST_F(Loading, RawTableIsTheLoadedFramework) {
    Sampler s = must_sampler();
    ASSERT_TRUE(s);
    const kp_kperf_api_t *api = nullptr;
    ASSERT_EQ(kp_sampler_kperf_api(&api, s.get()), KP_OK);
    ASSERT_NE(api, nullptr);
    EXPECT_EQ(api->size, sizeof(kp_kperf_api_t));
    EXPECT_NE(api->kpc_get_thread_counters, nullptr);
    EXPECT_NE(api->kpep_db_event, nullptr);
    EXPECT_NE(api->kpep_db_createx, nullptr);  // the full simulator exports it
    EXPECT_NE(api->kperf_reset, nullptr);
    // The table drives the very same (simulated) kernel libkpc uses.
    int forced = -1;
    ASSERT_EQ(api->kpc_force_all_ctrs_get(&forced), 0);
    EXPECT_EQ(forced, kernel_state().force_all_ctrs);
    EXPECT_EQ(forced, 1);
    EXPECT_EQ(api->kpc_get_counting(), kernel_state().counting);
}

TEST_F(Loading, RawTableRefusesOtherBackendsAndNull) {
    const kp_kperf_api_t *api = reinterpret_cast<const kp_kperf_api_t *>(1);
    EXPECT_EQ(kp_sampler_kperf_api(&api, nullptr), KP_EINVAL);
    EXPECT_EQ(api, nullptr);
    Sampler s = must_sampler();
    EXPECT_EQ(kp_sampler_kperf_api(nullptr, s.get()), KP_EINVAL);

    kp_sampler_options_t opts;
    kp_sampler_options_init(&opts, KP_SAMPLER_OPTIONS_VERSION);
    opts.backend = KP_BACKEND_PERF_EVENT;
    kp_sampler_t *raw = nullptr;
    if (kp_sampler_new(&raw, &opts) != KP_OK) GTEST_SKIP() << "perf_event backend unavailable: " << last_message();
    Sampler linux_sampler(raw);
    EXPECT_EQ(kp_sampler_kperf_api(&api, linux_sampler.get()), KP_EUNSUPPORTED);
    EXPECT_NE(last_message().find("perf_event"), std::string::npos) << last_message();
}

}  // namespace
}  // namespace kperf_test
