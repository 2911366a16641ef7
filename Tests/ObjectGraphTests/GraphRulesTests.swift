import Foundation
@testable import ObjectGraph
import XCTest

/// One named test per rule of the object graph (inventory §2.2–§2.8, §2.11, §2.12, §2.14).
final class GraphRulesTests: XCTestCase {
    override func setUp() { BookObject.events = [] }

    private func savedBook(_ stack: Stack, title: String = "Mort") throws -> (ManagedObject, ManagedObject) {
        let ctx = stack.context
        let author = try ctx.insertObject(entityName: "Author")
        try author.setValue("Terry Pratchett", forKey: "name")
        let book = try ctx.insertObject(entityName: "Book")
        try book.setValue(.string(title), forKey: "title")
        try book.setObject(author, forKey: "author")
        try ctx.save()
        return (author, book)
    }

    // MARK: §2.2 Faulting

    func test_2_2_objectWithIDIsAFaultThatIdentityOperationsDoNotFire() throws {
        let stack = try lendingStack()
        let (_, book) = try savedBook(stack)
        let other = ManagedObjectContext(coordinator: stack.coordinator)
        let fault = try other.object(with: book.objectID)
        XCTAssertTrue(fault.isFault)
        _ = fault.description; _ = fault.objectID; _ = fault.entity; _ = fault.isInserted; _ = fault.isDeleted
        _ = fault.isUpdated; _ = fault.faultingState; _ = try fault.hasFault(forRelationshipNamed: "author")
        XCTAssertTrue(fault.isFault, "identity operations must not fire a fault")
        XCTAssertEqual(fault.string("title"), "Mort")
        XCTAssertFalse(fault.isFault)
        XCTAssertTrue(BookObject.events.contains("awakeFromFetch"))
    }

    func test_2_2_firingAFaultForADeletedRowIsReferentialIntegrityError() throws {
        let stack = try lendingStack()
        let (_, book) = try savedBook(stack)
        let other = ManagedObjectContext(coordinator: stack.coordinator)
        other.shouldDeleteInaccessibleFaults = false
        let fault = try other.object(with: book.objectID)
        try stack.context.delete(book)
        try stack.context.save()
        XCTAssertEqual(expectError { _ = try fault.value(forKey: "title") }?.code, ErrorCode.referentialIntegrity)
        XCTAssertEqual(expectError { _ = try other.existingObject(with: book.objectID) }?.code, ErrorCode.referentialIntegrity)
    }

    func test_2_2_refreshWithoutMergingTurnsTheObjectIntoAFault() throws {
        let stack = try lendingStack()
        let (_, book) = try savedBook(stack)
        try book.setValue("Changed", forKey: "title")
        BookObject.events = []
        try stack.context.refresh(book, mergeChanges: false)
        XCTAssertEqual(BookObject.events, ["willTurnIntoFault", "didTurnIntoFault"])
        XCTAssertTrue(book.isFault)
        XCTAssertFalse(book.isUpdated)
        XCTAssertEqual(book.string("title"), "Mort")
    }

    func test_2_2_refreshWithMergingKeepsOwnChangesAndTakesTheStoresOthers() throws {
        let stack = try lendingStack()
        let (_, book) = try savedBook(stack)
        let other = ManagedObjectContext(coordinator: stack.coordinator)
        let copy = try other.existingObject(with: book.objectID)
        try copy.setValue(321, forKey: "pages")
        try other.save()
        try book.setValue("Changed", forKey: "title")
        try stack.context.refresh(book, mergeChanges: true)
        XCTAssertEqual(book.string("title"), "Changed")
        XCTAssertEqual(try book.value(forKey: "pages"), 321)
        XCTAssertTrue(book.isUpdated)
    }

