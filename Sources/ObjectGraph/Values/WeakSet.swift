/// A set of objects held weakly, safe to use from several threads: an object leaves it
/// when it is released. (The coordinator's auto-merging contexts, a parent's children.)
final class WeakSet<Element: AnyObject>: @unchecked Sendable {
    private struct Weak { weak var element: Element? }
    private let lock = RecursiveLock()
    private var entries: [ObjectIdentifier: Weak] = [:]

    func set(_ element: Element, on: Bool) {
        lock.withLock {
            entries = entries.filter { $0.value.element != nil }
            if on { entries[ObjectIdentifier(element)] = Weak(element: element) } else { entries.removeValue(forKey: ObjectIdentifier(element)) }
        }
    }

    func all() -> [Element] { lock.withLock { entries.values.compactMap(\.element) } }
}
