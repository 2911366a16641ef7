/// A dictionary-result request checked against its entity and compiled once: its columns
/// (attributes, to-ones, expressions), its grouping, the filter on groups and how the
/// rows are ordered. Stores run a plan in SQL or in memory; both read it the same way.
struct DictionaryPlan {
    /// What a column reads.
    enum Source {
        /// A key path through to-one relationships that ends at an attribute.
        case attribute(path: String, AttributeDescription)
        /// A key path through to-one relationships that ends at a to-one: the destination's identity.
        case toOne(path: String, RelationshipDescription)
        /// An expression description's expression, as parsed.
        case expression(ObjectExpression)
    }

    struct Column {
        /// The dictionary key: the key path, or the expression description's name.
        let name: String
        let source: Source
        /// What results are converted to: the attribute's type, the expression's result
        /// type, or (for `.undefined`) the type the expression naturally yields.
        let type: AttributeType
        /// Whether the column holds an aggregate (`sum:(x)`, `count:(x)`, …) over a group.
        let isAggregate: Bool

        var path: String? {
            switch source {
            case .attribute(let p, _), .toOne(let p, _): p
            case .expression: nil
            }
        }
    }

    let entity: EntityDescription
    /// The visible columns, then the group-by items that are not visible (read, never returned).
    let columns: [Column]
    let visibleCount: Int
    /// Indexes into `columns` of the group-by items; empty when nothing is grouped.
    let groupColumns: [Int]
    /// Whether rows are folded into groups: a group-by, or aggregates over the whole result.
    let isAggregating: Bool
    let isDistinct: Bool
    /// The having predicate with every column name replaced by a `$` variable of that name.
    let having: ObjectPredicate?
    /// With distinct or grouped results, the column each sort key reads.
    let sortColumns: [Int]
    let sortKeys: [SortKey]

    /// The columns rows are ordered by after the sort keys, for a stable order of distinct
    /// rows and of groups: the visible columns, or the group columns.
    var tieColumns: [Int] {
        if isAggregating { return groupColumns }
        return isDistinct ? Array(0..<visibleCount) : []
    }

    static let aggregateFunctions: Set<String> = ["sum:", "count:", "min:", "max:", "average:", "median:", "mode:", "stddev:"]

    /// Whether `e` is an aggregate over the rows of a group: a statistic function of one
    /// argument that reads each row (`sum:(salary)`), not of a literal list (`max:({a, b})`).
    static func isAggregateNode(_ e: ObjectExpression) -> Bool {
        guard case .function(let selector, let args) = e, aggregateFunctions.contains(selector), args.count == 1 else { return false }
        if case .aggregate = args[0] { return false }
        return !args[0].isConstant
    }

    // MARK: Building