    func test_2_2_awakeFromFetchChangesDoNotDirtyTheObject() throws {
        final class Touchy: ManagedObject {
            override func awakeFromFetch() { try? setValue("touched", forKey: "name") }
        }
        ManagedObjectClasses.register(Touchy.self, named: "Touchy")
        let model = try makeLendingModel()
        try model.entitiesByName["Author"]!.setManagedObjectClassName("Touchy")
        let stack = try Stack(model: model, path: try temporaryDirectory() + "/touchy.sqlite")
        let author = try stack.context.insertObject(entityName: "Author")
        try author.setValue("A", forKey: "name")
        try stack.context.save()
        let other = ManagedObjectContext(coordinator: stack.coordinator)
        let fetched = try other.fetch(FetchRequest(entityName: "Author"))[0]
        XCTAssertEqual(fetched.string("name"), "touched")
        XCTAssertFalse(other.hasChanges)
    }

    // MARK: §2.3 Uniquing

    func test_2_3_oneInstancePerObjectIDInAContext() throws {
        let stack = try lendingStack()
        let (author, book) = try savedBook(stack)
        let other = ManagedObjectContext(coordinator: stack.coordinator)
        let fetched = try other.fetch(FetchRequest(entityName: "Book"))[0]
        XCTAssertTrue(try other.fetch(FetchRequest(entityName: "Book"))[0] === fetched)
        XCTAssertTrue(try other.object(with: book.objectID) === fetched)
        let otherAuthor = try other.fetch(FetchRequest(entityName: "Author"))[0]
        XCTAssertTrue(try otherAuthor.objects(forKey: "books")[0] === fetched)
        XCTAssertFalse(fetched === book, "each context has its own instance")
        XCTAssertTrue(other.objectRegistered(for: author.objectID) === otherAuthor)
    }

    func test_2_3_aFetchNeverOverwritesAChangedObject() throws {
        let stack = try lendingStack()
        let (_, book) = try savedBook(stack)
        try book.setValue("Pending title", forKey: "title")
        let fetched = try stack.context.fetch(FetchRequest(entityName: "Book"))[0]
        XCTAssertTrue(fetched === book)
        XCTAssertEqual(fetched.string("title"), "Pending title")
    }

    // MARK: §2.4 Object IDs

    func test_2_4_temporaryIDsBecomePermanentAtSaveOrOnRequest() throws {
        let stack = try lendingStack()
        let ctx = stack.context
        let author = try ctx.insertObject(entityName: "Author")
        try author.setValue("A", forKey: "name")
        XCTAssertTrue(author.objectID.isTemporaryID)
        try ctx.obtainPermanentIDs(for: [author])
        XCTAssertFalse(author.objectID.isTemporaryID)
        XCTAssertTrue(author.isInserted, "an object with a permanent ID stays inserted until saved")
        let early = author.objectID
        try ctx.save()
        XCTAssertEqual(author.objectID, early)
        XCTAssertEqual(sqliteRows(stack.store.path, "SELECT Z_PK FROM ZAUTHOR"), [[String(early.primaryKey)]])
    }

    // MARK: §2.5 Change tracking

    func test_2_5_anInsertDeletedBeforeSavingLeavesNoTrace() throws {
        let stack = try lendingStack()
        var saved: [ContextNotification] = []
        stack.context.addObserver(for: .didSave) { saved.append($0) }
        let author = try stack.context.insertObject(entityName: "Author")
        try stack.context.delete(author)
        XCTAssertTrue(stack.context.deletedObjects.isEmpty)
        XCTAssertTrue(stack.context.insertedObjects.isEmpty)
        XCTAssertFalse(stack.context.hasChanges)
        try stack.context.save()
        XCTAssertTrue(saved.isEmpty)
        XCTAssertNil(author.managedObjectContext)
    }

    func test_2_5_primitiveSettersAreNotRecorded() throws {
        let stack = try lendingStack()
        let (author, _) = try savedBook(stack)
        try author.setPrimitiveValue("Quiet", forKey: "name")
        XCTAssertFalse(author.isUpdated)
        XCTAssertFalse(stack.context.hasChanges)
        XCTAssertEqual(author.string("name"), "Quiet")
    }

