import CSQLite
import Foundation
import ObjectGraph
import XCTest

/// Shelves with an ordered list of items, items with tags (many-to-many), gadgets (a
/// subentity of Item) and notes; configurations "Stock" (shelves, items, gadgets, tags),
/// "Notes", "Gadgets" (only the subentity) and "All" (overlapping the others).
func makeWarehouseModel(hashModifier: String? = nil, extraAttribute: Bool = false) throws -> ManagedObjectModel {
    let model = ManagedObjectModel()
    let shelf = try model.addEntity(named: "Shelf")
    try shelf.addAttribute(named: "name", type: .string)
    let item = try model.addEntity(named: "Item")
    try item.addAttribute(named: "name", type: .string)
    try item.addAttribute(named: "rank", type: .integer64, defaultValue: 0)
    if extraAttribute { try item.addAttribute(named: "colour", type: .string) }
    try item.setVersionHashModifier(hashModifier)
    let gadget = try model.addEntity(named: "Gadget")
    try gadget.setSuperentity(item)
    try gadget.addAttribute(named: "power", type: .double)
    let tag = try model.addEntity(named: "Tag")
    try tag.addAttribute(named: "name", type: .string)
    let note = try model.addEntity(named: "Note")
    try note.addAttribute(named: "text", type: .string)
    let items = try shelf.addRelationship(named: "items", destination: item, toMany: true, deleteRule: .cascade)
    try items.setOrdered(true)
    let onShelf = try item.addRelationship(named: "shelf", destination: shelf)
    try items.setInverse(onShelf)
    let tags = try item.addRelationship(named: "tags", destination: tag, toMany: true)
    let tagged = try tag.addRelationship(named: "items", destination: item, toMany: true)
    try tags.setInverse(tagged)
    try model.setEntities([shelf, item, gadget, tag], forConfiguration: "Stock")
    try model.setEntities([note], forConfiguration: "Notes")
    try model.setEntities([gadget], forConfiguration: "Gadgets")
    try model.setEntities([shelf, item, gadget, tag, note], forConfiguration: "All")
    return model
}

/// Configurations (§2.19), routing over several stores (§1.13, §2.4), store options
/// (§2.16), moving and copying stores, and store metadata.
final class StoreConfigurationTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws { dir = try temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    private func tables(_ path: String) -> Set<String> {
        Set(sqliteRows(path, "SELECT name FROM sqlite_master WHERE type = 'table'").map { $0[0] })
    }

    @discardableResult
    private func insert(_ context: ManagedObjectContext, _ entity: String, _ values: [String: AttributeValue]) throws -> ManagedObject {
        let o = try context.insertObject(entityName: entity)
        for (k, v) in values { try o.setValue(v, forKey: k) }
        return o
    }

    private func names(_ objects: [ManagedObject]) -> [String] { objects.map { $0.string("name") ?? $0.string("text") ?? "?" } }

    // MARK: §2.19 Configurations