    static func make(_ request: FetchRequest, _ entity: EntityDescription) throws(ObjectGraphError) -> DictionaryPlan {
        var columns: [Column] = []
        let properties: [FetchProperty] = request.propertiesToFetch
            ?? entity.properties.compactMap { p in
                guard let a = p as? AttributeDescription, !a.isTransient else { return nil }
                return .property(a.name)
            }
        guard !properties.isEmpty else {
            throw .invalidArgument("a dictionary fetch of '\(entity.name)' has no properties to fetch")
        }
        for p in properties {
            let column = try makeColumn(p, entity, role: "propertiesToFetch")
            if columns.contains(where: { $0.name == column.name }) {
                throw .invalidArgument("propertiesToFetch names '\(column.name)' twice")
            }
            columns.append(column)
        }
        let visibleCount = columns.count

        var groupColumns: [Int] = []
        for g in request.propertiesToGroupBy ?? [] {
            let index: Int
            switch g {
            case .property(let name):
                // A name may be a property path or the name of a fetched expression.
                if let i = columns.firstIndex(where: { $0.name == name }) {
                    index = i
                } else {
                    columns.append(try makeColumn(g, entity, role: "propertiesToGroupBy"))
                    index = columns.count - 1
                }
            case .expression(let d):
                if let i = columns.firstIndex(where: { $0.name == d.name }) {
                    index = i
                } else {
                    columns.append(try makeColumn(g, entity, role: "propertiesToGroupBy"))
                    index = columns.count - 1
                }
            }
            if columns[index].isAggregate {
                throw .invalidArgument("propertiesToGroupBy cannot hold the aggregate '\(columns[index].name)': groups are formed before aggregates are computed")
            }
            if !groupColumns.contains(index) { groupColumns.append(index) }
        }
        let isAggregating = !groupColumns.isEmpty || columns.contains(where: \.isAggregate)
        if isAggregating { try checkGrouping(columns, visibleCount, groupColumns, entity) }

        let isDistinct = request.returnsDistinctResults && request.propertiesToFetch != nil
        var sortColumns: [Int] = []
        // Aggregates over the whole result give one row: there is nothing to sort.
        let sortKeys = isAggregating && groupColumns.isEmpty ? [] : request.sortKeys
        if !(isDistinct || isAggregating), let key = sortKeys.first(where: { k in columns.contains { $0.path == nil && $0.name == k.key } }) {
            throw .invalidArgument("the sort key '\(key.key)' names a fetched expression: only grouped or distinct results can be sorted by one")
        }
        if isDistinct || isAggregating {
            for key in sortKeys {
                let candidates = isAggregating ? groupColumns : Array(0..<visibleCount)
                // A fetched expression is sorted by its name, as its values come out.
                let named = (0..<visibleCount).first { i in
                    if case .expression = columns[i].source { return columns[i].name == key.key }
                    return false
                }
                guard let i = candidates.first(where: { columns[$0].path == key.key }) ?? named else {
                    throw .invalidArgument(
                        "the sort key '\(key.key)' must be one of the \(isAggregating ? "grouped properties or fetched expressions" : "properties to fetch") when results are \(isAggregating ? "grouped" : "distinct")")
                }
                sortColumns.append(i)
            }
        }

        var having: ObjectPredicate?
        if let h = request.havingPredicate {
            guard isAggregating else {
                throw .invalidArgument("havingPredicate filters groups: it needs propertiesToGroupBy or aggregate expressions")
            }
            let names = Set(columns.map(\.name))
            having = try ExpressionRewriter { (path) throws(ObjectGraphError) -> ObjectExpression in
                if names.contains(path) { return .variable(path) }
                var e = ObjectGraphError.unknownKey(path, entity: entity.name)
                e.message = "havingPredicate reads '\(path)', which is neither a fetched nor a grouped property of '\(entity.name)'"
                throw e
            }.predicate(h)
        }
        return DictionaryPlan(
            entity: entity, columns: columns, visibleCount: visibleCount, groupColumns: groupColumns,
            isAggregating: isAggregating, isDistinct: isDistinct, having: having, sortColumns: sortColumns,
            sortKeys: sortKeys)
    }

    private static func makeColumn(_ p: FetchProperty, _ entity: EntityDescription, role: String) throws(ObjectGraphError) -> Column {
        switch p {
        case .property(let path):
            let end = try propertyPath(path, entity, role: role)
            if let a = end as? AttributeDescription {
                return Column(name: path, source: .attribute(path: path, a), type: a.attributeType, isAggregate: false)
            }
            let r = end as! RelationshipDescription
            return Column(name: path, source: .toOne(path: path, r), type: .objectID, isAggregate: false)
        case .expression(let d):
            guard !d.name.isEmpty else { throw .invalidArgument("an expression description in \(role) needs a name") }
            let e = try ObjectExpression(format: d.expressionFormat)
            try FetchValidation.checkExpression(e, entity)
            try checkAggregates(e, inside: false, d.name)
            let type = d.expressionResultType == .undefined ? naturalType(e, entity) : d.expressionResultType
            return Column(name: d.name, source: .expression(e), type: type, isAggregate: contains(e, where: isAggregateNode))
        }
    }

