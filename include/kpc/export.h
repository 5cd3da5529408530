/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/**
 * @file kpc/export.h
 * @brief Symbol visibility and C linkage macros.
 * @defgroup kp_export Export macros
 *
 * Written by hand rather than generated, so SwiftPM, SWIG and cgo can read it without
 * running CMake. The library is built with hidden visibility; only declarations marked
 * KP_API leave the shared object.
 * @{
 */
#ifndef KPC_EXPORT_H
#define KPC_EXPORT_H

#if defined(KP_STATIC)
#  define KP_API
#elif defined(_WIN32)
#  if defined(KP_BUILDING_LIBRARY)
#    define KP_API __declspec(dllexport)
#  else
#    define KP_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__) || defined(__clang__)
#  define KP_API __attribute__((visibility("default")))
#else
#  define KP_API
#endif

#ifdef __cplusplus
#  define KP_BEGIN_DECL extern "C" {
#  define KP_END_DECL }
#else
#  define KP_BEGIN_DECL
#  define KP_END_DECL
#endif

#if defined(__GNUC__) || defined(__clang__)
#  define KP_DEPRECATED(msg) __attribute__((deprecated(msg)))
#elif defined(_MSC_VER)
#  define KP_DEPRECATED(msg) __declspec(deprecated(msg))
#else
#  define KP_DEPRECATED(msg)
#endif

/** @} */
#endif /* KPC_EXPORT_H */
