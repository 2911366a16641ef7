#if canImport(Glibc)
import Glibc
#endif

/// One connection to a PostgreSQL server through libpq, with the store's schema as its
/// search path and a cache of prepared statements keyed by SQL text and parameter types,
/// so each statement is parsed and planned once per connection.
///
/// A connection the server closed (a restart, a killed backend, a network failure) is
/// noticed when a call fails; that call fails, and the next call connects again. Errors
/// name the host and the database, never the password. Not thread-safe: its store
/// serialises use, as the SQLite store does its connection.
final class PostgreSQLConnection {
    let lib: LibPQ
    let address: PostgreSQLAddress
    private var handle: OpaquePointer?
    private var prepared: [PreparedKey: (name: String, count: Int32, text: String)] = [:]
    private var nameCount = 0
    /// Counts connections made: statements prepared on an earlier one are prepared again.
    private(set) var generation = 0
    /// Milliseconds a statement waits for another transaction's row lock before 134090.
    private let lockTimeoutMilliseconds: Int
    /// "database 'x' on host:port", for messages; set once connected.
    private(set) var location: String

    private struct PreparedKey: Hashable {
        let sql: String
        let types: [UInt32]
    }

    init(_ address: PostgreSQLAddress, lockTimeout: Double) throws(ObjectGraphError) {
        lib = try LibPQ.shared()
        self.address = address
        lockTimeoutMilliseconds = lockTimeout <= 0 ? 1 : Int(min(lockTimeout, 2_000_000) * 1000)
        location = "the PostgreSQL server of '\(address.redacted)'"
        try connect()
    }

    deinit { close() }

    func close() {
        if let handle { lib.finish(handle) }
        handle = nil
        prepared.removeAll()
    }

    var isConnected: Bool { handle != nil && lib.status(handle) == LibPQ.connectionOK }

    /// The libpq connection (for the commit watch's socket); nil when closed.
    var rawHandle: OpaquePointer? { handle }

    /// Connects (again): 134080 naming where, with libpq's reason.
    private func connect() throws(ObjectGraphError) {
        close()
        // Later keywords override earlier ones, and the expanded connection string
        // overrides those before it: the string's own connect_timeout wins, the encoding
        // is always UTF-8.
        let keywords = ["connect_timeout", "application_name", "dbname", "client_encoding"]
        let values = ["10", "objectgraph", address.connection, "UTF8"]
        let conn = withCStrings(keywords) { k in withCStrings(values) { v in lib.connectdbParams(k, v, 1) } }
        guard let conn else { throw ObjectGraphError(code: ErrorCode.storeOpen, message: "cannot connect to \(location): out of memory") }
        location = Self.describe(lib, conn, fallback: address.redacted)
        guard lib.status(conn) == LibPQ.connectionOK else {
            let why = Self.firstLines(lib.errorMessage(conn))
            lib.finish(conn)
            throw ObjectGraphError(
                code: ErrorCode.storeOpen, message: "cannot connect to \(location): \(why)",
                userInfo: [(ErrorUserInfoKey.filePath, address.redacted)])
        }
        // Notices (a schema that exists already, …) are not printed on the host's stderr.
        _ = lib.setNoticeProcessor(conn, { _, _ in }, nil)
        handle = conn
        generation += 1
        let schema = "\"" + address.schema + "\""
        do throws(ObjectGraphError) {
            try execute(
                "SET search_path TO \(schema); SET extra_float_digits = 3; SET bytea_output = 'hex'; SET lock_timeout = \(lockTimeoutMilliseconds); SET standard_conforming_strings = on"
            )
        } catch {
            close()
            throw ObjectGraphError(code: ErrorCode.storeOpen, message: "cannot set up the connection to \(location): \(error.message)", details: [error])
        }
    }

    /// "database 'x' on host:port" (a socket directory for a local connection).
    private static func describe(_ lib: LibPQ, _ conn: OpaquePointer, fallback: String) -> String {
        guard let db = lib.db(conn).map({ String(cString: $0) }), !db.isEmpty else { return "the PostgreSQL server of '\(fallback)'" }
        let host = lib.host(conn).map { String(cString: $0) } ?? ""
        let port = lib.port(conn).map { String(cString: $0) } ?? ""
        return "the PostgreSQL database '\(db)' on \(host.isEmpty ? "the local socket" : host)\(port.isEmpty ? "" : ":" + port)"
    }