    /// Walks a property key path: to-one relationships, then an attribute or a to-one.
    private static func propertyPath(_ path: String, _ entity: EntityDescription, role: String) throws(ObjectGraphError) -> PropertyDescription {
        var current = entity
        let components = KeyPath.components(path)
        for (i, key) in components.enumerated() {
            guard let property = current.property(named: key), !(property is FetchedPropertyDescription) else {
                var e = ObjectGraphError.unknownKey(path, entity: entity.name)
                e.message = "\(role) names '\(path)', but '\(current.name)' has no stored property named '\(key)'"
                throw e
            }
            if property.isTransient {
                throw .invalidArgument("\(role) names '\(path)', but '\(current.name).\(key)' is transient and has no stored value")
            }
            if let r = property as? RelationshipDescription {
                if r.isToMany {
                    throw .invalidArgument("\(role) names '\(path)', which goes through the to-many relationship '\(current.name).\(key)'; only attributes and to-one relationships can be fetched")
                }
                guard let destination = r.destinationEntity else { throw .invalidArgument("'\(current.name).\(key)' has no destination entity") }
                if i == components.count - 1 { return r }
                current = destination
            } else {
                guard i == components.count - 1 else {
                    throw .invalidArgument("\(role) names '\(path)', but '\(current.name).\(key)' is an attribute: nothing can be read from it")
                }
                return property
            }
        }
        throw .invalidArgument("\(role) has an empty property name")
    }

    /// Aggregates cannot nest: `sum:(max:(x))` has no meaning over one group.
    private static func checkAggregates(_ e: ObjectExpression, inside: Bool, _ name: String) throws(ObjectGraphError) {
        let isAggregate = isAggregateNode(e)
        if isAggregate && inside {
            throw .invalidArgument("the expression '\(name)' nests one aggregate inside another")
        }
        for child in children(e) { try checkAggregates(child, inside: inside || isAggregate, name) }
    }

    /// In a grouped fetch every column is an aggregate or reads only grouped properties.
    private static func checkGrouping(_ columns: [Column], _ visibleCount: Int, _ groups: [Int], _ entity: EntityDescription) throws(ObjectGraphError) {
        let grouped = Set(groups.compactMap { columns[$0].path })
        for (i, c) in columns.prefix(visibleCount).enumerated() where !groups.contains(i) {
            let loose: [String]
            switch c.source {
            case .attribute(let p, _), .toOne(let p, _): loose = [p]
            case .expression(let e): loose = ungroupedKeyPaths(e).filter { !grouped.contains($0) }
            }
            guard let first = loose.first(where: { !grouped.contains($0) }) else { continue }
            throw ObjectGraphError(
                domain: ObjectGraphError.objectGraphDomain, code: ErrorCode.invalidArgument,
                message: "'\(c.name)' reads '\(first)' outside an aggregate, but '\(first)' is not in propertiesToGroupBy: a grouped fetch can only return grouped properties and aggregates",
                userInfo: [(ErrorUserInfoKey.entity, entity.name), (ErrorUserInfoKey.validationKey, first)])
        }
    }

    /// The key paths an expression reads outside its aggregate nodes.
    static func ungroupedKeyPaths(_ e: ObjectExpression) -> [String] {
        if isAggregateNode(e) { return [] }
        if case .keyPath(nil, let path) = e { return [path] }
        if case .evaluatedObject = e { return ["SELF"] }
        return children(e).flatMap(ungroupedKeyPaths)
    }

    static func contains(_ e: ObjectExpression, where test: (ObjectExpression) -> Bool) -> Bool {
        test(e) || children(e).contains { contains($0, where: test) }
    }

    /// The sub-expressions of an expression (predicates inside it are not entered).
    static func children(_ e: ObjectExpression) -> [ObjectExpression] {
        switch e {
        case .evaluatedObject, .constant, .variable, .subquery: return []
        case .keyPath(let base, _): return base.map { [$0] } ?? []
        case .index(let base, let kind):
            if case .at(let i) = kind { return [base, i] }
            return [base]
        case .aggregate(let items), .function(_, let items): return items
        case .method(let r, _, let args): return [r] + args
        case .cast(let v, _): return [v]
        case .conditional(_, let a, let b): return [a, b]
        }
    }

    // MARK: Result types