    func test_2_5_objectsDidChangeIsPostedAtProcessPendingChangesNotForFetches() throws {
        let stack = try lendingStack()
        let (author, _) = try savedBook(stack)
        var posted: [ContextNotification] = []
        stack.context.addObserver(for: .objectsDidChange) { posted.append($0) }
        _ = try stack.context.fetch(FetchRequest(entityName: "Book"))
        try stack.context.processPendingChanges()
        XCTAssertTrue(posted.isEmpty, "fetching registers objects without a change notification")
        try author.setValue("New name", forKey: "name")
        let loan = try stack.context.insertObject(entityName: "Loan")
        try stack.context.processPendingChanges()
        XCTAssertEqual(posted.count, 1)
        XCTAssertTrue(posted[0].updated.contains { $0 === author })
        XCTAssertTrue(posted[0].inserted.contains { $0 === loan })
    }

    func test_2_5_changedAndCommittedValuesLeaveTransientsOut() throws {
        let stack = try lendingStack()
        let (author, _) = try savedBook(stack)
        try author.setValue("Renamed", forKey: "name")
        try author.setValue("not stored", forKey: "scratch")
        let changed = try author.changedValues()
        XCTAssertEqual(Set(changed.keys), ["name"])
        guard case .scalar(.string("Terry Pratchett"))? = try author.committedValues(forKeys: ["name"])["name"] else {
            return XCTFail("committed values keep the saved name")
        }
    }

    // MARK: §2.6 Validation

    func test_2_6_validationRunsAtSaveNotWhenAValueIsSet() throws {
        let stack = try lendingStack()
        let book = try stack.context.insertObject(entityName: "Book")
        try book.setValue(9999, forKey: "pages")   // accepted in memory
        let error = expectError { try stack.context.save() }
        XCTAssertEqual(error?.code, ErrorCode.validationNumberTooLarge)
        XCTAssertEqual(error?.userInfoValue(forKey: ErrorUserInfoKey.validationKey), "pages")
        XCTAssertEqual(error?.userInfoValue(forKey: ErrorUserInfoKey.validationValue), "9999")
        XCTAssertEqual(sqliteRows(stack.store.path, "SELECT COUNT(*) FROM ZBOOK"), [["0"]], "nothing is written")
    }

    func test_2_6_eachModelRuleHasItsCode() throws {
        let stack = try lendingStack()
        let book = try stack.context.insertObject(entityName: "Book")
        func code(_ key: String, _ value: PredicateValue) -> Int? {
            expectError { _ = try book.validate(value, forKey: key) }?.code
        }
        XCTAssertEqual(code("pages", 0), ErrorCode.validationNumberTooSmall)
        XCTAssertEqual(code("pages", 6000), ErrorCode.validationNumberTooLarge)
        XCTAssertEqual(code("title", ""), ErrorCode.validationStringTooShort)
        XCTAssertEqual(code("title", .scalar(.string(String(repeating: "x", count: 41)))), ErrorCode.validationStringTooLong)
        XCTAssertEqual(code("title", nil), ErrorCode.validationMissingMandatoryProperty)
        XCTAssertEqual(code("isbn", "12-34"), ErrorCode.validationStringPatternMatching)
        let predicateError = expectError { _ = try book.validate(9, forKey: "rating") }
        XCTAssertEqual(predicateError?.code, ErrorCode.validation)
        XCTAssertEqual(predicateError?.message, "a rating is between 0 and 5 stars")
        XCTAssertEqual(predicateError?.userInfoValue(forKey: ErrorUserInfoKey.validationPredicate), "SELF >= 0 AND SELF <= 5")
        XCTAssertEqual(code("title", "Untitled"), ErrorCode.validation, "the subclass's own validator runs after the model's rules")
        XCTAssertNoThrow(try book.validate("978-0123456789", forKey: "isbn"))
    }

