import Foundation
import ObjectGraph
import XCTest

/// Conversions of user values (AttributeValue.swift): a value that cannot be stored is an
/// error for the call that gave it, never a trap.
final class AttributeValueTests: XCTestCase {
    func testDecimalsTakeFiniteDoublesOnly() throws {
        for (v, code) in [(Double.infinity, ErrorCode.validationNumberTooLarge), (-Double.infinity, ErrorCode.validationNumberTooSmall),
                          (Double.nan, ErrorCode.validationNumberTooLarge), (1e300, ErrorCode.validationNumberTooLarge),
                          (-Double.greatestFiniteMagnitude, ErrorCode.validationNumberTooLarge)] {
            let e = expectError { _ = try AttributeValue.double(v).coerced(to: .decimal, key: "price", entity: "Book") }
            XCTAssertEqual(e?.code, code, "\(v)")
            XCTAssertTrue(e?.message.contains("Book.price") ?? false, e?.message ?? "")
        }
        XCTAssertEqual(try AttributeValue.double(12.5).coerced(to: .decimal, key: "price", entity: "Book"), .decimal(Decimal(string: "12.5")!))
        XCTAssertEqual(try AttributeValue.double(1e-300).coerced(to: .decimal, key: "price", entity: "Book"), .decimal(0))
        XCTAssertEqual(try AttributeValue.integer(Int64.max).coerced(to: .decimal, key: "price", entity: "Book"), .decimal(Decimal(Int64.max)))
    }

    func testSettingAnInfiniteDecimalFailsAndChangesNothing() throws {
        let stack = try Stack(model: try makeLibraryModel(), path: try temporaryDirectory() + "/b.sqlite")
        let book = try stack.context.insertObject(entityName: "Book")
        try book.setValue(.double(2.5), forKey: "price")
        for v in [Double.infinity, -Double.infinity, Double.nan] {
            XCTAssertNotNil(expectError { try book.setValue(.double(v), forKey: "price") })
            XCTAssertEqual(try book.value(forKey: "price") as AttributeValue, .decimal(Decimal(string: "2.5")!))
        }
        try stack.context.save()
    }

    /// Integer attributes take doubles only when exact and in range (no Int(Double) trap).
    func testOtherNumericConversionsOfExtremeValues() throws {
        for v in [Double.infinity, -Double.infinity, Double.nan, 1e300] {
            for type in [AttributeType.integer16, .integer32, .integer64, .boolean, .date, .string] {
                _ = try? AttributeValue.double(v).coerced(to: type, key: "k", entity: "E")
            }
            XCTAssertNotNil(try? AttributeValue.double(v).coerced(to: .double, key: "k", entity: "E"))
        }
        XCTAssertEqual(try AttributeValue.double(3e38 * 10).coerced(to: .float, key: "k", entity: "E"), .double(Double(Float.infinity)))
    }

    /// Strings keep embedded NULs, as Core Data and SQLite keep them: stored, read back,
    /// and matched by predicates (bound with their length, in SQL too).
    func testStringsKeepEmbeddedNULsInEveryStore() throws {
        for type in [StoreType.sqlite, StoreType.binary, StoreType.inMemory] {
            let path = try temporaryDirectory() + "/b.\(type)"
            let stack = try Stack(model: try makeLibraryModel(), path: path, type: type)
            for title in ["a\0b", "a", "a\0c", "\0"] {
                try stack.context.insertObject(entityName: "Book").setValue(.string(title), forKey: "title")
            }
            try stack.context.save()
            let fresh = ManagedObjectContext(coordinator: stack.coordinator)
            let request = FetchRequest(entityName: "Book")
            request.predicate = try ObjectPredicate(format: "title == %@", arguments: ["a\0b"])
            let found = try fresh.fetch(request)
            XCTAssertEqual(try found.map { try $0.value(forKey: "title") as AttributeValue }, [.string("a\0b")], type)
            request.predicate = try ObjectPredicate(format: "title BEGINSWITH %@", arguments: ["a\0"])
            XCTAssertEqual(try fresh.fetch(request).count, 2, type)
            let all = FetchRequest(entityName: "Book")
            all.sortKeys = [SortKey("title")]
            XCTAssertEqual(try fresh.fetch(all).map { try $0.value(forKey: "title") as AttributeValue }, [.string("\0"), "a", .string("a\0b"), .string("a\0c")], type)
        }
    }

    /// A URI attribute gives back its text exactly as set: a space is not percent-encoded,
    /// and an encoded one stays encoded.
    func testURIsComeBackExactlyAsSet() throws {
        let texts = ["https://example.org/a b?q=1 2#f g", "https://example.org/a%20b", "mailto:ann@example.org", "https://example.org/é"]
        for type in [StoreType.sqlite, StoreType.binary, StoreType.inMemory] {
            let path = try temporaryDirectory() + "/b.\(type)"
            let stack = try Stack(model: try makeLibraryModel(), path: path, type: type)
            for text in texts {
                let book = try stack.context.insertObject(entityName: "Book")
                try book.setValue(.string(text), forKey: "title")
                try book.setValue(.uri(text), forKey: "link")
            }
            try stack.context.save()
            let reader = try Stack(model: try makeLibraryModel(), path: type == StoreType.inMemory ? path : path, type: type)
            let context = type == StoreType.inMemory ? ManagedObjectContext(coordinator: stack.coordinator) : reader.context
            for book in try context.fetch(FetchRequest(entityName: "Book")) {
                guard case .string(let title) = try book.value(forKey: "title") as AttributeValue else { return XCTFail("no title") }
                XCTAssertEqual(try book.value(forKey: "link"), .uri(title), type)
            }
        }
        XCTAssertEqual(AttributeValue.uri(URL(string: "https://example.org/x")!), .uri("https://example.org/x"))
        XCTAssertEqual(AttributeValue.uri("https://example.org/a b").url?.absoluteString, "https://example.org/a%20b")
    }
}
