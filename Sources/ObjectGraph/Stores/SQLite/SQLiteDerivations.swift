/// Derived attributes (`NSDerivedAttributeDescription`) in SQL: each derivation becomes an
/// expression over the row being written, which the store evaluates in the save's
/// transaction every time it writes the row (`UPDATE … SET col = <expression>`). The forms
/// Core Data supports: a key path (through to-ones: `author.name`), `canonical:(k)`,
/// `uppercase:(k)` and `lowercase:(k)`, `rel.@count`, `rel.k.@sum`, `@min`, `@max` and
/// `@avg` (also spelled `count:(rel)`, `sum:(rel.k)` and so on), and `now()`. Anything else is refused when the schema is made (140009).
extension SQLiteSchema {
    /// The UPDATE that computes `entity`'s derived attributes for the row `?1`, or nil when
    /// it has none.
    func derivationUpdate(for entity: EntityDescription, dialect: SQLDialect = .sqlite) throws(ObjectGraphError) -> DerivationUpdate? {
        let mapping = mapping(entity)
        let table = tables[mapping.tableIndex]
        var sets: [String] = []
        var inputs: [DerivationUpdate.Input] = []
        for (slot, property) in entity.properties.enumerated() {
            guard let a = property as? AttributeDescription, let text = a.derivationExpression, !a.isTransient else { continue }
            let column = mapping.columnBySlot[slot]
            guard column >= 0 else { continue }
            let sql = try derivationSQL(text, for: a, entity: entity, row: table.sql, dialect: dialect, inputs: &inputs)
            sets.append("\(table.columns[column].sql) = \(sql)")
        }
        guard !sets.isEmpty else { return nil }
        return DerivationUpdate(sql: "UPDATE \(table.sql) SET \(sets.joined(separator: ", ")) WHERE Z_PK = ?1", inputs: inputs)
    }

    private static let aggregateFunctions = ["count:": "@count", "sum:": "@sum", "min:": "@min", "max:": "@max", "average:": "@avg"]

    /// Checks every derivation of the schema's entities (the error names the attribute).
    func checkDerivations(dialect: SQLDialect = .sqlite) throws(ObjectGraphError) {
        for table in tables where isStored(table.root) {
            for entity in table.entities { _ = try derivationUpdate(for: entity, dialect: dialect) }
        }
    }

