// The environment rule without a setuid binary: a privileged process (simulated through
// set_privileged_reason_for_testing) ignores the KPC_* variables that choose code, options
// given in code still work, and a relative framework path is refused. setuid_test.py checks
// the same rule in a real setuid program.
#include <gtest/gtest.h>
#include <kpc/kpc.h>
#include <stdlib.h>

#include <string>

#include "core/backend.hpp"
#include "core/environment.hpp"
#include "core/error.hpp"

namespace {

const char *const kVariables[] = {"KPC_BACKEND", "KPC_KPERF_PATH", "KPC_KPERFDATA_PATH",
                                  "KPC_LIBSYSTEM_PATH"};
const std::string kDefaultKperf = "/System/Library/PrivateFrameworks/kperf.framework/kperf";

// Each test starts unprivileged with no KPC_* variables, and leaves it so.
class Environment : public ::testing::Test {
protected:
    void SetUp() override { reset(); }
    void TearDown() override { reset(); }
    static void reset() {
        kpc::set_privileged_reason_for_testing(nullptr);
        for (const char *v : kVariables) unsetenv(v);
    }
    static void set_all() {
        setenv("KPC_BACKEND", "kperf", 1);
        setenv("KPC_KPERF_PATH", "/tmp/evil/kperf", 1);
        setenv("KPC_KPERFDATA_PATH", "/tmp/evil/kperfdata", 1);
    }
    static kp_backend_t platform() {
#if defined(__APPLE__)
        return KP_BACKEND_KPERF;
#else
        return KP_BACKEND_PERF_EVENT;
#endif
    }
};

TEST_F(Environment, ThisTestIsNotPrivileged) {
    // The real check: a test binary run normally is neither setuid nor setgid.
    EXPECT_EQ(kpc::privileged_reason(), "");
    setenv("KPC_KPERF_PATH", "/opt/kperf", 1);
    EXPECT_STREQ(kpc::code_selecting_env("KPC_KPERF_PATH"), "/opt/kperf");
    EXPECT_EQ(kpc::ignored_environment_note(), "");
}

TEST_F(Environment, UnprivilegedProcessHonoursTheVariables) {
    set_all();
    kpc::BackendConfig c = kpc::resolve_config(nullptr);
    EXPECT_EQ(c.backend, KP_BACKEND_KPERF);
    EXPECT_EQ(c.kperf_path, "/tmp/evil/kperf");
    EXPECT_EQ(c.kperfdata_path, "/tmp/evil/kperfdata");
}

TEST_F(Environment, PrivilegedProcessIgnoresEveryVariableThatChoosesCode) {
    kpc::set_privileged_reason_for_testing("setuid process");
    set_all();
    kpc::BackendConfig c = kpc::resolve_config(nullptr);
    EXPECT_EQ(c.backend, platform());
    EXPECT_EQ(c.kperf_path, kDefaultKperf);
    EXPECT_EQ(c.kperfdata_path,
              "/System/Library/PrivateFrameworks/kperfdata.framework/kperfdata");
    EXPECT_EQ(kpc::ignored_environment_note(),
              "KPC_BACKEND, KPC_KPERF_PATH, KPC_KPERFDATA_PATH ignored (setuid process)");
}

TEST_F(Environment, NoteNamesOnlyTheVariablesThatWereSet) {
    kpc::set_privileged_reason_for_testing("setgid process");
    setenv("KPC_KPERF_PATH", "/tmp/evil/kperf", 1);
    kpc::resolve_config(nullptr);
    EXPECT_EQ(kpc::ignored_environment_note(), "KPC_KPERF_PATH ignored (setgid process)");
}

// The recount backend's libSystem is code chosen by a path, like the frameworks.
TEST_F(Environment, LibSystemPathFollowsTheSameRule) {
    setenv("KPC_LIBSYSTEM_PATH", "/tmp/evil/libSystem.dylib", 1);
    EXPECT_EQ(kpc::resolve_config(nullptr).libsystem_path, "/tmp/evil/libSystem.dylib");
    kpc::set_privileged_reason_for_testing("setuid process");
    EXPECT_EQ(kpc::resolve_config(nullptr).libsystem_path, "");  // the process's own libSystem
    EXPECT_EQ(kpc::ignored_environment_note(), "KPC_LIBSYSTEM_PATH ignored (setuid process)");
}

TEST_F(Environment, PrivilegedProcessKeepsOptionsGivenInCode) {
    kpc::set_privileged_reason_for_testing("setuid process");
    set_all();
    kp_sampler_options_t o{};
    o.version = KP_SAMPLER_OPTIONS_VERSION;
    o.backend = KP_BACKEND_KPERF;
    o.kperf_path = "/opt/kperf";
    o.kperfdata_path = "/opt/kperfdata";
    kpc::BackendConfig c = kpc::resolve_config(&o);
    EXPECT_EQ(c.backend, KP_BACKEND_KPERF);
    EXPECT_EQ(c.kperf_path, "/opt/kperf");
    EXPECT_EQ(c.kperfdata_path, "/opt/kperfdata");
}

TEST_F(Environment, PrivilegedProcessIgnoresRatherThanRejectsARelativePath) {
    kpc::set_privileged_reason_for_testing("setuid process");
    setenv("KPC_KPERF_PATH", "libkperf.so", 1);
    EXPECT_EQ(kpc::resolve_config(nullptr).kperf_path, kDefaultKperf);
}

TEST_F(Environment, RelativeFrameworkPathIsRefused) {
    for (const char *name : {"KPC_KPERF_PATH", "KPC_KPERFDATA_PATH", "KPC_LIBSYSTEM_PATH"}) {
        reset();
        setenv(name, "lib/kperf.so", 1);
        try {
            kpc::resolve_config(nullptr);
            ADD_FAILURE() << name << ": a relative path was accepted";
        } catch (const kpc::Error &e) {
            EXPECT_EQ(e.status(), KP_EINVAL) << name;
            EXPECT_NE(e.message().find(std::string(name) + "='lib/kperf.so'"), std::string::npos)
                << e.message();
            EXPECT_NE(e.message().find("absolute path"), std::string::npos) << e.message();
        }
    }
}

TEST_F(Environment, RelativePathErrorReachesTheCApi) {
    setenv("KPC_BACKEND", "kperf", 1);
    setenv("KPC_KPERF_PATH", "./libkperf_sim.so", 1);
    kp_sampler_t *s = nullptr;
    EXPECT_EQ(kp_sampler_new(&s, nullptr), KP_EINVAL);
    EXPECT_EQ(s, nullptr);
    std::string m = kp_error_last_message();
    EXPECT_NE(m.find("KPC_KPERF_PATH='./libkperf_sim.so' is a relative path"), std::string::npos)
        << m;
    kp_sampler_free(s);
}

TEST_F(Environment, LoadFailureAfterIgnoringSaysWhy) {
    // The kperf backend chosen in code, its paths left to an ignored environment: the
    // default framework does not exist here, and the error explains that the user's path
    // was not used.
    kpc::set_privileged_reason_for_testing("setuid process");
    setenv("KPC_KPERF_PATH", "/tmp/evil/kperf", 1);
    kp_sampler_options_t o;
    ASSERT_EQ(kp_sampler_options_init(&o, KP_SAMPLER_OPTIONS_VERSION), KP_OK);
    o.backend = KP_BACKEND_KPERF;
    kp_sampler_t *s = nullptr;
    int rc = kp_sampler_new(&s, &o);
    kp_sampler_free(s);
#if defined(__APPLE__)
    GTEST_SKIP() << "the default kperf framework exists on macOS, so loading it succeeds";
#endif
    EXPECT_EQ(rc, KP_ELOAD);
    std::string m = kp_error_last_message();
    EXPECT_NE(m.find(kDefaultKperf), std::string::npos) << m;
    EXPECT_NE(m.find("KPC_KPERF_PATH ignored (setuid process)"), std::string::npos) << m;
    EXPECT_NE(m.find("kp_sampler_options_t"), std::string::npos) << m;
}

TEST_F(Environment, NoteIsNotAddedWhenNothingWasIgnored) {
    kpc::Error e(KP_ELOAD, "dlopen failed", 2);
    kpc::Error same = kpc::with_environment_note(e);
    EXPECT_EQ(same.message(), "dlopen failed");
    EXPECT_EQ(same.status(), KP_ELOAD);
    EXPECT_EQ(same.os_code(), 2);
}

}  // namespace
