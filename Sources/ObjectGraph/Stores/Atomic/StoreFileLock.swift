import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// An advisory lock on a store file, held while a Binary store checks that the file is
/// still the one it read and replaces it (docs/store-format.md, "Saves shared between
/// processes").
///
/// The lock is taken on the store file itself, not on a side file: nothing is left beside
/// the store, and copying, moving or deleting a store stays a matter of one file. It is
/// an `flock` lock, not a POSIX (`fcntl`) record lock: an flock lock belongs to the open
/// file description, so two stores of one process on the same file exclude each other as
/// two processes do, and closing some other descriptor of the file does not drop it
/// (fcntl locks belong to the process and have both faults). The kernel drops it when
/// the holder dies, so a killed writer never leaves the store locked.
///
/// A save replaces the file by renaming a new one over it, so a descriptor locked after
/// that rename holds a lock on a file that is no longer the store. After locking, the
/// descriptor is therefore checked to still be the file at the path (same device and
/// inode); if it is not, the lock is taken again on the file now there.
final class StoreFileLock {
    let fd: Int32
    let path: String
    /// Whether this lock created the (empty) file it holds.
    let created: Bool

    private init(fd: Int32, path: String, created: Bool) {
        self.fd = fd
        self.path = path
        self.created = created
    }

    deinit { _ = Glibc.close(fd) }

    /// Locks the file at `path`, shared (readers) or exclusive (a writer). A missing file
    /// is nil, unless `create`: then an empty file is created and locked (an empty file
    /// is what a store without data reads as; `created` says so, and the holder removes
    /// it again if it writes nothing). Waits while another holder has the lock.
    static func lock(_ path: String, exclusive: Bool, create: Bool) throws(ObjectGraphError) -> StoreFileLock? {
        while true {
            var fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
            var created = false
            if fd < 0 && errno == ENOENT {
                guard create else { return nil }
                fd = Glibc.open(path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
                if fd < 0 && errno == EEXIST { continue }  // another writer created it first
                created = fd >= 0
            }
            guard fd >= 0 else { throw failure(path, "cannot open it to lock it") }
            let lock = StoreFileLock(fd: fd, path: path, created: created)
            var rc: Int32
            repeat { rc = flock(fd, exclusive ? LOCK_EX : LOCK_SH) } while rc != 0 && errno == EINTR
            guard rc == 0 else { throw failure(path, "cannot lock it") }
            var locked = stat(), current = stat()
            guard fstat(fd, &locked) == 0 else { throw failure(path, "cannot read what was locked") }
            if stat(path, &current) == 0 && current.st_dev == locked.st_dev && current.st_ino == locked.st_ino {
                return lock
            }
            // Replaced (or removed) while we waited: lock what is there now.
        }
    }

    /// The whole content of the locked file.
    func contents() throws(ObjectGraphError) -> [UInt8] {
        var bytes: [UInt8] = []
        var info = stat()
        if fstat(fd, &info) == 0 && info.st_size > 0 { bytes.reserveCapacity(Int(info.st_size)) }
        var buffer = [UInt8](repeating: 0, count: 65536)
        var offset: off_t = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Self.failure(path, "cannot read it")
            }
            if n == 0 { break }
            bytes.append(contentsOf: buffer[0..<n])
            offset += off_t(n)
        }
        return bytes
    }

    /// The size of the locked file, in bytes.
    var size: Int {
        var info = stat()
        return fstat(fd, &info) == 0 ? Int(info.st_size) : -1
    }

    private static func failure(_ path: String, _ what: String) -> ObjectGraphError {
        ObjectGraphError(
            code: ErrorCode.storeOpen, message: "cannot use the store file '\(path)': \(what): \(String(cString: strerror(errno)))",
            userInfo: [(ErrorUserInfoKey.filePath, path)])
    }
}

/// What a Binary store last read from or wrote to its file: the file's size and a 64-bit
/// digest of its bytes. Two files with the same digest are taken to be the same document;
/// the digest guards against accidental change (another process's save), not against
/// someone crafting a collision, which needs write access to the store anyway.
struct DocumentDigest: Equatable, Sendable {
    let size: Int
    let hash: UInt64

    /// No file, or an empty one: a store without data.
    static let empty = DocumentDigest([])

    init(_ bytes: [UInt8]) {
        size = bytes.count
        hash = bytes.withUnsafeBytes(Self.hash)
    }

    /// FNV-1a over 8-byte words, with a final avalanche (the finaliser of MurmurHash3);
    /// every byte and the length take part.
    private static func hash(_ raw: UnsafeRawBufferPointer) -> UInt64 {
        let prime: UInt64 = 0x0000_0100_0000_01B3
        var h: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(raw.count)
        var i = 0
        while i + 8 <= raw.count {
            h = (h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* prime
            h ^= h >> 31
            i += 8
        }
        while i < raw.count {
            h = (h ^ UInt64(raw[i])) &* prime
            i += 1
        }
        h ^= h >> 33
        h = h &* 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 33
        h = h &* 0xC4CE_B9FE_1A85_EC53
        h ^= h >> 33
        return h
    }
}
