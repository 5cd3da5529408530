/* The commands the emulated-PMU process tests count. Static, so that what runs besides
 * the loops is the same every run; a test subtracts a run with 0 iterations, and what is
 * left is 2 instructions per iteration of every thread and child counted.
 *
 *   pmu_workload [--gate] loop N          one thread, N iterations
 *   pmu_workload [--gate] threads T N     T more threads, N iterations each
 *   pmu_workload [--gate] forkexec K N    K children, each exec'ing "loop N"
 *
 * --gate: once its threads exist, print "ready\n" on stdout, then wait for one byte on
 * stdin per thread (threads) or one byte (otherwise) before looping, so that a test can
 * attach to a process whose threads all exist and whose work has not begun. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int gate;
static uint64_t iterations;

/* 2 instructions per iteration; nothing for n == 0 (subs would wrap). */
static void exact_loop(uint64_t n) {
    if (n == 0) return;
    __asm__ volatile("mov x0, %0\n"
                     "1: subs x0, x0, #1\n"
                     "b.ne 1b\n"
                     :
                     : "r"(n)
                     : "x0", "cc");
}

static void wait_gate(void) {
    char c;
    if (gate && read(0, &c, 1) != 1) _exit(90);
}

static void *thread_main(void *unused) {
    (void)unused;
    wait_gate();
    exact_loop(iterations);
    return NULL;
}

static void ready(void) {
    if (gate && write(1, "ready\n", 6) != 6) _exit(91);
}

int main(int argc, char **argv) {
    int a = 1;
    if (a < argc && strcmp(argv[a], "--gate") == 0) gate = 1, ++a;
    if (argc - a < 2) return 2;
    const char *mode = argv[a];
    if (strcmp(mode, "loop") == 0) {
        iterations = strtoull(argv[a + 1], NULL, 10);
        ready();
        wait_gate();
        exact_loop(iterations);
        return 0;
    }
    if (argc - a < 3) return 2;
    long k = strtol(argv[a + 1], NULL, 10);
    iterations = strtoull(argv[a + 2], NULL, 10);
    if (k < 1 || k > 64) return 2;
    if (strcmp(mode, "threads") == 0) {
        pthread_t t[64];
        for (long i = 0; i < k; ++i)
            if (pthread_create(&t[i], NULL, thread_main, NULL) != 0) return 92;
        ready();
        for (long i = 0; i < k; ++i) pthread_join(t[i], NULL);
        return 0;
    }
    if (strcmp(mode, "forkexec") == 0) {
        ready();
        wait_gate();
        char n[32];
        snprintf(n, sizeof n, "%llu", (unsigned long long)iterations);
        for (long i = 0; i < k; ++i) {
            pid_t pid = fork();
            if (pid < 0) return 93;
            if (pid == 0) {
                execl("/proc/self/exe", argv[0], "loop", n, (char *)NULL);
                _exit(94);
            }
        }
        int status, failed = 0;
        while (wait(&status) > 0) failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
        return failed ? 95 : 0;
    }
    return 2;
}
