/// A context's registered objects by key (store, hierarchy root, primary key): 16 bytes an
/// entry (`PrimaryKeyMap`).
typealias ObjectRegistry = PrimaryKeyMap<ManagedObject>

extension PrimaryKeyMap where Value == ManagedObject {
    /// Removes and returns every object that only this table references (the sweep of
    /// `releaseUnreferencedObjects`). The check happens in place, adding no reference.
    mutating func removeUnreferenced() -> [ManagedObject] {
        removeAll { isKnownUniquelyReferenced(&$0) }
    }
}
