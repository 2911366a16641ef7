import Foundation
import ObjectGraph
import XCTest

/// Row readers (RowReader.swift) evaluate key paths over stored rows for stores that sort
/// and filter in memory; they keep what they read from alive for as long as they exist.
final class RowReaderTests: XCTestCase {
    /// An object-ID fetch sorted by a to-one key path reads the destination rows after the
    /// fetch's row source went out of use (this was "attempted to read an unowned
    /// reference but the object was already destroyed").
    func testObjectIDFetchSortedByAToOneKeyPathOnMemoryStores() throws {
        for type in [StoreType.inMemory, StoreType.binary] {
            let path = try temporaryDirectory() + "/books.\(type)"
            let stack = try Stack(model: try makeLibraryModel(), path: path, type: type)
            for (name, title) in [("Zed", "A"), ("Amy", "B"), ("Kim", "C")] {
                let author = try stack.context.insertObject(entityName: "Author")
                try author.setValue(.string(name), forKey: "name")
                let book = try stack.context.insertObject(entityName: "Book")
                try book.setValue(.string(title), forKey: "title")
                try book.setObject(author, forKey: "author")
            }
            try stack.context.save()
            let fresh = ManagedObjectContext(coordinator: stack.coordinator)
            let request = FetchRequest(entityName: "Book")
            request.sortKeys = [SortKey("author.name")]
            request.resultType = .managedObjectID
            let ids = try fresh.fetchObjectIDs(request)
            let titles = try ids.map { try fresh.object(with: $0).value(forKey: "title") as AttributeValue }
            XCTAssertEqual(titles, ["B", "C", "A"], type)
            // Pending changes merged in, and a predicate through the to-one as well.
            request.predicate = try ObjectPredicate(format: "author.name != 'Kim'")
            XCTAssertEqual(try fresh.fetchObjectIDs(request).count, 2, type)
            let dictionaries = FetchRequest(entityName: "Book")
            dictionaries.resultType = .dictionary
            dictionaries.sortKeys = [SortKey("author.name", ascending: false)]
            dictionaries.propertiesToFetch = [.property("title")]
            XCTAssertEqual(try fresh.fetchDictionaries(dictionaries).map { $0["title"]?.attributeValue }, ["A", "C", "B"], type)
        }
    }
}
