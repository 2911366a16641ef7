extension Array where Element == ManagedObject {
    /// Calls `body` with each object and its index, borrowed from the array: reading a large
    /// result's objects by index or through an iterator retains and releases each one, which
    /// costs as much as what a loop that lends or reads them does with each.
    @inline(__always)
    package func forEachBorrowed(_ body: (Int, ManagedObject) -> Void) {
        withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            UnsafeRawPointer(base).withMemoryRebound(to: Unmanaged<ManagedObject>.self, capacity: buffer.count) { objects in
                for i in 0..<buffer.count { objects[i]._withUnsafeGuaranteedRef { body(i, $0) } }
            }
        }
    }
}
