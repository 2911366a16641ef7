import Foundation

/// batch-delete and upsert change their store for good, so every run starts from a copy of
/// a store built once (`prepare`): the copy is made before the run's timing starts.
enum StoreTemplate {
    /// Where the template of the store at `store` is built (`…-template.sqlite`).
    static func path(for store: String) -> String {
        (store.hasSuffix(".sqlite") ? String(store.dropLast(7)) : store) + "-template.sqlite"
    }

    /// Replaces the store at `store` with a copy of its template. The template is closed,
    /// so its main file and write-ahead log (if any is left) are the whole database.
    static func restore(_ store: String) throws {
        removeStore(store)
        let template = path(for: store)
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: template + suffix) {
            try FileManager.default.copyItem(atPath: template + suffix, toPath: store + suffix)
        }
    }
}
