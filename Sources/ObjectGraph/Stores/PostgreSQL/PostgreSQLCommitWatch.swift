import Dispatch
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Watches a PostgreSQL store for commits by any coordinator on any machine: a connection
/// of the watch's own LISTENs on the store's channel, which every save NOTIFYs inside its
/// transaction (delivered when, and only when, it commits). The server pushes each
/// notification down the socket, so nothing is polled.
///
/// A lost connection is connected again every second; once back, one commit is reported,
/// since saves made meanwhile were not heard.
final class PostgreSQLCommitWatch: CommitWatch, @unchecked Sendable {
    static let reconnectInterval: DispatchTimeInterval = .seconds(1)

    private let queue = DispatchQueue(label: "objectgraph.postgresql-commit-watch")
    private let onCommit: @Sendable (Int64?) -> Void
    private let stopped = Atomic<Bool>(false)
    private let address: PostgreSQLAddress
    private let channel: String
    /// Used on `queue` only.
    private var connection: PostgreSQLConnection?
    private var source: DispatchSourceRead?

    init(address: PostgreSQLAddress, channel: String, onCommit: @escaping @Sendable (Int64?) -> Void) throws(ObjectGraphError) {
        self.address = address
        self.channel = channel
        self.onCommit = onCommit
        let db = try PostgreSQLConnection(address, lockTimeout: StoreOptions.defaultTimeout)
        try db.execute("LISTEN \(PostgreSQLSchema.quoted(channel))")
        queue.sync { listen(on: db) }
    }

    deinit { stop() }

    /// Stops at once without waiting; the connection closes on the watch's queue.
    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.async { [self] in
            source?.cancel()
            source = nil
            connection?.close()
            connection = nil
        }
    }

    private func listen(on db: PostgreSQLConnection) {
        connection = db
        let fd = db.socket
        guard fd >= 0 else { return scheduleReconnect() }
        let read = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        read.setEventHandler { [weak self] in self?.readNotifications() }
        source = read
        read.resume()
    }

    private func readNotifications() {
        guard !stopped.load(ordering: .acquiring), let db = connection else { return }
        guard let heard = db.takeNotifications() else {
            // The server went away: listen again once it is back.
            source?.cancel()
            source = nil
            db.close()
            connection = nil
            return scheduleReconnect()
        }
        if heard.count > 0, !stopped.load(ordering: .acquiring) { onCommit(heard.newestHistoryTransaction) }
    }

    private func scheduleReconnect() {
        queue.asyncAfter(deadline: .now() + Self.reconnectInterval) { [weak self] in
            guard let self, !self.stopped.load(ordering: .acquiring) else { return }
            do throws(ObjectGraphError) {
                let db = try PostgreSQLConnection(self.address, lockTimeout: StoreOptions.defaultTimeout)
                try db.execute("LISTEN \(PostgreSQLSchema.quoted(self.channel))")
                self.listen(on: db)
                self.onCommit(nil)
            } catch {
                self.scheduleReconnect()
            }
        }
    }
}

extension PostgreSQLConnection {
    /// The connection's socket (-1 when closed).
    var socket: Int32 { isConnected ? lib.socket(rawHandle) : -1 }

    /// Reads what the server sent and frees every notification waiting: how many there
    /// were and the newest history transaction they named (each save's payload: its
    /// number, or nothing without history), or nil when the connection is lost.
    func takeNotifications() -> (count: Int, newestHistoryTransaction: Int64?)? {
        guard isConnected, lib.consumeInput(rawHandle) == 1 else { return nil }
        var count = 0
        var newest: Int64?
        while let n = lib.notifies(rawHandle) {
            // PGnotify: relname, be_pid (an int, padded to 8 bytes), extra (the payload).
            if let extra = n.load(fromByteOffset: 2 * MemoryLayout<UnsafeRawPointer>.size, as: UnsafePointer<CChar>?.self),
                let number = Int64(String(cString: extra))
            {
                newest = max(newest ?? number, number)
            }
            lib.freemem(n)
            count += 1
        }
        return isConnected ? (count, newest) : nil
    }
}

extension PostgreSQLStore: CommitWatchingStore {
    public func watchCommits(_ onCommit: @escaping @Sendable (Int64?) -> Void) throws(ObjectGraphError) -> CommitWatch {
        try PostgreSQLCommitWatch(address: address, channel: channel, onCommit: onCommit)
    }
}
