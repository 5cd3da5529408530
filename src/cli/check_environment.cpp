#include "cli/check_environment.hpp"

#include <sys/utsname.h>
#ifdef __APPLE__
#include <sys/sysctl.h>
#endif

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <thread>

#include "cli/check_counter.hpp"
#include "cli/cli_error.hpp"
#include "cli/text_format.hpp"
#include "kpc/kperf_raw.h"

namespace kpc_cli {
namespace {

#ifdef __APPLE__
std::string sysctl_string(const char *name) {
    char buf[256] = {0};
    size_t len = sizeof(buf) - 1;
    if (sysctlbyname(name, buf, &len, nullptr, 0) != 0) return "";
    return buf;
}
#else
// PRETTY_NAME from /etc/os-release, e.g. "Debian GNU/Linux 12 (bookworm)".
std::string linux_distribution() {
    std::ifstream f("/etc/os-release");
    std::string line;
    const std::string key = "PRETTY_NAME=";
    while (std::getline(f, line)) {
        if (line.rfind(key, 0) != 0) continue;
        std::string v = line.substr(key.size());
        if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
        return v;
    }
    return "";
}
#endif

void probe_os(Environment &env) {
    utsname u{};
    if (uname(&u) == 0) {
        env.os_name = u.sysname;
        env.os_version = u.release;
        env.machine = u.machine;
    }
#ifdef __APPLE__
    env.os_name = "macOS";
    env.os_version = sysctl_string("kern.osproductversion");
    env.os_detail = "build " + sysctl_string("kern.osversion");
#else
    env.os_detail = linux_distribution();
#endif
}

// A helper thread is started first; then this thread turns thread counting on through a
// kp_thread_t; then the helper reads its counters raw: twice at once, then after a sleep. Counting is switched only by
// libkpc (kp_thread_*), so no kernel state outlives the probe.
LazyBufferProbe probe_lazy_buffer(kp_sampler_t *s) {
    LazyBufferProbe p;
    const kp_kperf_api_t *api = nullptr;
    int rc = kp_sampler_kperf_api(&api, s);
    if (rc != KP_OK) {
        p.not_probed_reason = last_kp_error(rc);
        return p;
    }
    std::mutex m;
    std::condition_variable cv;
    enum { waiting, go, cancel, done } stage = waiting;
    std::thread helper([&] {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [&] { return stage != waiting; });
        if (stage == cancel) return;
        uint64_t buf[KP_KPC_MAX_COUNTERS] = {0};
        errno = 0;
        p.first_errno = api->kpc_get_thread_counters(0, KP_KPC_MAX_COUNTERS, buf) == 0 ? 0 : errno;
        errno = 0;
        p.retry_errno = api->kpc_get_thread_counters(0, KP_KPC_MAX_COUNTERS, buf) == 0 ? 0 : errno;
        // XNU hands out the buffer at a context switch (an AST): sleeping forces one.
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        errno = 0;
        p.after_switch_errno =
            api->kpc_get_thread_counters(0, KP_KPC_MAX_COUNTERS, buf) == 0 ? 0 : errno;
        p.probed = true;
        stage = done;
        cv.notify_all();
    });
    {
        EventCounter counting(s, "cycles");
        std::unique_lock<std::mutex> lock(m);
        stage = counting.ok() ? go : cancel;
        cv.notify_all();
        if (counting.ok())
            cv.wait(lock, [&] { return stage == done; });
        else
            p.not_probed_reason = "thread counting could not be turned on: " + counting.reason();
    }
    helper.join();
    return p;
}

}  // namespace

std::string errno_label(int err) {
    switch (err) {
    case 0: return "ok";
    case EINVAL: return "EINVAL";
    case EPERM: return "EPERM";
    case EBUSY: return "EBUSY";
    case ENOMEM: return "ENOMEM";
    case EFAULT: return "EFAULT";
    case EACCES: return "EACCES";
    default: return format("errno %d", err);
    }
}

Environment probe_environment(kp_sampler_t *s) {
    Environment env;
    probe_os(env);
    env.counters = read_counter_counts(s);
    kp_error_clear();
    env.access_status = kp_sampler_access(s);
    if (env.access_status != KP_OK) env.access_reason = last_kp_error(env.access_status);

    kp_kperf_info_t info{};
    if (kp_sampler_kperf_info(&info, s) == KP_OK) {
        KperfEnvironment k;
        k.db_name = info.db_name ? info.db_name : "";
        k.db_api_name = info.db_api_name ? info.db_api_name : "";
        k.marketing_name = info.marketing_name ? info.marketing_name : "";
        k.event_stride = info.event_stride;
        k.chip_known = info.chip_known != 0;
        k.configurable_before_force = info.configurable_before_force;
        k.configurable_after_force = info.configurable_after_force;
        if (env.access_status == KP_OK)
            k.lazy_buffer = probe_lazy_buffer(s);
        else
            k.lazy_buffer.not_probed_reason = "this process may not count: " + env.access_reason;
        env.kperf = k;
    }
    return env;
}

}  // namespace kpc_cli
