import Foundation
import ObjectGraph
import XCTest

/// PersistentContainer and PersistentStoreDescription (NSPersistentContainer, NSPersistentStoreDescription).
final class PersistentContainerTests: XCTestCase {
    var dir = ""
    override func setUpWithError() throws {
        dir = try temporaryDirectory()
        setenv("XDG_DATA_HOME", dir + "/data", 1)
    }
    override func tearDownWithError() throws {
        unsetenv("XDG_DATA_HOME")
        try? FileManager.default.removeItem(atPath: dir)
    }

    func testDefaultsFollowApplesContainer() throws {
        XCTAssertEqual(PersistentContainer.defaultDirectory, dir + "/data/objectgraph")
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/data/objectgraph"))
        let container = try PersistentContainer(name: "Library", managedObjectModel: try makeLibraryModel())
        XCTAssertEqual(container.viewContext.concurrencyType, .mainQueue)
        XCTAssertNil(container.viewContext.parentContext)
        let description = try XCTUnwrap(container.persistentStoreDescriptions.first)
        XCTAssertEqual(container.persistentStoreDescriptions.count, 1)
        XCTAssertEqual(description.type, StoreType.sqlite)
        XCTAssertEqual(description.path, dir + "/data/objectgraph/Library.sqlite")
        XCTAssertTrue(description.shouldMigrateStoreAutomatically)
        XCTAssertTrue(description.shouldInferMappingModelAutomatically)
        XCTAssertFalse(description.shouldAddStoreAsynchronously)
        XCTAssertFalse(description.isReadOnly)
        description.isReadOnly = true
        description.timeout = 5
        XCTAssertEqual(description.options[StoreOptionKey.readOnly], .boolean(true))
        XCTAssertEqual(description.timeout, 5)
        XCTAssertEqual(expectError { _ = try PersistentContainer(name: "", managedObjectModel: try makeLibraryModel()) }?.code, ErrorCode.invalidArgument)
    }

    func testLoadingCallsTheHandlerPerDescriptionAndContextsWork() throws {
        let container = try PersistentContainer(name: "Library", managedObjectModel: try makeLibraryModel())
        container.persistentStoreDescriptions = [
            PersistentStoreDescription(path: dir + "/library.xml", type: "XML"),
            PersistentStoreDescription(path: dir + "/x", type: "Nope"),
        ]
        let seen = Results()
        container.loadPersistentStores { description, error in
            seen.append(error.map { .failure($0) } ?? .success(description.type))
        }
        let results = seen.all
        XCTAssertEqual(results.count, 2)
        XCTAssertEqual(try results[0].get(), "XML")
        if case .failure(let error) = results[1] { XCTAssertEqual(error.code, ErrorCode.storeInvalidType) } else { XCTFail("no error") }
        XCTAssertEqual(container.persistentStoreCoordinator.persistentStores.count, 1)

        let done = DispatchSemaphore(value: 0)
        container.performBackgroundTask { context in
            do {
                XCTAssertEqual(context.concurrencyType, .privateQueue)
                let author = try context.insertObject(entityName: "Author")
                try author.setValue(.string("Ann"), forKey: "name")
                try context.save()
            } catch { XCTFail("\(error)") }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        let count = try container.viewContext.performAndWait { try container.viewContext.count(for: FetchRequest(entityName: "Author")) }
        XCTAssertEqual(count, 1)
        XCTAssertEqual(container.newBackgroundContext().concurrencyType, .privateQueue)
    }

    func testAsynchronousDescriptionsLoadOnALibraryThread() throws {
        let container = try PersistentContainer(name: "Later", managedObjectModel: try makeLibraryModel())
        let description = PersistentStoreDescription(path: dir + "/later.sqlite")
        description.shouldAddStoreAsynchronously = true
        container.persistentStoreDescriptions = [description]
        let done = DispatchSemaphore(value: 0)
        let caller = pthread_self()
        nonisolated(unsafe) var onOtherThread = false
        nonisolated(unsafe) var failure: ObjectGraphError?
        container.loadPersistentStores { _, error in
            onOtherThread = pthread_equal(pthread_self(), caller) == 0
            failure = error
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertTrue(onOtherThread)
        XCTAssertNil(failure)
        XCTAssertEqual(container.persistentStoreCoordinator.persistentStores.count, 1)
    }
}
