// swift-tools-version: 6.0
import PackageDescription

// One engine (`ObjectGraph`, for Swift users) and its C façade (`ObjectGraphC`),
// linked together into the shared library `libobjectgraph.so` (product `objectgraph`).
// The SONAME is given on the `swift build` command line by CMakeLists.txt, so that this
// manifest stays free of unsafe flags and other packages can depend on it.
let package = Package(
    name: "ObjectGraph",
    products: [
        .library(name: "ObjectGraph", targets: ["ObjectGraph"]),
        .library(name: "objectgraph", type: .dynamic, targets: ["ObjectGraph", "ObjectGraphC"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // zlib for the tests alone (the DEFLATE decoder checked against it); the library
        // does not link it.
        .systemLibrary(
            name: "CZlib",
            path: "Tests/CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .target(name: "ObjectGraph", dependencies: ["CSQLite"]),
        .target(name: "ObjectGraphC", dependencies: ["ObjectGraph"]),
        .testTarget(name: "ObjectGraphTests", dependencies: ["ObjectGraph", "CSQLite", "CZlib"]),
    ]
)
