/// How model objects point at an entity without keeping it alive: a shared box the
/// entity clears when it goes away, so the pointer reads nil afterwards, as a weak
/// reference would. A weak reference would give the entity a side table, after which
/// every retain and release of it takes the slow path; fetched rows and objects retain
/// their entity, so that cost would be paid per row.
final class EntityRef: @unchecked Sendable {
    /// Valid while set: the entity's deinit sets it to nil.
    unowned(unsafe) var entity: EntityDescription?
}
