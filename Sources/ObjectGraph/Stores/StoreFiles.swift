#if canImport(Glibc)
import Glibc
#endif

/// File operations every store type shares.
enum StoreFiles {
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// The first 16 bytes of the file at `path` (fewer for a shorter file, none when it is
    /// missing), read without a descriptor of this process's own (`SQLiteStore.headerBytes`
    /// says why).
    static func header(of path: String) -> [UInt8] { SQLiteStore.headerBytes(path) }

    /// Copies one file byte for byte: right for a store written whole by atomic rename.
    static func copyBytes(of path: String, to destination: String) throws(ObjectGraphError) {
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

    static func failure(_ path: String) -> ObjectGraphError {
        ObjectGraphError(
            code: ErrorCode.storeOperation, message: "cannot copy the store at '\(path)': \(String(cString: strerror(errno)))",
            userInfo: [(ErrorUserInfoKey.filePath, path)])
    }
}
