/* Count a command and every thread and process it starts: ./count_process make -j8 */
#include <kpc/kpc.h>
#include <stdio.h>

int main(int argc, char **argv) {
    const char *events[] = {"task-clock", "page-faults"};  /* or "cycles", "instructions" */
    kp_sampler_t *s = NULL;
    kp_process_t *p = NULL;
    uint64_t totals[2];
    uint8_t complete[2];
    int code, sig;
    if (argc < 2) {
        fprintf(stderr, "usage: %s command [args...]\n", argv[0]);
        return 2;
    }
    if (kp_sampler_new(&s, NULL) != KP_OK ||
        kp_process_spawn(&p, s, events, 2, (const char *const *)(argv + 1)) != KP_OK) {
        fprintf(stderr, "%s\n", kp_error_last_message());  /* names the cause and the fix */
        kp_sampler_free(s);
        return 1;
    }
    if (kp_process_wait(p, &code, &sig) != KP_OK ||
        kp_process_read_full(p, totals, complete, 2, NULL, NULL) != KP_OK) {
        fprintf(stderr, "%s\n", kp_error_last_message());
        return 1;
    }
    printf("%s exited with %d (signal %d)\n", argv[1], code, sig);
    printf("task-clock %llu ns, page-faults %llu%s\n", (unsigned long long)totals[0],
           (unsigned long long)totals[1], complete[0] && complete[1] ? "" : " (multiplexed)");
    if (kp_process_event_scope(p, 0) == KP_PROCESS_SCOPE_SYSTEM)
        printf("(counted system-wide: includes everything else the machine ran)\n");
    kp_process_free(p);
    kp_sampler_free(s);
    return 0;
}
