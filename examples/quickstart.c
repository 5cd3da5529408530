/*
 * libkpc quick start: count events on this thread around a piece of work.
 *
 * Build against an installed libkpc:
 *     cc -std=c99 quickstart.c $(pkg-config --cflags --libs kpc) -o quickstart
 *
 * Software events (task-clock, page-faults) work on every Linux machine; cycles and
 * instructions need a hardware PMU (not present in most virtual machines) and, on macOS,
 * root. When they cannot be counted the program says why and counts the rest.
 */
#include <kpc/kpc.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORK_PAGES 256
#define PAGE_BYTES 4096

/* The measured work: touch fresh pages (page faults) and do some arithmetic (time). */
static uint64_t workload(void) {
    unsigned char *buf = malloc((size_t)WORK_PAGES * PAGE_BYTES);
    uint64_t acc = 0;
    size_t i;
    if (!buf) return 0;
    for (i = 0; i < (size_t)WORK_PAGES * PAGE_BYTES; i += PAGE_BYTES) buf[i] = (unsigned char)i;
    for (i = 0; i < 20u * 1000u * 1000u; ++i) acc = acc * 6364136223846793005u + i;
    acc += buf[PAGE_BYTES];
    free(buf);
    return acc;
}

/* True when `name` can be counted here; otherwise prints why not. */
static int can_count(kp_sampler_t *s, const char *name) {
    const kp_event_t *e;
    if (kp_sampler_event_find(&e, s, name) != KP_OK) {
        printf("%-14s not counted: %s\n", name, kp_error_last_message());
        return 0;
    }
    if (!kp_event_is_available(e)) {
        printf("%-14s not counted: %s\n", name, kp_event_unavailable_reason(e));
        return 0;
    }
    return 1;
}

int main(void) {
    static const char *const wanted[] = {"cycles", "instructions", "task-clock", "page-faults"};
    const char *names[4];
    size_t n = 0, i;
    uint64_t before[4], after[4], sink;
    kp_sampler_t *sampler = NULL;
    kp_thread_t *thread = NULL;
    int rc;

    if (kp_version_number() != KP_VERSION_NUMBER)
        fprintf(stderr, "warning: built with libkpc %s headers, running with %s\n",
                KP_VERSION_STRING, kp_version_string());

    /* NULL options: the backend comes from KPC_BACKEND or the platform default. */
    if (kp_sampler_new(&sampler, NULL) != KP_OK) {
        fprintf(stderr, "kp_sampler_new: %s\n", kp_error_last_message());
        return 1;
    }
    printf("libkpc %s, backend %s, CPU %s\n", kp_version_string(),
           kp_sampler_backend_name(sampler), kp_sampler_cpu_name(sampler));

    for (i = 0; i < sizeof wanted / sizeof wanted[0]; ++i)
        if (can_count(sampler, wanted[i])) names[n++] = wanted[i];

    rc = kp_thread_new(&thread, sampler, names, n);
    if (rc != KP_OK && n > 2) {
        /* Listed as available but refused when opened (e.g. counters busy or no
           permission): report it, then count the software events alone. */
        printf("hardware events not counted: %s\n", kp_error_last_message());
        names[0] = "task-clock";
        names[1] = "page-faults";
        n = 2;
        rc = kp_thread_new(&thread, sampler, names, n);
    }
    if (rc != KP_OK) {
        fprintf(stderr, "kp_thread_new: %s (%s)\n", kp_error_last_message(), kp_strerror(rc));
        kp_sampler_free(sampler);
        return 1;
    }

    if (kp_thread_start(thread) != KP_OK || kp_thread_sample(thread, before, n) != KP_OK) {
        fprintf(stderr, "start/sample: %s\n", kp_error_last_message());
        kp_thread_free(thread);
        kp_sampler_free(sampler);
        return 1;
    }
    sink = workload();
    if (kp_thread_sample(thread, after, n) != KP_OK) {
        fprintf(stderr, "kp_thread_sample: %s\n", kp_error_last_message());
        kp_thread_free(thread);
        kp_sampler_free(sampler);
        return 1;
    }

    for (i = 0; i < n; ++i)
        printf("%-14s %20llu%s\n", names[i], (unsigned long long)(after[i] - before[i]),
               strcmp(names[i], "task-clock") == 0 ? " ns" : "");
    printf("(workload result %llu)\n", (unsigned long long)(sink & 0xffu));

    /* Any order is fine: the thread handle keeps the sampler's session alive. */
    kp_sampler_free(sampler);
    kp_thread_free(thread);
    return 0;
}
