/// The SQL a query is written in: the SQLite store's, or the PostgreSQL store's. The
/// predicate translator and the SELECT builder speak both; what differs is here.
enum SQLDialect: Sendable {
    case sqlite
    case postgreSQL

    /// A condition that always holds, and one that never does.
    var `true`: String { self == .sqlite ? "1" : "TRUE" }
    var `false`: String { self == .sqlite ? "0" : "FALSE" }

    /// `condition`, read as false where SQL's answer is unknown (a comparison with NULL):
    /// the evaluator's answer for a comparison with nil.
    func falseIfNull(_ condition: String) -> String {
        self == .sqlite ? "IFNULL(\(condition), 0)" : "COALESCE(\(condition), FALSE)"
    }

    /// Whether `a` and `b` are the same value, NULL being the same as NULL.
    func same(_ a: String, _ b: String, negate: Bool) -> String {
        switch self {
        case .sqlite: "\(a) IS \(negate ? "NOT " : "")\(b)"
        case .postgreSQL: "\(a) IS \(negate ? "" : "NOT ")DISTINCT FROM \(b)"
        }
    }
}

extension SQLDialect {
    /// The SQL that turns column `column` of type `from` into a value of type `to`, for
    /// the numeric changes a lightweight migration makes (`AttributeConversion`).
    /// PostgreSQL's casts round where SQLite's truncate, so integers are truncated first.
    func conversion(_ column: String, from: AttributeType, to: AttributeType) -> String {
        guard self == .postgreSQL else { return AttributeConversion.sql(column, from: from, to: to) }
        guard from != to else { return column }
        switch to {
        case .integer16, .integer32, .integer64:
            return AttributeConversion.isInteger(from) ? column : "CAST(trunc(\(column)) AS bigint)"
        case .boolean: return "(CASE WHEN \(column) IS NULL THEN NULL WHEN \(column) <> 0 THEN 1 ELSE 0 END)"
        case .double, .float: return "CAST(\(column) AS double precision)"
        case .decimal: return "CAST(\(column) AS numeric)"
        default: return column
        }
    }
}
