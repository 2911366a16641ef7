/// A recipe for adding one store (`NSPersistentStoreDescription`): its type, path,
/// configuration and options. `PersistentContainer.loadPersistentStores` adds a store for
/// each. Unlike `addPersistentStore`, a description migrates automatically and infers the
/// mapping by default, as Apple's does.
public final class PersistentStoreDescription: @unchecked Sendable, CustomStringConvertible {
    /// Core Data's key for persistent history tracking, passed to the store as an option.
    public static let historyTrackingKey = StoreOptionKey.historyTracking

    public var type: String
    public var path: String?
    public var configuration: String?
    /// Whether `loadPersistentStores` adds this store on a library thread and returns at once.
    public var shouldAddStoreAsynchronously = false
    /// Every option by Core Data's key; the properties below read and write their keys here.
    public private(set) var options: [String: PropertyListValue] = [
        StoreOptionKey.migrateAutomatically: .boolean(true), StoreOptionKey.inferMappingModel: .boolean(true),
    ]

    public init(path: String? = nil, type: String = StoreType.sqlite) {
        self.path = path
        self.type = type
    }

    /// Sets (nil: removes) the option `key`.
    public func setOption(_ value: PropertyListValue?, forKey key: String) { options[key] = value }

    public var isReadOnly: Bool {
        get { flag(StoreOptionKey.readOnly) }
        set { options[StoreOptionKey.readOnly] = newValue ? .boolean(true) : nil }
    }

    /// Seconds an SQLite store waits for a lock (`NSPersistentStoreTimeoutOption`); nil: the default.
    public var timeout: Double? {
        get {
            switch options[StoreOptionKey.timeout] {
            case .real(let d)?: d
            case .integer(let i)?: Double(i)
            default: nil
            }
        }
        set { options[StoreOptionKey.timeout] = newValue.map { .real($0) } }
    }

    public var shouldMigrateStoreAutomatically: Bool {
        get { flag(StoreOptionKey.migrateAutomatically) }
        set { options[StoreOptionKey.migrateAutomatically] = .boolean(newValue) }
    }

    public var shouldInferMappingModelAutomatically: Bool {
        get { flag(StoreOptionKey.inferMappingModel) }
        set { options[StoreOptionKey.inferMappingModel] = .boolean(newValue) }
    }

    public var isHistoryTrackingEnabled: Bool {
        get { flag(Self.historyTrackingKey) }
        set { options[Self.historyTrackingKey] = newValue ? .boolean(true) : nil }
    }

    private func flag(_ key: String) -> Bool {
        switch options[key] {
        case .boolean(let b)?: b
        case .integer(let i)?: i != 0
        default: false
        }
    }

    public var description: String { "<PersistentStoreDescription type: \(type), path: \(path ?? "nil")>" }
}
