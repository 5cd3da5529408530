/* Strict C99 check of the umbrella header: includes only kpc/kpc.h and uses each type. */
#include <kpc/kpc.h>

#include <stdio.h>

int main(void) {
    kp_sampler_options_t opts;
    kp_sampler_t *sampler = NULL;
    kp_thread_t *thread = NULL;
    kp_process_t *process = NULL;
    kp_process_scope_t scope = KP_PROCESS_SCOPE_TREE;
    const kp_event_t *event = NULL;
    const char *names[1];
    uint64_t value = 0;
    uint8_t complete = 0;
    uint64_t enabled = 0, running = 0;
    int rc;

    names[0] = "task-clock";
    if (kp_sampler_options_init(&opts, KP_SAMPLER_OPTIONS_VERSION) != KP_OK) return 1;
    opts.backend = KP_BACKEND_AUTO;
    rc = kp_sampler_new(&sampler, &opts);
    if (rc != KP_OK) {
        fprintf(stderr, "kp_sampler_new: %s: %s\n", kp_strerror(rc), kp_error_last_message());
        return 1;
    }
    if (kp_sampler_event_find(&event, sampler, names[0]) != KP_OK) return 1;
    if (kp_event_kind(event) != KP_EVENT_SOFTWARE) return 1;
    if (kp_thread_new(&thread, sampler, names, 1) != KP_OK) return 1;
    if (kp_thread_start(thread) != KP_OK) return 1;
    if (kp_thread_sample_full(thread, &value, &complete, 1, &enabled, &running) != KP_OK) return 1;
    printf("libkpc %s (headers %s): task-clock %llu ns, complete %u\n", kp_version_string(),
           KP_VERSION_STRING, (unsigned long long)value, (unsigned)complete);
    kp_thread_free(thread);
    /* The calling process, counted whole (kpc/process.h). */
    if (kp_process_attach(&process, sampler, names, 1, 0) != KP_OK) return 1;
    if (kp_process_read_full(process, &value, &complete, 1, &enabled, &running) != KP_OK) return 1;
    if (kp_process_event_scope(process, 0) != (int)scope) return 1;
    kp_process_free(process);
    kp_sampler_free(sampler);
    return kp_version_number() == KP_VERSION_NUMBER ? 0 : 1;
}
