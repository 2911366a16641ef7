import CSQLite
#if canImport(Glibc)
import Glibc
#endif

/// A consistent copy of a store file for a migration to work on. SQLite stores are
/// copied through SQLite's backup API (it reads the write-ahead log too, and never opens
/// a descriptor of its own on the file, whose closing would drop this process's locks).
enum StoreFileCopy {
    static func copy(_ path: String, to destination: String, type: String) throws(ObjectGraphError) {
        if type == StoreType.sqlite {
            let from = try SQLiteConnection(path: path, readOnly: true)
            defer { from.close() }
            let to = try SQLiteConnection(path: destination)
            defer { to.close() }
            guard let backup = sqlite3_backup_init(to.handle, "main", from.handle, "main") else {
                throw to.lastError(sqlite3_errcode(to.handle))
            }
            let rc = sqlite3_backup_step(backup, -1)
            sqlite3_backup_finish(backup)
            guard rc == SQLITE_DONE else { throw to.lastError(rc) }
            return
        }
        // A Binary store is written whole by atomic rename: read it whole.
        guard let input = fopen(path, "rb") else { throw failure(path) }
        defer { fclose(input) }
        guard let output = fopen(destination, "wb") else { throw failure(destination) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = fread(&buffer, 1, buffer.count, input)
            if n == 0 { break }
            guard fwrite(buffer, 1, n, output) == n else {
                fclose(output)
                throw failure(destination)
            }
        }
        guard fclose(output) == 0 else { throw failure(destination) }
    }

    private static func failure(_ path: String) -> ObjectGraphError {
        ObjectGraphError(
            code: ErrorCode.storeOperation, message: "cannot copy the store for migration at '\(path)': \(String(cString: strerror(errno)))",
            userInfo: [(ErrorUserInfoKey.filePath, path)])
    }
}
