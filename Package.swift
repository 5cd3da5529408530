// swift-tools-version:5.9
// SPDX-License-Identifier: MIT OR Apache-2.0
// (PackageDescription has no licence field; the LICENSE files at the root are the terms.)
//
// Swift package of libkpc: product `Kpc` (bindings/swift/Sources/Kpc), a Swift API over the
// C API, built on target `CKpc`, which compiles libkpc itself from src/ so that a package can
// depend on this repository with nothing installed first (option (b) of the conventions'
// §15). See bindings/swift/README.md.
//
// Kept in sync with src/CMakeLists.txt and src/backends/*/sources.cmake (CTest
// ci.swift_package_sources fails when the compiled files differ):
//   - the directories compiled: src/core, src/capi, src/backends/kperf, src/backends/recount,
//     and on Linux only src/backends/perf_event (SwiftPM compiles every .cpp in them; CMake
//     lists each file);
//   - the defines: KPC_HAVE_PERF_EVENT on Linux (never KPC_HAVE_LIBPFM: libpfm4 stays off);
//   - the include directories src/ and include/, C++17, and dl/pthread on Linux.
import PackageDescription

#if os(Linux)
let backendDirectories = ["src/backends/kperf", "src/backends/recount", "src/backends/perf_event"]
#else
// perf_event_open exists only on Linux.
let backendDirectories = ["src/backends/kperf", "src/backends/recount"]
#endif

let package = Package(
    name: "kpc",
    products: [
        .library(name: "Kpc", targets: ["Kpc"]),
    ],
    targets: [
        // The C/C++ library. Its path is the repository root because its sources (src/) and
        // public headers (include/kpc/) are siblings; `sources` limits it to src/'s library
        // directories. The module map in bindings/swift/CKpc/include exports only the
        // umbrella kpc/kpc.h (not kpc/kperf_raw.h), so include/ keeps include/kpc/ as its
        // only entry.
        .target(
            name: "CKpc",
            path: ".",
            exclude: [
                "src/backends/kperf/sources.cmake",
                "src/backends/recount/sources.cmake",
                "src/backends/perf_event/sources.cmake",
            ],
            sources: ["src/core", "src/capi"] + backendDirectories,
            publicHeadersPath: "bindings/swift/CKpc/include",
            cxxSettings: [
                .headerSearchPath("src"),      // internal includes: "core/error.hpp", ...
                .headerSearchPath("include"),  // "kpc/errors.h", ...
                .define("KP_BUILDING_LIBRARY"),
                .define("KPC_HAVE_PERF_EVENT", .when(platforms: [.linux])),
            ],
            linkerSettings: [
                .linkedLibrary("dl", .when(platforms: [.linux])),
                .linkedLibrary("pthread", .when(platforms: [.linux])),
            ]
        ),
        .target(
            name: "Kpc",
            dependencies: ["CKpc"],
            path: "bindings/swift/Sources/Kpc"
        ),
        // bindings/swift/README.md's example, built and run by CTest (swift_example); not a
        // product, so packages that depend on this one never build it.
        .executableTarget(
            name: "KpcQuickstart",
            dependencies: ["Kpc"],
            path: "bindings/swift/Examples/Quickstart"
        ),
        // bindings/swift/README.md's benchmark-shaped example: page faults per operation
        // (CTest swift_touch_pages checks them).
        .executableTarget(
            name: "KpcTouchPages",
            dependencies: ["Kpc"],
            path: "bindings/swift/Examples/TouchPages"
        ),
        // bench/swift_sample_cost: what a sample costs from Swift next to the C sample
        // (docs/performance.md; CTest swift_sample_cost runs a short pass). Its C++ file is
        // built by CMake as an LD_PRELOAD library, not by SwiftPM.
        .executableTarget(
            name: "KpcSampleCost",
            dependencies: ["Kpc", "CKpc"],
            path: "bench/swift_sample_cost",
            exclude: ["CMakeLists.txt", "alloc_preload.cpp"]
        ),
        .testTarget(
            name: "KpcTests",
            dependencies: ["Kpc"],
            path: "bindings/swift/Tests/KpcTests"
        ),
    ],
    cxxLanguageStandard: .cxx17
)