    /// A to-many is checked against its counts alone: empty and non-optional is valid with
    /// a minimum of 0 (as in Apple's stores), below a minimum is 1580, above a maximum 1590.
    func test_2_6_aToManyIsCheckedAgainstItsCountsOnly() throws {
        let model = ManagedObjectModel()
        let shelf = try model.addEntity(named: "Shelf")
        let book = try model.addEntity(named: "Book")
        let books = try shelf.addRelationship(named: "books", destination: book, toMany: true)
        try books.setOptional(false)
        let pairs = try shelf.addRelationship(named: "pairs", destination: book, toMany: true)
        try pairs.setCounts(min: 2, max: 3)
        let shelves = try book.addRelationship(named: "shelves", destination: shelf, toMany: true)
        try books.setInverse(shelves)
        let stack = try Stack(model: model, path: try temporaryDirectory() + "/counts.sqlite")
        let empty = try stack.context.insertObject(entityName: "Shelf")
        try stack.context.save()  // books: non-optional, empty, minimum 0; pairs: optional, empty
        XCTAssertFalse(empty.isInserted)
        let one = try stack.context.insertObject(entityName: "Book")
        try empty.setObjects([one], forKey: "pairs")
        XCTAssertEqual(expectError { try stack.context.save() }?.code, ErrorCode.validationRelationshipLacksMinimumCount)
        var four: [ManagedObject] = []
        for _ in 0..<4 { four.append(try stack.context.insertObject(entityName: "Book")) }
        try empty.setObjects(four, forKey: "pairs")
        XCTAssertEqual(expectError { try stack.context.save() }?.code, ErrorCode.validationRelationshipExceedsMaximumCount)
        try empty.setObjects(Array(four.prefix(2)), forKey: "pairs")
        for extra in four.suffix(2) { try stack.context.delete(extra) }
        try stack.context.delete(one)
        try stack.context.save()
    }

    /// Transient properties are kept in memory only, and a save does not take them away:
    /// a transient to-many keeps its members and a transient attribute its value.
    func testTransientPropertiesKeepTheirValuesAcrossASave() throws {
        let model = ManagedObjectModel()
        let shelf = try model.addEntity(named: "Shelf")
        try shelf.addAttribute(named: "label", type: .string)
        let note = try shelf.addAttribute(named: "note", type: .string)
        try note.setTransient(true)
        let book = try model.addEntity(named: "Book")
        let picks = try shelf.addRelationship(named: "picks", destination: book, toMany: true)
        try picks.setTransient(true)
        let stack = try Stack(model: model, path: try temporaryDirectory() + "/transient.sqlite")
        let s = try stack.context.insertObject(entityName: "Shelf")
        let b = try stack.context.insertObject(entityName: "Book")
        try s.setObjects([b], forKey: "picks")
        try s.setValue(.string("kept in memory"), forKey: "note")
        try stack.context.save()
        XCTAssertEqual(try s.objects(forKey: "picks").map(\.objectID), [b.objectID])
        XCTAssertEqual(try s.value(forKey: "note"), .string("kept in memory"))
        try s.setValue(.string("changed"), forKey: "label")
        try stack.context.save()
        XCTAssertEqual(try s.objects(forKey: "picks").count, 1)
        XCTAssertEqual(try s.value(forKey: "note"), .string("kept in memory"))
    }

    func test_2_6_severalFailuresAre1560WithDetails() throws {
        let stack = try lendingStack()
        let book = try stack.context.insertObject(entityName: "Book")
        try book.setValue(0, forKey: "pages")
        try book.setValue(9, forKey: "rating")
        _ = try stack.context.insertObject(entityName: "Loan")  // no borrower
        let error = expectError { try stack.context.save() }
        XCTAssertEqual(error?.code, ErrorCode.validationMultiple)
        XCTAssertEqual(Set(error?.details.map(\.code) ?? []), [ErrorCode.validationNumberTooSmall, ErrorCode.validation, ErrorCode.validationMissingMandatoryProperty])
        XCTAssertTrue(stack.context.hasChanges, "the changes stay pending")
    }

