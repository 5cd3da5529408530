/*
 * Deterministic workloads for the kpc CLI tests. Each mode prints what it measured about
 * itself as key=value lines on stdout, so tests derive their bounds from the child's own
 * report instead of from wall-clock time.
 *
 *   workload spin MS         burn MS ms of CPU time; prints cpu_ns (process CPU time)
 *   workload threads T MS    T threads each burn MS ms of their own CPU time; prints
 *                            thread_cpu_ns per thread and cpu_ns
 *   workload touch N         write one byte to each of N fresh pages; prints pages, page_size
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static int64_t clock_ns(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Busy work until this thread has used `ms` ms of CPU; returns the thread CPU time used. */
static int64_t spin_thread_cpu(long ms) {
    int64_t start = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    volatile uint64_t x = 0;
    while (clock_ns(CLOCK_THREAD_CPUTIME_ID) - start < (int64_t)ms * 1000000)
        for (int i = 0; i < 10000; ++i) x += (uint64_t)i * 2654435761u;
    return clock_ns(CLOCK_THREAD_CPUTIME_ID) - start;
}

struct spinner {
    pthread_t thread;
    long ms;
    int64_t used_ns;
};

static void *spinner_main(void *arg) {
    struct spinner *s = arg;
    s->used_ns = spin_thread_cpu(s->ms);
    return NULL;
}

static int run_threads(int n, long ms) {
    struct spinner *s = calloc((size_t)n, sizeof *s);
    if (!s) return 1;
    for (int i = 0; i < n; ++i) {
        s[i].ms = ms;
        if (pthread_create(&s[i].thread, NULL, spinner_main, &s[i]) != 0) return 1;
    }
    for (int i = 0; i < n; ++i) pthread_join(s[i].thread, NULL);
    for (int i = 0; i < n; ++i) printf("thread_cpu_ns=%lld\n", (long long)s[i].used_ns);
    printf("cpu_ns=%lld\n", (long long)clock_ns(CLOCK_PROCESS_CPUTIME_ID));
    free(s);
    return 0;
}

static int run_touch(long pages) {
    long page = sysconf(_SC_PAGESIZE);
    size_t len = (size_t)pages * (size_t)page;
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return 1;
    /* One fault per page: keep transparent huge pages from serving 512 pages at once. */
    madvise(p, len, MADV_NOHUGEPAGE);
    for (long i = 0; i < pages; ++i) p[(size_t)i * (size_t)page] = 1;
    printf("pages=%ld\npage_size=%ld\n", pages, page);
    munmap(p, len);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && !strcmp(argv[1], "spin")) {
        spin_thread_cpu(atol(argv[2]));
        printf("cpu_ns=%lld\n", (long long)clock_ns(CLOCK_PROCESS_CPUTIME_ID));
        return 0;
    }
    if (argc == 4 && !strcmp(argv[1], "threads")) return run_threads(atoi(argv[2]), atol(argv[3]));
    if (argc == 3 && !strcmp(argv[1], "touch")) return run_touch(atol(argv[2]));
    fprintf(stderr, "usage: workload spin MS | threads T MS | touch N\n");
    return 2;
}
