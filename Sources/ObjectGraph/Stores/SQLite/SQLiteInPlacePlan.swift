/// A lightweight migration of an SQLite store written as SQL: which rows of which old
/// table become which rows of which new table, column by column. Made when every entity
/// mapping only copies, renames, converts, adds or drops (the inferred kind); nil
/// otherwise, and the migration then goes object by object.
///
/// Rows keep their primary keys and versions, so foreign keys stay valid; entity numbers
/// (`Z_ENT`, `Z<n>_` columns) are renumbered.
struct SQLiteInPlacePlan {
    /// One entity's rows: `INSERT INTO table (columns) SELECT expressions FROM old WHERE Z_ENT = n`.
    struct RowCopy {
        let sourceEntity: EntityDescription
        let destinationEntity: EntityDescription
        var columns: [String] = []
        var expressions: [String] = []
        /// Values bound to the `?` in `expressions`, in order.
        var bindings: [AttributeValue] = []
        /// Required destination columns that must not end up NULL (entity, property, column).
        var required: [(property: String, column: String)] = []
    }

    /// One join table's pairs, copied from an old join table.
    struct JoinCopy {
        let destination: SQLiteSchema.JoinTable
        let sourceTable: String
        /// Old columns for the new source, destination and order columns.
        let select: [String]
        let columns: [String]
    }

    let source: SQLiteSchema
    let destination: SQLiteSchema
    var rows: [RowCopy] = []
    var joins: [JoinCopy] = []
    /// Old entity number → new entity number, for every migrated entity.
    var numbers: [Int: Int] = [:]

    /// The plan for `mapping`, or nil when some mapping needs objects (a policy, a custom
    /// expression, a source predicate, hierarchies that merge, a relationship whose
    /// storage changes).
    static func make(_ mapping: MappingModel, source: ManagedObjectModel, destination: ManagedObjectModel,
                     dialect: SQLDialect = .sqlite) -> SQLiteInPlacePlan? {
        guard let s = try? SQLiteSchema(model: source), let d = try? SQLiteSchema(model: destination) else { return nil }
        var plan = SQLiteInPlacePlan(source: s, destination: d)
        var usedSources = Set<ObjectIdentifier>(), usedDestinations = Set<ObjectIdentifier>()
        var feeding: [Int: Int] = [:]  // destination table → the one source table feeding it
        var pairs: [(EntityMapping, EntityDescription, EntityDescription)] = []
        for m in mapping.entityMappings {
            if let policy = m.migrationPolicyName, !policy.isEmpty, policy != "NSEntityMigrationPolicy" { return nil }
            switch m.kind {
            case .add, .remove: continue
            case .copy, .transform: break
            case .custom, .undefined: return nil
            }
            guard let sn = m.sourceEntityName, let dn = m.destinationEntityName,
                let se = source.entity(named: sn), let de = destination.entity(named: dn)
            else { return nil }
            // Without a source expression nothing migrates, as on Apple; another expression needs objects.
            guard let text = m.sourceExpression, !text.isEmpty else { continue }
            guard isDefaultSourceExpression(text, entity: sn) else { return nil }
            guard usedSources.insert(ObjectIdentifier(se)).inserted, usedDestinations.insert(ObjectIdentifier(de)).inserted else { return nil }
            let st = s.mapping(se).tableIndex, dt = d.mapping(de).tableIndex
            if let other = feeding[dt], other != st { return nil }
            feeding[dt] = st
            plan.numbers[s.number(se)] = d.number(de)
            pairs.append((m, se, de))
        }
        for (m, se, de) in pairs {
            guard let copy = plan.rowCopy(m, se, de, dialect) else { return nil }
            plan.rows.append(copy)
            guard plan.addJoinCopies(m, se, de) else { return nil }
        }
        return plan
    }

    private static func isDefaultSourceExpression(_ text: String, entity: String) -> Bool {
        guard let given = try? ObjectExpression(format: text) else { return false }
        let forms = [
            EntityMapping.defaultSourceExpression(forEntityNamed: entity),
            "FETCH(FUNCTION($manager, \"fetchRequestForSourceEntityNamed:predicateString:\", \(quoted(entity)), \"TRUEPREDICATE\"), FUNCTION($manager, \"sourceContext\"), NO)",
        ]
        return forms.contains { (try? ObjectExpression(format: $0)).map { $0 == given } ?? false }
    }