    /// libpq's message without its trailing newline, its lines joined.
    static func firstLines(_ text: UnsafePointer<CChar>?) -> String {
        guard let text else { return "unknown error" }
        return String(cString: text).split(separator: "\n").map { $0.trimmingPrefix(" ") }.joined(separator: "; ")
    }

    /// The live connection, connecting again when the last one was lost.
    private func live() throws(ObjectGraphError) -> OpaquePointer {
        if let handle, lib.status(handle) == LibPQ.connectionOK { return handle }
        try connect()
        return handle!
    }

    /// Whether a transaction is open on the connection (a save in progress).
    var inTransaction: Bool { handle.map { lib.transactionStatus($0) != LibPQ.transactionIdle } ?? false }

    // MARK: Running statements

    /// Runs statements that take no parameters (several, separated by semicolons).
    func execute(_ sql: String) throws(ObjectGraphError) {
        let conn = try live()
        let result = lib.exec(conn, sql)
        defer { lib.clear(result) }
        try check(result, sql)
    }

    /// Ends the transaction with COMMIT, checked. The server answers the COMMIT of a
    /// transaction it aborted (after a failure no statement reported) with ROLLBACK and a
    /// success status: that is an error here, so that nothing rolled back passes as written.
    func commit() throws(ObjectGraphError) {
        let conn = try live()
        let result = lib.exec(conn, "COMMIT")
        defer { lib.clear(result) }
        try check(result, "COMMIT")
        let tag = lib.cmdStatus(result).map { String(cString: $0) } ?? ""
        guard tag == "COMMIT" else {
            throw ObjectGraphError(code: ErrorCode.storeSave,
                                   message: "\(location): the server rolled the transaction back at COMMIT (it answered '\(tag)'): nothing was written")
        }
    }

    /// Runs one statement written in SQLite's spelling (`PostgreSQLStatementText`) with
    /// `parameters`, prepared once per connection: its rows.
    /// `binary`: the rows come in PostgreSQL's binary format (numbers as 8 bytes, bytea as
    /// its bytes): what fetches of entity rows ask for, since nothing is printed or parsed.
    @discardableResult
    func query(_ sql: String, _ parameters: [PostgreSQLParameter] = [], binary: Bool = false) throws(ObjectGraphError) -> PostgreSQLRows {
        let conn = try live()
        let key = PreparedKey(sql: sql, types: parameters.map(\.type))
        let statement: (name: String, count: Int32, text: String)
        if let known = prepared[key] {
            statement = known
        } else {
            let text = PostgreSQLStatementText.adapt(sql)
            statement = (try prepare(conn, text, types: key.types), Int32(parameters.count), text)
            prepared[key] = statement
        }
        return try execute(conn, statement, parameters[...], binary: binary, sql: sql)
    }

    /// Runs `statement` (its types fixed when it was made) with `parameters`: for a
    /// statement run many times with many parameters, which skips looking it up by its
    /// text and types.
    @discardableResult
    func query(_ statement: PostgreSQLPreparedStatement, _ parameters: ArraySlice<PostgreSQLParameter>) throws(ObjectGraphError) -> PostgreSQLRows {
        let conn = try live()
        if statement.generation != generation {
            statement.name = try prepare(conn, statement.text, types: statement.types)
            statement.generation = generation
        }
        return try execute(conn, (statement.name, Int32(statement.types.count), statement.text), parameters, binary: false, sql: statement.text)
    }

