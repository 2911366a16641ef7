import CSQLite
import FoundationEssentials

/// The SQL functions and collations the store registers on each connection, so that the
/// predicate language means the same in SQL as in memory: both call `StringMatching` and
/// `SortComparison`.
///
/// - `og_str(op, options, a, b)`: 1 or 0 for the string operators (`op` is a
///   `StringOperation` number, `options` `StringCompareOptions` bits); 0 when either side
///   is NULL, as nil matches no string in memory. For `compare` it is -1, 0 or 1, or NULL.
/// - Collations `OG_CASEINSENSITIVE` and `OG_LOCALIZEDSTANDARD` for sort keys.
enum SQLiteFunctions {
    enum StringOperation: Int32 {
        case equal = 0, beginsWith, endsWith, contains, like, matches, compare
    }

    static func register(_ db: OpaquePointer) {
        // Triggers Apple's Core Data writes for derived attributes call these; they only
        // notify Core Data's row cache, so here they do nothing and return NULL.
        for name in appleTriggerFunctions {
            sqlite3_create_function_v2(db, name, -1, SQLITE_UTF8, nil, { context, _, _ in sqlite3_result_null(context) }, nil, nil, nil)
        }
        sqlite3_create_function_v2(
            db, "og_str", 4, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
            { context, _, argv in SQLiteFunctions.stringFunction(context, argv) }, nil, nil, nil)
        sqlite3_create_function_v2(
            db, "og_case", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
            { context, _, argv in SQLiteFunctions.caseFunction(context, argv) }, nil, nil, nil)
        for comparison in SortComparison.allCases {
            guard let name = comparison.collation else { continue }
            let box = Unmanaged.passRetained(CollationBox(comparison)).toOpaque()
            sqlite3_create_collation_v2(
                db, name, SQLITE_UTF8, box,
                { box, n1, p1, n2, p2 in
                    let comparison = Unmanaged<CollationBox>.fromOpaque(box!).takeUnretainedValue().comparison
                    return Int32(comparison.compare(SQLiteFunctions.string(p1, n1), SQLiteFunctions.string(p2, n2)))
                },
                { box in Unmanaged<CollationBox>.fromOpaque(box!).release() })
        }
    }

    /// Functions named in the triggers of stores written by Apple's Core Data.
    static let appleTriggerFunctions = [
        "NSCoreDataDATriggerUpdatedAffectedObjectValue", "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue",
        "NSCoreDataTriggerUpdateAffectedObjectValue", "NSCoreDataTriggerInsertUpdateAffectedObjectValue",
    ]

    private final class CollationBox {
        let comparison: SortComparison
        init(_ comparison: SortComparison) { self.comparison = comparison }
    }

    private static func string(_ p: UnsafeRawPointer?, _ n: Int32) -> String {
        guard let p, n > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: p, count: Int(n)), as: UTF8.self)
    }

    /// `og_case(text, mode)`: derived attributes' `lowercase:` (0), `uppercase:` (1) and
    /// `canonical:` (2: lowercase without diacritics) of a string; NULL stays NULL.
    private static func caseFunction(_ context: OpaquePointer?, _ argv: UnsafeMutablePointer<OpaquePointer?>?) {
        guard let argv, let s = text(argv[0]) else { sqlite3_result_null(context); return }
        let out = (DerivedCase(rawValue: sqlite3_value_int(argv[1])) ?? .lowercase).apply(s)
        sqlite3_result_text(context, out, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
    }

    private static func text(_ value: OpaquePointer?) -> String? {
        guard let value, sqlite3_value_type(value) != SQLITE_NULL, let p = sqlite3_value_text(value) else { return nil }
        return string(UnsafeRawPointer(p), sqlite3_value_bytes(value))
    }

    private static func stringFunction(_ context: OpaquePointer?, _ argv: UnsafeMutablePointer<OpaquePointer?>?) {
        guard let argv, let op = StringOperation(rawValue: sqlite3_value_int(argv[0])) else {
            sqlite3_result_error(context, "og_str: unknown operation", -1)
            return
        }
        let options = StringCompareOptions(rawValue: Int(sqlite3_value_int(argv[1])))
        guard let a = text(argv[2]), let b = text(argv[3]) else {
            if op == .compare { sqlite3_result_null(context) } else { sqlite3_result_int(context, 0) }
            return
        }
        let result: Bool
        switch op {
        case .equal: result = StringMatching.equal(a, b, options)
        case .beginsWith: result = StringMatching.beginsWith(a, b, options)
        case .endsWith: result = StringMatching.endsWith(a, b, options)
        case .contains: result = StringMatching.contains(a, b, options)
        case .like: result = StringMatching.like(a, b, options)
        case .compare:
            sqlite3_result_int(context, Int32(StringMatching.compare(a, b, options)))
            return
        case .matches:
            do {
                result = try StringMatching.matches(a, b, options)
            } catch {
                sqlite3_result_error(context, error.message, -1)
                return
            }
        }
        sqlite3_result_int(context, result ? 1 : 0)
    }
}
