#if canImport(Glibc)
import Glibc
#endif

/// libpq, PostgreSQL's client library, loaded when the first PostgreSQL store is added
/// rather than linked: the library and the wheel keep working on machines without it, and
/// only adding a PostgreSQL store there fails (134080, naming `libpq.so.5`).
///
/// Only the functions the store calls are looked up; their C types are declared here
/// from libpq's documented interface, which has kept them since PostgreSQL 9.
final class LibPQ: @unchecked Sendable {
    typealias Conn = OpaquePointer
    typealias Result = OpaquePointer

    /// The file name looked up: `OBJECTGRAPH_LIBPQ` when set (tests point it at a missing
    /// file), else libpq's stable SONAME.
    static var fileName: String {
        if let p = getenv("OBJECTGRAPH_LIBPQ"), p.pointee != 0 { return String(cString: p) }
        return "libpq.so.5"
    }

    // Result statuses (ExecStatusType) and connection states used here.
    static let commandOK: Int32 = 1
    static let tuplesOK: Int32 = 2
    static let copyIn: Int32 = 4
    static let connectionOK: Int32 = 0
    static let transactionIdle: Int32 = 0
    /// `PG_DIAG_SQLSTATE`.
    static let diagnosticSQLState: Int32 = Int32(UInt8(ascii: "C"))

    let connectdbParams: @convention(c) (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<UnsafePointer<CChar>?>?, Int32) -> Conn?
    let status: @convention(c) (Conn?) -> Int32
    let errorMessage: @convention(c) (Conn?) -> UnsafePointer<CChar>?
    let finish: @convention(c) (Conn?) -> Void
    let exec: @convention(c) (Conn?, UnsafePointer<CChar>?) -> Result?
    let execParams: @convention(c) (
        Conn?, UnsafePointer<CChar>?, Int32, UnsafePointer<UInt32>?, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?,
        UnsafePointer<Int32>?, Int32
    ) -> Result?
    let prepare: @convention(c) (Conn?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, Int32, UnsafePointer<UInt32>?) -> Result?
    let execPrepared: @convention(c) (
        Conn?, UnsafePointer<CChar>?, Int32, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?, Int32
    ) -> Result?
    let resultStatus: @convention(c) (Result?) -> Int32
    let resultErrorMessage: @convention(c) (Result?) -> UnsafePointer<CChar>?
    let resultErrorField: @convention(c) (Result?, Int32) -> UnsafePointer<CChar>?
    let ntuples: @convention(c) (Result?) -> Int32
    let nfields: @convention(c) (Result?) -> Int32
    let getvalue: @convention(c) (Result?, Int32, Int32) -> UnsafeMutablePointer<CChar>?
    let getlength: @convention(c) (Result?, Int32, Int32) -> Int32
    let getisnull: @convention(c) (Result?, Int32, Int32) -> Int32
    let cmdTuples: @convention(c) (Result?) -> UnsafeMutablePointer<CChar>?
    let cmdStatus: @convention(c) (Result?) -> UnsafeMutablePointer<CChar>?
    let clear: @convention(c) (Result?) -> Void
    let getResult: @convention(c) (Conn?) -> Result?
    let putCopyData: @convention(c) (Conn?, UnsafePointer<CChar>?, Int32) -> Int32
    let putCopyEnd: @convention(c) (Conn?, UnsafePointer<CChar>?) -> Int32
    let transactionStatus: @convention(c) (Conn?) -> Int32
    let socket: @convention(c) (Conn?) -> Int32
    let consumeInput: @convention(c) (Conn?) -> Int32
    let notifies: @convention(c) (Conn?) -> UnsafeMutableRawPointer?
    let freemem: @convention(c) (UnsafeMutableRawPointer?) -> Void
    let db: @convention(c) (Conn?) -> UnsafePointer<CChar>?
    let host: @convention(c) (Conn?) -> UnsafePointer<CChar>?
    let port: @convention(c) (Conn?) -> UnsafePointer<CChar>?
    let setNoticeProcessor: @convention(c) (
        Conn?, (@convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Void)?, UnsafeMutableRawPointer?
    ) -> UnsafeMutableRawPointer?

