#if canImport(Glibc)
import Glibc
#endif

/// The runner's own connection to the postgres workload's server, for what it does outside
/// the contenders: describing the server, dropping the contenders' schemas, and checking
/// the rows of their last inserts. libpq (`libpq.so.5`) is loaded when the first client
/// connects rather than linked, so the benchmark builds, and its other workloads run,
/// without libpq or its headers.
final class PostgresClient {
    private typealias Conn = OpaquePointer
    private typealias Result = OpaquePointer

    private let connectdb: @convention(c) (UnsafePointer<CChar>?) -> Conn?
    private let status: @convention(c) (Conn?) -> Int32
    private let errorMessage: @convention(c) (Conn?) -> UnsafePointer<CChar>?
    private let finish: @convention(c) (Conn?) -> Void
    private let exec: @convention(c) (Conn?, UnsafePointer<CChar>?) -> Result?
    private let resultStatus: @convention(c) (Result?) -> Int32
    private let resultErrorMessage: @convention(c) (Result?) -> UnsafePointer<CChar>?
    private let ntuples: @convention(c) (Result?) -> Int32
    private let nfields: @convention(c) (Result?) -> Int32
    private let getvalue: @convention(c) (Result?, Int32, Int32) -> UnsafePointer<CChar>?
    private let getisnull: @convention(c) (Result?, Int32, Int32) -> Int32
    private let clear: @convention(c) (Result?) -> Void
    private let host: @convention(c) (Conn?) -> UnsafePointer<CChar>?
    private let port: @convention(c) (Conn?) -> UnsafePointer<CChar>?
    private let conn: Conn

    // libpq's CONNECTION_OK, PGRES_COMMAND_OK and PGRES_TUPLES_OK.
    private static let connectionOK: Int32 = 0
    private static let commandOK: Int32 = 1
    private static let tuplesOK: Int32 = 2

    /// Connects to `url` (a libpq connection string); errors never show its password.
    init(url: String) throws {
        guard let library = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL) else {
            throw BenchError("libpq (libpq.so.5) cannot be loaded: \(dlerror().map { String(cString: $0) } ?? "not found")")
        }
        func symbol<T>(_ name: String, _: T.Type) throws -> T {
            guard let p = dlsym(library, name) else { throw BenchError("libpq.so.5 has no \(name)") }
            return unsafeBitCast(p, to: T.self)
        }
        connectdb = try symbol("PQconnectdb", type(of: connectdb))
        status = try symbol("PQstatus", type(of: status))
        errorMessage = try symbol("PQerrorMessage", type(of: errorMessage))
        finish = try symbol("PQfinish", type(of: finish))
        exec = try symbol("PQexec", type(of: exec))
        resultStatus = try symbol("PQresultStatus", type(of: resultStatus))
        resultErrorMessage = try symbol("PQresultErrorMessage", type(of: resultErrorMessage))
        ntuples = try symbol("PQntuples", type(of: ntuples))
        nfields = try symbol("PQnfields", type(of: nfields))
        getvalue = try symbol("PQgetvalue", type(of: getvalue))
        getisnull = try symbol("PQgetisnull", type(of: getisnull))
        clear = try symbol("PQclear", type(of: clear))
        host = try symbol("PQhost", type(of: host))
        port = try symbol("PQport", type(of: port))
        guard let made = connectdb(url) else { throw BenchError("PostgreSQL: out of memory") }
        guard status(made) == Self.connectionOK else {
            let why = Self.oneLine(errorMessage(made))
            finish(made)
            throw BenchError("cannot connect to the PostgreSQL server: \(why)")
        }
        conn = made
        // DROP SCHEMA IF EXISTS of a missing schema is a notice, not worth printing.
        try execute("SET client_min_messages = warning")
    }

    deinit { finish(conn) }

    /// "host:port" of the server.
    var address: String {
        let h = host(conn).map { String(cString: $0) } ?? ""
        let p = port(conn).map { String(cString: $0) } ?? ""
        return p.isEmpty ? h : "\(h):\(p)"
    }

    /// Runs statements that return no rows.
    func execute(_ sql: String) throws {
        _ = try rows(sql)
    }

    /// The rows of `sql` as text (nil for NULL).
    func rows(_ sql: String) throws -> [[String?]] {
        let result = exec(conn, sql)
        defer { clear(result) }
        let state = result.map { resultStatus($0) } ?? -1
        guard state == Self.commandOK || state == Self.tuplesOK else {
            throw BenchError("PostgreSQL: \(sql.prefix(120)): \(Self.oneLine(result.flatMap { resultErrorMessage($0) } ?? errorMessage(conn)))")
        }
        let (count, fields) = (ntuples(result), nfields(result))
        return (0..<count).map { r in
            (0..<fields).map { c in getisnull(result, r, c) != 0 ? nil : getvalue(result, r, c).map { String(cString: $0) } }
        }
    }

    /// The first column of the first row of `sql`.
    func value(_ sql: String) throws -> String {
        guard let value = try rows(sql).first?.first ?? nil else { throw BenchError("PostgreSQL: \(sql.prefix(120)): no value") }
        return value
    }

    /// A name in double quotes, as PostgreSQL takes upper-case and other exact names.
    static func quoted(_ name: String) -> String { "\"" + name.replacing("\"", with: "\"\"") + "\"" }

    /// Text in single quotes.
    static func literal(_ text: String) -> String { "'" + text.replacing("'", with: "''") + "'" }

    private static func oneLine(_ text: UnsafePointer<CChar>?) -> String {
        guard let text else { return "unknown error" }
        return String(cString: text).split(separator: "\n").joined(separator: "; ")
    }
}