    /// Runs `COPY … FROM STDIN` (`sql`, in PostgreSQL's spelling) with `data`, rows in
    /// COPY's text format, as its input: the server loads many rows this way several
    /// times faster than it runs INSERTs of the same rows. All or nothing, as a statement.
    func copyIn(_ sql: String, _ data: [UInt8]) throws(ObjectGraphError) {
        let conn = try live()
        let level = SQLDebug.level
        if level > 0 { logStatement(sql, [], level: level) }
        let start = level >= 3 ? ContinuousClock.now : nil
        let begin = lib.exec(conn, sql)
        guard let begin, lib.resultStatus(begin) == LibPQ.copyIn else {
            defer { lib.clear(begin) }
            try check(begin, sql)
            throw ObjectGraphError(code: ErrorCode.storeOperation, message: "\(location): the server did not start '\(sql)'")
        }
        lib.clear(begin)
        var sent = true
        data.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                var offset = 0
                while offset < chars.count, sent {
                    let n = min(1 << 20, chars.count - offset)
                    sent = lib.putCopyData(conn, chars.baseAddress! + offset, Int32(n)) == 1
                    offset += n
                }
            }
        }
        _ = lib.putCopyEnd(conn, sent ? nil : "the client could not send every row")
        // The COPY's outcome, then nothing: the first failure is the statement's error.
        var failure: OpaquePointer? = nil
        while let result = lib.getResult(conn) {
            if failure == nil, lib.resultStatus(result) != LibPQ.commandOK { failure = result } else { lib.clear(result) }
        }
        if let failure {
            defer { lib.clear(failure) }
            try check(failure, sql)
        }
        if !sent { try check(nil, sql) }
        if let start { logTime(sql, since: start, rows: 0) }
    }

    /// Prepares `text` under a new name: the name.
    private func prepare(_ conn: OpaquePointer, _ text: String, types: [UInt32]) throws(ObjectGraphError) -> String {
        nameCount += 1
        let name = "og\(nameCount)"
        let result = types.withUnsafeBufferPointer { types in lib.prepare(conn, name, text, Int32(types.count), types.baseAddress) }
        defer { lib.clear(result) }
        try check(result, text)
        return name
    }

    private func execute(_ conn: OpaquePointer, _ statement: (name: String, count: Int32, text: String), _ parameters: ArraySlice<PostgreSQLParameter>,
                         binary: Bool, sql: String) throws(ObjectGraphError) -> PostgreSQLRows {
        let level = SQLDebug.level
        if level > 0 { logStatement(statement.text, Array(parameters), level: level) }
        let start = level >= 3 ? ContinuousClock.now : nil
        let result = withParameters(parameters) { values, lengths, formats in
            lib.execPrepared(conn, statement.name, statement.count, values, lengths, formats, binary ? 1 : 0)
        }
        do throws(ObjectGraphError) { try check(result, sql) } catch {
            lib.clear(result)
            throw error
        }
        let rows = PostgreSQLRows(lib, result!, binary: binary)
        if let start { logTime(statement.text, since: start, rows: rows.count) }
        return rows
    }

    /// Nil, a failed status, or a lost connection become an error naming where.
    private func check(_ result: OpaquePointer?, _ sql: String) throws(ObjectGraphError) {
        let status = result.map { lib.resultStatus($0) } ?? -1
        if status == LibPQ.commandOK || status == LibPQ.tuplesOK { return }
        let state = result.flatMap { lib.resultErrorField($0, LibPQ.diagnosticSQLState) }.map { String(cString: $0) } ?? ""
        let message = Self.firstLines(result.flatMap { lib.resultErrorMessage($0) } ?? handle.flatMap { lib.errorMessage($0) })
        let lost = handle.map { lib.status($0) != LibPQ.connectionOK } ?? true
        if lost { prepared.removeAll() }
        throw PostgreSQLFailure.error(state: state, message: message, connectionLost: lost, location: location)
    }

    // MARK: C strings

    private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        var pointers: [UnsafePointer<CChar>?] = strings.map { UnsafePointer(strdup($0)) }
        pointers.append(nil)
        defer { for p in pointers { free(UnsafeMutablePointer(mutating: p)) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    /// Calls `body` with libpq's parameter arrays (values, lengths, formats), every value
    /// written into one buffer: text NUL-terminated, binary as 8 big-endian bytes. Lengths
    /// and formats are nil when every parameter is text.
    private func withParameters<R>(_ parameters: ArraySlice<PostgreSQLParameter>,
                                   _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> R) -> R {
        if parameters.isEmpty { return body(nil, nil, nil) }
        var size = 0, anyBinary = false
        for p in parameters {
            if p.binary != nil { size += 8; anyBinary = true } else if let t = p.text { size += t.utf8.count + 1 }
        }
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: max(size, 1))
        defer { buffer.deallocate() }
        var values = [UnsafePointer<CChar>?](repeating: nil, count: parameters.count)
        var lengths = anyBinary ? [Int32](repeating: 0, count: parameters.count) : []
        var formats = anyBinary ? [Int32](repeating: 0, count: parameters.count) : []
        var offset = 0
        for (i, p) in zip(0..., parameters) {
            if let bits = p.binary {
                var bigEndian = bits.bigEndian
                withUnsafeBytes(of: &bigEndian) { UnsafeMutableRawPointer(buffer + offset).copyMemory(from: $0.baseAddress!, byteCount: 8) }
                values[i] = UnsafePointer(buffer + offset)
                lengths[i] = 8
                formats[i] = 1
                offset += 8
            } else if var text = p.text {
                text.withUTF8 { utf8 in
                    if let base = utf8.baseAddress { UnsafeMutableRawPointer(buffer + offset).copyMemory(from: base, byteCount: utf8.count) }
                    (buffer + offset + utf8.count).pointee = 0
                    values[i] = UnsafePointer(buffer + offset)
                    offset += utf8.count + 1
                }
            }
        }
        return values.withUnsafeBufferPointer { v in
            guard anyBinary else { return body(v.baseAddress, nil, nil) }
            return lengths.withUnsafeBufferPointer { l in formats.withUnsafeBufferPointer { f in body(v.baseAddress, l.baseAddress, f.baseAddress) } }
        }
    }
}

