import Foundation
import ObjectGraph
import XCTest

final class ContextTests: XCTestCase {
    var dir = ""
    override func setUpWithError() throws { dir = try temporaryDirectory() }

    func testEveryAttributeTypeSurvivesSaveAndReopen() throws {
        let path = dir + "/books.sqlite"
        let published = Date(timeIntervalSince1970: 1_700_000_000.25)
        let uuid = UUID()
        do {
            let stack = try Stack(model: try makeLibraryModel(), path: path)
            let author = try stack.context.insertObject(entityName: "Author")
            try author.setValue("Terry", forKey: "name")
            let book = try stack.context.insertObject(entityName: "Book")
            XCTAssertEqual(try book.value(forKey: "title"), "Untitled")  // default on insert
            XCTAssertEqual(try book.value(forKey: "inPrint"), true)
            try book.setValue("Strata", forKey: "title")
            try book.setValue(.integer(Int64(Int32.max)), forKey: "pages")
            try book.setValue(.integer(Int64.min), forKey: "copies")
            try book.setValue(.decimal(Decimal(string: "12.50")!), forKey: "price")
            try book.setValue(0.1, forKey: "weight")
            try book.setValue(0.1, forKey: "width")
            try book.setValue(false, forKey: "inPrint")
            try book.setValue(.date(published), forKey: "published")
            try book.setValue(.data(Data([0, 1, 2, 255])), forKey: "cover")
            try book.setValue(.uuid(uuid), forKey: "isbnUUID")
            try book.setValue(.uri(URL(string: "https://example.org/strata?x=1")!), forKey: "link")
            try book.setObject(author, forKey: "author")
            try stack.context.save()
        }
        let stack = try Stack(model: try makeLibraryModel(), path: path)
        let books = try stack.context.fetch(FetchRequest(entityName: "Book"))
        XCTAssertEqual(books.count, 1)
        let book = books[0]
        XCTAssertEqual(try book.value(forKey: "title"), "Strata")
        XCTAssertEqual(try book.value(forKey: "pages"), .integer(Int64(Int32.max)))
        XCTAssertEqual(try book.value(forKey: "copies"), .integer(Int64.min))
        XCTAssertEqual(try book.value(forKey: "price"), .decimal(Decimal(string: "12.5")!))
        XCTAssertEqual(try book.value(forKey: "weight"), .double(0.1))
        XCTAssertEqual(try book.value(forKey: "width"), .double(Double(Float(0.1))))
        XCTAssertEqual(try book.value(forKey: "inPrint"), false)
        XCTAssertEqual(try book.value(forKey: "published"), .date(published))
        XCTAssertEqual(try book.value(forKey: "cover"), .data(Data([0, 1, 2, 255])))
        XCTAssertEqual(try book.value(forKey: "isbnUUID"), .uuid(uuid))
        XCTAssertEqual(try book.value(forKey: "link"), .uri(URL(string: "https://example.org/strata?x=1")!))
        XCTAssertEqual(try book.object(forKey: "author")?.value(forKey: "name"), "Terry")
        // Dates on disk are seconds since 2001-01-01 UTC.
        XCTAssertEqual(sqliteRows(path, "SELECT ZPUBLISHED FROM ZBOOK")[0][0], String(published.timeIntervalSinceReferenceDate))
    }

