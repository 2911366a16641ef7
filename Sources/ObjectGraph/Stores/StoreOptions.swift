/// Option keys of `addPersistentStore` and `migratePersistentStore`, with Core Data's
/// names (§2.16, §3.7). Options travel as a `[String: PropertyListValue]` dictionary so
/// that C (an `og_value` dictionary) and Python (a `dict`) pass them unchanged.
public enum StoreOptionKey {
    /// Boolean: saves to the store are refused (134070).
    public static let readOnly = "NSReadOnlyPersistentStoreOption"
    /// Number of seconds: how long SQLite waits for a lock (its busy timeout) before 134090;
    /// without it an SQLite store waits `StoreOptions.defaultTimeout` seconds.
    public static let timeout = "NSPersistentStoreTimeoutOption"
    /// Dictionary of pragma name → string value, run when the SQLite store opens.
    public static let sqlitePragmas = "NSSQLitePragmasOption"
    /// Boolean: run `ANALYZE` when the SQLite store is added.
    public static let sqliteAnalyze = "NSSQLiteAnalyzeOption"
    /// Boolean: run `VACUUM` when the SQLite store is added.
    public static let sqliteManualVacuum = "NSSQLiteManualVacuumOption"
    /// Boolean: open a store whose version hashes differ from the model's (no 134100);
    /// the tables must still fit, and the hashes are rewritten at the next save.
    public static let ignoreVersioning = "NSIgnorePersistentStoreVersioningOption"
    public static let migrateAutomatically = "NSMigratePersistentStoresAutomaticallyOption"
    public static let inferMappingModel = "NSInferMappingModelAutomaticallyOption"
    /// Boolean: the store keeps persistent history (SQLite stores).
    public static let historyTracking = "NSPersistentHistoryTrackingKey"
    /// Boolean: the coordinator posts remote-change notifications for the store.
    public static let remoteChangeNotifications = "NSPersistentStoreRemoteChangeNotificationPostOptionKey"
    /// String: the schema that holds a PostgreSQL store's tables ("public" when absent).
    public static let postgreSQLSchema = "ObjectGraphPostgreSQLSchema"
}

/// The options a store understands, read once from the options dictionary. Unknown keys
/// are ignored here, as Core Data ignores them, but stay in the store's `options`.
public struct StoreOptions: Sendable, Equatable {
    public var readOnly = false
    /// Seconds, as given; nil when the option is absent (then `effectiveTimeout` is the default).
    public var timeout: Double?
    /// Pragmas in name order, each validated (see `validatePragma`).
    public var pragmas: [(name: String, value: String)] = []
    public var analyze = false
    public var vacuum = false
    public var ignoreVersioning = false
    /// Migrate a store whose version hashes differ from the model's when it is added.
    public var migrateAutomatically = false
    /// Infer the mapping of such a migration when no mapping model fits.
    public var inferMappingModel = false
    /// Keep persistent history (`NSPersistentHistoryTrackingKey`).
    public var historyTracking = false
    /// Post remote-change notifications (`NSPersistentStoreRemoteChangeNotificationPostOptionKey`).
    public var remoteChangeNotifications = false
    /// The PostgreSQL schema of the store's tables; nil for the default.
    public var postgreSQLSchema: String?

    public init() {}

    /// How long an SQLite store waits for another connection's lock when
    /// `NSPersistentStoreTimeoutOption` is absent: 240 seconds, Core Data's own default
    /// (`NSPersistentStoreDescription.timeout` reads 240 when nothing set it). Without a
    /// wait, processes sharing a file fail saves with 134090 whenever two writes meet
    /// (thousands per soak of four writers); with it they queue, as SQLite intends. A lock
    /// is held only for the length of one save, so the wait is that of the saves ahead
    /// in the queue; the whole timeout is spent only when a connection keeps a
    /// transaction open, and a caller that prefers to fail at once passes 0.
    public static let defaultTimeout: Double = 240

    /// The busy timeout an SQLite store uses: the option's value (0 included), else the default.
    public var effectiveTimeout: Double { timeout ?? Self.defaultTimeout }

    /// Reads the known keys of `dictionary`; a known key holding a value of the wrong kind,
    /// or a pragma that is not a plain name and value, is error 140002 naming the key.
    public init(_ dictionary: [String: PropertyListValue]) throws(ObjectGraphError) {
        readOnly = try Self.flag(dictionary, StoreOptionKey.readOnly)
        analyze = try Self.flag(dictionary, StoreOptionKey.sqliteAnalyze)
        vacuum = try Self.flag(dictionary, StoreOptionKey.sqliteManualVacuum)
        ignoreVersioning = try Self.flag(dictionary, StoreOptionKey.ignoreVersioning)
        migrateAutomatically = try Self.flag(dictionary, StoreOptionKey.migrateAutomatically)
        inferMappingModel = try Self.flag(dictionary, StoreOptionKey.inferMappingModel)
        historyTracking = try Self.historyFlag(dictionary)
        remoteChangeNotifications = try Self.flag(dictionary, StoreOptionKey.remoteChangeNotifications)
        switch dictionary[StoreOptionKey.postgreSQLSchema] {
        case nil: break
        case .string(let name)?: postgreSQLSchema = name
        default: throw .invalidArgument("\(StoreOptionKey.postgreSQLSchema) must be a schema name (a string)")
        }
        switch dictionary[StoreOptionKey.timeout] {
        case nil: break
        case .integer(let n)? where n >= 0: timeout = Double(n)
        case .real(let d)? where d >= 0 && d.isFinite: timeout = d
        default: throw .invalidArgument("\(StoreOptionKey.timeout) must be a number of seconds, 0 or more")
        }
        if let raw = dictionary[StoreOptionKey.sqlitePragmas] {
            guard case .dictionary(let entries) = raw else {
                throw .invalidArgument("\(StoreOptionKey.sqlitePragmas) must be a dictionary of pragma name to string value")
            }
            for name in entries.keys.sorted() {
                let value: String
                switch entries[name]! {
                case .string(let s): value = s
                case .integer(let n): value = String(n)
                case .real(let d): value = String(d)
                case .boolean(let b): value = b ? "1" : "0"
                default: throw .invalidArgument("pragma '\(name)' needs a string value")
                }
                try Self.validatePragma(name, value)
                pragmas.append((name, value))
            }
        }
    }

