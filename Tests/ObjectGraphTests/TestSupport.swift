import CSQLite
import Foundation
import ObjectGraph
import XCTest

/// A model of authors and books with every scalar attribute type, shared by the tests.
func makeLibraryModel() throws -> ManagedObjectModel {
    let model = ManagedObjectModel()
    try model.setVersionIdentifiers(["1"])
    let author = try model.addEntity(named: "Author")
    try author.addAttribute(named: "name", type: .string, optional: false)
    try author.addAttribute(named: "rating", type: .integer16, defaultValue: 3)
    let book = try model.addEntity(named: "Book")
    try book.addAttribute(named: "title", type: .string, optional: false, defaultValue: "Untitled")
    try book.addAttribute(named: "pages", type: .integer32, defaultValue: 0)
    try book.addAttribute(named: "copies", type: .integer64)
    try book.addAttribute(named: "price", type: .decimal)
    try book.addAttribute(named: "weight", type: .double)
    try book.addAttribute(named: "width", type: .float)
    try book.addAttribute(named: "inPrint", type: .boolean, defaultValue: true)
    try book.addAttribute(named: "published", type: .date)
    try book.addAttribute(named: "cover", type: .binaryData)
    try book.addAttribute(named: "isbnUUID", type: .uuid)
    try book.addAttribute(named: "link", type: .uri)
    let books = try author.addRelationship(named: "books", destination: book, toMany: true, deleteRule: .cascade)
    let writer = try book.addRelationship(named: "author", destination: author)
    try books.setInverse(writer)
    return model
}

/// Runs `body` on `count` new threads released at the same moment (each gets its number),
/// and returns once all of them have finished: how tests make threads race for one thing.
func runTogether(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let start = DispatchSemaphore(value: 0)
    let group = DispatchGroup()
    for n in 0..<count {
        group.enter()
        Thread.detachNewThread {
            defer { group.leave() }
            start.wait()
            body(n)
        }
    }
    for _ in 0..<count { start.signal() }
    group.wait()
}

/// Results gathered from several threads.
final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [Result<String, ObjectGraphError>] = []
    func append(_ result: Result<String, ObjectGraphError>) { lock.withLock { list.append(result) } }
    var all: [Result<String, ObjectGraphError>] { lock.withLock { list } }
}

/// A fresh directory for one test's store files.
func temporaryDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("og-tests-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// Runs `body` and returns the ObjectGraphError it throws (failing when it throws none).
func expectError(_ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) -> ObjectGraphError? {
    do {
        try body()
        XCTFail("expected an error", file: file, line: line)
        return nil
    } catch let e as ObjectGraphError {
        return e
    } catch {
        XCTFail("unexpected error \(error)", file: file, line: line)
        return nil
    }
}

/// The rows of a query on an SQLite file, each column as text ("NULL" for nil): how the
/// tests look at what a store wrote, without going through the engine.
func sqliteRows(_ path: String, _ sql: String) -> [[String]] {
    var db: OpaquePointer?
    guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { return [] }
    defer { sqlite3_close_v2(db) }
    var s: OpaquePointer?
    guard sqlite3_prepare_v2(db, sql, -1, &s, nil) == SQLITE_OK else { return [] }
    defer { sqlite3_finalize(s) }
    var rows: [[String]] = []
    while sqlite3_step(s) == SQLITE_ROW {
        rows.append((0..<sqlite3_column_count(s)).map { i in
            sqlite3_column_type(s, i) == SQLITE_NULL ? "NULL" : String(cString: sqlite3_column_text(s, i))
        })
    }
    return rows
}

/// A coordinator with one store (SQLite unless told) and one context.
final class Stack {
    let model: ManagedObjectModel
    let coordinator: PersistentStoreCoordinator
    let store: PersistentStore
    let context: ManagedObjectContext

    init(model: ManagedObjectModel, path: String, type: String = StoreType.sqlite) throws {
        self.model = model
        coordinator = try PersistentStoreCoordinator(model: model)
        store = try coordinator.addPersistentStore(type: type, path: path)
        context = ManagedObjectContext(coordinator: coordinator)
    }
}
