/// A stored object within a coordinator: its hierarchy, its primary key and its store.
/// Two stores can both hold row 1 of an entity (overlapping configurations), so the key
/// names the store by its coordinator slot: a small number, not its UUID.
struct StoredObjectKey: Hashable {
    let root: ObjectIdentifier
    let primaryKey: Int64
    let store: Int32
}
