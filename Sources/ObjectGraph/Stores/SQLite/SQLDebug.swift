import CSQLite
import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// SQL logging, like Core Data's `-com.apple.CoreData.SQLDebug`: every statement the
/// SQLite stores run, at three levels. The environment variable `OBJECTGRAPH_SQL_DEBUG`
/// (1–3) sets the level when the library first runs SQL; `level` changes it later.
///
/// 1. each statement, as prepared (`?` for its parameters);
/// 2. each statement with its bound values in place;
/// 3. as 2, then the time it took and the rows it returned.
///
/// At every level each fetch and save of a context also logs one summary line, as Core
/// Data's "total fetch execution time" annotation does (`SQLDebug+Summary.swift`), and
/// blobs longer than 64 bytes are shown abbreviated (`SQLDebugText.swift`).
///
/// Messages go to the handler when one is set, else to standard error as lines that
/// start with `ObjectGraph: sql:` (statements) or `ObjectGraph: annotation:` (times and
/// summaries). The handler is called on the thread that runs the statement (a
/// context's thread or queue), so it must be thread-safe.
public enum SQLDebug {
    /// One logged event.
    public struct Message: Sendable {
        /// What a message reports.
        public enum Kind: Sendable, Equatable {
            /// A statement as it runs (levels 1 and 2).
            case statement
            /// The time a statement took and the rows it returned (level 3).
            case statementTime
            /// A context's fetch: its rows, results (objects, object IDs or dictionaries) and time
            /// (every level).
            case fetch
            /// A context's save: the rows written, the objects saved and its time (every level).
            case save
        }

        public let kind: Kind
        /// 1: a statement or a summary; 2: a statement with its values; 3: its time and rows.
        public let level: Int
        /// The statement (with values in place from level 2); empty for a summary.
        public let sql: String
        /// Seconds the statement (level 3) or the whole fetch or save took.
        public let duration: Double?
        /// Rows the statement returned (level 3), the rows a fetch read from its stores, or
        /// the rows a save wrote or deleted.
        public let rows: Int?
        /// For a summary: the results the fetch returned (objects, object IDs or dictionaries,
        /// as `text` says) or the objects the save saved.
        public let objects: Int?
        /// For a summary: the entity fetched, or the counts of objects saved by change.
        public let subject: String?

        /// What `objects` counts, in the text ("object", "object ID", "dictionary").
        let noun: String

        init(kind: Kind, level: Int, sql: String, duration: Double? = nil, rows: Int? = nil,
             objects: Int? = nil, noun: String = "object", subject: String? = nil) {
            self.kind = kind
            self.noun = noun
            self.level = level
            self.sql = sql
            self.duration = duration
            self.rows = rows
            self.objects = objects
            self.subject = subject
        }

        /// The line as printed to standard error.
        public var text: String {
            switch kind {
            case .statement:
                return "ObjectGraph: sql: \(sql)"
            case .statementTime:
                let seconds = ((duration ?? 0) * 10_000).rounded() / 10_000
                return "ObjectGraph: annotation: sql execution time: \(seconds)s, rows: \(rows ?? 0)"
            case .fetch, .save:
                let what = kind == .fetch ? "fetch" : "save"
                let counts = "\(SQLDebug.counted(rows ?? 0, "row")), \(SQLDebug.counted(objects ?? 0, noun))"
                return "ObjectGraph: annotation: total \(what) execution time: \(SQLDebug.seconds(duration ?? 0))s for \(counts)"
                    + (subject.map { " (\($0))" } ?? "")
            }
        }
    }

    public typealias Handler = @Sendable (Message) -> Void

    private struct Settings: Sendable {
        var handler: Handler?
    }

    private static let settings = Mutex(Settings(handler: nil))
    /// The level, read without a lock: every fetch and save looks at it.
    private static let currentLevel = Atomic<Int>(environmentLevel())
    /// Bumped by every change, so each connection re-installs its trace once.
    private static let generationCounter = Atomic<Int>(1)

    /// The level from `OBJECTGRAPH_SQL_DEBUG` (0 when unset or not 1–3).
    static func environmentLevel() -> Int {
        guard let raw = getenv("OBJECTGRAPH_SQL_DEBUG"), let n = Int(String(cString: raw)) else { return 0 }
        return max(0, min(3, n))
    }

    /// The logging level: 0 (off) to 3. Values outside are clamped.
    public static var level: Int {
        get { currentLevel.load(ordering: .acquiring) }
        set {
            currentLevel.store(max(0, min(3, newValue)), ordering: .releasing)
            generationCounter.add(1, ordering: .releasing)
        }
    }

    /// Sets where messages go; nil: standard error. The handler must not run SQL itself.
    public static func setHandler(_ handler: Handler?) {
        settings.withLock { $0.handler = handler }
    }

    static var generation: Int { generationCounter.load(ordering: .acquiring) }

    static func emit(_ message: Message) {
        // Called under the lock: once setHandler returns, the old handler is never called.
        let handled = settings.withLock { s -> Bool in
            guard let handler = s.handler else { return false }
            handler(message)
            return true
        }
        if handled { return }
        // One write(2) per line, so lines from several threads do not interleave.
        var bytes = Array((message.text + "\n").utf8)
        _ = write(2, &bytes, bytes.count)
    }

    /// Installs or removes the trace of `connection` for the current level.
    static func configure(_ connection: SQLiteConnection) {
        guard let handle = connection.handle else { return }
        let level = self.level
        connection.traceGeneration = generation
        connection.traceLevel = level
        guard level > 0 else {
            sqlite3_trace_v2(handle, 0, nil, nil)
            return
        }
        var mask = UInt32(SQLITE_TRACE_STMT)
        if level >= 3 { mask |= UInt32(SQLITE_TRACE_PROFILE) | UInt32(SQLITE_TRACE_ROW) }
        sqlite3_trace_v2(handle, mask, traceCallback, Unmanaged.passUnretained(connection).toOpaque())
    }

    /// SQLite's trace callback: statements, rows and profiles of one connection.
    private static let traceCallback: @convention(c) (UInt32, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Int32 = {
        event, context, p, x in
        guard let context, let p else { return 0 }
        let connection = Unmanaged<SQLiteConnection>.fromOpaque(context).takeUnretainedValue()
        let statement = OpaquePointer(p)
        switch Int32(event) {
        case SQLITE_TRACE_STMT:
            let sql: String
            if connection.traceLevel >= 2, let expanded = sqlite3_expanded_sql(statement) {
                sql = String(cString: expanded)
                sqlite3_free(expanded)
            } else {
                sql = sqlite3_sql(statement).map { String(cString: $0) } ?? ""
            }
            // A statement inside a trigger or exec reports its text as a comment: skip those.
            if sql.hasPrefix("--") { return 0 }
            connection.traceRows[statement] = 0
            emit(Message(kind: .statement, level: min(connection.traceLevel, 2), sql: abbreviatingBlobs(sql)))
        case SQLITE_TRACE_ROW:
            connection.traceRows[statement, default: 0] += 1
        case SQLITE_TRACE_PROFILE:
            let nanoseconds = x.map { $0.load(as: Int64.self) } ?? 0
            let rows = connection.traceRows.removeValue(forKey: statement) ?? 0
            let sql = sqlite3_sql(statement).map { String(cString: $0) } ?? ""
            emit(Message(kind: .statementTime, level: 3, sql: abbreviatingBlobs(sql), duration: Double(nanoseconds) / 1e9, rows: rows))
        default:
            break
        }
        return 0
    }
}
