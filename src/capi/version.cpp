#include "kpc/version.h"

extern "C" {

int kp_version_number(void) { return KP_VERSION_NUMBER; }
const char *kp_version_string(void) { return KP_VERSION_STRING; }

}
