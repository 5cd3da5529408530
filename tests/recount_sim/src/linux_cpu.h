// What the simulator reads from Linux: CPU time of threads and processes, and the process
// facts Apple's calls depend on (exists, zombie, owner, start time, memory).
#ifndef RCSIM_LINUX_CPU_H
#define RCSIM_LINUX_CPU_H

#include <sys/types.h>

#include <cstdint>

#include "model.h"

namespace rcsim {

struct ProcessInfo {
    pid_t pid;
    bool own;              // the calling process
    bool zombie;           // exited, not yet reaped
    unsigned euid;
    uint64_t start_ns;     // since boot (CLOCK_BOOTTIME), 1/CLK_TCK resolution
    uint64_t utime_ns, stime_ns;    // /proc/<pid>/stat, 1/CLK_TCK resolution
    uint64_t cutime_ns, cstime_ns;  // reaped children
    uint64_t majflt, cmajflt;
    uint64_t rss_bytes;
};

// False if no process (thread-group leader) has this pid, including a reaped one.
bool find_process(pid_t pid, ProcessInfo *out);

// The calling thread: CLOCK_THREAD_CPUTIME_ID (ns) and getrusage(RUSAGE_THREAD) (µs).
CpuTime calling_thread_cpu();
// Thread `tid` of process `pid` (not the caller): /proc/<pid>/task/<tid>/schedstat (ns, as of
// the thread's last context switch or tick) and .../stat (1/CLK_TCK). False if no such thread.
bool other_thread_cpu(pid_t pid, uint64_t tid, CpuTime *out);
// A whole process, dead threads included. Own: CLOCK_PROCESS_CPUTIME_ID + getrusage(RUSAGE_SELF).
// Other (zombies too): its process CPU clock (ns) + /proc/<pid>/stat's split. False if gone.
bool process_cpu(const ProcessInfo &p, CpuTime *out);

// The simulated mach_absolute_time in ns: CLOCK_BOOTTIME, the base of /proc start times.
uint64_t now_ns();

// gettid(): the simulator's unique thread id (macOS: pthread_threadid_np).
uint64_t current_tid();

}  // namespace rcsim

#endif