    func testRule2_19_1_configurationsAreNamedSubsetsThatMayOverlap() throws {
        let model = try makeWarehouseModel()
        XCTAssertEqual(model.configurations, ["Stock", "Notes", "Gadgets", "All"])
        XCTAssertEqual(model.entities(forConfiguration: "Notes")?.map(\.name), ["Note"])
        XCTAssertEqual(model.entities(forConfiguration: nil)?.count, 5)
        let coordinator = try PersistentStoreCoordinator(model: model)
        let stock = try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: "Stock", path: dir + "/stock.sqlite")
        let all = try coordinator.addPersistentStore(type: StoreType.inMemory, configuration: "All", path: "")
        XCTAssertEqual(stock.configurationName, "Stock")
        XCTAssertEqual(all.configurationName, "All")
        // Both hold Item; only one holds Note.
        let context = ManagedObjectContext(coordinator: coordinator)
        let item = try insert(context, "Item", ["name": .string("bolt")])
        try context.assign(item, to: all)
        let note = try insert(context, "Note", ["text": .string("hello")])
        XCTAssertTrue(context.assignedStore(of: note) === all)
        XCTAssertEqual(expectError { try context.assign(note, to: stock) }?.code, ErrorCode.invalidArgument)
        try context.save()
        XCTAssertEqual(item.objectID.storeIdentifier, all.identifier)
    }

    func testRule2_19_2_aStoreHoldsOnlyItsConfigurationsEntities() throws {
        let model = try makeWarehouseModel()
        let coordinator = try PersistentStoreCoordinator(model: model)
        let notes = try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: "Notes", path: dir + "/notes.sqlite")
        let gadgets = try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: "Gadgets", path: dir + "/gadgets.sqlite")
        // SQLite creates only the configuration's tables; a listed subentity brings its hierarchy's table.
        XCTAssertEqual(tables(dir + "/notes.sqlite"), ["ZNOTE", "Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"])
        XCTAssertEqual(tables(dir + "/gadgets.sqlite"), ["ZITEM", "Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"])
        XCTAssertEqual(notes.metadata[StoreMetadataKey.modelVersionHashes]?.dictionaryValue.map { Set($0.keys) }, ["Note"])
        XCTAssertTrue(model.isConfiguration("Notes", compatibleWithStoreMetadata: notes.metadata))
        XCTAssertFalse(model.isConfiguration(nil, compatibleWithStoreMetadata: notes.metadata))
        let context = ManagedObjectContext(coordinator: coordinator)
        try insert(context, "Gadget", ["name": .string("drill"), "power": .double(500)])
        try insert(context, "Note", ["text": .string("n1")])
        let shelf = try insert(context, "Shelf", ["name": .string("A")])
        // No store holds Shelf: the save fails (134020) and writes nothing.
        XCTAssertEqual(expectError { try context.save() }?.code, ErrorCode.storeIncompatibleSchema)
        try context.delete(shelf)
        try context.save()
        XCTAssertEqual(sqliteRows(dir + "/gadgets.sqlite", "SELECT ZNAME FROM ZITEM"), [["drill"]])
        XCTAssertEqual(sqliteRows(dir + "/notes.sqlite", "SELECT ZTEXT FROM ZNOTE"), [["n1"]])
        let reader = ManagedObjectContext(coordinator: coordinator)
        XCTAssertEqual(names(try reader.fetch(FetchRequest(entityName: "Item"))), ["drill"])
        XCTAssertEqual(try context.fetch(FetchRequest(entityName: "Shelf")).count, 0, "no store holds Shelf: nothing to find")
        _ = gadgets
    }

    func testRule2_19_2_theDefaultConfigurationExcludesNamedOnesAndUnknownNamesAreRefused() throws {
        let coordinator = try PersistentStoreCoordinator(model: try makeWarehouseModel())
        XCTAssertEqual(expectError { try coordinator.addPersistentStore(type: StoreType.inMemory, configuration: "Nope", path: "") }?.code, ErrorCode.invalidArgument)
        try coordinator.addPersistentStore(type: StoreType.inMemory, configuration: nil, path: "")
        let mixed = expectError { try coordinator.addPersistentStore(type: StoreType.inMemory, configuration: "Notes", path: "") }
        XCTAssertEqual(mixed?.code, ErrorCode.invalidArgument)
        XCTAssertTrue(mixed?.message.contains("default configuration") ?? false)
        let other = try PersistentStoreCoordinator(model: try makeWarehouseModel())
        try other.addPersistentStore(type: StoreType.inMemory, configuration: "Notes", path: "")
        XCTAssertEqual(expectError { try other.addPersistentStore(type: StoreType.inMemory, configuration: nil, path: "") }?.code, ErrorCode.invalidArgument)
        XCTAssertEqual(other.persistentStores.count, 1)
    }

    func testRule2_19_2_atomicStoresLoadOnlyTheirConfiguration() throws {
        let path = dir + "/all.binary"
        do {
            let coordinator = try PersistentStoreCoordinator(model: try makeWarehouseModel())
            try coordinator.addPersistentStore(type: StoreType.binary, path: path)
            let context = ManagedObjectContext(coordinator: coordinator)
            try insert(context, "Shelf", ["name": .string("A")])
            try insert(context, "Note", ["text": .string("n")])
            try context.save()
        }
        let coordinator = try PersistentStoreCoordinator(model: try makeWarehouseModel())
        // The file records every entity's hash; the configuration has one entity.
        XCTAssertEqual(expectError { try coordinator.addPersistentStore(type: StoreType.binary, configuration: "Notes", path: path) }?.code,
                       ErrorCode.storeIncompatibleVersionHash)
        // Versioning ignored, its Shelf record still does not belong to the configuration.
        let ignoring: [String: PropertyListValue] = [StoreOptionKey.ignoreVersioning: .boolean(true)]
        XCTAssertEqual(expectError { try coordinator.addPersistentStore(type: StoreType.binary, configuration: "Notes", path: path, options: ignoring) }?.code,
                       ErrorCode.storeIncompatibleSchema)
        // A Binary store of a configuration keeps and reloads just its entities.
        let notesPath = dir + "/notes.binary"
        let notes = try coordinator.addPersistentStore(type: StoreType.binary, configuration: "Notes", path: notesPath)
        let context = ManagedObjectContext(coordinator: coordinator)
        try insert(context, "Note", ["text": .string("kept")])
        try context.save()
        XCTAssertTrue(try coordinator.managedObjectModel.isConfiguration("Notes", compatibleWithStoreMetadata: PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: notesPath)))
        try coordinator.removePersistentStore(notes)
        let again = try PersistentStoreCoordinator(model: try makeWarehouseModel())
        try again.addPersistentStore(type: StoreType.binary, configuration: "Notes", path: notesPath)
        let reader = ManagedObjectContext(coordinator: again)
        XCTAssertEqual(names(try reader.fetch(FetchRequest(entityName: "Note"))), ["kept"])
    }

    func testRule2_19_3_configurationsDriveAssignmentAndTheCompatibilityCheck() throws {
        let model = try makeWarehouseModel()
        let coordinator = try PersistentStoreCoordinator(model: model)
        let stock = try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: "Stock", path: dir + "/stock.sqlite")
        let notes = try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: "Notes", path: dir + "/notes.sqlite")
        let context = ManagedObjectContext(coordinator: coordinator)
        let shelf = try insert(context, "Shelf", ["name": .string("A")])
        let note = try insert(context, "Note", ["text": .string("n")])
        XCTAssertTrue(context.assignedStore(of: shelf) === stock)
        try context.save()
        XCTAssertEqual(shelf.objectID.storeIdentifier, stock.identifier)
        XCTAssertEqual(note.objectID.storeIdentifier, notes.identifier)
        XCTAssertTrue(model.isConfiguration("Stock", compatibleWithStoreMetadata: stock.metadata))
        XCTAssertFalse(model.isConfiguration("Notes", compatibleWithStoreMetadata: stock.metadata))
        // Opening a store with another configuration than it was written for is 134100.
        let other = try PersistentStoreCoordinator(model: try makeWarehouseModel())
        XCTAssertEqual(expectError { try other.addPersistentStore(type: StoreType.sqlite, configuration: "Notes", path: self.dir + "/stock.sqlite") }?.code,
                       ErrorCode.storeIncompatibleVersionHash)
    }

    // MARK: Routing

    func testTwoSQLiteStoresForTwoConfigurationsEndToEnd() throws {
        let stockPath = dir + "/stock.sqlite", notesPath = dir + "/notes.sqlite"
        var uris: [String] = []
        do {
            let coordinator = try PersistentStoreCoordinator(model: try makeWarehouseModel())
            try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: "Stock", path: stockPath)
            try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: "Notes", path: notesPath)
            let context = ManagedObjectContext(coordinator: coordinator)
            let shelf = try insert(context, "Shelf", ["name": .string("A")])
            for (i, name) in ["c", "a", "b"].enumerated() {
                let item = try insert(context, "Item", ["name": .string(name), "rank": .integer(Int64(i))])
                try shelf.insertObject(item, at: i, forKey: "items")
            }
            let note = try insert(context, "Note", ["text": .string("remember")])
            try context.save()
            uris = [shelf.objectID.uriRepresentation, note.objectID.uriRepresentation]
        }
        let coordinator = try PersistentStoreCoordinator(model: try makeWarehouseModel())
        let stock = try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: "Stock", path: stockPath)
        let notes = try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: "Notes", path: notesPath)
        let context = ManagedObjectContext(coordinator: coordinator)
        let shelfID = try XCTUnwrap(coordinator.managedObjectID(forURIRepresentation: uris[0]))
        let noteID = try XCTUnwrap(coordinator.managedObjectID(forURIRepresentation: uris[1]))
        XCTAssertEqual(shelfID.storeIdentifier, stock.identifier)
        XCTAssertEqual(noteID.storeIdentifier, notes.identifier)
        let shelf = try context.existingObject(with: shelfID)
        XCTAssertEqual(names(try shelf.objects(forKey: "items")), ["c", "a", "b"])
        XCTAssertEqual(try context.existingObject(with: noteID).string("text"), "remember")
        XCTAssertEqual(try context.count(for: FetchRequest(entityName: "Item")), 3)
        XCTAssertEqual(try context.count(for: FetchRequest(entityName: "Note")), 1)
        XCTAssertEqual(try coordinator.path(for: notes), notesPath)
        XCTAssertTrue(coordinator.persistentStore(for: stockPath) === stock)
        XCTAssertNil(coordinator.persistentStore(for: dir + "/nothing.sqlite"))
    }

    func testAFetchAcrossOverlappingConfigurationsMergesSortsAndWindows() throws {
        let coordinator = try PersistentStoreCoordinator(model: try makeWarehouseModel())
        let stock = try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: "Stock", path: dir + "/stock.sqlite")
        let all = try coordinator.addPersistentStore(type: StoreType.binary, configuration: "All", path: dir + "/all.binary")
        let context = ManagedObjectContext(coordinator: coordinator)
        for (name, rank, store) in [("s1", 5, stock), ("s2", 1, stock), ("s3", 3, stock), ("a1", 4, all), ("a2", 2, all), ("a3", 6, all)] {
            let item = try insert(context, "Item", ["name": .string(name), "rank": .integer(Int64(rank))])
            try context.assign(item, to: store)
        }
        try context.save()
        // Both stores have a row 1 of Item: two objects, two IDs.
        let fresh = ManagedObjectContext(coordinator: coordinator)
        let everything = try fresh.fetch(FetchRequest(entityName: "Item", sortKeys: [SortKey("rank")]))
        XCTAssertEqual(names(everything), ["s2", "a2", "s3", "a1", "s1", "a3"])
        let firstRows = everything.filter { $0.objectID.primaryKey == 1 }
        XCTAssertEqual(firstRows.count, 2)
        XCTAssertNotEqual(firstRows[0].objectID, firstRows[1].objectID)
        XCTAssertFalse(firstRows[0] === firstRows[1])
        let window = FetchRequest(entityName: "Item", sortKeys: [SortKey("rank", ascending: false)])
        window.fetchOffset = 1
        window.fetchLimit = 3
        XCTAssertEqual(names(try fresh.fetch(window)), ["s1", "a1", "s3"])
        XCTAssertEqual(try fresh.count(for: window), 3)
        XCTAssertEqual(try fresh.count(for: FetchRequest(entityName: "Item")), 6)
        let onlyAll = FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "rank > 1"), sortKeys: [SortKey("name")])
        onlyAll.affectedStores = [all]
        XCTAssertEqual(names(try fresh.fetch(onlyAll)), ["a1", "a2", "a3"])
        // Faults go to their own store.
        let reader = ManagedObjectContext(coordinator: coordinator)
        for o in everything {
            let fault = try reader.object(with: o.objectID)
            XCTAssertEqual(fault.string("name"), o.string("name"))
        }
        let detached = try PersistentStoreCoordinator(model: try makeWarehouseModel())
        let stray = try detached.addPersistentStore(type: StoreType.inMemory, path: "")
        onlyAll.affectedStores = [stray]
        XCTAssertEqual(expectError { _ = try fresh.fetch(onlyAll) }?.code, ErrorCode.invalidArgument)
    }

    func testAssignmentRules() throws {
        let coordinator = try PersistentStoreCoordinator(model: try makeWarehouseModel())
        let first = try coordinator.addPersistentStore(type: StoreType.inMemory, configuration: "Stock", path: "")
        let second = try coordinator.addPersistentStore(type: StoreType.inMemory, configuration: "All", path: "")
        let context = ManagedObjectContext(coordinator: coordinator)
        let a = try insert(context, "Item", ["name": .string("a")])
        XCTAssertTrue(context.assignedStore(of: a) === first, "the first store holding the entity")
        coordinator.setReadOnly(true, for: first)
        XCTAssertTrue(context.assignedStore(of: a) === second, "the first writable store holding it")
        coordinator.setReadOnly(false, for: first)
        let foreign = try PersistentStoreCoordinator(model: try makeWarehouseModel()).addPersistentStore(type: StoreType.inMemory, path: "")
        XCTAssertEqual(expectError { try context.assign(a, to: foreign) }?.code, ErrorCode.invalidArgument)
        try context.assign(a, to: second)
        try context.save()
        XCTAssertEqual(a.objectID.storeIdentifier, second.identifier)
        XCTAssertEqual(expectError { try context.assign(a, to: first) }?.code, ErrorCode.invalidArgument, "a saved object stays in its store")
        // Permanent IDs come from the object's store.
        let b = try insert(context, "Item", ["name": .string("b")])
        try context.assign(b, to: second)
        try context.obtainPermanentIDs(for: [b])
        XCTAssertEqual(b.objectID.storeIdentifier, second.identifier)
        XCTAssertEqual(b.objectID.primaryKey, 2)
        XCTAssertEqual(expectError { try context.assign(b, to: first) }?.code, ErrorCode.invalidArgument)
        try context.save()
        XCTAssertEqual(try context.count(for: FetchRequest(entityName: "Item")), 2)
    }

    func testARelationshipAcrossStoresIsRefusedAtSave() throws {
        let coordinator = try PersistentStoreCoordinator(model: try makeWarehouseModel())
        let stock = try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: "Stock", path: dir + "/stock.sqlite")
        let all = try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: "All", path: dir + "/all.sqlite")
        let context = ManagedObjectContext(coordinator: coordinator)
        let item = try insert(context, "Item", ["name": .string("bolt")])
        let tag = try insert(context, "Tag", ["name": .string("metal")])
        try context.assign(item, to: stock)
        try context.assign(tag, to: all)
        try item.addObject(tag, forKey: "tags")
        let error = expectError { try context.save() }
        XCTAssertEqual(error?.code, ErrorCode.externalRelationship)
        XCTAssertTrue(error?.message.contains("Item") ?? false)
        XCTAssertTrue(error?.message.contains("Tag") ?? false)
        XCTAssertEqual(sqliteRows(dir + "/stock.sqlite", "SELECT COUNT(*) FROM ZITEM"), [["0"]], "nothing was written")
        XCTAssertEqual(sqliteRows(dir + "/all.sqlite", "SELECT COUNT(*) FROM ZTAG"), [["0"]])
        try context.assign(tag, to: stock)
        try context.save()
        XCTAssertEqual(sqliteRows(dir + "/stock.sqlite", "SELECT COUNT(*) FROM ZTAG"), [["1"]])
    }

    func testASaveOverTwoStoresIsAllOrNothingBeforeTheFirstCommit() throws {
        let coordinator = try PersistentStoreCoordinator(model: try makeWarehouseModel())
        try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: "Stock", path: dir + "/stock.sqlite")
        let notes = try coordinator.addPersistentStore(type: StoreType.binary, configuration: "Notes", path: dir + "/missing-dir/notes.binary")
        let context = ManagedObjectContext(coordinator: coordinator)
        try insert(context, "Item", ["name": .string("x")])
        try insert(context, "Note", ["text": .string("y")])
        // The Binary store cannot write its file; the SQLite share rolls back with it.
        XCTAssertEqual(expectError { try context.save() }?.code, ErrorCode.storeSave)
        XCTAssertEqual(sqliteRows(dir + "/stock.sqlite", "SELECT COUNT(*) FROM ZITEM"), [["0"]])
        XCTAssertTrue(context.hasChanges)
        try coordinator.setPath(dir + "/notes.binary", for: notes)
        try context.save()
        XCTAssertEqual(sqliteRows(dir + "/stock.sqlite", "SELECT COUNT(*) FROM ZITEM"), [["1"]])
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/notes.binary"))
    }

    // MARK: Migration

    /// Fills a store: a shelf with an ordered list of items (one a gadget), tags on items,
    /// and a key handed out but never saved.
    private func populate(_ coordinator: PersistentStoreCoordinator) throws -> (ManagedObjectContext, ManagedObject) {
        let context = ManagedObjectContext(coordinator: coordinator)
        let shelf = try insert(context, "Shelf", ["name": .string("A")])
        let red = try insert(context, "Tag", ["name": .string("red")])
        let blue = try insert(context, "Tag", ["name": .string("blue")])
        for (i, name) in ["z", "y", "x"].enumerated() {
            let item = try insert(context, i == 1 ? "Gadget" : "Item", ["name": .string(name), "rank": .integer(Int64(i))])
            try shelf.insertObject(item, at: 0, forKey: "items")
            try item.addObject(red, forKey: "tags")
            if i == 2 { try item.addObject(blue, forKey: "tags") }
        }
        try context.save()
        let unsaved = try insert(context, "Item", ["name": .string("later")])
        try context.obtainPermanentIDs(for: [unsaved])
        try context.rollback()
        return (context, shelf)
    }

    private func checkMigrated(_ coordinator: PersistentStoreCoordinator, _ context: ManagedObjectContext, _ shelf: ManagedObject) throws {
        // Registered objects keep working and read from the new store.
        try context.refresh(shelf, mergeChanges: false)
        XCTAssertEqual(names(try shelf.objects(forKey: "items")), ["x", "y", "z"])
        let fresh = ManagedObjectContext(coordinator: coordinator)
        let items = try fresh.fetch(FetchRequest(entityName: "Item", sortKeys: [SortKey("name")]))
        XCTAssertEqual(names(items), ["x", "y", "z"])
        XCTAssertEqual(items[1].entity.name, "Gadget")
        XCTAssertEqual(Set(names(try items[0].objects(forKey: "tags"))), ["red", "blue"])
        let red = try XCTUnwrap(try fresh.fetch(FetchRequest(entityName: "Tag", predicate: try ObjectPredicate(format: "name == 'red'"))).first)
        XCTAssertEqual(Set(names(try red.objects(forKey: "items"))), ["x", "y", "z"])
        XCTAssertEqual(names(try XCTUnwrap(try items[0].object(forKey: "shelf")).objects(forKey: "items")), ["x", "y", "z"])
        // Keys keep counting from where the old store stopped (4 was handed out, not saved).
        let next = try insert(fresh, "Item", ["name": .string("w")])
        try fresh.save()
        XCTAssertEqual(next.objectID.primaryKey, 5)
    }

    private func migrate(from sourceType: String, to targetType: String) throws {
        let source = sourceType == StoreType.inMemory ? "" : dir + "/source.\(sourceType)"
        let target = dir + "/target.\(targetType)"
        let coordinator = try PersistentStoreCoordinator(model: try makeWarehouseModel())
        let old = try coordinator.addPersistentStore(type: sourceType, configuration: "Stock", path: source,
                                                     options: ["Custom": .string("kept"), StoreOptionKey.timeout: .integer(2)])
        try old.setMetadata(old.metadata.merging(["Owner": .string("me")]) { $1 })
        let (context, shelf) = try populate(coordinator)
        let new = try coordinator.migratePersistentStore(old, to: target, type: targetType)
        XCTAssertEqual(new.type, targetType)
        XCTAssertNotEqual(new.identifier, old.identifier, "the copy gets a UUID of its own, as on Core Data")
        XCTAssertEqual(new.configurationName, "Stock")
        XCTAssertEqual(new.options["Custom"], .string("kept"), "the old store's options carry over")
        XCTAssertEqual(new.metadata["Owner"], .string("me"))
        XCTAssertEqual(coordinator.persistentStores.count, 1)
        XCTAssertTrue(coordinator.persistentStores[0] === new)
        XCTAssertEqual(expectError { try coordinator.removePersistentStore(old) }?.code, ErrorCode.invalidArgument)
        try checkMigrated(coordinator, context, shelf)
        // A fresh stack opens the new file with everything in it.
        let reopened = try PersistentStoreCoordinator(model: try makeWarehouseModel())
        try reopened.addPersistentStore(type: targetType, configuration: "Stock", path: target)
        XCTAssertEqual(try ManagedObjectContext(coordinator: reopened).count(for: FetchRequest(entityName: "Item")), 4)
        if sourceType != StoreType.inMemory { XCTAssertTrue(FileManager.default.fileExists(atPath: source), "the old file stays") }
    }

    func testMigrateSQLiteToBinary() throws { try migrate(from: StoreType.sqlite, to: StoreType.binary) }
    func testMigrateBinaryToSQLite() throws { try migrate(from: StoreType.binary, to: StoreType.sqlite) }
    func testMigrateSQLiteToSQLiteIsSaveAs() throws { try migrate(from: StoreType.sqlite, to: StoreType.sqlite) }
    func testMigrateInMemoryToSQLite() throws { try migrate(from: StoreType.inMemory, to: StoreType.sqlite) }

    func testAFailedMigrationLeavesTheOldStoreAttachedAndNoFile() throws {
        let coordinator = try PersistentStoreCoordinator(model: try makeWarehouseModel())
        let old = try coordinator.addPersistentStore(type: StoreType.sqlite, path: dir + "/old.sqlite")
        let (context, shelf) = try populate(coordinator)
        let into = dir + "/no-such-dir/new.sqlite"
        XCTAssertNotNil(expectError { try coordinator.migratePersistentStore(old, to: into, type: StoreType.sqlite) })
        XCTAssertFalse(FileManager.default.fileExists(atPath: into))
        try Data("occupied".utf8).write(to: URL(fileURLWithPath: dir + "/taken.binary"))
        XCTAssertEqual(expectError { try coordinator.migratePersistentStore(old, to: self.dir + "/taken.binary", type: StoreType.binary) }?.code,
                       ErrorCode.storeOperation)
        XCTAssertEqual(try String(contentsOfFile: dir + "/taken.binary", encoding: .utf8), "occupied")
        XCTAssertEqual(expectError { try coordinator.migratePersistentStore(old, to: self.dir + "/x", type: "Nope") }?.code, ErrorCode.storeInvalidType)
        XCTAssertTrue(coordinator.persistentStores[0] === old)
        XCTAssertEqual(names(try shelf.objects(forKey: "items")), ["x", "y", "z"])
        try insert(context, "Note", ["text": .string("still writable")])
        try context.save()
    }

    // MARK: §2.16 Store options

    func testOption2_16_readOnly() throws {
        let coordinator = try PersistentStoreCoordinator(model: try makeWarehouseModel())
        // A read-only store is opened, never made: there is none yet.
        XCTAssertEqual(expectError { try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: dir + "/ro.sqlite",
                                                                        options: [StoreOptionKey.readOnly: .boolean(true)]) }?.code,
                       ErrorCode.storeOpen)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/ro.sqlite"))
        try PersistentStoreCoordinator(model: try makeWarehouseModel()).addPersistentStore(type: StoreType.sqlite, path: dir + "/ro.sqlite").close()
        let store = try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: dir + "/ro.sqlite",
                                                       options: [StoreOptionKey.readOnly: .boolean(true)])
        XCTAssertTrue(coordinator.isReadOnly(store))
        let context = ManagedObjectContext(coordinator: coordinator)
        try insert(context, "Note", ["text": .string("no")])
        XCTAssertEqual(expectError { try context.save() }?.code, ErrorCode.storeOperation)
        XCTAssertEqual(expectError { try coordinator.addPersistentStore(type: StoreType.inMemory, configuration: nil, path: "", options: [StoreOptionKey.readOnly: .string("yes")]) }?.code,
                       ErrorCode.invalidArgument)
    }

    func testOption2_16_timeoutGives134090WhenAnotherConnectionHoldsTheLock() throws {
        let path = dir + "/busy.sqlite"
        let coordinator = try PersistentStoreCoordinator(model: try makeWarehouseModel())
        let store = try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: path,
                                                       options: [StoreOptionKey.timeout: .real(0.3)])
        XCTAssertEqual(store.options[StoreOptionKey.timeout], .real(0.3))
        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open(path, &db), SQLITE_OK)
        defer { sqlite3_close(db) }
        XCTAssertEqual(sqlite3_exec(db, "BEGIN IMMEDIATE", nil, nil, nil), SQLITE_OK)
        let context = ManagedObjectContext(coordinator: coordinator)
        try insert(context, "Note", ["text": .string("wait")])
        let start = Date()
        XCTAssertEqual(expectError { try context.save() }?.code, ErrorCode.storeTimeout)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.25, "it waited for the timeout")
        XCTAssertEqual(sqlite3_exec(db, "COMMIT", nil, nil, nil), SQLITE_OK)
        try context.save()
        XCTAssertEqual(expectError { try coordinator.addPersistentStore(type: StoreType.inMemory, configuration: nil, path: "", options: [StoreOptionKey.timeout: .integer(-1)]) }?.code,
                       ErrorCode.invalidArgument)
    }

    func testOption2_16_pragmasSetTheJournalModeAndRefuseAnythingButPlainWords() throws {
        let wal = dir + "/wal.sqlite", plain = dir + "/delete.sqlite"
        let coordinator = try PersistentStoreCoordinator(model: try makeWarehouseModel())
        try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: "Stock", path: wal)
        try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: "Notes", path: plain, options: [
            StoreOptionKey.sqlitePragmas: .dictionary(["journal_mode": .string("DELETE"), "synchronous": .string("OFF"), "cache_size": .integer(-4000)]),
        ])
        XCTAssertEqual(sqliteRows(wal, "PRAGMA journal_mode"), [["wal"]])
        XCTAssertEqual(sqliteRows(plain, "PRAGMA journal_mode"), [["delete"]])
        let context = ManagedObjectContext(coordinator: coordinator)
        try insert(context, "Note", ["text": .string("plain")])
        try context.save()
        XCTAssertEqual(sqliteRows(plain, "SELECT ZTEXT FROM ZNOTE"), [["plain"]])
        for pragmas: [String: PropertyListValue] in [
            ["journal_mode; DROP TABLE ZNOTE": .string("WAL")], ["journal_mode": .string("WAL; DROP TABLE ZNOTE")],
            ["synchronous": .string("'OFF'")], ["": .string("1")], ["user_version": .array([])],
        ] {
            let other = try PersistentStoreCoordinator(model: try makeWarehouseModel())
            XCTAssertEqual(expectError { try other.addPersistentStore(type: StoreType.sqlite, configuration: "Notes", path: plain, options: [StoreOptionKey.sqlitePragmas: .dictionary(pragmas)]) }?.code,
                           ErrorCode.invalidArgument, "\(pragmas)")
        }
        XCTAssertEqual(sqliteRows(plain, "SELECT ZTEXT FROM ZNOTE"), [["plain"]])
    }

    func testOption2_16_analyzeAndManualVacuum() throws {
        let path = dir + "/tidy.sqlite"
        let pragmas: PropertyListValue = .dictionary(["journal_mode": .string("DELETE")])
        do {
            let coordinator = try PersistentStoreCoordinator(model: try makeWarehouseModel())
            try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: path, options: [StoreOptionKey.sqlitePragmas: pragmas])
            let context = ManagedObjectContext(coordinator: coordinator)
            var notes: [ManagedObject] = []
            for i in 0..<400 { notes.append(try insert(context, "Note", ["text": .string(String(repeating: "n\(i)", count: 50))])) }
            try context.save()
            for n in notes.dropFirst() { try context.delete(n) }
            try context.save()
        }
        XCTAssertTrue(sqliteRows(path, "SELECT name FROM sqlite_master WHERE name = 'sqlite_stat1'").isEmpty)
        let before = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let coordinator = try PersistentStoreCoordinator(model: try makeWarehouseModel())
        try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: path, options: [
            StoreOptionKey.sqlitePragmas: pragmas, StoreOptionKey.sqliteAnalyze: .boolean(true), StoreOptionKey.sqliteManualVacuum: .boolean(true),
        ])
        let after = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        XCTAssertLessThan(after, before, "VACUUM gave the deleted rows' pages back")
        XCTAssertFalse(sqliteRows(path, "SELECT name FROM sqlite_master WHERE name = 'sqlite_stat1'").isEmpty, "ANALYZE ran")
        XCTAssertEqual(try ManagedObjectContext(coordinator: coordinator).count(for: FetchRequest(entityName: "Note")), 1)
    }

    func testOption2_16_ignoreVersioningOpensAStoreWithOtherHashesWhileItsTablesFit() throws {
        for type in [StoreType.sqlite, StoreType.binary] {
            let path = dir + "/versions.\(type)"
            do {
                let coordinator = try PersistentStoreCoordinator(model: try makeWarehouseModel())
                try coordinator.addPersistentStore(type: type, path: path)
                let context = ManagedObjectContext(coordinator: coordinator)
                try insert(context, "Item", ["name": .string("old")])
                try context.save()
            }
            let changed = try makeWarehouseModel(hashModifier: "2")
            XCTAssertEqual(expectError { try PersistentStoreCoordinator(model: changed).addPersistentStore(type: type, path: path) }?.code,
                           ErrorCode.storeIncompatibleVersionHash)
            let ignoring: [String: PropertyListValue] = [StoreOptionKey.ignoreVersioning: .boolean(true)]
            let coordinator = try PersistentStoreCoordinator(model: changed)
            try coordinator.addPersistentStore(type: type, configuration: nil, path: path, options: ignoring)
            let context = ManagedObjectContext(coordinator: coordinator)
            XCTAssertEqual(names(try context.fetch(FetchRequest(entityName: "Item"))), ["old"])
            try insert(context, "Item", ["name": .string("new")])
            try context.save()
            // The hashes were brought up to date by the save: the changed model now opens it plainly.
            let updated = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: path)
            XCTAssertTrue(changed.isConfiguration(nil, compatibleWithStoreMetadata: updated), type)
            try PersistentStoreCoordinator(model: try makeWarehouseModel(hashModifier: "2")).addPersistentStore(type: type, path: path)
            if type == StoreType.sqlite {
                // A column the file lacks: read-only, the tables do not fit (134020); writable,
                // the column is added and reads as nil.
                let wider = try PersistentStoreCoordinator(model: try makeWarehouseModel(hashModifier: "2", extraAttribute: true))
                var readOnly = ignoring
                readOnly[StoreOptionKey.readOnly] = .boolean(true)
                XCTAssertEqual(expectError { try wider.addPersistentStore(type: type, configuration: nil, path: path, options: readOnly) }?.code,
                               ErrorCode.storeIncompatibleSchema)
                try wider.addPersistentStore(type: type, configuration: nil, path: path, options: ignoring)
                let items = try ManagedObjectContext(coordinator: wider).fetch(FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "colour == nil")))
                XCTAssertEqual(items.count, 2)
            }
        }
    }

    func testOption2_16_unknownOptionsAreKeptAndOptionsCarryToMigratedStores() throws {
        let coordinator = try PersistentStoreCoordinator(model: try makeWarehouseModel())
        let store = try coordinator.addPersistentStore(type: StoreType.inMemory, configuration: nil, path: "",
                                                       options: ["AppSpecific": .integer(7), StoreOptionKey.migrateAutomatically: .boolean(true)])
        XCTAssertEqual(store.options["AppSpecific"], .integer(7))
        let moved = try coordinator.migratePersistentStore(store, to: dir + "/moved.sqlite", type: StoreType.sqlite, options: [
            StoreOptionKey.sqlitePragmas: .dictionary(["journal_mode": .string("TRUNCATE")]), StoreOptionKey.readOnly: .boolean(true),
        ])
        XCTAssertEqual(moved.options[StoreOptionKey.sqlitePragmas], .dictionary(["journal_mode": .string("TRUNCATE")]))
        XCTAssertNil(moved.options["AppSpecific"], "options given to the migration replace the old ones")
        XCTAssertTrue(coordinator.isReadOnly(moved))
        // TRUNCATE leaves an empty journal beside the file after a write (WAL would leave -wal).
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/moved.sqlite-journal"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/moved.sqlite-wal"))
    }

    // MARK: Moving stores and their metadata

    func testSetPathMovesAtomicStoresAndReopensSQLiteStores() throws {
        let coordinator = try PersistentStoreCoordinator(model: try makeWarehouseModel())
        let binary = try coordinator.addPersistentStore(type: StoreType.binary, configuration: "Notes", path: dir + "/a.binary")
        let sqlite = try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: "Stock", path: dir + "/a.sqlite",
                                                        options: [StoreOptionKey.sqlitePragmas: .dictionary(["journal_mode": .string("DELETE")])])
        let context = ManagedObjectContext(coordinator: coordinator)
        try insert(context, "Note", ["text": .string("one")])
        let item = try insert(context, "Item", ["name": .string("one")])
        try context.save()
        try coordinator.setPath(dir + "/b.binary", for: binary)
        XCTAssertEqual(binary.path, dir + "/b.binary")
        XCTAssertTrue(coordinator.persistentStore(for: dir + "/b.binary") === binary)
        try insert(context, "Note", ["text": .string("two")])
        try context.save()
        XCTAssertEqual(try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: dir + "/b.binary")[StoreMetadataKey.storeUUID],
                       .string(binary.identifier))
        // SQLite: the file must already be there, and be this store.
        XCTAssertEqual(expectError { try coordinator.setPath(self.dir + "/missing.sqlite", for: sqlite) }?.code, ErrorCode.storeOpen)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/missing.sqlite"))
        let stranger = try PersistentStoreCoordinator(model: try makeWarehouseModel())
        try stranger.addPersistentStore(type: StoreType.sqlite, configuration: "Stock", path: dir + "/other.sqlite")
        XCTAssertEqual(expectError { try coordinator.setPath(self.dir + "/other.sqlite", for: sqlite) }?.code, ErrorCode.storeOperation)
        XCTAssertEqual(rename(dir + "/a.sqlite", dir + "/c.sqlite"), 0)
        try coordinator.setPath(dir + "/c.sqlite", for: sqlite)
        XCTAssertEqual(try coordinator.path(for: sqlite), dir + "/c.sqlite")
        try item.setValue(.string("renamed"), forKey: "name")
        try context.save()
        XCTAssertEqual(sqliteRows(dir + "/c.sqlite", "SELECT ZNAME FROM ZITEM"), [["renamed"]])
    }

    func testMetadataOfAnAttachedStoreIsWrittenAtItsNextSave() throws {
        let path = dir + "/meta.sqlite"
        let coordinator = try PersistentStoreCoordinator(model: try makeWarehouseModel())
        let store = try coordinator.addPersistentStore(type: StoreType.sqlite, path: path)
        var metadata = try coordinator.metadata(for: store)
        metadata["Owner"] = .string("warehouse")
        metadata[StoreMetadataKey.storeUUID] = nil
        try coordinator.setMetadata(metadata, for: store)
        XCTAssertEqual(try coordinator.metadata(for: store)["Owner"], .string("warehouse"))
        XCTAssertEqual(try coordinator.metadata(for: store)[StoreMetadataKey.storeUUID], .string(store.identifier))
        XCTAssertNil(try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: path)["Owner"], "not written yet")
        let context = ManagedObjectContext(coordinator: coordinator)
        try insert(context, "Note", ["text": .string("x")])
        try context.save()
        XCTAssertEqual(try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: path)["Owner"], .string("warehouse"))
        metadata[StoreMetadataKey.storeUUID] = .string("another")
        XCTAssertEqual(expectError { try coordinator.setMetadata(metadata, for: store) }?.code, ErrorCode.invalidArgument)
        let stranger = try PersistentStoreCoordinator(model: try makeWarehouseModel()).addPersistentStore(type: StoreType.inMemory, path: "")
        XCTAssertEqual(expectError { _ = try coordinator.metadata(for: stranger) }?.code, ErrorCode.invalidArgument)
    }
}
