/// Checks a fetch request against its entity before it runs, so that a key path the model
/// does not have is an error naming it rather than an empty or wrong result.
enum FetchValidation {
    static func check(_ request: FetchRequest, _ entity: EntityDescription) throws(ObjectGraphError) {
        // A dictionary fetch may sort by a fetched expression's name (its plan checks it).
        var expressionNames: Set<String> = []
        if request.resultType == .dictionary {
            for case .expression(let d) in request.propertiesToFetch ?? [] { expressionNames.insert(d.name) }
        }
        for key in request.sortKeys where !expressionNames.contains(key.key) {
            let end = try walk(key.key, from: entity, allowToMany: false)
            guard case .attribute? = end else {
                throw .wrongKind(key: key.key, entity: entity.name, expected: "an attribute reached through to-one relationships, so it cannot be a sort key")
            }
        }
        if let p = request.predicate { try check(p, entity, variables: [:]) }
        for path in request.relationshipKeyPathsForPrefetching { try checkPrefetch(path, entity) }
        if request.fetchLimit < 0 || request.fetchOffset < 0 || request.fetchBatchSize < 0 {
            throw .invalidArgument("a fetch limit, offset or batch size cannot be negative")
        }
    }

    /// Every step of a prefetching key path must be a relationship (of the entity or one
    /// of its subentities).
    private static func checkPrefetch(_ path: String, _ entity: EntityDescription) throws(ObjectGraphError) {
        var current = [entity]
        for key in path.split(separator: ".", omittingEmptySubsequences: false).map(String.init) {
            var next: [EntityDescription] = []
            var found = false
            for e in current {
                for candidate in [e] + descendants(of: e) {
                    guard let p = candidate.property(named: key) else { continue }
                    found = true
                    guard let r = p as? RelationshipDescription else { throw notARelationship(key, candidate) }
                    if let d = r.destinationEntity, !next.contains(where: { $0 === d }) { next.append(d) }
                }
            }
            guard found else {
                var e = ObjectGraphError.unknownKey(key, entity: current.map(\.name).joined(separator: ", "))
                e.message = "the prefetching key path '\(path)' is not valid for entity '\(entity.name)': no relationship named '\(key)'"
                throw e
            }
            current = next
        }
    }

    private static func descendants(of e: EntityDescription) -> [EntityDescription] {
        e.subentities.flatMap { [$0] + descendants(of: $0) }
    }

    static func notARelationship(_ key: String, _ entity: EntityDescription) -> ObjectGraphError {
        .wrongKind(key: key, entity: entity.name, expected: "a relationship: only relationships can be prefetched")
    }

    /// Checks the key paths an expression (of an expression description) reads.
    static func checkExpression(_ e: ObjectExpression, _ entity: EntityDescription) throws(ObjectGraphError) {
        try check(e, entity, variables: [:])
    }

    private enum End {
        case attribute
        case toOne(EntityDescription)
        case toMany(EntityDescription)
        /// `entity`: an object's own entity (no sort key).
        case entity
    }

    /// Follows a key path through the model and returns where it ends: nil after a
    /// collection operator, whose remainder is checked against the members' entity.
    private static func walk(_ path: String, from entity: EntityDescription, allowToMany: Bool = true) throws(ObjectGraphError) -> End? {
        var current = entity
        var throughToMany = false
        var end: End? = nil
        let components = KeyPath.components(path)
        for (i, key) in components.enumerated() {
            if KeyPath.isCollectionOperator(key) {
                if i + 1 < components.count { _ = try walk(components[(i + 1)...].joined(separator: "."), from: current) }
                return nil
            }
            // A string attribute's `length` reads like NSString's.
            if case .attribute? = end, key == "length" || key == "description" { continue }
            if case .entity? = end {
                // An entity's `name` is a string.
                guard key == "name" else { throw unknownKey(key, "entity", path, entity) }
                end = .attribute
                continue
            }
            let property: PropertyDescription?
            if case .attribute? = end {
                property = nil
            } else if let own = current.property(named: key) {
                property = own
            } else {
                // A key only a subentity declares: instances without it read nil.
                property = current.subentity(declaring: key)?.property(named: key)
            }
            // `entity` is an object's own entity unless a property takes the name.
            if property == nil, key == "entity", end.map({ if case .attribute = $0 { false } else { true } }) ?? true {
                end = .entity
                continue
            }
            guard let property else {
                var e = ObjectGraphError.unknownKey(key, entity: current.name)
                e.message = "the key path '\(path)' is not valid for entity '\(entity.name)': '\(current.name)' has no property named '\(key)' to follow"
                throw e
            }
            if let r = property as? RelationshipDescription, let destination = r.destinationEntity {
                if r.isToMany {
                    guard allowToMany else {
                        throw .wrongKind(key: path, entity: entity.name, expected: "a path through to-one relationships")
                    }
                    throughToMany = true
                }
                current = destination
                end = throughToMany ? .toMany(destination) : .toOne(destination)
            } else {
                end = .attribute
            }
        }
        return end
    }

    private static func unknownKey(_ key: String, _ owner: String, _ path: String, _ entity: EntityDescription) -> ObjectGraphError {
        var e = ObjectGraphError.unknownKey(key, entity: owner)
        e.message = "the key path '\(path)' is not valid for entity '\(entity.name)': '\(owner)' has no property named '\(key)' to follow"
        return e
    }

    private static func check(_ p: ObjectPredicate, _ entity: EntityDescription, variables: [String: EntityDescription]) throws(ObjectGraphError) {
        switch p {
        case .truePredicate, .falsePredicate: break
        case .not(let q): try check(q, entity, variables: variables)
        case .and(let parts), .or(let parts): for q in parts { try check(q, entity, variables: variables) }
        case .comparison(let c):
            _ = try check(c.left, entity, variables: variables)
            _ = try check(c.right, entity, variables: variables)
        }
    }

    /// Checks the key paths of an expression; returns the entity of a to-many it reaches.
    @discardableResult
    private static func check(_ e: ObjectExpression, _ entity: EntityDescription, variables: [String: EntityDescription]) throws(ObjectGraphError) -> EntityDescription? {
        switch e {
        case .keyPath(nil, let path):
            if case .toMany(let d)? = try walk(path, from: entity) { return d }
            return nil
        case .keyPath(.variable(let v)?, let path):
            guard let start = variables[v] else { return nil }
            if case .toMany(let d)? = try walk(path, from: start) { return d }
            return nil
        case .keyPath(let base?, _):
            try check(base, entity, variables: variables)
            return nil
        case .index(let base, let kind):
            try check(base, entity, variables: variables)
            if case .at(let i) = kind { try check(i, entity, variables: variables) }
            return nil
        case .aggregate(let items), .function(_, let items):
            for i in items { try check(i, entity, variables: variables) }
            return nil
        case .method(let r, _, let args):
            try check(r, entity, variables: variables)
            for a in args { try check(a, entity, variables: variables) }
            return nil
        case .subquery(let collection, let v, let p):
            let members = try check(collection, entity, variables: variables)
            if let members {
                var inner = variables
                inner[v] = members
                try check(p, members, variables: inner)
            }
            return nil
        case .cast(let v, _):
            try check(v, entity, variables: variables)
            return nil
        case .conditional(let p, let a, let b):
            try check(p, entity, variables: variables)
            try check(a, entity, variables: variables)
            try check(b, entity, variables: variables)
            return nil
        case .evaluatedObject, .constant, .variable:
            return nil
        }
    }
}