    // MARK: §2.7 Delete rules

    func test_2_7_nullifyCascadeAndDeny() throws {
        let stack = try lendingStack()
        let (author, book) = try savedBook(stack)
        let loan = try stack.context.insertObject(entityName: "Loan")
        try loan.setValue("Ann", forKey: "borrower")
        try loan.setObject(book, forKey: "book")
        try stack.context.save()
        // Deny: a book with loans cannot go.
        try stack.context.delete(book)
        XCTAssertTrue(book.isDeleted)
        XCTAssertEqual(expectError { try stack.context.save() }?.code, ErrorCode.validationRelationshipDeniedDelete)
        try stack.context.rollback()
        XCTAssertFalse(book.isDeleted)
        // Nullify: the loan's book goes, the book forgets the loan.
        try stack.context.delete(loan)
        XCTAssertTrue(try book.objects(forKey: "loans").isEmpty)
        try stack.context.save()
        // Cascade: the author takes the book along.
        try stack.context.delete(author)
        XCTAssertTrue(book.isDeleted)
        XCTAssertTrue(BookObject.events.contains("prepareForDeletion"))
        try stack.context.save()
        XCTAssertEqual(sqliteRows(stack.store.path, "SELECT COUNT(*) FROM ZBOOK"), [["0"]])
    }

    /// Deleting again runs prepareForDeletion again; after the saved delete the object is
    /// not "deleted" and belongs to no context, as on Core Data.
    func test_2_7_deletingAgainAndAfterTheSave() throws {
        let stack = try lendingStack()
        let ctx = stack.context
        let book = try ctx.insertObject(entityName: "Book")
        try book.setValue("Nation", forKey: "title")
        try ctx.save()
        BookObject.events = []
        try ctx.delete(book)
        try ctx.delete(book)
        XCTAssertEqual(BookObject.events.filter { $0 == "prepareForDeletion" }.count, 2)
        XCTAssertTrue(book.isDeleted)
        try ctx.save()
        XCTAssertFalse(book.isDeleted)
        XCTAssertNil(book.managedObjectContext)
    }

    func test_2_7_withoutPropagationAtEndOfEventRulesApplyAtSave() throws {
        let stack = try lendingStack()
        let (author, book) = try savedBook(stack)
        stack.context.propagatesDeletesAtEndOfEvent = false
        try stack.context.delete(author)
        XCTAssertFalse(book.isDeleted, "the cascade waits for the save")
        try stack.context.save()
        XCTAssertNil(book.managedObjectContext)
        XCTAssertEqual(sqliteRows(stack.store.path, "SELECT COUNT(*) FROM ZBOOK"), [["0"]])
    }

    // MARK: §2.8 Inverses

    func test_2_8_inversesFollowEveryMutation() throws {
        let stack = try lendingStack()
        let (first, book) = try savedBook(stack)
        let second = try stack.context.insertObject(entityName: "Author")
        try second.setValue("Neil Gaiman", forKey: "name")
        try book.setObject(second, forKey: "author")
        XCTAssertFalse(try first.objects(forKey: "books").contains { $0 === book })
        XCTAssertTrue(try second.objects(forKey: "books").contains { $0 === book })
        try first.addObject(book, forKey: "books")
        XCTAssertTrue(try book.object(forKey: "author") === first)
        XCTAssertTrue(try second.objects(forKey: "books").isEmpty)
        try first.removeObject(book, forKey: "books")
        XCTAssertNil(try book.object(forKey: "author"))
        XCTAssertTrue(first.isUpdated && book.isUpdated)
    }