    public static func == (a: StoreOptions, b: StoreOptions) -> Bool {
        a.readOnly == b.readOnly && a.timeout == b.timeout && a.analyze == b.analyze && a.vacuum == b.vacuum
            && a.ignoreVersioning == b.ignoreVersioning && a.historyTracking == b.historyTracking
            && a.remoteChangeNotifications == b.remoteChangeNotifications && a.postgreSQLSchema == b.postgreSQLSchema && a.pragmas.map(\.name) == b.pragmas.map(\.name)
            && a.pragmas.map(\.value) == b.pragmas.map(\.value)
    }

    /// The value of a pragma, when one was given.
    public func pragma(_ name: String) -> String? {
        pragmas.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Core Data takes a boolean for history tracking, or a dictionary of history options
    /// (which turns it on).
    private static func historyFlag(_ dictionary: [String: PropertyListValue]) throws(ObjectGraphError) -> Bool {
        if case .dictionary? = dictionary[StoreOptionKey.historyTracking] { return true }
        return try flag(dictionary, StoreOptionKey.historyTracking)
    }

    private static func flag(_ dictionary: [String: PropertyListValue], _ key: String) throws(ObjectGraphError) -> Bool {
        switch dictionary[key] {
        case nil: return false
        case .boolean(let b)?: return b
        case .integer(let n)?: return n != 0
        default: throw .invalidArgument("\(key) must be a boolean")
        }
    }

    /// A pragma runs as `PRAGMA name = value`, so both are checked to be plain words:
    /// the name an SQL identifier (optionally `schema.name`), the value a word or number
    /// (WAL, NORMAL, -2000, 1.5), so no option can smuggle SQL into the statement.
    public static func validatePragma(_ name: String, _ value: String) throws(ObjectGraphError) {
        func isIdentifier(_ s: Substring) -> Bool {
            guard let first = s.unicodeScalars.first, first.isASCIILetter || first == "_" else { return false }
            return s.unicodeScalars.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || $0 == "_" }
        }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy(isIdentifier) else {
            throw .invalidArgument("'\(name)' is not a pragma name (letters, digits and underscores only)")
        }
        let body = value.hasPrefix("-") || value.hasPrefix("+") ? value.dropFirst() : Substring(value)
        guard !body.isEmpty, body.unicodeScalars.allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit || $0 == "_" || $0 == "." }) else {
            throw .invalidArgument("pragma '\(name)': '\(value)' is not a plain value (a word or a number)")
        }
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

/// Everything a store is created with: where, over which model, for which configuration
/// (nil: every entity), with which options; and, when a store is copied by
/// `migratePersistentStore`, the identity it takes over.
public struct StoreSetup {
    public var path: String
    public var model: ManagedObjectModel
    public var configurationName: String?
    public var options: [String: PropertyListValue]
    /// The UUID a new store takes instead of a fresh one (a migrated copy keeps its source's).
    public var identifier: String?
    /// Metadata a new store starts with (user keys of a migrated source).
    public var initialMetadata: [String: PropertyListValue] = [:]

    public init(path: String, model: ManagedObjectModel, configurationName: String? = nil, options: [String: PropertyListValue] = [:]) {
        self.path = path
        self.model = model
        self.configurationName = configurationName
        self.options = options
        self.identifier = nil
    }

    /// The parsed options (already validated by the coordinator).
    public var parsedOptions: StoreOptions { (try? StoreOptions(options)) ?? StoreOptions() }

    /// 140002 when an entity of the setup has a derived attribute: Core Data's atomic and
    /// in-memory stores do not compute them (only the SQLite store does).
    public func refuseDerivedAttributes(_ type: String) throws(ObjectGraphError) {
        for entity in entities {
            for case let a as AttributeDescription in entity.properties where a.derivationExpression != nil {
                throw .invalidArgument("Core Data provided atomic stores do not support derived properties: '\(entity.name).\(a.name)' is derived, and a \(type) store does not compute it")
            }
        }
    }

    /// The entities this store holds.
    public var entities: [EntityDescription] { model.entities(forConfiguration: configurationName) ?? model.entities }

    /// The version hashes of this store's entities, as its metadata records them.
    public var versionHashes: [String: PropertyListValue] {
        var out: [String: PropertyListValue] = [:]
        for e in entities { out[e.name] = .data(e.versionHash) }
        return out
    }
}
