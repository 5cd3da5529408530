/*
 * A short busy command with no dynamic loader: `busy_static N` runs N iterations of a loop
 * and exits. Statically linked so that almost all of its life is the loop, which makes a
 * too-late start of kpc's clock show (issue 17, section 4.1).
 */
#include <stdlib.h>

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    volatile long x = 0;
    for (long i = 0; i < n; ++i) x += i;
    return 0;
}
