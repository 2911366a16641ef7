/// Evaluates a mapping's expressions inside a running migration: the predicate
/// language's expressions with `$manager`, `$source`, `$destination`, `$entityMapping`,
/// `$propertyMapping` and `$entityPolicy` bound, `FUNCTION` on the manager's short list
/// of selectors (and on the policy), and `FETCH` on the source context. Nothing outside
/// those lists is callable.
struct MigrationExpressionEvaluator {
    /// What an expression can stand for in a migration, beyond plain values.
    enum Operand {
        case value(PredicateValue)
        case request(FetchRequest)
        case context(ManagedObjectContext)
        case manager
        case policy
        case entityMapping
        case propertyMapping
    }

    let manager: MigrationManager
    let mapping: EntityMapping
    let policy: EntityMigrationPolicy
    var source: ManagedObject?
    var destination: ManagedObject?
    var propertyMapping: PropertyMapping?

    /// The value of `expression`; a fetch request, context or the manager itself is an error.
    func value(_ expression: ObjectExpression) throws(ObjectGraphError) -> PredicateValue {
        switch try operand(expression) {
        case .value(let v): return v
        default: throw .predicateEvaluation("'\(PredicateFormatter.format(expression))' is not a value")
        }
    }

    func operand(_ e: ObjectExpression) throws(ObjectGraphError) -> Operand {
        switch e {
        case .variable(let name): return try variable(name)
        case .evaluatedObject: return .value(source.map { .object($0) } ?? .null)
        case .keyPath(let base, let path):
            guard let base else { return .value(try PredicateEvaluator.read(path, from: source.map { .object($0) } ?? .null)) }
            return try member(try operand(base), path)
        case .method(let receiver, let selector, let arguments):
            var args: [PredicateValue] = []
            var rawArgs: [Operand] = []
            for a in arguments {
                let o = try operand(a)
                rawArgs.append(o)
                if case .value(let v) = o { args.append(v) } else { args.append(.null) }
            }
            return try call(try operand(receiver), selector, args, rawArgs)
        case .function("FETCH", let arguments) where arguments.count == 3:
            guard case .request(let request) = try operand(arguments[0]) else {
                throw .predicateEvaluation("FETCH needs a fetch request as its first argument")
            }
            guard case .context(let context) = try operand(arguments[1]) else {
                throw .predicateEvaluation("FETCH needs a context as its second argument")
            }
            let countOnly = try value(arguments[2])
            if case .scalar(.boolean(true)) = countOnly { return .value(.scalar(.integer(Int64(try context.count(for: request))))) }
            return .value(.collection(try context.fetch(request).map { .object($0) }))
        case .function(let selector, let arguments):
            var args: [PredicateValue] = []
            for a in arguments { args.append(try value(a)) }
            return .value(try PredicateFunctions.call(selector, args))
        case .aggregate(let items):
            var values: [PredicateValue] = []
            for i in items { values.append(try value(i)) }
            return .value(.collection(values))
        case .cast(let inner, let type):
            return .value(try PredicateFunctions.cast(try value(inner), to: type))
        case .constant(let v):
            return .value(v)
        case .index, .subquery, .conditional:
            // Plain predicate-language forms: evaluated with the objects bound as variables.
            return .value(try PredicateEvaluator(variables: plainVariables).value(e, source.map { .object($0) } ?? .null))
        }
    }

    private var plainVariables: [String: PredicateValue] {
        var out: [String: PredicateValue] = [:]
        if let source { out["source"] = .object(source) }
        if let destination { out["destination"] = .object(destination) }
        return out
    }

    private func variable(_ name: String) throws(ObjectGraphError) -> Operand {
        switch name {
        case "manager": return .manager
        case "source": return .value(source.map { .object($0) } ?? .null)
        case "destination": return .value(destination.map { .object($0) } ?? .null)
        case "entityMapping": return .entityMapping
        case "propertyMapping": return .propertyMapping
        case "entityPolicy": return .policy
        default: throw .predicateVariable(name)
        }
    }

