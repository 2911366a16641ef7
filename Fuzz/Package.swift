// swift-tools-version: 6.0
import PackageDescription

// libFuzzer targets, one per parser of untrusted input (docs/testing.md). Kept out of the
// root package: they only link when built with `-sanitize=fuzzer`. Fuzz/run.sh builds
// them (with AddressSanitizer), makes their seed corpora and runs them:
//
//   Fuzz/run.sh <target> [seconds]     one target, e.g. Fuzz/run.sh sqlite-store 600
//   Fuzz/run.sh all [seconds]          every target in turn, `seconds` each
let package = Package(
    name: "ObjectGraphFuzz",
    dependencies: [.package(name: "ObjectGraph", path: "..")],
    targets: [
        .systemLibrary(name: "FuzzSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .target(
            name: "FuzzSupport",
            dependencies: ["FuzzSQLite", .product(name: "ObjectGraph", package: "ObjectGraph")]
        ),
        .executableTarget(name: "fuzz-predicate", dependencies: [.product(name: "ObjectGraph", package: "ObjectGraph")]),
        .executableTarget(name: "fuzz-xcode-model", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "fuzz-json-model", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "fuzz-compiled-model", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "fuzz-mapping-model", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "fuzz-plist", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "fuzz-binary-store", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "fuzz-xml-store", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "fuzz-store-metadata", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "fuzz-sqlite-store", dependencies: ["FuzzSupport", "FuzzSQLite"]),
        .executableTarget(name: "fuzz-model-cache", dependencies: ["FuzzSupport"]),
    ]
)
