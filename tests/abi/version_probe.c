/* Prints the version as the headers and the loaded library see it, one key=value per
 * line, for check_version.py to compare with CMake's version and the library's SONAME. */
#include <stdio.h>

#include <kpc/kpc.h>

int main(void) {
    printf("header_major=%d\n", KP_VERSION_MAJOR);
    printf("header_minor=%d\n", KP_VERSION_MINOR);
    printf("header_patch=%d\n", KP_VERSION_PATCH);
    printf("header_string=%s\n", KP_VERSION_STRING);
    printf("header_number=%d\n", KP_VERSION_NUMBER);
    printf("header_soversion=%d\n", KP_SOVERSION);
    printf("runtime_number=%d\n", kp_version_number());
    printf("runtime_string=%s\n", kp_version_string());
    /* KP_VERSION_CHECK: true for this version and older, false for the next patch. */
    printf("check_current=%d\n",
           KP_VERSION_CHECK(KP_VERSION_MAJOR, KP_VERSION_MINOR, KP_VERSION_PATCH) ? 1 : 0);
    printf("check_next_patch=%d\n",
           KP_VERSION_CHECK(KP_VERSION_MAJOR, KP_VERSION_MINOR, KP_VERSION_PATCH + 1) ? 1 : 0);
    printf("check_zero=%d\n", KP_VERSION_CHECK(0, 0, 0) ? 1 : 0);
    return 0;
}
