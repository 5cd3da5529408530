// swift-tools-version:5.9
//
// A package that depends on libkpc the way a user's package does (a path dependency on the
// repository root, product `Kpc`), built and run by scripts/ci/swift-package.sh.
import Foundation
import PackageDescription

// The repository root, three levels up; SwiftPM names a path dependency after its
// directory, which is "libkpc" in a GitHub checkout but may be anything locally.
let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().appendingPathComponent("../../..").standardizedFileURL
let libkpc = root.lastPathComponent

let package = Package(
    name: "KpcConsumer",
    dependencies: [.package(path: root.path)],
    targets: [
        .executableTarget(
            name: "KpcConsumer",
            dependencies: [.product(name: "Kpc", package: libkpc)]
        ),
    ]
)