    private init(_ handle: UnsafeMutableRawPointer) throws(ObjectGraphError) {
        func symbol<T>(_ name: String, _: T.Type) throws(ObjectGraphError) -> T {
            guard let p = dlsym(handle, name) else {
                throw ObjectGraphError(code: ErrorCode.storeOpen, message: "\(LibPQ.fileName) has no function \(name): libpq is too old or not libpq")
            }
            return unsafeBitCast(p, to: T.self)
        }
        connectdbParams = try symbol("PQconnectdbParams", type(of: connectdbParams))
        status = try symbol("PQstatus", type(of: status))
        errorMessage = try symbol("PQerrorMessage", type(of: errorMessage))
        finish = try symbol("PQfinish", type(of: finish))
        exec = try symbol("PQexec", type(of: exec))
        execParams = try symbol("PQexecParams", type(of: execParams))
        prepare = try symbol("PQprepare", type(of: prepare))
        execPrepared = try symbol("PQexecPrepared", type(of: execPrepared))
        resultStatus = try symbol("PQresultStatus", type(of: resultStatus))
        resultErrorMessage = try symbol("PQresultErrorMessage", type(of: resultErrorMessage))
        resultErrorField = try symbol("PQresultErrorField", type(of: resultErrorField))
        ntuples = try symbol("PQntuples", type(of: ntuples))
        nfields = try symbol("PQnfields", type(of: nfields))
        getvalue = try symbol("PQgetvalue", type(of: getvalue))
        getlength = try symbol("PQgetlength", type(of: getlength))
        getisnull = try symbol("PQgetisnull", type(of: getisnull))
        cmdTuples = try symbol("PQcmdTuples", type(of: cmdTuples))
        cmdStatus = try symbol("PQcmdStatus", type(of: cmdStatus))
        clear = try symbol("PQclear", type(of: clear))
        getResult = try symbol("PQgetResult", type(of: getResult))
        putCopyData = try symbol("PQputCopyData", type(of: putCopyData))
        putCopyEnd = try symbol("PQputCopyEnd", type(of: putCopyEnd))
        transactionStatus = try symbol("PQtransactionStatus", type(of: transactionStatus))
        socket = try symbol("PQsocket", type(of: socket))
        consumeInput = try symbol("PQconsumeInput", type(of: consumeInput))
        notifies = try symbol("PQnotifies", type(of: notifies))
        freemem = try symbol("PQfreemem", type(of: freemem))
        db = try symbol("PQdb", type(of: db))
        host = try symbol("PQhost", type(of: host))
        port = try symbol("PQport", type(of: port))
        setNoticeProcessor = try symbol("PQsetNoticeProcessor", type(of: setNoticeProcessor))
    }

    private static let lock = RecursiveLock()
    nonisolated(unsafe) private static var loaded: LibPQ?

    /// libpq, loaded on first use; 134080 naming the file when it cannot be loaded. A
    /// failed load is tried again next time (libpq may have been installed since).
    static func shared() throws(ObjectGraphError) -> LibPQ {
        try lock.withLock { () throws(ObjectGraphError) -> LibPQ in
            if let loaded { return loaded }
            let name = fileName
            guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
                let why = dlerror().map { String(cString: $0) } ?? "not found"
                throw ObjectGraphError(
                    code: ErrorCode.storeOpen,
                    message: "a PostgreSQL store needs libpq, PostgreSQL's client library (libpq.so.5), which cannot be loaded: \(why). Install it (Debian and Ubuntu: libpq5; Fedora and RHEL: libpq) and add the store again")
            }
            let lib = try LibPQ(handle)
            loaded = lib
            return lib
        }
    }
}