    func test_2_8_setReplacementAndOrderedInsertionKeepInverses() throws {
        let model = try makeLendingModel()
        let shelf = try model.addEntity(named: "Shelf")
        let slots = try shelf.addRelationship(named: "books", destination: model.entitiesByName["Book"]!, toMany: true)
        try slots.setOrdered(true)
        let onShelf = try model.entitiesByName["Book"]!.addRelationship(named: "shelf", destination: shelf)
        try slots.setInverse(onShelf)
        let path = try temporaryDirectory() + "/shelves.sqlite"
        var order: [String] = []
        do {
            ManagedObjectClasses.register(BookObject.self)
            let stack = try Stack(model: model, path: path)
            let ctx = stack.context
            let s = try ctx.insertObject(entityName: "Shelf")
            var books: [ManagedObject] = []
            for title in ["A", "B", "C"] {
                let b = try ctx.insertObject(entityName: "Book")
                try b.setValue(.string(title), forKey: "title")
                books.append(b)
            }
            try s.setObjects([books[2], books[0]], forKey: "books")
            XCTAssertTrue(try books[2].object(forKey: "shelf") === s)
            XCTAssertNil(try books[1].object(forKey: "shelf"))
            try s.insertObject(books[1], at: 1, forKey: "books")
            order = try s.objects(forKey: "books").compactMap { $0.string("title") }
            XCTAssertEqual(order, ["C", "B", "A"])
            try s.setObjects([books[0]], forKey: "books")
            XCTAssertNil(try books[2].object(forKey: "shelf"))
            try s.setObjects([books[1], books[0], books[2]], forKey: "books")
            try ctx.save()
        }
        let reopened = try Stack(model: try { () throws -> ManagedObjectModel in
            let m = try makeLendingModel()
            let sh = try m.addEntity(named: "Shelf")
            let r = try sh.addRelationship(named: "books", destination: m.entitiesByName["Book"]!, toMany: true)
            try r.setOrdered(true)
            try r.setInverse(try m.entitiesByName["Book"]!.addRelationship(named: "shelf", destination: sh))
            return m
        }(), path: path)
        let shelfAgain = try reopened.context.fetch(FetchRequest(entityName: "Shelf"))[0]
        XCTAssertEqual(try shelfAgain.objects(forKey: "books").compactMap { $0.string("title") }, ["B", "A", "C"], "an ordered relationship keeps its order in the store")
    }

    // MARK: §2.11 The save pipeline

    func test_2_11_saveRunsItsStepsInOrder() throws {
        let stack = try lendingStack()
        let ctx = stack.context
        var steps: [String] = []
        ctx.addObserver(for: .willSave) { _ in steps.append("willSave notification") }
        ctx.addObserver(for: .didSave) { n in steps.append("didSave notification \(n.inserted.count)") }
        ctx.addObserver(for: .objectsDidChange) { _ in steps.append("objectsDidChange") }
        let book = try ctx.insertObject(entityName: "Book")
        try book.setValue("Eric", forKey: "title")
        BookObject.events = []
        try ctx.save()
        // The change willSave makes to the new object is an edit of a pending insert in a
        // later event: objects-did-change reports it before the save writes.
        XCTAssertEqual(steps, ["objectsDidChange", "willSave notification", "objectsDidChange", "didSave notification 1"])
        XCTAssertEqual(BookObject.events, ["willSave", "willSave", "didSave"], "a change made in willSave runs it once more")
        XCTAssertEqual(try book.value(forKey: "saveCount"), 1)
        XCTAssertEqual(sqliteRows(stack.store.path, "SELECT ZSAVECOUNT FROM ZBOOK"), [["1"]])
    }