    /// The type an expression yields when its description does not say: a key path's
    /// attribute type, a count's Integer64, an average's Double, a sum, minimum or maximum
    /// of its argument's type; arithmetic on integers stays integer.
    static func naturalType(_ e: ObjectExpression, _ entity: EntityDescription) -> AttributeType {
        switch e {
        case .keyPath(nil, let path):
            var current = entity
            let components = KeyPath.components(path)
            for (i, key) in components.enumerated() {
                guard let p = current.property(named: key) else { return .undefined }
                if let r = p as? RelationshipDescription {
                    guard !r.isToMany, let d = r.destinationEntity else { return .undefined }
                    if i == components.count - 1 { return .objectID }
                    current = d
                } else if let a = p as? AttributeDescription {
                    return i == components.count - 1 ? a.attributeType : .undefined
                }
            }
            return .undefined
        case .evaluatedObject: return .objectID
        case .constant(.scalar(let v)):
            switch v {
            case .integer: return .integer64
            case .double: return .double
            case .boolean: return .boolean
            case .string: return .string
            case .date: return .date
            case .decimal: return .decimal
            default: return .undefined
            }
        case .function(let selector, let args):
            switch selector {
            case "count:": return .integer64
            case "average:", "median:", "stddev:", "sqrt:", "log:", "ln:", "exp:", "raise:toPower:": return .double
            case "sum:":
                guard args.count == 1 else { return .undefined }
                switch naturalType(args[0], entity) {
                case .integer16, .integer32, .integer64, .boolean: return .integer64
                case .decimal: return .decimal
                case .double, .float: return .double
                default: return .undefined
                }
            case "min:", "max:":
                guard args.count == 1 else { return .undefined }
                let t = naturalType(args[0], entity)
                return [.integer16, .integer32].contains(t) ? .integer64 : t
            case "add:to:", "from:subtract:", "multiply:by:", "divide:by:", "modulus:by:":
                guard args.count == 2 else { return .undefined }
                let a = naturalType(args[0], entity), b = naturalType(args[1], entity)
                let integers: Set<AttributeType> = [.integer16, .integer32, .integer64]
                if integers.contains(a) && integers.contains(b) { return .integer64 }
                let numbers = integers.union([.double, .float])
                if numbers.contains(a) && numbers.contains(b) { return .double }
                if selector == "from:subtract:" && a == .date && b == .date { return .double }
                if (selector == "add:to:" || selector == "from:subtract:") && a == .date && numbers.contains(b) { return .date }
                return .undefined
            case "abs:", "ceiling:", "floor:", "trunc:":
                return args.count == 1 && selector == "abs:" ? naturalType(args[0], entity) : .double
            case "uppercase:", "lowercase:": return .string
            default: return .undefined
            }
        case .cast(_, let type):
            switch type {
            case "NSDate": return .date
            case "NSString": return .string
            default: return .undefined
            }
        default: return .undefined
        }
    }
}

/// Rewrites the key paths (from the evaluated object) of a predicate.
struct ExpressionRewriter {
    let keyPath: (String) throws(ObjectGraphError) -> ObjectExpression

    func predicate(_ p: ObjectPredicate) throws(ObjectGraphError) -> ObjectPredicate {
        switch p {
        case .truePredicate, .falsePredicate: return p
        case .not(let q): return .not(try predicate(q))
        case .and(let parts):
            var out: [ObjectPredicate] = []
            for q in parts { out.append(try predicate(q)) }
            return .and(out)
        case .or(let parts):
            var out: [ObjectPredicate] = []
            for q in parts { out.append(try predicate(q)) }
            return .or(out)
        case .comparison(var c):
            c.left = try expression(c.left)
            c.right = try expression(c.right)
            return .comparison(c)
        }
    }

    func expression(_ e: ObjectExpression) throws(ObjectGraphError) -> ObjectExpression {
        switch e {
        case .keyPath(nil, let path): return try keyPath(path)
        case .keyPath(let base?, let path): return .keyPath(base: try expression(base), path: path)
        case .evaluatedObject, .constant, .variable, .subquery: return e
        case .index(let base, let kind):
            if case .at(let i) = kind { return .index(try expression(base), .at(try expression(i))) }
            return .index(try expression(base), kind)
        case .aggregate(let items): return .aggregate(try list(items))
        case .function(let s, let items): return .function(s, try list(items))
        case .method(let r, let s, let args): return .method(receiver: try expression(r), selector: s, arguments: try list(args))
        case .cast(let v, let t): return .cast(try expression(v), type: t)
        case .conditional(let p, let a, let b): return .conditional(try predicate(p), try expression(a), try expression(b))
        }
    }

    private func list(_ items: [ObjectExpression]) throws(ObjectGraphError) -> [ObjectExpression] {
        var out: [ObjectExpression] = []
        for i in items { out.append(try expression(i)) }
        return out
    }
}