    func testSaveMakesIDsPermanentAndAdvancesZMax() throws {
        let path = dir + "/books.sqlite"
        let stack = try Stack(model: try makeLibraryModel(), path: path)
        let a = try stack.context.insertObject(entityName: "Author")
        try a.setValue("A", forKey: "name")
        let b = try stack.context.insertObject(entityName: "Author")
        try b.setValue("B", forKey: "name")
        XCTAssertTrue(a.objectID.isTemporaryID)
        XCTAssertTrue(a.objectID.uriRepresentation.hasPrefix("x-coredata:///Author/t"))
        XCTAssertTrue(stack.context.hasChanges)
        try stack.context.save()
        XCTAssertFalse(stack.context.hasChanges)
        XCTAssertFalse(a.objectID.isTemporaryID)
        XCTAssertEqual(a.objectID.uriRepresentation, "x-coredata://\(stack.store.identifier)/Author/p1")
        XCTAssertEqual(b.objectID.primaryKey, 2)
        XCTAssertEqual(sqliteRows(path, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Author'"), [["2"]])
        XCTAssertEqual(sqliteRows(path, "SELECT Z_PK, Z_ENT, Z_OPT, ZNAME FROM ZAUTHOR ORDER BY Z_PK"), [["1", "1", "1", "A"], ["2", "1", "1", "B"]])
        try a.setValue("A2", forKey: "name")
        XCTAssertTrue(a.isUpdated)
        try stack.context.save()
        XCTAssertEqual(sqliteRows(path, "SELECT Z_OPT, ZNAME FROM ZAUTHOR WHERE Z_PK = 1"), [["2", "A2"]])
    }

    func testInverseFollowsFromEitherSide() throws {
        let stack = try Stack(model: try makeLibraryModel(), path: dir + "/books.sqlite")
        let ctx = stack.context
        let terry = try ctx.insertObject(entityName: "Author"), neil = try ctx.insertObject(entityName: "Author")
        let book = try ctx.insertObject(entityName: "Book")
        try book.setObject(terry, forKey: "author")
        XCTAssertEqual(try terry.objects(forKey: "books").map(\.objectID), [book.objectID])
        try neil.addObject(book, forKey: "books")
        XCTAssertTrue(try book.object(forKey: "author") === neil)
        XCTAssertTrue(try terry.objects(forKey: "books").isEmpty)
        try neil.removeObject(book, forKey: "books")
        XCTAssertNil(try book.object(forKey: "author"))
    }

    func testRelationshipsSurviveReopenFromBothSides() throws {
        let path = dir + "/books.sqlite"
        do {
            let stack = try Stack(model: try makeLibraryModel(), path: path)
            let author = try stack.context.insertObject(entityName: "Author")
            try author.setValue("Terry", forKey: "name")
            for title in ["Mort", "Guards! Guards!", "Strata"] {
                let b = try stack.context.insertObject(entityName: "Book")
                try b.setValue(.string(title), forKey: "title")
                try author.addObject(b, forKey: "books")
            }
            try stack.context.save()
        }
        let stack = try Stack(model: try makeLibraryModel(), path: path)
        let author = try stack.context.fetch(FetchRequest(entityName: "Author"))[0]
        XCTAssertTrue(author.isFault, "a fetched object is a fault whose row is already read")
        let titles = try author.objects(forKey: "books").map { try $0.value(forKey: "title") }
        XCTAssertEqual(Set(titles), ["Mort", "Guards! Guards!", "Strata"])
        let sorted = try stack.context.fetch(FetchRequest(entityName: "Book", sortKeys: [SortKey("title", ascending: false)]))
        XCTAssertEqual(try sorted.map { try $0.value(forKey: "title") }, ["Strata", "Mort", "Guards! Guards!"])
        XCTAssertTrue(try sorted[0].object(forKey: "author") === author)  // uniquing
    }

    func testFetchMergesPendingInsertsAndDeletesAndSorts() throws {
        let stack = try Stack(model: try makeLibraryModel(), path: dir + "/books.sqlite")
        let ctx = stack.context
        for name in ["b", "d"] {
            let a = try ctx.insertObject(entityName: "Author")
            try a.setValue(.string(name), forKey: "name")
        }
        try ctx.save()
        let c = try ctx.insertObject(entityName: "Author")
        try c.setValue("c", forKey: "name")
        let all = try ctx.fetch(FetchRequest(entityName: "Author", sortKeys: [SortKey("name")]))
        XCTAssertEqual(try all.map { try $0.value(forKey: "name") }, ["b", "c", "d"])
        try ctx.delete(all[0])
        try all[2].setValue("a", forKey: "name")
        let again = try ctx.fetch(FetchRequest(entityName: "Author", sortKeys: [SortKey("name")]))
        XCTAssertEqual(try again.map { try $0.value(forKey: "name") }, ["a", "c"])
        XCTAssertEqual(try ctx.count(for: FetchRequest(entityName: "Author")), 2)
        let limited = FetchRequest(entityName: "Author", sortKeys: [SortKey("name")])
        limited.fetchLimit = 1
        limited.fetchOffset = 1
        XCTAssertEqual(try ctx.fetch(limited).map { try $0.value(forKey: "name") }, ["c"])
    }

    func testDeleteCascadesAndNullifies() throws {
        let path = dir + "/books.sqlite"
        let stack = try Stack(model: try makeLibraryModel(), path: path)
        let ctx = stack.context
        let author = try ctx.insertObject(entityName: "Author")
        try author.setValue("T", forKey: "name")
        let kept = try ctx.insertObject(entityName: "Book")
        let book = try ctx.insertObject(entityName: "Book")
        try book.setObject(author, forKey: "author")
        try kept.setObject(author, forKey: "author")
        try ctx.save()
        // Book.author is nullify: deleting a book takes it out of the author's books.
        try ctx.delete(book)
        XCTAssertEqual(try author.objects(forKey: "books").count, 1)
        XCTAssertTrue(author.isUpdated)
        try ctx.save()
        XCTAssertEqual(sqliteRows(path, "SELECT COUNT(*) FROM ZBOOK"), [["1"]])
        // Author.books is cascade: deleting the author deletes its books.
        try ctx.delete(author)
        XCTAssertTrue(kept.isDeleted)
        try ctx.save()
        XCTAssertEqual(sqliteRows(path, "SELECT COUNT(*) FROM ZBOOK"), [["0"]])
        XCTAssertNil(kept.managedObjectContext)
        XCTAssertEqual(expectError { _ = try kept.value(forKey: "title") }?.code, ErrorCode.objectInaccessible)
    }

    func testDeletingAnUnsavedInsertForgetsIt() throws {
        let stack = try Stack(model: try makeLibraryModel(), path: dir + "/books.sqlite")
        let a = try stack.context.insertObject(entityName: "Author")
        try stack.context.delete(a)
        XCTAssertFalse(stack.context.hasChanges)
        try stack.context.save()
        XCTAssertEqual(try stack.context.count(for: FetchRequest(entityName: "Author")), 0)
    }

    func testValidationErrorsCarryObjectKeyAndNothingIsWritten() throws {
        let path = dir + "/books.sqlite"
        let stack = try Stack(model: try makeLibraryModel(), path: path)
        let a = try stack.context.insertObject(entityName: "Author")  // name is required
        let e = expectError { try stack.context.save() }
        XCTAssertEqual(e?.code, ErrorCode.validationMissingMandatoryProperty)
        XCTAssertEqual(e?.userInfoValue(forKey: "NSValidationErrorKey"), "name")
        XCTAssertEqual(e?.userInfoValue(forKey: "NSValidationErrorObject"), a.objectID.uriRepresentation)
        _ = try stack.context.insertObject(entityName: "Author")
        let multiple = expectError { try stack.context.save() }
        XCTAssertEqual(multiple?.code, ErrorCode.validationMultiple)
        XCTAssertEqual(multiple?.details.count, 2)
        XCTAssertEqual(sqliteRows(path, "SELECT COUNT(*) FROM ZAUTHOR"), [["0"]])
        XCTAssertTrue(a.objectID.isTemporaryID)
        XCTAssertTrue(stack.context.hasChanges)
    }

    func testMisuseGivesClearErrors() throws {
        let stack = try Stack(model: try makeLibraryModel(), path: dir + "/books.sqlite")
        let ctx = stack.context
        XCTAssertEqual(expectError { _ = try ctx.insertObject(entityName: "Dragon") }?.code, ErrorCode.unknownEntity)
        let b = try ctx.insertObject(entityName: "Book")
        let unknown = expectError { try b.setValue(1, forKey: "colour") }
        XCTAssertEqual(unknown?.code, ErrorCode.unknownKey)
        XCTAssertTrue(unknown?.message.contains("colour") ?? false)
        let wrong = expectError { try b.setValue("many", forKey: "pages") }
        XCTAssertEqual(wrong?.code, ErrorCode.typeMismatch)
        XCTAssertTrue(wrong?.message.contains("Book.pages") ?? false)
        XCTAssertEqual(expectError { try b.setValue(.integer(1 << 40), forKey: "pages") }?.code, ErrorCode.validationNumberTooLarge)
        let author = try ctx.insertObject(entityName: "Author")
        XCTAssertEqual(expectError { try author.setValue(-40000, forKey: "rating") }?.code, ErrorCode.validationNumberTooSmall)
        XCTAssertEqual(expectError { _ = try b.value(forKey: "author") }?.code, ErrorCode.typeMismatch)
        XCTAssertEqual(expectError { try b.setObject(b, forKey: "author") }?.code, ErrorCode.typeMismatch)
        XCTAssertEqual(expectError { _ = try ctx.fetch(FetchRequest(entityName: "Book", sortKeys: [SortKey("nope")])) }?.code, ErrorCode.unknownKey)
    }

    func testAContextRefusesCallsFromAnotherThread() throws {
        let stack = try Stack(model: try makeLibraryModel(), path: dir + "/books.sqlite")
        let book = try stack.context.insertObject(entityName: "Book")
        nonisolated(unsafe) var codes: [Int] = []
        let ctx = stack.context
        nonisolated(unsafe) let object = book
        let thread = Thread {
            do { _ = try ctx.insertObject(entityName: "Book") } catch let e as ObjectGraphError { codes.append(e.code) } catch {}
            do { _ = try object.value(forKey: "title") } catch let e as ObjectGraphError { codes.append(e.code) } catch {}
        }
        thread.start()
        while !thread.isFinished { usleep(1000) }
        XCTAssertEqual(codes, [ErrorCode.wrongThread, ErrorCode.wrongThread])
        XCTAssertEqual(try book.value(forKey: "title"), "Untitled")
    }

    func testFiringAFaultForADeletedRowIsError133000() throws {
        let path = dir + "/books.sqlite"
        let first = try Stack(model: try makeLibraryModel(), path: path)
        let a = try first.context.insertObject(entityName: "Author")
        try a.setValue("gone", forKey: "name")
        try first.context.save()
        let id = a.objectID
        // An ID from another coordinator's model is refused, not trusted.
        let foreign = try Stack(model: try makeLibraryModel(), path: dir + "/other.sqlite")
        XCTAssertEqual(expectError { _ = try foreign.context.object(with: id).value(forKey: "name") }?.code, ErrorCode.invalidArgument)
        let second = ManagedObjectContext(coordinator: first.coordinator)
        second.shouldDeleteInaccessibleFaults = false
        let fault = try second.object(with: id)
        XCTAssertTrue(fault.isFault)
        try first.context.delete(a)
        try first.context.save()
        let e = expectError { _ = try fault.value(forKey: "name") }
        XCTAssertEqual(e?.code, ErrorCode.referentialIntegrity)
    }

    func testRule2_10_shouldDeleteInaccessibleFaultsMakesADeletedObjectWithEmptyValues() throws {
        let path = dir + "/books.sqlite"
        let first = try Stack(model: try makeLibraryModel(), path: path)
        let a = try first.context.insertObject(entityName: "Author")
        try a.setValue("gone", forKey: "name")
        try first.context.save()
        let second = ManagedObjectContext(coordinator: first.coordinator)
        XCTAssertTrue(second.shouldDeleteInaccessibleFaults)
        let fault = try second.object(with: a.objectID)
        try first.context.delete(a)
        try first.context.save()
        XCTAssertEqual(try fault.value(forKey: "name"), .null)
        XCTAssertTrue(fault.isDeleted)
        XCTAssertFalse(second.hasChanges)
        XCTAssertEqual(expectError { _ = try second.existingObject(with: a.objectID) }?.code, ErrorCode.referentialIntegrity)
        XCTAssertEqual(try second.fetch(FetchRequest(entityName: "Author")).count, 0)
    }
}