    func test_2_11_aWillSaveThatAlwaysChangesIsBounded() throws {
        final class Restless: ManagedObject {
            nonisolated(unsafe) static var calls = 0
            override func willSave() {
                Self.calls += 1
                try? setValue(.string("round \(Self.calls)"), forKey: "name")
            }
        }
        ManagedObjectClasses.register(Restless.self, named: "Restless")
        let model = try makeLendingModel()
        try model.entitiesByName["Author"]!.setManagedObjectClassName("Restless")
        let stack = try Stack(model: model, path: try temporaryDirectory() + "/restless.sqlite")
        _ = try stack.context.insertObject(entityName: "Author")
        try stack.context.save()
        XCTAssertEqual(Restless.calls, ManagedObjectContext.willSavePasses)
    }

    /// A willSave hook that throws fails the save before anything is committed.
    func test_2_11_aWillSaveHookThatThrowsWritesNothing() throws {
        let stack = try lendingStack()
        let ctx = stack.context
        var hooks = ObjectHooks()
        hooks.willSave = { (_) throws(ObjectGraphError) in throw ObjectGraphError(code: 7777, message: "not today") }
        try ctx.setHooks(hooks, forEntityName: "Author")
        let author = try ctx.insertObject(entityName: "Author")
        try author.setValue(.string("Terry"), forKey: "name")
        XCTAssertEqual(expectError { try ctx.save() }?.code, 7777)
        XCTAssertEqual(sqliteRows(stack.store.path, "SELECT COUNT(*) FROM ZAUTHOR"), [["0"]])
        XCTAssertTrue(author.isInserted, "the change stays pending")
        try ctx.setHooks(nil, forEntityName: "Author")
        try ctx.save()
        XCTAssertEqual(sqliteRows(stack.store.path, "SELECT COUNT(*) FROM ZAUTHOR"), [["1"]])
    }

    // MARK: §2.12 Concurrency

    func test_2_12_aConfinementContextRefusesOtherThreads() throws {
        let stack = try lendingStack()
        let context = stack.context
        let code = UncheckedBox<Int?>(nil)
        let thread = Thread { code.value = expectError { _ = try context.insertObject(entityName: "Author") }?.code }
        thread.start()
        while !thread.isFinished { usleep(1000) }
        XCTAssertEqual(code.value, ErrorCode.wrongThread)
    }

    func test_2_12_privateQueueContextsWorkInsidePerform() throws {
        let stack = try lendingStack()
        let ctx = ManagedObjectContext(coordinator: stack.coordinator, concurrencyType: .privateQueue)
        XCTAssertEqual(expectError { _ = try ctx.insertObject(entityName: "Author") }?.code, ErrorCode.wrongThread)
        let count = try ctx.performAndWait { () throws -> Int in
            let a = try ctx.insertObject(entityName: "Author")
            try a.setValue("Queued", forKey: "name")
            // Re-entrant: a nested performAndWait runs inline.
            try ctx.performAndWait { try ctx.save() }
            return try ctx.count(for: FetchRequest(entityName: "Author"))
        }
        XCTAssertEqual(count, 1)
        let done = UncheckedBox(false)
        try ctx.perform {
            done.value = (try? ctx.count(for: FetchRequest(entityName: "Author"))) == 1
        }
        try ctx.performAndWait {}  // the queue is serial: the block above has run
        XCTAssertTrue(done.value)
    }

    // MARK: §2.14 Notifications

    func test_2_14_didSaveCarriesTheSavedSetsAndRemovedObserversStaySilent() throws {
        let stack = try lendingStack()
        let (author, book) = try savedBook(stack)
        var received: [ContextNotification] = []
        let token = stack.context.addObserver(for: .didSave) { received.append($0) }
        try author.setValue("Renamed", forKey: "name")
        try stack.context.delete(book)
        try stack.context.save()
        XCTAssertEqual(received.count, 1)
        XCTAssertTrue(received[0].updated.contains { $0 === author })
        XCTAssertTrue(received[0].deleted.contains { $0 === book })
        stack.context.removeObserver(token)
        try author.setValue("Again", forKey: "name")
        try stack.context.save()
        XCTAssertEqual(received.count, 1)
    }

