// swift-tools-version: 6.0
import PackageDescription

// The benchmark of ObjectGraph (DESIGN.md §9): one executable, `bench`, that runs
// every contender on the same workload and prints one table. Kept out of the root
// package so that GRDB is never a dependency of ObjectGraph itself.
let package = Package(
    name: "ObjectGraphBenchmarks",
    dependencies: [
        .package(name: "ObjectGraph", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // The system SQLite (named apart from the root package's CSQLite and GRDB's GRDBSQLite).
        .systemLibrary(
            name: "BenchSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .executableTarget(
            name: "bench",
            dependencies: [
                "BenchSQLite",
                .product(name: "ObjectGraph", package: "ObjectGraph"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
    ]
)
