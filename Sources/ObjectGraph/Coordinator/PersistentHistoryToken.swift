import FoundationEssentials

/// Where the history stands in each store: the newest transaction number per store UUID.
/// Tokens compare by value and can be archived (`archived`) and read back (`init(archive:)`).
public struct PersistentHistoryToken: Hashable, Sendable, CustomStringConvertible {
    /// Store UUID → transaction number.
    public let transactionNumbers: [String: Int64]

    public init(transactionNumbers: [String: Int64]) {
        self.transactionNumbers = transactionNumbers
    }

    public var description: String {
        "PersistentHistoryToken(" + transactionNumbers.keys.sorted().map { "\($0): \(transactionNumbers[$0]!)" }.joined(separator: ", ") + ")"
    }

    static let archiveVersionKey = "NSPersistentHistoryTokenVersion"
    static let archiveStoresKey = "NSPersistentHistoryTokenStores"

    /// The token as a binary property list, to keep in a file or database.
    public var archived: [UInt8] {
        BinaryPropertyList.encode(.dictionary([
            Self.archiveVersionKey: .integer(1),
            Self.archiveStoresKey: .dictionary(transactionNumbers.mapValues { .integer($0) }),
        ]))
    }

    /// Reads an archived token; anything else (truncated, forged, of another version) is 140002.
    public init(archive bytes: [UInt8]) throws(ObjectGraphError) {
        let value: PropertyListValue
        do { value = try BinaryPropertyList.decode(bytes) } catch {
            throw .invalidArgument("not an archived history token (\(bytes.count) bytes): \(error)")
        }
        guard case .dictionary(let top) = value, case .integer(1)? = top[Self.archiveVersionKey],
              case .dictionary(let stores)? = top[Self.archiveStoresKey] else {
            throw .invalidArgument("not an archived history token: the archive lacks its version or stores")
        }
        var numbers: [String: Int64] = [:]
        for (uuid, entry) in stores {
            guard case .integer(let n) = entry, n >= 0 else {
                throw .invalidArgument("not an archived history token: the number of store \(uuid) is not a transaction number")
            }
            numbers[uuid] = n
        }
        self.init(transactionNumbers: numbers)
    }
}
