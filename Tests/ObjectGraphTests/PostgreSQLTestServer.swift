import Foundation
@testable import ObjectGraph
import XCTest

/// The PostgreSQL server the test command starts (scripts/lib/postgres.sh): its URL is in
/// OBJECTGRAPH_TEST_POSTGRES_URL. Each test gets a database of its own, dropped afterwards,
/// so tests that kill connections or fill tables never meet another test's.
enum PostgreSQLTestServer {
    static var url: String? {
        ProcessInfo.processInfo.environment["OBJECTGRAPH_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The server's URL, or a skip when no server was started.
    static func requireURL() throws -> String {
        guard let url else { throw XCTSkip("no PostgreSQL test server (OBJECTGRAPH_TEST_POSTGRES_URL is unset; scripts/test.sh starts one)") }
        return url
    }

    /// A connection to the server's own database, for setting up and inspecting.
    static func admin(_ url: String? = nil) throws -> PostgreSQLConnection {
        try PostgreSQLConnection(PostgreSQLAddress(url ?? requireURL(), schema: nil), lockTimeout: 10)
    }

    /// A new empty database: its URL.
    static func freshDatabase() throws -> String {
        let base = try requireURL()
        let name = "og_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(20)
        let db = try admin()
        defer { db.close() }
        try db.execute("CREATE DATABASE \(name)")
        return database(name, of: base)
    }

    /// `url` with its database replaced by `name`.
    static func database(_ name: String, of url: String) -> String {
        guard let slash = url.range(of: "/", options: .backwards) else { return url }
        return String(url[..<slash.upperBound]) + name
    }

    static func drop(_ url: String) {
        guard let name = url.split(separator: "/").last, let db = try? admin() else { return }
        defer { db.close() }
        try? db.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }

    /// Ends every other session on the database of `url`, as a server restart would.
    static func killSessions(of url: String) throws {
        guard let name = url.split(separator: "/").last else { return }
        let db = try admin()
        defer { db.close() }
        try db.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(name)' AND pid <> pg_backend_pid()")
    }

    /// Runs `sql` on the database of `url` and returns its rows as text ("NULL" for null).
    static func rows(_ url: String, _ sql: String, schema: String? = nil) throws -> [[String]] {
        let db = try PostgreSQLConnection(PostgreSQLAddress(url, schema: schema), lockTimeout: 10)
        defer { db.close() }
        let r = try db.query(sql)
        return (0..<r.count).map { row in (0..<r.columnCount).map { r.isNull(row, $0) ? "NULL" : r.text(row, $0) } }
    }
}