/// A statement whose parameter types are fixed, prepared on a connection when first run
/// there (and again on a new connection).
final class PostgreSQLPreparedStatement {
    /// The statement in PostgreSQL's spelling.
    let text: String
    let types: [UInt32]
    fileprivate var name = ""
    fileprivate var generation = -1

    /// `sql` in SQLite's spelling (`PostgreSQLStatementText`).
    init(sql: String, types: [UInt32]) {
        text = PostgreSQLStatementText.adapt(sql)
        self.types = types
    }
}

/// The rows of one result, read by row and column (numbered from 0), in PostgreSQL's text
/// format or its binary one (`binary`). Frees the result when released.
final class PostgreSQLRows {
    private let lib: LibPQ
    private let result: OpaquePointer
    let count: Int32
    let columnCount: Int32
    let binary: Bool

    init(_ lib: LibPQ, _ result: OpaquePointer, binary: Bool = false) {
        self.lib = lib
        self.result = result
        self.binary = binary
        count = lib.ntuples(result)
        columnCount = lib.nfields(result)
    }

    deinit { lib.clear(result) }

    /// Rows an INSERT, UPDATE or DELETE changed.
    var changes: Int { lib.cmdTuples(result).map { Int(String(cString: $0)) ?? 0 } ?? 0 }

    @inline(__always)
    func isNull(_ row: Int32, _ column: Int32) -> Bool { lib.getisnull(result, row, column) != 0 }

    /// A `bigint` (any integer column in the text format).
    @inline(__always)
    func int64(_ row: Int32, _ column: Int32) -> Int64 {
        guard let p = lib.getvalue(result, row, column) else { return 0 }
        return binary ? Self.load8(p) : Self.parseInt64(p)
    }

    /// A `double precision`; the text format's `Infinity`, `-Infinity` and `NaN` too (strtod reads them).
    @inline(__always)
    func double(_ row: Int32, _ column: Int32) -> Double {
        guard let p = lib.getvalue(result, row, column) else { return 0 }
        return binary ? Double(bitPattern: UInt64(bitPattern: Self.load8(p))) : strtod(p, nil)
    }

    /// A `bigint` column's value, or nil for NULL.
    @inline(__always)
    func int64OrNil(_ row: Int32, _ column: Int32) -> Int64? {
        guard let p = lib.getvalue(result, row, column) else { return nil }
        if binary { return lib.getisnull(result, row, column) != 0 ? nil : Self.load8(p) }
        // libpq gives NULL as an empty string, which no number's text is.
        return p.pointee == 0 ? nil : Self.parseInt64(p)
    }

    /// A `double precision` column's value, or nil for NULL.
    @inline(__always)
    func doubleOrNil(_ row: Int32, _ column: Int32) -> Double? {
        guard let p = lib.getvalue(result, row, column) else { return nil }
        if binary { return lib.getisnull(result, row, column) != 0 ? nil : Double(bitPattern: UInt64(bitPattern: Self.load8(p))) }
        return p.pointee == 0 ? nil : strtod(p, nil)
    }

    /// 8 big-endian bytes.
    @inline(__always)
    static func load8(_ p: UnsafePointer<CChar>) -> Int64 {
        Int64(bigEndian: UnsafeRawPointer(p).loadUnaligned(as: Int64.self))
    }

    /// PostgreSQL's text of a `bigint` (an optional minus, then digits).
    @inline(__always)
    static func parseInt64(_ p: UnsafePointer<CChar>) -> Int64 {
        var i = 0
        let negative = p[0] == 45  // "-"
        if negative { i = 1 }
        // Accumulate negatively, so Int64.min parses too.
        var value: Int64 = 0
        while case let d = Int64(p[i]) - 48, d >= 0, d <= 9 {
            value = value &* 10 &- d
            i += 1
        }
        return negative ? value : -value
    }

