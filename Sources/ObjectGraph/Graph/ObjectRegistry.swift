/// A context's registered objects by key (store, hierarchy root, primary key): 16 bytes an
/// entry (`PrimaryKeyMap`).
typealias ObjectRegistry = PrimaryKeyMap<ManagedObject>

extension PrimaryKeyMap where Value == ManagedObject {
    /// The object registered for `key`, or `make()`'s, registered now; one probe either way.
    @inline(__always)
    mutating func object(for key: ManagedObjectContext.ObjectKey, orInsert make: () -> ManagedObject) -> (object: ManagedObject, isNew: Bool) {
        let found = value(for: key, orInsert: make)
        return (found.value, found.isNew)
    }

    /// Removes and returns every object that only this table references (the sweep of
    /// `releaseUnreferencedObjects`). The check happens in place, adding no reference.
    mutating func removeUnreferenced() -> [ManagedObject] {
        removeAll { isKnownUniquelyReferenced(&$0) }
    }
}
