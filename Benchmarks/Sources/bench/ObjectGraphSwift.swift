import ObjectGraph

/// ObjectGraph from Swift: managed objects in a context, attributes by slot. The same code
/// runs main on an SQLite file and the postgres workload on a PostgreSQL schema.
struct ObjectGraphSwift: SwiftContender {
    let insertTable = "ZITEM"
    let insertColumns = Workload.attributeNames.map { "Z" + $0.uppercased() }

    /// A model, coordinator and context over the store at `store`.
    private struct Stack {
        let coordinator: PersistentStoreCoordinator
        let context: ManagedObjectContext
        let slots: [Int]

        init(store: StoreLocation) throws {
            let model = ManagedObjectModel()
            let item = try model.addEntity(named: "Item")
            for name in Workload.attributeNames { try item.addAttribute(named: name, type: .integer64) }
            coordinator = try PersistentStoreCoordinator(model: model)
            switch store {
            case .file(let path):
                try coordinator.addPersistentStore(type: StoreType.sqlite, path: path)
            case .postgreSQL(let url, let schema):
                try coordinator.addPersistentStore(type: PostgreSQLStore.typeName, configuration: nil, path: url,
                                                   options: [StoreOptionKey.postgreSQLSchema: .string(schema)])
            }
            context = ManagedObjectContext(coordinator: coordinator)
            slots = Workload.attributeNames.map { item.slot(forKey: $0)! }
        }
    }

    func insert(path: String, count: Int) throws -> Duration { try insert(at: .file(path), count: count) }

    func fetch(path: String) throws -> (time: Duration, sum: Int64, count: Int) { try fetch(at: .file(path)) }

    func insert(at store: StoreLocation, count: Int) throws -> Duration {
        let stack = try Stack(store: store)
        return try Self.timedInsert(stack.context, slots: stack.slots, count: count)
    }

    /// The main workload's insert: `count` items through `context`, one save, timed.
    static func timedInsert(_ context: ManagedObjectContext, slots: [Int], count: Int) throws -> Duration {
        try timed {
            for i in 0..<count {
                let object = try context.insertObject(entityName: "Item")
                for k in 0..<Workload.attributeCount {
                    try object.setValue(.integer(Workload.value(i, k)), atSlot: slots[k])
                }
            }
            try context.save()
        }.time
    }

    func fetch(at store: StoreLocation) throws -> (time: Duration, sum: Int64, count: Int) {
        let stack = try Stack(store: store)
        let (context, slots) = (stack.context, stack.slots)
        // The objects are returned out of the timed block: releasing them is not timed.
        let run = try timed { () throws -> ([ManagedObject], Int64) in
            let objects = try context.fetch(FetchRequest(entityName: "Item"))
            var sum: Int64 = 0
            for object in objects {
                for slot in slots {
                    guard case .integer(let v) = try object.value(atSlot: slot) else {
                        throw BenchError("an attribute that is not an integer")
                    }
                    sum &+= v
                }
            }
            return (objects, sum)
        }
        return (run.time, run.result.1, run.result.0.count)
    }
}
