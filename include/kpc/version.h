/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/**
 * @file kpc/version.h
 * @brief Compile-time and run-time version of libkpc.
 * @defgroup kp_version Version
 *
 * This header is the single source of the version: CMake reads KP_VERSION_MAJOR/MINOR/PATCH
 * and KP_SOVERSION from it, and a test checks that the run-time functions agree.
 * @{
 */
#ifndef KPC_VERSION_H
#define KPC_VERSION_H

#include "export.h"

#define KP_VERSION_MAJOR 0
#define KP_VERSION_MINOR 1
#define KP_VERSION_PATCH 0
#define KP_VERSION_STRING "0.1.0"
/** MAJOR*10000 + MINOR*100 + PATCH. */
#define KP_VERSION_NUMBER (KP_VERSION_MAJOR * 10000 + KP_VERSION_MINOR * 100 + KP_VERSION_PATCH)
/** True when the headers are at least version maj.min.pat. */
#define KP_VERSION_CHECK(maj, min, pat) \
    (KP_VERSION_NUMBER >= ((maj) * 10000 + (min) * 100 + (pat)))
/** Shared-object version: changes only when the ABI breaks (see docs/api-stability.md). */
#define KP_SOVERSION 0

KP_BEGIN_DECL

/**
 * Version number of the library actually loaded, as KP_VERSION_NUMBER.
 * Compare with KP_VERSION_NUMBER to detect a header/library mismatch.
 * Thread-safe; never fails.
 */
KP_API int kp_version_number(void);

/**
 * Version string of the library loaded, e.g. "0.1.0".
 * @return a static string owned by the library; never NULL. Thread-safe.
 */
KP_API const char *kp_version_string(void);

KP_END_DECL

/** @} */
#endif /* KPC_VERSION_H */
