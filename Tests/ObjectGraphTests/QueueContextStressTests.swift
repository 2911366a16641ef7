import Foundation
import ObjectGraph
import XCTest

/// Queue contexts used at once from several threads: private-queue contexts on one
/// coordinator inserting, saving, fetching and updating concurrently, a child of a queue
/// parent, and saves merged into a main-queue context. scripts/tsan.sh runs these (with
/// the other queue-context tests) under ThreadSanitizer; in the ordinary suite they check
/// the results.
final class QueueContextStressTests: XCTestCase {
    func testPrivateQueueContextsSavingAtOnce() throws {
        let stack = try Stack(model: try makeLibraryModel(), path: try temporaryDirectory() + "/queues.sqlite")
        let contexts = (0..<4).map { _ in ManagedObjectContext(coordinator: stack.coordinator, concurrencyType: .privateQueue) }
        let failures = UncheckedBox<[String]>([])
        let lock = NSLock()
        DispatchQueue.concurrentPerform(iterations: contexts.count) { i in
            let ctx = contexts[i]
            for round in 0..<5 {
                do {
                    try ctx.performAndWait {
                        for n in 0..<10 {
                            let a = try ctx.insertObject(entityName: "Author")
                            try a.setValue(.string("a\(i)-\(round)-\(n)"), forKey: "name")
                        }
                        try ctx.save()
                        let mine = try ctx.fetch(FetchRequest(entityName: "Author", predicate: try ObjectPredicate(format: "name BEGINSWITH %@", arguments: [.scalar(.string("a\(i)-"))])))
                        for a in mine { try a.setValue(.integer(Int64(round)), forKey: "rating") }
                        try ctx.save()
                    }
                } catch {
                    lock.lock()
                    failures.value.append("context \(i) round \(round): \(error)")
                    lock.unlock()
                }
            }
        }
        XCTAssertEqual(failures.value, [])
        XCTAssertEqual(try stack.context.count(for: FetchRequest(entityName: "Author")), 4 * 5 * 10)
    }

    func testChildOfAQueueParentAndMergesIntoAMainQueueContext() throws {
        let stack = try Stack(model: try makeLibraryModel(), path: try temporaryDirectory() + "/children.sqlite")
        let parent = ManagedObjectContext(coordinator: stack.coordinator, concurrencyType: .privateQueue)
        let main = ManagedObjectContext(coordinator: stack.coordinator, concurrencyType: .mainQueue)
        let merged = UncheckedBox(0)
        let token = parent.addObserver(for: .didSave) { note in
            let saved = UncheckedBox(note)
            try? main.perform {
                try? main.mergeChanges(fromContextDidSave: saved.value)
                merged.value += 1
            }
        }
        let children = (0..<3).map { _ in ManagedObjectContext(parent: parent, concurrencyType: .privateQueue) }
        DispatchQueue.concurrentPerform(iterations: children.count) { i in
            let child = children[i]
            for n in 0..<5 {
                try? child.performAndWait {
                    let b = try? child.insertObject(entityName: "Author")
                    try? b?.setValue(.string("child \(i) #\(n)"), forKey: "name")
                    try? child.save()
                }
                _ = try? parent.performAndWait { try? parent.save() }
            }
        }
        try main.performAndWait {}
        XCTAssertGreaterThan(merged.value, 0)
        parent.removeObserver(token)
        let count = try main.performAndWait { try main.count(for: FetchRequest(entityName: "Author")) }
        XCTAssertEqual(count, 15)
    }
}
