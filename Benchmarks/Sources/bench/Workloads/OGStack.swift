import ObjectGraph

/// A model, coordinator and context over an ObjectGraph store, for the workloads other
/// than main: the Item entity (a0 optionally indexed), or the library (Author, Book).
struct OGStack {
    let coordinator: PersistentStoreCoordinator
    let context: ManagedObjectContext
    let model: ManagedObjectModel

    /// `options`: the store's (`StoreOptionKey`), e.g. history's `historyTracking`.
    init(path: String, model: ManagedObjectModel, options: [String: PropertyListValue] = [:]) throws {
        self.model = model
        coordinator = try PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: path, options: options)
        context = ManagedObjectContext(coordinator: coordinator)
    }

    /// The slot of `key` in `entity`.
    func slot(_ entity: String, _ key: String) throws -> Int {
        guard let slot = model.entity(named: entity)?.slot(forKey: key) else { throw BenchError("no \(entity).\(key)") }
        return slot
    }

    /// Item with a0…a9, a0 indexed when `indexed` (a fetch index of a0 alone), and unique
    /// when `uniqueA0` (a uniqueness constraint, which the store keeps with a unique index).
    static func itemModel(indexed: Bool, uniqueA0: Bool = false) throws -> ManagedObjectModel {
        let model = ManagedObjectModel()
        let item = try model.addEntity(named: "Item")
        for name in Workload.attributeNames {
            let attribute = try item.addAttribute(named: name, type: .integer64)
            if indexed && name == "a0" { try attribute.setIndexed(true) }
        }
        if uniqueA0 { try item.setUniquenessConstraints([["a0"]]) }
        return model
    }

    /// Author (name, to-many books) and Book (title, to-one author), inverses of each other.
    static func libraryModel() throws -> ManagedObjectModel {
        let model = ManagedObjectModel()
        let author = try model.addEntity(named: "Author")
        let book = try model.addEntity(named: "Book")
        try author.addAttribute(named: "name", type: .string)
        try book.addAttribute(named: "title", type: .string)
        let books = try author.addRelationship(named: "books", destination: book, toMany: true, deleteRule: .cascade)
        let writer = try book.addRelationship(named: "author", destination: author)
        try books.setInverse(writer)
        return model
    }
}
