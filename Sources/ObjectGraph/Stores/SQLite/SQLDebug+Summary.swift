/// The summary line of a context's fetch or save, logged at every SQL debug level, as
/// Core Data's "total fetch execution time: …s for N rows" annotation: how long the whole
/// fetch or save took, the rows it read or wrote, and the objects it returned or saved.
extension SQLDebug {
    /// When logging is on, the start of a fetch or save to summarise; nil when it is off
    /// (then summarising costs one atomic load).
    static func summaryStart() -> ContinuousClock.Instant? {
        level > 0 ? ContinuousClock.now : nil
    }

    /// Logs a fetch of `entity` that read `rows` rows from its stores and returned `results`
    /// results, each a `noun` ("object", "object ID", "dictionary").
    static func logFetch(since start: ContinuousClock.Instant, rows: Int, results: Int, noun: String = "object", entity: String) {
        emit(Message(kind: .fetch, level: 1, sql: "", duration: seconds(since: start), rows: rows, objects: results,
                     noun: noun, subject: entity))
    }

    /// Logs a save that wrote or deleted `rows` rows for its inserted, updated and deleted objects.
    static func logSave(since start: ContinuousClock.Instant, rows: Int, inserted: Int, updated: Int, deleted: Int) {
        emit(Message(kind: .save, level: 1, sql: "", duration: seconds(since: start), rows: rows,
                     objects: inserted + updated + deleted,
                     subject: "\(inserted) inserted, \(updated) updated, \(deleted) deleted"))
    }

    private static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = start.duration(to: ContinuousClock.now).components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    }
}