    func test_2_14_resetAndRefreshAreReported() throws {
        let stack = try lendingStack()
        let (author, book) = try savedBook(stack)
        var changes: [ContextNotification] = []
        stack.context.addObserver(for: .objectsDidChange) { changes.append($0) }
        try stack.context.refresh(book, mergeChanges: false)
        try stack.context.processPendingChanges()
        XCTAssertTrue(changes.last?.refreshed.contains { $0 === book } ?? false)
        try stack.context.reset()
        XCTAssertTrue(changes.last?.invalidatedAll ?? false)
        XCTAssertEqual(expectError { _ = try author.value(forKey: "name") }?.code, ErrorCode.objectInaccessible)
    }

    // MARK: Rollback and registration

    func test_rollbackDiscardsInsertsRestoresDeletesAndValues() throws {
        let stack = try lendingStack()
        let (author, book) = try savedBook(stack)
        let draft = try stack.context.insertObject(entityName: "Author")
        try author.setValue("Changed", forKey: "name")
        try stack.context.delete(book)
        BookObject.events = []
        try stack.context.rollback()
        XCTAssertFalse(stack.context.hasChanges)
        XCTAssertNil(draft.managedObjectContext)
        XCTAssertFalse(book.isDeleted)
        XCTAssertEqual(author.string("name"), "Terry Pratchett")
        XCTAssertTrue(try author.objects(forKey: "books").contains { $0 === book })
        XCTAssertEqual(BookObject.events, ["awakeFromSnapshotEvents(16)"])
    }

    func test_unchangedObjectsAreNotKeptAliveUnlessAsked() throws {
        let stack = try lendingStack()
        _ = try savedBook(stack)
        let other = ManagedObjectContext(coordinator: stack.coordinator)
        weak var weakBook: ManagedObject?
        do {
            let books = try other.fetch(FetchRequest(entityName: "Book"))
            weakBook = books.first
            XCTAssertNotNil(weakBook)
        }
        // Released at the context's next processPendingChanges (also run by every save).
        try other.processPendingChanges()
        XCTAssertNil(weakBook, "an unchanged object nobody holds is released")
        other.retainsRegisteredObjects = true
        do { weakBook = try other.fetch(FetchRequest(entityName: "Book")).first }
        XCTAssertNotNil(weakBook)
        XCTAssertEqual(other.registeredObjects.count, 1)
    }

    func test_keyPathsAndHooksThroughClosures() throws {
        let stack = try lendingStack()
        var hooks = ObjectHooks()
        var inserted = 0
        hooks.awakeFromInsert = { _ in inserted += 1 }
        hooks.validateForInsert = { (o: ManagedObject) throws(ObjectGraphError) in
            if o.string("borrower") == "Mallory" {
                throw ObjectGraphError(code: ErrorCode.validation, message: "no loans to Mallory")
            }
        }
        try stack.context.setHooks(hooks, forEntityName: "Loan")
        let (_, book) = try savedBook(stack)
        let loan = try stack.context.insertObject(entityName: "Loan")
        try loan.setValue("Mallory", forKey: "borrower")
        try loan.setObject(book, forKey: "book")
        XCTAssertEqual(inserted, 1)
        XCTAssertEqual(expectError { try stack.context.save() }?.message, "no loans to Mallory")
        try loan.setValue("Ann", forKey: "borrower")
        try stack.context.save()
        guard case .scalar(.string("Terry Pratchett")) = try loan.value(forKeyPath: "book.author.name") else { return XCTFail("key path") }
        guard case .scalar(.integer(1)) = try book.value(forKeyPath: "loans.@count") else { return XCTFail("@count") }
    }
}

/// A mutable box the tests share with other threads and escaping blocks.
final class UncheckedBox<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}
