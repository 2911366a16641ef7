import Foundation
import ObjectGraph
import XCTest

/// Two versions of a small catalogue model and a store written with the first, shared
/// by the migration tests.
enum Catalogue {
    /// Version 1: Shelf ←→> Item, Item >←→< Tag, Gone.
    static func version1() throws -> ManagedObjectModel {
        let model = ManagedObjectModel()
        let shelf = try model.addEntity(named: "Shelf")
        try shelf.addAttribute(named: "label", type: .string)
        let item = try model.addEntity(named: "Item")
        try item.addAttribute(named: "title", type: .string)
        try item.addAttribute(named: "weight", type: .integer32)
        try item.addAttribute(named: "obsolete", type: .string)
        let tag = try model.addEntity(named: "Tag")
        try tag.addAttribute(named: "word", type: .string)
        let items = try shelf.addRelationship(named: "items", destination: item, toMany: true)
        let onShelf = try item.addRelationship(named: "shelf", destination: shelf)
        try items.setInverse(onShelf)
        let tags = try item.addRelationship(named: "tags", destination: tag, toMany: true)
        let tagged = try tag.addRelationship(named: "items", destination: item, toMany: true)
        try tags.setInverse(tagged)
        let gone = try model.addEntity(named: "Gone")
        try gone.addAttribute(named: "x", type: .integer16)
        return model
    }

    /// Version 2: `title` renamed `name`, `weight` a double, `obsolete` dropped, `rating`
    /// added with a default; Gone removed; an entity added whose name sorts first, so
    /// every entity number changes.
    static func version2(shelfLabelRequired: Bool = false) throws -> ManagedObjectModel {
        let model = ManagedObjectModel()
        let shelf = try model.addEntity(named: "Shelf")
        try shelf.addAttribute(named: "label", type: .string, optional: !shelfLabelRequired)
        let item = try model.addEntity(named: "Item")
        try item.addAttribute(named: "name", type: .string).setRenamingIdentifier("title")
        try item.addAttribute(named: "weight", type: .double)
        try item.addAttribute(named: "rating", type: .integer16, optional: false, defaultValue: 3)
        let tag = try model.addEntity(named: "Tag")
        try tag.addAttribute(named: "word", type: .string)
        let items = try shelf.addRelationship(named: "items", destination: item, toMany: true)
        let onShelf = try item.addRelationship(named: "shelf", destination: shelf)
        try items.setInverse(onShelf)
        let tags = try item.addRelationship(named: "tags", destination: tag, toMany: true)
        let tagged = try tag.addRelationship(named: "items", destination: item, toMany: true)
        try tags.setInverse(tagged)
        let aisle = try model.addEntity(named: "Aisle")
        try aisle.addAttribute(named: "number", type: .integer16)
        return model
    }

    /// A version-1 store with two shelves, `items` items and three tags; returns its path.
    static func makeStore(items: Int = 5, labelled: Bool = true) throws -> String {
        let path = try temporaryDirectory() + "/catalogue.sqlite"
        let stack = try Stack(model: try version1(), path: path)
        let context = stack.context
        var shelves: [ManagedObject] = []
        for i in 0..<2 {
            let shelf = try context.insertObject(entityName: "Shelf")
            try shelf.setValue(labelled || i == 0 ? .string("shelf \(i)") : .null, forKey: "label")
            shelves.append(shelf)
        }
        var tags: [ManagedObject] = []
        for word in ["red", "green", "blue"] {
            let tag = try context.insertObject(entityName: "Tag")
            try tag.setValue(.string(word), forKey: "word")
            tags.append(tag)
        }
        for i in 0..<items {
            let item = try context.insertObject(entityName: "Item")
            try item.setValue(.string("item \(i)"), forKey: "title")
            try item.setValue(.integer(Int64(i * 10)), forKey: "weight")
            try item.setValue(.string("old"), forKey: "obsolete")
            try item.setObject(shelves[i % 2], forKey: "shelf")
            try item.setObjects(Array(tags.prefix(i % 4)), forKey: "tags")
        }
        let gone = try context.insertObject(entityName: "Gone")
        try gone.setValue(.integer(7), forKey: "x")
        try context.save()
        try stack.coordinator.removePersistentStore(stack.store)
        var metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: StoreType.sqlite, at: path)
        metadata["app.custom"] = .string("kept")
        try PersistentStoreCoordinator.setMetadata(metadata, forPersistentStoreOfType: StoreType.sqlite, at: path)
        return path
    }

    static let migrateOptions: [String: PropertyListValue] = [
        StoreOptionKey.migrateAutomatically: .boolean(true), StoreOptionKey.inferMappingModel: .boolean(true),
    ]

    /// Checks a store migrated to version 2 holds everything the version-1 store had.
    static func checkMigrated(_ context: ManagedObjectContext, items: Int = 5, file: StaticString = #filePath, line: UInt = #line) throws {
        let all = try context.fetch(FetchRequest(entityName: "Item", sortKeys: [SortKey("name")]))
        XCTAssertEqual(all.count, items, file: file, line: line)
        let first = try XCTUnwrap(all.first { (try? $0.value(forKey: "name")) == .string("item 3") })
        XCTAssertEqual(try first.value(forKey: "weight"), .double(30), file: file, line: line)
        XCTAssertEqual(try first.value(forKey: "rating"), .integer(3), file: file, line: line)
        XCTAssertEqual(try first.object(forKey: "shelf")?.value(forKey: "label"), .string("shelf 1"), file: file, line: line)
        XCTAssertEqual(Set(try first.objects(forKey: "tags").map { try $0.value(forKey: "word") }), [.string("red"), .string("green"), .string("blue")], file: file, line: line)
        XCTAssertEqual(try context.count(for: FetchRequest(entityName: "Shelf")), 2, file: file, line: line)
        XCTAssertEqual(try context.count(for: FetchRequest(entityName: "Aisle")), 0, file: file, line: line)
    }
}
