import Dispatch
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A whole stack in one object (`NSPersistentContainer`): a model, a coordinator over it, a
/// main-queue view context, and the descriptions of the stores to add. By default it holds
/// one SQLite description at `<defaultDirectory>/<name>.sqlite`.
public final class PersistentContainer: @unchecked Sendable {
    public let name: String
    public let managedObjectModel: ManagedObjectModel
    public let persistentStoreCoordinator: PersistentStoreCoordinator
    /// The main-queue context for the user interface (`viewContext`), with no parent.
    public let viewContext: ManagedObjectContext
    private let lock = RecursiveLock()
    private var descriptions: [PersistentStoreDescription]

    /// A container named `name` (the default store's file name) over `model`. 140002 for an
    /// empty name or one holding `/`; the model's own errors as for a coordinator.
    public init(name: String, managedObjectModel model: ManagedObjectModel) throws(ObjectGraphError) {
        guard !name.isEmpty, !name.contains("/"), !name.contains("\0") else {
            throw .invalidArgument("a container's name is the file name of its store: '\(name)' is empty or holds '/' or NUL")
        }
        self.name = name
        managedObjectModel = model
        persistentStoreCoordinator = try PersistentStoreCoordinator(model: model)
        viewContext = ManagedObjectContext(coordinator: persistentStoreCoordinator, concurrencyType: .mainQueue)
        descriptions = [PersistentStoreDescription(path: Self.defaultDirectoryPath + "/" + name + ".sqlite")]
    }

    /// The descriptions `loadPersistentStores` adds, in order.
    public var persistentStoreDescriptions: [PersistentStoreDescription] {
        get { lock.withLock { descriptions } }
        set { lock.withLock { descriptions = newValue } }
    }

    /// The folder new containers put their stores in: `$XDG_DATA_HOME/objectgraph`, else
    /// `~/.local/share/objectgraph` (`defaultDirectoryURL`). Created on first use when it
    /// can be; the path is returned either way (adding a store there reports the failure).
    public static var defaultDirectory: String {
        let directory = defaultDirectoryPath
        var path = ""
        for part in directory.split(separator: "/") {
            path += "/" + part
            mkdir(path, 0o755)
        }
        return directory
    }

    /// `defaultDirectory` without creating it: a new container names its default store
    /// there, and the folder is made when that store is first added.
    static var defaultDirectoryPath: String {
        var base = ProcessInfo.processInfo.environment["XDG_DATA_HOME"] ?? ""
        if base.isEmpty || !base.hasPrefix("/") {
            let home = ProcessInfo.processInfo.environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? Self.passwdHome()
            base = home + "/.local/share"
        }
        return base + "/objectgraph"
    }

    private static func passwdHome() -> String {
        guard let entry = getpwuid(getuid()), let dir = entry.pointee.pw_dir else { return "/tmp" }
        return String(cString: dir)
    }

    /// Adds a store for each description and calls `handler` once per description with
    /// nil or the error that store gave; store errors go only to the handler. Descriptions
    /// that add asynchronously are added in order on a library thread, and their handlers
    /// run there; the call returns without waiting for them.
    public func loadPersistentStores(completionHandler handler: @escaping @Sendable (PersistentStoreDescription, ObjectGraphError?) -> Void) {
        var later: [PersistentStoreDescription] = []
        for description in persistentStoreDescriptions {
            if description.shouldAddStoreAsynchronously { later.append(description); continue }
            handler(description, add(description))
        }
        guard !later.isEmpty else { return }
        let work = LoadWork(container: self, descriptions: later, handler: handler)
        DispatchQueue(label: "objectgraph.container.load").async { work.run() }
    }

    private func add(_ d: PersistentStoreDescription) -> ObjectGraphError? {
        if let path = d.path, path.hasPrefix(Self.defaultDirectoryPath + "/") { _ = Self.defaultDirectory }
        do {
            _ = try persistentStoreCoordinator.addPersistentStore(type: d.type, configuration: d.configuration, path: d.path ?? "", options: d.options)
            return nil
        } catch {
            return error
        }
    }

    private struct LoadWork: @unchecked Sendable {
        let container: PersistentContainer
        let descriptions: [PersistentStoreDescription]
        let handler: (PersistentStoreDescription, ObjectGraphError?) -> Void
        func run() { for d in descriptions { handler(d, container.add(d)) } }
    }

    /// A new private-queue context on the coordinator (`newBackgroundContext`).
    public func newBackgroundContext() -> ManagedObjectContext {
        ManagedObjectContext(coordinator: persistentStoreCoordinator, concurrencyType: .privateQueue)
    }

    /// Runs `block` with a new private-queue context on that context's queue and returns
    /// at once; the context goes when the block is done (`performBackgroundTask:`).
    public func performBackgroundTask(_ block: @escaping @Sendable (ManagedObjectContext) -> Void) {
        let context = newBackgroundContext()
        let task = BackgroundTask(context: context, block: block)
        // A private-queue context always has a queue, so perform cannot refuse.
        try? context.perform { task.run() }
    }

    private struct BackgroundTask: @unchecked Sendable {
        let context: ManagedObjectContext
        let block: (ManagedObjectContext) -> Void
        func run() { block(context) }
    }
}