    /// `base.path`: a key path on a value, or a property of the manager or a mapping.
    private func member(_ base: Operand, _ path: String) throws(ObjectGraphError) -> Operand {
        switch base {
        case .value(let v): return .value(try PredicateEvaluator.read(path, from: v))
        case .manager:
            switch path {
            case "sourceContext": return .context(try manager.requireSourceContext())
            case "destinationContext": return .context(try manager.requireDestinationContext())
            default: throw .predicateEvaluation("$manager has no key '\(path)' (it has sourceContext and destinationContext)")
            }
        case .entityMapping:
            let m = mapping
            let fields: [String: String?] = [
                "name": m.name, "sourceEntityName": m.sourceEntityName, "destinationEntityName": m.destinationEntityName,
                "entityMigrationPolicyClassName": m.migrationPolicyName,
            ]
            if let field = fields[path] { return .value(field.map { .scalar(.string($0)) } ?? .null) }
            if path.hasPrefix("userInfo.") { return .value(m.userInfo[String(path.dropFirst(9))].map { .scalar(.string($0)) } ?? .null) }
            throw .predicateEvaluation("$entityMapping has no key '\(path)'")
        case .propertyMapping:
            guard let p = propertyMapping else { return .value(.null) }
            if path == "name" { return .value(.scalar(.string(p.name))) }
            if path.hasPrefix("userInfo.") { return .value(p.userInfo[String(path.dropFirst(9))].map { .scalar(.string($0)) } ?? .null) }
            throw .predicateEvaluation("$propertyMapping has no key '\(path)'")
        case .request, .context, .policy:
            throw .predicateEvaluation("cannot read '\(path)' in a migration expression")
        }
    }

    private func call(_ receiver: Operand, _ selector: String, _ args: [PredicateValue], _ raw: [Operand]) throws(ObjectGraphError) -> Operand {
        switch receiver {
        case .value(let v):
            if selector == "valueForKey:" || selector == "valueForKeyPath:" {
                guard args.count == 1, case .scalar(.string(let key)) = args[0] else {
                    throw .predicateEvaluation("\(selector) needs a key as a string")
                }
                return .value(try PredicateEvaluator.read(key, from: v))
            }
            return .value(try PredicateFunctions.callMethod(selector, on: v, args))
        case .manager:
            return try callManager(selector, args, raw)
        case .policy:
            return .value(try policy.perform(selector, arguments: args, manager: manager))
        case .request, .context, .entityMapping, .propertyMapping:
            throw .predicateEvaluation("FUNCTION cannot call '\(selector)' here")
        }
    }

    private func callManager(_ selector: String, _ args: [PredicateValue], _ raw: [Operand]) throws(ObjectGraphError) -> Operand {
        func string(_ i: Int) throws(ObjectGraphError) -> String {
            guard i < args.count, case .scalar(.string(let s)) = args[i] else {
                throw .predicateEvaluation("\(selector) needs a string as argument \(i + 1)")
            }
            return s
        }
        func objects(_ i: Int) throws(ObjectGraphError) -> [ManagedObject]? {
            guard i < args.count else { throw .predicateEvaluation("\(selector) needs \(i + 1) arguments") }
            return try Self.managedObjects(args[i], selector)
        }
        switch selector {
        case "sourceContext": return .context(try manager.requireSourceContext())
        case "destinationContext": return .context(try manager.requireDestinationContext())
        case "fetchRequestForSourceEntityNamed:predicateString:":
            return .request(try manager.fetchRequest(forSourceEntityNamed: try string(0), predicateString: try string(1)))
        case "destinationInstancesForEntityMappingNamed:sourceInstances:":
            let found = try manager.destinationInstances(forEntityMappingNamed: try string(0), sourceInstances: try objects(1))
            return .value(.collection(found.map { .object($0) }))
        case "sourceInstancesForEntityMappingNamed:destinationInstances:":
            let found = try manager.sourceInstances(forEntityMappingNamed: try string(0), destinationInstances: try objects(1))
            return .value(.collection(found.map { .object($0) }))
        case "destinationInstancesForSourceRelationshipNamed:sourceInstances:":
            let found = try manager.destinationInstances(forSourceRelationshipNamed: try string(0), sourceInstances: try objects(1) ?? [], mapping: mapping)
            return .value(.collection(found.map { .object($0) }))
        default:
            throw .predicateEvaluation("$manager does not answer '\(selector)'")
        }
    }

    /// The managed objects in `value` (one object, a collection of them, or nil).
    static func managedObjects(_ value: PredicateValue, _ what: String) throws(ObjectGraphError) -> [ManagedObject]? {
        switch value {
        case .scalar(.null): return nil
        case .object(let o as ManagedObject): return [o]
        case .collection(let items):
            var out: [ManagedObject] = []
            for item in items {
                guard case .object(let o as ManagedObject) = item else { throw .predicateEvaluation("\(what) needs managed objects, got a \(item.kindName)") }
                out.append(o)
            }
            return out
        default: throw .predicateEvaluation("\(what) needs managed objects, got a \(value.kindName)")
        }
    }
}
