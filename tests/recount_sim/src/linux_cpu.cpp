#include "linux_cpu.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace rcsim {
namespace {

// Reads a small /proc file whole; false if it does not exist (any more).
bool read_file(const char *path, char *buf, size_t cap) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    size_t used = 0;
    for (;;) {
        ssize_t n = read(fd, buf + used, cap - 1 - used);
        if (n < 0) {
            close(fd);
            return false;
        }
        if (n == 0 || used + static_cast<size_t>(n) == cap - 1) {
            used += static_cast<size_t>(n);
            break;
        }
        used += static_cast<size_t>(n);
    }
    close(fd);
    buf[used] = '\0';
    return used > 0;
}

uint64_t clock_tick_ns() {
    static const long hz = sysconf(_SC_CLK_TCK);
    return 1000000000ull / static_cast<uint64_t>(hz > 0 ? hz : 100);
}

uint64_t timespec_ns(const timespec &t) {
    return static_cast<uint64_t>(t.tv_sec) * 1000000000ull + static_cast<uint64_t>(t.tv_nsec);
}

uint64_t timeval_ns(const timeval &t) {
    return static_cast<uint64_t>(t.tv_sec) * 1000000000ull + static_cast<uint64_t>(t.tv_usec) * 1000ull;
}

// /proc/.../stat: fields 3.. after the command name's closing parenthesis.
struct Stat {
    char state;
    uint64_t field[52];  // field[i] = stat field i (1-based, as in proc(5)); 1 and 2 unused
};

bool read_stat(const char *path, Stat *st) {
    char buf[1024];
    if (!read_file(path, buf, sizeof buf)) return false;
    const char *p = std::strrchr(buf, ')');
    if (p == nullptr || p[1] != ' ') return false;
    p += 2;
    std::memset(st, 0, sizeof *st);
    st->state = *p++;
    for (int i = 4; i < 52 && *p == ' '; ++i) {
        char *end = nullptr;
        st->field[i] = std::strtoull(p + 1, &end, 10);  // negative tty/tpgid wrap; unused
        p = end;
    }
    return true;
}

bool read_schedstat(const char *path, uint64_t *ns) {
    char buf[128];
    if (!read_file(path, buf, sizeof buf)) return false;
    char *end = nullptr;
    *ns = std::strtoull(buf, &end, 10);
    return end != buf;
}

// /proc/<pid>/status: Tgid and the effective uid.
bool read_status(pid_t pid, pid_t *tgid, unsigned *euid) {
    char path[64], buf[4096];
    std::snprintf(path, sizeof path, "/proc/%d/status", static_cast<int>(pid));
    if (!read_file(path, buf, sizeof buf)) return false;
    const char *t = std::strstr(buf, "\nTgid:");
    const char *u = std::strstr(buf, "\nUid:");
    if (t == nullptr || u == nullptr) return false;
    *tgid = static_cast<pid_t>(std::strtol(t + 6, nullptr, 10));
    char *end = nullptr;
    std::strtoul(u + 5, &end, 10);  // real uid
    *euid = static_cast<unsigned>(std::strtoul(end, nullptr, 10));
    return true;
}

}  // namespace

bool find_process(pid_t pid, ProcessInfo *out) {
    if (pid <= 0) return false;  // pid 0 is kernel_task on macOS; not modelled
    pid_t tgid = 0;
    unsigned euid = 0;
    // A Linux thread id also has a (hidden) /proc entry; on macOS it is not a pid.
    if (!read_status(pid, &tgid, &euid) || tgid != pid) return false;
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
    Stat st;
    if (!read_stat(path, &st) || st.state == 'X' || st.state == 'x') return false;
    const uint64_t tick = clock_tick_ns();
    out->pid = pid;
    out->own = pid == getpid();
    out->zombie = st.state == 'Z';
    out->euid = euid;
    out->majflt = st.field[12];
    out->cmajflt = st.field[13];
    out->utime_ns = st.field[14] * tick;
    out->stime_ns = st.field[15] * tick;
    out->cutime_ns = st.field[16] * tick;
    out->cstime_ns = st.field[17] * tick;
    out->start_ns = st.field[22] * tick;
    out->rss_bytes = st.field[24] * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    return true;
}

CpuTime calling_thread_cpu() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    rusage ru{};
    getrusage(RUSAGE_THREAD, &ru);
    return CpuTime{timespec_ns(ts), timeval_ns(ru.ru_utime), timeval_ns(ru.ru_stime)};
}

bool other_thread_cpu(pid_t pid, uint64_t tid, CpuTime *out) {
    if (tid == 0 || tid > static_cast<uint64_t>(INT32_MAX)) return false;
    char path[96];
    std::snprintf(path, sizeof path, "/proc/%d/task/%llu/stat", static_cast<int>(pid),
                  static_cast<unsigned long long>(tid));
    Stat st;
    if (!read_stat(path, &st) || st.state == 'Z' || st.state == 'X' || st.state == 'x') return false;
    uint64_t ns = 0;
    std::snprintf(path, sizeof path, "/proc/%d/task/%llu/schedstat", static_cast<int>(pid),
                  static_cast<unsigned long long>(tid));
    const uint64_t tick = clock_tick_ns();
    if (!read_schedstat(path, &ns)) ns = (st.field[14] + st.field[15]) * tick;  // no CONFIG_SCHED_INFO
    *out = CpuTime{ns, st.field[14] * tick, st.field[15] * tick};
    return true;
}

bool process_cpu(const ProcessInfo &p, CpuTime *out) {
    timespec ts{};
    if (p.own) {
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        rusage ru{};
        getrusage(RUSAGE_SELF, &ru);
        *out = CpuTime{timespec_ns(ts), timeval_ns(ru.ru_utime), timeval_ns(ru.ru_stime)};
        return true;
    }
    clockid_t clock;
    if (clock_getcpuclockid(p.pid, &clock) != 0 || clock_gettime(clock, &ts) != 0) return false;  // reaped
    *out = CpuTime{timespec_ns(ts), p.utime_ns, p.stime_ns};
    return true;
}

uint64_t now_ns() {
    timespec ts{};
    clock_gettime(CLOCK_BOOTTIME, &ts);
    return timespec_ns(ts);
}

uint64_t current_tid() { return static_cast<uint64_t>(syscall(SYS_gettid)); }

}  // namespace rcsim