    /// The source key an expression reads: `$source.key` or `FUNCTION($source, "valueForKey:", "key")`.
    static func sourceKey(_ text: String?) -> String?? {
        guard let text, !text.isEmpty else { return .some(nil) }
        guard let e = try? ObjectExpression(format: text) else { return nil }
        switch e {
        case .keyPath(.variable("source")?, let key) where !key.contains("."): return key
        case .method(.variable("source"), "valueForKey:", let args):
            if args.count == 1, case .constant(.scalar(.string(let key))) = args[0] { return key }
            return nil
        case .method(.variable("manager"), "destinationInstancesForSourceRelationshipNamed:sourceInstances:", let args):
            guard args.count == 2, case .constant(.scalar(.string(let key))) = args[0] else { return nil }
            // The members must be the same relationship's, read from $source.
            guard let inner = sourceKey(PredicateFormatter.format(args[1])), inner == key else { return nil }
            return key
        default: return nil
        }
    }

    private func rowCopy(_ m: EntityMapping, _ se: EntityDescription, _ de: EntityDescription, _ dialect: SQLDialect) -> RowCopy? {
        var copy = RowCopy(sourceEntity: se, destinationEntity: de)
        let sTable = source.table(se), dTable = destination.table(de)
        let sMap = source.mapping(se), dMap = destination.mapping(de)
        func sourceColumn(_ key: String) -> SQLiteSchema.Column? {
            guard let slot = se.slot(forKey: key), slot < sMap.columnBySlot.count, sMap.columnBySlot[slot] >= 0 else { return nil }
            return sTable.columns[sMap.columnBySlot[slot]]
        }
        copy.columns = ["Z_PK", "Z_ENT", "Z_OPT"]
        copy.expressions = ["Z_PK", String(dMap.number), "Z_OPT"]
        let attributeMappings = Dictionary(m.attributeMappings.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let relationshipMappings = Dictionary(m.relationshipMappings.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for (slot, property) in de.properties.enumerated() where !property.isTransient {
            if let r = property as? RelationshipDescription, r.isToMany {
                // Stored by the inverse's column or a join table: checked in addJoinCopies.
                let key = Self.sourceKey(relationshipMappings[r.name]?.valueExpression)
                guard let key else { return nil }
                if let key {
                    guard let sr = se.relationshipsByName[key], sr.isToMany, sr.isOrdered == r.isOrdered else { return nil }
                    guard Self.sameStorage(source.toMany[ObjectIdentifier(sr)], destination.toMany[ObjectIdentifier(r)]) else { return nil }
                }
                continue
            }
            let c = slot < dMap.columnBySlot.count ? dMap.columnBySlot[slot] : -1
            guard c >= 0 else { continue }
            let column = dTable.columns[c]
            if let a = property as? AttributeDescription {
                guard let key = Self.sourceKey(attributeMappings[a.name]?.valueExpression) else { return nil }
                var expression = "NULL"
                if let key {
                    guard let sa = se.attributesByName[key], let sc = sourceColumn(key), AttributeConversion.canConvert(sa.attributeType, to: a.attributeType) else {
                        return nil
                    }
                    expression = dialect.conversion(sc.sql, from: sa.attributeType, to: a.attributeType)
                }
                if !a.defaultValue.isNull, key == nil || !a.isOptional {
                    expression = expression == "NULL" ? "?" : "COALESCE(\(expression), ?)"
                    copy.bindings.append(a.defaultValue)
                }
                copy.columns.append(column.sql)
                copy.expressions.append(expression)
                if !a.isOptional { copy.required.append((a.name, column.sql)) }
            } else if let r = property as? RelationshipDescription {
                guard let key = Self.sourceKey(relationshipMappings[r.name]?.valueExpression) else { return nil }
                guard let key else { continue }
                guard let sr = se.relationshipsByName[key], !sr.isToMany, let sc = sourceColumn(key) else { return nil }
                copy.columns.append(column.sql)
                copy.expressions.append(sc.sql)
                if !r.isOptional { copy.required.append((r.name, column.sql)) }
                // The destination-entity and order columns beside the key column.
                for extra in dTable.columns where extra.property === r && !extra.isValue {
                    switch extra.role {
                    case .destinationEntity:
                        let old = sTable.columns.first { $0.property === sr && $0.isDestinationEntity }
                        if let old {
                            let cases = numbers.sorted { $0.key < $1.key }.map { "WHEN \($0.key) THEN \($0.value)" }.joined(separator: " ")
                            copy.expressions.append(cases.isEmpty ? "NULL" : "CASE \(old.sql) \(cases) END")
                        } else if let target = sr.destinationEntity, let n = numbers[source.number(target)] {
                            copy.expressions.append("CASE WHEN \(sc.sql) IS NULL THEN NULL ELSE \(n) END")
                        } else {
                            return nil
                        }
                    case .order:
                        guard let old = sTable.columns.first(where: { $0.property === sr && $0.isOrder }) else {
                            return nil
                        }
                        copy.expressions.append(old.sql)
                    case .value: continue
                    }
                    copy.columns.append(extra.sql)
                }
            }
        }
        return copy
    }

    private static func sameStorage(_ a: SQLiteSchema.ToManyStorage?, _ b: SQLiteSchema.ToManyStorage?) -> Bool {
        switch (a, b) {
        case (.inverseColumn?, .inverseColumn?), (.join?, .join?): true
        default: false
        }
    }

    /// Adds the join-table copies for `de`'s many-to-many relationships; false when a
    /// relationship's pairs cannot be carried over in SQL.
    private mutating func addJoinCopies(_ m: EntityMapping, _ se: EntityDescription, _ de: EntityDescription) -> Bool {
        let relationshipMappings = Dictionary(m.relationshipMappings.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for join in destination.joinTables where join.relationship.entity === de {
            guard case .some(.some(let key)) = Self.sourceKey(relationshipMappings[join.relationship.name]?.valueExpression) else { continue }
            guard let sr = se.relationshipsByName[key], case .join(let table, let owner, let member, let order)? = source.toMany[ObjectIdentifier(sr)] else {
                return false
            }
            var select = [sqlIdentifier(owner), sqlIdentifier(member)]
            var columns = [sqlIdentifier(join.sourceColumn), sqlIdentifier(join.destinationColumn)]
            if let o = join.destinationOrderColumn {
                guard let order else { return false }
                select.append(sqlIdentifier(order))
                columns.append(sqlIdentifier(o))
            }
            if let o = join.sourceOrderColumn {
                guard let inverse = sr.inverseRelationship, case .join(_, _, _, let inverseOrder?)? = source.toMany[ObjectIdentifier(inverse)] else { return false }
                select.append(sqlIdentifier(inverseOrder))
                columns.append(sqlIdentifier(o))
            }
            joins.append(JoinCopy(destination: join, sourceTable: table, select: select, columns: columns))
        }
        return true
    }
}

extension SQLiteInPlacePlan {
    /// `Z_PRIMARYKEY`'s rows for the new model, from the old counters (`old`, by old entity
    /// number): each hierarchy's counter never goes below a key handed out before, in the
    /// old hierarchy that fed it or in the rows its table now holds (`largestKey`).
    func keyCounters(old: [Int: Int64], largestKey: (SQLiteSchema.Table) throws(ObjectGraphError) -> Int64) throws(ObjectGraphError)
        -> [(number: Int64, name: String, superNumber: Int64, max: Int64)]
    {
        var rootCounter: [Int: Int64] = [:]  // new root number → counter
        for copy in rows {
            let oldRoot = source.number(copy.sourceEntity.rootEntity)
            let newRoot = destination.number(copy.destinationEntity.rootEntity)
            rootCounter[newRoot] = max(rootCounter[newRoot] ?? 0, old[oldRoot] ?? 0)
        }
        var out: [(number: Int64, name: String, superNumber: Int64, max: Int64)] = []
        for (number, entity) in destination.entityByNumber.sorted(by: { $0.key < $1.key }) {
            var counter: Int64 = 0
            if entity.superentity == nil {
                counter = rootCounter[number] ?? 0
                if destination.isStored(entity) { counter = max(counter, try largestKey(destination.table(entity))) }
            } else if let from = rows.first(where: { $0.destinationEntity === entity }) {
                counter = old[source.number(from.sourceEntity)] ?? 0
            }
            out.append((Int64(number), entity.name, Int64(entity.superentity.map { destination.number($0) } ?? 0), counter))
        }
        return out
    }
}
