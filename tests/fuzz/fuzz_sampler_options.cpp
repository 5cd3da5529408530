// libFuzzer target: kp_sampler_new with fuzzed kp_sampler_options_t fields and KPC_BACKEND,
// KPC_KPERF_PATH and KPC_KPERFDATA_PATH values. Either a working sampler or a failure with
// a message and no handle; afterwards the environment is clean and the simulated machine
// (which the kperf paths may load) is as it was.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "fuzz_input.hpp"
#include "kpc/kpc.h"
#include "sim_state.hpp"

namespace {

using kpc_fuzz::FuzzInput;

// A path chosen by one byte: the simulator's libraries, their broken variants, or a fuzzed
// word under a directory that does not exist, so no arbitrary file on this machine is ever
// dlopen()ed (and so runs its constructors). `storage` keeps the string alive.
const char *choose_path(FuzzInput &in, std::string &storage) {
    switch (in.byte() % 8) {
    case 0: return nullptr;
    case 1: return KPC_FUZZ_KPERF;
    case 2: return KPC_FUZZ_KPERFDATA;
    case 3: return KPC_FUZZ_KPERF_MISSING;
    case 4: return KPC_FUZZ_KPERFDATA_NOCREATEX;
    case 5: storage = "/nonexistent-kpc-fuzz/" + in.word(); return storage.c_str();
    case 6: storage = "nonexistent-kpc-fuzz/" + in.word(); return storage.c_str();  // relative
    default: return "";
    }
}

// putenv() with a buffer this file owns: setenv() would keep a copy of every value it was
// ever given, so millions of fuzzed values would grow the process without bound.
class EnvVar {
public:
    explicit EnvVar(const char *name) : name_(name) {}
    ~EnvVar() { unsetenv(name_); }
    void set(const char *value) {
        unsetenv(name_);
        if (!value) return;
        std::snprintf(buf_, sizeof buf_, "%s=%s", name_, value);
        putenv(buf_);
    }

private:
    const char *name_;
    char buf_[512];
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const kpc_fuzz::SimState boot = kpc_fuzz::sim_state();
    static EnvVar env_backend("KPC_BACKEND"), env_kperf("KPC_KPERF_PATH"),
        env_kperfdata("KPC_KPERFDATA_PATH");
    FuzzInput in(data, size);

    kp_sampler_options_t opts;
    KPC_FUZZ_CHECK(kp_sampler_options_init(&opts, KP_SAMPLER_OPTIONS_VERSION) == KP_OK, "init");
    uint8_t version = in.byte();
    bool null_opts = version == 0xff;
    if (version < 0x80) opts.version = version;  // else keep the current version
    opts.backend = static_cast<kp_backend_t>(static_cast<int8_t>(in.byte()));
    std::string kperf, kperfdata, env_kperf_value, env_kperfdata_value;
    opts.kperf_path = choose_path(in, kperf);
    opts.kperfdata_path = choose_path(in, kperfdata);
    std::string backend_value;
    if (in.byte() & 1) backend_value = in.word();
    env_backend.set(backend_value.empty() ? nullptr : backend_value.c_str());
    env_kperf.set(choose_path(in, env_kperf_value));
    env_kperfdata.set(choose_path(in, env_kperfdata_value));

    kp_sampler_t *s = reinterpret_cast<kp_sampler_t *>(&opts);  // must be overwritten
    int rc = kp_sampler_new(&s, null_opts ? nullptr : &opts);
    if (rc == KP_OK) {
        KPC_FUZZ_CHECK(s != nullptr, "kp_sampler_new succeeded without a sampler");
        KPC_FUZZ_CHECK(kp_sampler_backend_name(s) != nullptr, "no backend name");
        KPC_FUZZ_CHECK(kp_sampler_cpu_name(s) != nullptr, "no cpu name");
        size_t n = kp_sampler_event_count(s);
        for (size_t i = 0; i < n; ++i) KPC_FUZZ_CHECK(kp_sampler_event_at(s, i) != nullptr, "event_at");
        KPC_FUZZ_CHECK(kp_sampler_event_at(s, n) == nullptr, "event_at past the end");
        kp_sampler_access(s);
        kp_sampler_free(s);
    } else {
        KPC_FUZZ_CHECK(s == nullptr, "kp_sampler_new failed but left a sampler");
        KPC_FUZZ_CHECK(*kp_error_last_message() != '\0', "kp_sampler_new failed without a message");
    }
    env_backend.set(nullptr);
    env_kperf.set(nullptr);
    env_kperfdata.set(nullptr);
    kpc_fuzz::check_sim_restored(boot);
    return 0;
}
