import CSQLite
import Dispatch
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Watches an SQLite store for commits by any connection of any process. The kernel says
/// when the file, its `-wal` or its `-journal` was written (inotify on the folder, so
/// files that come and go are seen too); a connection of the watch's own then asks SQLite
/// whether that was a commit (`PRAGMA data_version` moves only then), so reads and
/// checkpoints report nothing. Nothing is polled: without inotify (another kernel) the
/// connection is asked four times a second instead.
final class SQLiteCommitWatch: CommitWatch, @unchecked Sendable {
    /// Events close together are looked at once, this long after the first.
    static let coalescing: DispatchTimeInterval = .milliseconds(20)
    static let fallbackInterval: DispatchTimeInterval = .milliseconds(250)

    private let queue = DispatchQueue(label: "objectgraph.commit-watch")
    private let onCommit: @Sendable (Int64?) -> Void
    private let stopped = Atomic<Bool>(false)
    /// Used on `queue` only.
    private var connection: SQLiteConnection?
    private var lastVersion: Int64 = 0
    private var source: DispatchSourceProtocol?
    private var checkScheduled = false
    private let watchedNames: Set<String>

    init(path: String, onCommit: @escaping @Sendable (Int64?) -> Void) throws(ObjectGraphError) {
        self.onCommit = onCommit
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        watchedNames = [name, name + "-wal", name + "-journal"]
        let db = try SQLiteConnection(path: path, readOnly: true)
        connection = db
        lastVersion = (try? Self.dataVersion(db)) ?? 0
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE)
        if fd >= 0, inotify_add_watch(fd, folder, mask) >= 0 {
            let read = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
            read.setEventHandler { [weak self] in self?.readEvents(fd) }
            read.setCancelHandler { close(fd) }
            source = read
            read.resume()
        } else {
            if fd >= 0 { close(fd) }
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + Self.fallbackInterval, repeating: Self.fallbackInterval)
            timer.setEventHandler { [weak self] in self?.check() }
            source = timer
            timer.resume()
        }
    }

    deinit { stop() }

    /// Stops at once without waiting: the caller may hold locks a running callback needs.
    /// The connection closes on the watch's queue, after any check under way.
    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        source?.cancel()
        queue.async { [self] in
            connection?.close()
            connection = nil
        }
    }

    private func readEvents(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var relevant = false
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= n {
                let length = buffer.withUnsafeBytes { Int($0.load(fromByteOffset: offset + 12, as: UInt32.self)) }
                let nameStart = offset + MemoryLayout<inotify_event>.size
                if length > 0, nameStart + length <= n {
                    let name = buffer[nameStart..<nameStart + length].prefix { $0 != 0 }
                    if watchedNames.contains(String(decoding: name, as: UTF8.self)) { relevant = true }
                }
                offset = nameStart + length
            }
        }
        guard relevant, !checkScheduled else { return }
        checkScheduled = true
        queue.asyncAfter(deadline: .now() + Self.coalescing) { [weak self] in
            self?.checkScheduled = false
            self?.check()
        }
    }

    /// Reports a commit when SQLite says one happened since the last look.
    private func check() {
        guard !stopped.load(ordering: .acquiring), let db = connection else { return }
        guard let version = try? Self.dataVersion(db), version != lastVersion else { return }
        lastVersion = version
        let newest = try? Self.newestTransaction(db)
        guard !stopped.load(ordering: .acquiring) else { return }
        onCommit(newest ?? nil)
    }

    private static func dataVersion(_ db: SQLiteConnection) throws(ObjectGraphError) -> Int64 {
        try db.prepare("PRAGMA data_version").firstRow { $0.int64(0) } ?? 0
    }

    private static func newestTransaction(_ db: SQLiteConnection) throws(ObjectGraphError) -> Int64? {
        guard try SQLiteHistory.hasTables(db) else { return nil }
        return try db.prepare("SELECT MAX(Z_PK) FROM ATRANSACTION").firstRow { $0.isNull(0) ? nil : $0.int64(0) } ?? nil
    }
}

extension SQLiteStore: CommitWatchingStore {
    public func watchCommits(_ onCommit: @escaping @Sendable (Int64?) -> Void) throws(ObjectGraphError) -> CommitWatch {
        try SQLiteCommitWatch(path: path, onCommit: onCommit)
    }
}