    /// A text column, every byte of it (the same in both formats).
    func text(_ row: Int32, _ column: Int32) -> String {
        guard let p = lib.getvalue(result, row, column) else { return "" }
        let n = Int(lib.getlength(result, row, column))
        return p.withMemoryRebound(to: UInt8.self, capacity: n) { String(decoding: UnsafeBufferPointer(start: $0, count: n), as: UTF8.self) }
    }

    /// A `bytea` column: its bytes in the binary format, hex (`\x0a1b…`) decoded in the text one.
    func bytes(_ row: Int32, _ column: Int32) -> [UInt8] {
        guard let p = lib.getvalue(result, row, column) else { return [] }
        let n = Int(lib.getlength(result, row, column))
        return p.withMemoryRebound(to: UInt8.self, capacity: n) { bytes in
            let buffer = UnsafeBufferPointer(start: bytes, count: n)
            return binary ? Array(buffer) : PostgreSQLParameter.decodeHex(buffer)
        }
    }

    /// A `numeric` column as decimal text ("-12.50", "NaN").
    func numericText(_ row: Int32, _ column: Int32) -> String {
        guard binary else { return text(row, column) }
        guard let p = lib.getvalue(result, row, column) else { return "" }
        return p.withMemoryRebound(to: UInt8.self, capacity: Int(lib.getlength(result, row, column))) { Self.numericText(binary: $0) }
    }

    /// The binary `numeric`: digit count, weight (of the first digit, in powers of
    /// 10,000), sign, display scale, then base-10,000 digits, each 16 bits big-endian.
    static func numericText(binary p: UnsafePointer<UInt8>) -> String {
        func int16(_ at: Int) -> Int { Int(Int16(bitPattern: UInt16(p[at]) << 8 | UInt16(p[at + 1]))) }
        let count = int16(0), weight = int16(2), sign = UInt16(p[4]) << 8 | UInt16(p[5]), scale = int16(6)
        if sign == 0xC000 { return "NaN" }
        func group(_ position: Int) -> String {
            let digit = String(position < count ? int16(8 + 2 * position) : 0)
            return String(repeating: "0", count: 4 - digit.count) + digit
        }
        // Groups 0…weight are before the point (the first without its leading zeros).
        var integer = "0"
        if weight >= 0 {
            integer = String(Int(group(0))!)
            for position in stride(from: 1, through: weight, by: 1) { integer += group(position) }
        }
        // After the point: a zero group for each power skipped, then the remaining groups.
        var fraction = weight < -1 ? String(repeating: "0", count: 4 * (-weight - 1)) : ""
        for position in stride(from: max(weight + 1, 0), to: count, by: 1) { fraction += group(position) }
        if fraction.count < scale { fraction += String(repeating: "0", count: scale - fraction.count) }
        fraction = String(fraction.prefix(scale))
        return (sign == 0x4000 ? "-" : "") + integer + (fraction.isEmpty ? "" : "." + fraction)
    }
}

/// What a failed statement means to the store: its SQLSTATE, whether the connection went
/// with it, and the error the caller sees.
enum PostgreSQLFailure {
    static let domain = "PostgreSQLErrorDomain"
    /// The user-info key of the server's SQLSTATE.
    static let sqlStateKey = "SQLSTATE"

    static func error(state: String, message: String, connectionLost: Bool, location: String) -> ObjectGraphError {
        let detail = ObjectGraphError(domain: domain, code: 0, message: message, userInfo: [(sqlStateKey, state)])
        if connectionLost {
            return ObjectGraphError(code: ErrorCode.storeOpen, message: "lost the connection to \(location): \(message)", userInfo: [(sqlStateKey, state)], details: [detail])
        }
        // 55P03 lock_not_available (lock_timeout), 57014 query_canceled (statement_timeout).
        if state == "55P03" || state == "57014" {
            return ObjectGraphError(code: ErrorCode.storeTimeout, message: "\(location) timed out: \(message)", userInfo: [(sqlStateKey, state)], details: [detail])
        }
        return ObjectGraphError(code: ErrorCode.storeOperation, message: "\(location): \(message)", userInfo: [(sqlStateKey, state)], details: [detail])
    }

    static func sqlState(_ error: ObjectGraphError) -> String? { error.userInfoValue(forKey: sqlStateKey) }

    /// A serialization failure or deadlock: the transaction may succeed if run again.
    static func isRetryable(_ error: ObjectGraphError) -> Bool {
        let state = sqlState(error)
        return state == "40001" || state == "40P01"
    }
}
