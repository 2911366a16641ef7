// swift-tools-version: 6.0
import PackageDescription

// A libFuzzer target for the predicate parser (docs/predicates.md, "Fuzzing"). Kept out
// of the root package: it only links when built with `-sanitize=fuzzer`.
//
//   cd Fuzz && swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
//   .build/release/fuzz-predicate corpus/ -max_total_time=600
let package = Package(
    name: "ObjectGraphFuzz",
    dependencies: [.package(name: "ObjectGraph", path: "..")],
    targets: [
        .executableTarget(
            name: "fuzz-predicate",
            dependencies: [.product(name: "ObjectGraph", package: "ObjectGraph")]
        ),
    ]
)
