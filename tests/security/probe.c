/* What libkpc decides in this process, printed for setuid_test.py: the real and effective
 * user ids, then kp_sampler_new's result.
 *
 * Usage: security_probe env|kperf [KPERF_PATH KPERFDATA_PATH]
 *   env    backend and framework paths left to the environment (KPC_*);
 *   kperf  the kperf backend chosen in code; paths from the arguments when given, else from
 *          the environment.
 * Output: "uid=U euid=E", then "new=0 backend=NAME" or "new=CODE MESSAGE".
 * libkpc's objects are linked in: glibc ignores LD_LIBRARY_PATH and $ORIGIN in setuid
 * programs, so a setuid copy could not find libkpc.so. */
#include <kpc/kpc.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if ((argc != 2 && argc != 4) || (strcmp(argv[1], "env") && strcmp(argv[1], "kperf"))) {
        fprintf(stderr, "usage: %s env|kperf [KPERF_PATH KPERFDATA_PATH]\n", argv[0]);
        return 2;
    }
    kp_sampler_options_t opts;
    kp_sampler_options_init(&opts, KP_SAMPLER_OPTIONS_VERSION);
    if (!strcmp(argv[1], "kperf")) opts.backend = KP_BACKEND_KPERF;
    if (argc == 4) {
        opts.kperf_path = argv[2];
        opts.kperfdata_path = argv[3];
    }
    printf("uid=%d euid=%d\n", (int)getuid(), (int)geteuid());
    kp_sampler_t *s;
    int rc = kp_sampler_new(&s, &opts);
    if (rc != KP_OK)
        printf("new=%d %s\n", rc, kp_error_last_message());
    else
        printf("new=0 backend=%s\n", kp_sampler_backend_name(s));
    kp_sampler_free(s);
    return 0;
}