    private func derivationSQL(_ text: String, for a: AttributeDescription, entity: EntityDescription, row: String,
                               dialect: SQLDialect, inputs: inout [DerivationUpdate.Input]) throws(ObjectGraphError) -> String {
        func refuse(_ why: String) -> ObjectGraphError {
            .invalidModel("the derived attribute '\(entity.name).\(a.name)' has the derivation '\(text)', which \(why)")
        }
        // `canonical:` is Core Data's derivation function, not one of the expression language's.
        var source = String(text.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
        var canonical = false
        if source.hasPrefix("canonical:("), source.hasSuffix(")") {
            source = "lowercase:(" + source.dropFirst("canonical:(".count)
            canonical = true
        }
        var expression: ObjectExpression
        do throws(ObjectGraphError) { expression = try PredicateParser.parseExpression(source, arguments: []) } catch {
            throw refuse("does not parse: \(error.message)")
        }
        if canonical, case .function(_, let arguments) = expression { expression = .function("canonical:", arguments) }
        switch expression {
        case .keyPath(nil, let path):
            return try keyPathSQL(KeyPath.components(path), from: entity, row: row, refuse)
        case .function(let name, let arguments) where ["canonical:", "uppercase:", "lowercase:"].contains(name):
            guard arguments.count == 1, case .keyPath(nil, let path) = arguments[0] else { throw refuse("needs one key path") }
            let mode: DerivedCase = name == "canonical:" ? .canonical : name == "uppercase:" ? .uppercase : .lowercase
            let keys = KeyPath.components(path)
            let value = try keyPathSQL(keys, from: entity, row: row, refuse)
            switch dialect {
            case .sqlite: return "og_case(\(value), \(mode.rawValue))"
            case .postgreSQL:
                // PostgreSQL maps case by the database's collation, not as the engine does, and
                // removes no diacritics without an extension: an attribute of the row itself is
                // mapped by the engine as the row is written, and bound.
                if keys.count == 1, let slot = entity.slot(forKey: keys[0]) {
                    inputs.append(DerivationUpdate.Input(slot: slot, mode: mode))
                    return "?\(inputs.count + 1)"
                }
                guard mode != .canonical else {
                    throw refuse("uses canonical: through a to-one, which a PostgreSQL store does not compute (it removes diacritics); derive from an attribute of the entity itself")
                }
                return mode == .uppercase ? "upper(\(value))" : "lower(\(value))"
            }
        case .function(let name, let arguments) where Self.aggregateFunctions[name] != nil:
            // `count:(books)`, `sum:(books.pages)`: the functional spelling of a to-many's
            // collection operator, as Xcode writes it.
            guard arguments.count == 1, case .keyPath(nil, let path) = arguments[0] else { throw refuse("needs one key path") }
            return try keyPathSQL(KeyPath.components(path) + [Self.aggregateFunctions[name]!], from: entity, row: row, refuse)
        case .function("now", let arguments) where arguments.isEmpty:
            // Seconds since 2001-01-01, as dates are stored.
            return dialect == .sqlite
                ? "((julianday('now') - 2451910.5) * 86400.0)" : "(EXTRACT(EPOCH FROM clock_timestamp())::double precision - 978307200.0)"
        default:
            throw refuse("is not one of the forms a store computes (a key path, canonical:, uppercase:, lowercase:, a to-many's @count or @sum, @min, @max, @avg of an attribute, now())")
        }
    }

    /// A key path's value for the row `row` of `entity`: a column, a to-one's scalar
    /// subquery, or a to-many's aggregate.
    private func keyPathSQL(_ keys: [String], from entity: EntityDescription, row: String,
                            _ refuse: (String) -> ObjectGraphError) throws(ObjectGraphError) -> String {
        guard let key = keys.first else { throw refuse("has an empty key path") }
        if key.hasPrefix("@") { throw refuse("has a collection operator that does not follow a to-many") }
        guard let slot = entity.slot(forKey: key) else { throw refuse("names '\(key)', which '\(entity.name)' does not have") }
        let mapping = mapping(entity)
        let table = tables[mapping.tableIndex]
        let column = mapping.columnBySlot[slot]
        switch entity.layout.kinds[slot] {
        case .attribute:
            guard keys.count == 1 else { throw refuse("reads past the attribute '\(key)'") }
            guard column >= 0 else { throw refuse("reads '\(key)', which is not stored") }
            return "\(row).\(table.columns[column].sql)"
        case .toOne(let r):
            guard keys.count > 1, column >= 0, let destination = r.destinationEntity, isStored(destination) else {
                throw refuse("must read an attribute through the to-one '\(key)'")
            }
            let alias = "d\(keys.count)"
            let inner = try keyPathSQL(Array(keys.dropFirst()), from: destination, row: alias, refuse)
            return "(SELECT \(inner) FROM \(self.table(destination).sql) \(alias) WHERE \(alias).Z_PK = \(row).\(table.columns[column].sql))"
        case .toMany(let r):
            guard let destination = r.destinationEntity, isStored(destination), let storage = toMany[ObjectIdentifier(r)] else {
                throw refuse("reads the to-many '\(key)', whose members are not in this store")
            }
            let rest = Array(keys.dropFirst())
            guard let op = rest.last, op.hasPrefix("@"), rest.dropLast().allSatisfy({ !$0.hasPrefix("@") }) else {
                throw refuse("must end a to-many key path with @count, @sum, @min, @max or @avg (a collection operator in the middle is not computed)")
            }
            let member = "m\(keys.count)"
            let from: String
            switch storage {
            case .inverseColumn(_, let inverse, _):
                from = "FROM \(self.table(destination).sql) \(member) WHERE \(member).\(sqlIdentifier(inverse)) = \(row).Z_PK"
            case .join(let join, let owner, let memberColumn, _):
                from = "FROM \(sqlIdentifier(join)) j\(keys.count) JOIN \(self.table(destination).sql) \(member) ON \(member).Z_PK = j\(keys.count).\(sqlIdentifier(memberColumn)) WHERE j\(keys.count).\(sqlIdentifier(owner)) = \(row).Z_PK"
            }
            if op == "@count" {
                guard rest.count == 1 else { throw refuse("counts members with @count right after the to-many") }
                return "(SELECT COUNT(*) \(from))"
            }
            let functions = ["@sum": "SUM", "@min": "MIN", "@max": "MAX", "@avg": "AVG"]
            guard let function = functions[op], rest.count == 2 else {
                throw refuse("uses \(op), which a store does not compute over '\(key)'")
            }
            let value = try keyPathSQL([rest[0]], from: destination, row: member, refuse)
            // The sum of no members is 0, as Core Data computes it.
            return op == "@sum" ? "(SELECT IFNULL(SUM(\(value)), 0) \(from))" : "(SELECT \(function)(\(value)) \(from))"
        }
    }
}

/// The UPDATE computing an entity's derived attributes for a written row (`?1` is its key),
/// and the values the store computes itself and binds after the key: a string attribute of
/// the row mapped as `inputs[i]` says, bound as `?(i + 2)`.
struct DerivationUpdate {
    struct Input {
        let slot: Int
        let mode: DerivedCase
    }

    let sql: String
    let inputs: [Input]
}

/// The string derivations: `lowercase:`, `uppercase:` and `canonical:` (lower case without
/// diacritics, as `[cd]` compares).
enum DerivedCase: Int32 {
    case lowercase = 0, uppercase = 1, canonical = 2

    func apply(_ s: String) -> String {
        switch self {
        case .lowercase: return s.lowercased()
        case .uppercase: return s.uppercased()
        case .canonical:
            var scalars = String.UnicodeScalarView()
            scalars.append(contentsOf: StringMatching.fold(s, [.caseInsensitive, .diacriticInsensitive]))
            return String(scalars)
        }
    }
}
