/// The attribute type changes a migration may make on its own: between the numeric
/// types (Boolean included), as SQLite's and Foundation's number conversions do.
enum AttributeConversion {
    static func isNumeric(_ type: AttributeType) -> Bool {
        switch type {
        case .integer16, .integer32, .integer64, .boolean, .double, .float, .decimal: true
        default: false
        }
    }

    static func isInteger(_ type: AttributeType) -> Bool {
        switch type {
        case .integer16, .integer32, .integer64, .boolean: true
        default: false
        }
    }

    static func canConvert(_ from: AttributeType, to: AttributeType) -> Bool {
        from == to || (isNumeric(from) && isNumeric(to))
    }

    /// The SQL that turns column `column` of type `from` into a value of type `to`.
    static func sql(_ column: String, from: AttributeType, to: AttributeType) -> String {
        guard from != to else { return column }
        switch to {
        case .integer16, .integer32, .integer64: return isInteger(from) ? column : "CAST(\(column) AS INTEGER)"
        case .boolean: return isInteger(from) ? "(\(column) != 0)" : "(CAST(\(column) AS REAL) != 0)"
        case .double, .float, .decimal: return "CAST(\(column) AS REAL)"
        default: return column
        }
    }
}
