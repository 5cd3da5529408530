#include <gtest/gtest.h>
#include <stdlib.h>

#include "core/backend.hpp"
#include "core/error.hpp"

namespace {
struct CleanEnv {
    CleanEnv() {
        unsetenv("KPC_BACKEND");
        unsetenv("KPC_KPERF_PATH");
        unsetenv("KPC_KPERFDATA_PATH");
    }
    ~CleanEnv() { CleanEnv::clean(); }
    static void clean() {
        unsetenv("KPC_BACKEND");
        unsetenv("KPC_KPERF_PATH");
        unsetenv("KPC_KPERFDATA_PATH");
    }
};
}  // namespace

TEST(BackendConfig, DefaultsWithoutOptionsOrEnvironment) {
    CleanEnv env;
    kpc::BackendConfig c = kpc::resolve_config(nullptr);
#if defined(__APPLE__)
    EXPECT_EQ(c.backend, KP_BACKEND_AUTO);  // make_backend() chooses kperf or recount
#else
    EXPECT_EQ(c.backend, KP_BACKEND_PERF_EVENT);
#endif
    EXPECT_EQ(c.kperf_path, "/System/Library/PrivateFrameworks/kperf.framework/kperf");
    EXPECT_EQ(c.kperfdata_path, "/System/Library/PrivateFrameworks/kperfdata.framework/kperfdata");
}

TEST(BackendConfig, EnvironmentFillsUnsetOptions) {
    CleanEnv env;
    setenv("KPC_BACKEND", "kperf", 1);
    setenv("KPC_KPERF_PATH", "/env/kperf", 1);
    setenv("KPC_KPERFDATA_PATH", "/env/kperfdata", 1);
    kpc::BackendConfig c = kpc::resolve_config(nullptr);
    EXPECT_EQ(c.backend, KP_BACKEND_KPERF);
    EXPECT_EQ(c.kperf_path, "/env/kperf");
    EXPECT_EQ(c.kperfdata_path, "/env/kperfdata");
}

TEST(BackendConfig, OptionsWinOverEnvironment) {
    CleanEnv env;
    setenv("KPC_BACKEND", "kperf", 1);
    setenv("KPC_KPERF_PATH", "/env/kperf", 1);
    kp_sampler_options_t o{};
    o.version = KP_SAMPLER_OPTIONS_VERSION;
    o.backend = KP_BACKEND_PERF_EVENT;
    o.kperf_path = "/opt/kperf";
    kpc::BackendConfig c = kpc::resolve_config(&o);
    EXPECT_EQ(c.backend, KP_BACKEND_PERF_EVENT);
    EXPECT_EQ(c.kperf_path, "/opt/kperf");
}

TEST(BackendConfig, AutoAndEmptyEnvironmentMeanPlatformDefault) {
    CleanEnv env;
    setenv("KPC_BACKEND", "auto", 1);
    kpc::BackendConfig a = kpc::resolve_config(nullptr);
    setenv("KPC_BACKEND", "", 1);
    kpc::BackendConfig b = kpc::resolve_config(nullptr);
    EXPECT_EQ(a.backend, b.backend);
#if !defined(__APPLE__)
    EXPECT_NE(a.backend, KP_BACKEND_AUTO);
#endif
}

TEST(BackendConfig, BadValuesThrowInvalidArgument) {
    CleanEnv env;
    setenv("KPC_BACKEND", "perf", 1);
    try {
        kpc::resolve_config(nullptr);
        FAIL() << "expected an error";
    } catch (const kpc::Error &e) {
        EXPECT_EQ(e.status(), KP_EINVAL);
        EXPECT_NE(e.message().find("auto, kperf, perf_event or recount"), std::string::npos);
    }
    CleanEnv::clean();
    kp_sampler_options_t o{};
    o.version = 0;
    EXPECT_THROW(kpc::resolve_config(&o), kpc::Error);
}
