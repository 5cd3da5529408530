// The commands the process tests count. Each does one known thing and exits 0:
//   pages N            fault N fresh pages
//   exit CODE          exit with CODE
//   signal SIG         kill itself with SIG
//   threads T MS       T threads (main thread waiting) each burn MS ms of their own CPU time
//   fork N             a child process faults N pages; this one waits for it
//   spin MS            burn MS ms of CPU time
//   sleep              wait until killed
//   ready-then M T N   fault M pages, start T threads, print "ready" and wait for SIGUSR1;
//                      then each thread faults N pages (for attaching while it runs)
#include <pthread.h>
#include <sys/prctl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "common/workload.hpp"

namespace {

double thread_cpu_ms() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

void burn_ms(double ms) {
    const double until = thread_cpu_ms() + ms;
    volatile unsigned long x = 0;
    while (thread_cpu_ms() < until)
        for (int i = 0; i < 10000; ++i) x = x + static_cast<unsigned long>(i);
}

int usage() {
    std::fprintf(stderr, "usage: process_workload pages N | exit CODE | signal SIG | threads T MS | "
                         "fork N | spin MS | sleep | ready-then M T N\n");
    return 2;
}

int ready_then(size_t before, int threads, size_t pages) {
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &usr1, nullptr);  // the threads inherit the mask
    if (!kpc_test::touch_fresh_pages(before)) return 3;
    int go[2];
    if (pipe(go) != 0) return 3;
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t)
        workers.emplace_back([&go, pages] {
            char c;
            if (read(go[0], &c, 1) == 1) kpc_test::touch_fresh_pages(pages);
        });
    std::printf("ready\n");
    std::fflush(stdout);
    int sig = 0;
    sigwait(&usr1, &sig);
    for (int t = 0; t < threads; ++t)
        if (write(go[1], "g", 1) != 1) return 3;
    for (std::thread &w : workers) w.join();
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc < 2) return usage();
    // A test that crashes must not leave its commands running: they would hold CTest's
    // output pipe open, and CTest would wait for them forever.
    const pid_t parent = getppid();
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) return 5;  // the parent died before the call
    const std::string mode = argv[1];
    auto arg = [&](int i) { return i < argc ? std::strtol(argv[i], nullptr, 10) : -1; };
    if (mode == "pages" && argc == 3) return arg(2) == 0 || kpc_test::touch_fresh_pages(arg(2)) ? 0 : 3;
    if (mode == "exit" && argc == 3) return static_cast<int>(arg(2));
    if (mode == "signal" && argc == 3) {
        signal(static_cast<int>(arg(2)), SIG_DFL);
        raise(static_cast<int>(arg(2)));
        return 4;
    }
    if (mode == "threads" && argc == 4) {
        std::vector<std::thread> workers;
        for (long t = 0; t < arg(2); ++t) workers.emplace_back([&] { burn_ms(arg(3)); });
        for (std::thread &w : workers) w.join();
        return 0;
    }
    if (mode == "fork" && argc == 3) {
        pid_t pid = fork();
        if (pid == 0) _exit(kpc_test::touch_fresh_pages(arg(2)) ? 0 : 3);
        int st = 0;
        if (pid < 0 || waitpid(pid, &st, 0) != pid) return 3;
        return WIFEXITED(st) ? WEXITSTATUS(st) : 3;
    }
    if (mode == "spin" && argc == 3) {
        burn_ms(arg(2));
        return 0;
    }
    if (mode == "sleep" && argc == 2) {
        for (;;) pause();
    }
    if (mode == "ready-then" && argc == 5)
        return ready_then(arg(2), static_cast<int>(arg(3)), arg(4));
    return usage();
}
