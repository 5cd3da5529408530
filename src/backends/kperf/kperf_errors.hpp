// Turning kpc errno values and kpep error codes into kpc::Error with the cause and the fix.
#pragma once

#include <string>

namespace kpc::kperf {

// Name of a kpep error code, e.g. "CONFLICTING_EVENTS"; "UNKNOWN" for other values.
const char *kpep_error_name(int code);

// Throws KP_EFRAMEWORK: "<call> failed: kpep error <code> (<NAME>: <meaning>)<context>".
[[noreturn]] void throw_kpep(const char *call, int code, const std::string &context = "");

// Status for errno `err` returned by a kpc_* call: EBUSY -> KP_EBUSY, EPERM/EACCES ->
// KP_EPERM, anything else -> KP_EKERNEL. Writes the full message to *message.
int kpc_status(const char *call, int err, std::string *message);

// Throws the error kpc_status() describes.
[[noreturn]] void throw_kpc(const char *call, int err);

// The sentence naming who else may own the counters, shared by every busy message.
extern const char *const kBusyCauses;

}  // namespace kpc::kperf
