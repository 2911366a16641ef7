/// Builds an NSKeyedArchiver archive (the writing side of `KeyedArchive`): a flat table of
/// objects that refer to each other by UID. Objects get their UID in the order
/// Foundation's archiver gives them: when first met, before their fields are encoded, and
/// each class description after the first object of that class is complete.
final class KeyedArchiveWriter {
    typealias Object = BinaryPropertyList.Object

    /// `$null`: what a nil reference points at.
    static var null: Object { .uid(0) }

    private var objects: [Object] = [.string("$null")]
    /// Strings and numbers are immutable, so equal ones share one entry.
    private var values: [String: Int] = [:]
    private var classes: [String: Int] = [:]
    /// The UID of every object given one, by the caller's name for it.
    private var identities: [String: Int] = [:]
    /// UIDs given by conditional references to objects not encoded yet.
    private var reserved: Set<Int> = []

    /// The superclass chain (`$classes`) of every class written, as Apple's frameworks
    /// define them; an unarchiver that lacks a class falls back along it.
    static let hierarchy: [String: [String]] = {
        var chains: [String: [String]] = [:]
        func add(_ chain: String...) { chains[chain[0]] = chain + ["NSObject"] }
        add("NSArray")
        add("NSMutableArray", "NSArray")
        add("NSSet")
        add("NSMutableSet", "NSSet")
        add("NSDictionary")
        add("NSMutableDictionary", "NSDictionary")
        add("NSKnownKeysDictionary1", "NSKnownKeysDictionary", "NSMutableDictionary", "NSDictionary")
        add("NSKnownKeysMappingStrategy1", "NSKnownKeysMappingStrategy")
        add("NSMutableString", "NSString")
        add("NSDate")
        add("NSUUID")
        add("NSURL")
        add("NSDecimalNumber", "NSNumber", "NSValue")
        add("NSManagedObjectModel")
        add("NSEntityDescription")
        add("NSAttributeDescription", "NSPropertyDescription")
        add("NSDerivedAttributeDescription", "NSAttributeDescription", "NSPropertyDescription")
        add("NSRelationshipDescription", "NSPropertyDescription")
        add("NSFetchedPropertyDescription", "NSPropertyDescription")
        add("NSFetchIndexDescription")
        add("NSFetchIndexElementDescription")
        add("NSFetchRequest", "NSPersistentStoreRequest")
        add("NSSortDescriptor")
        add("NSTruePredicate", "NSPredicate")
        add("NSFalsePredicate", "NSPredicate")
        add("NSCompoundPredicate", "NSPredicate")
        add("NSComparisonPredicate", "NSPredicate")
        add("NSEqualityPredicateOperator", "NSPredicateOperator")
        add("NSComparisonPredicateOperator", "NSPredicateOperator")
        add("NSInPredicateOperator", "NSPredicateOperator")
        add("NSBetweenPredicateOperator", "NSPredicateOperator")
        for name in ["NSLikePredicateOperator", "NSBeginsWithPredicateOperator", "NSEndsWithPredicateOperator", "NSMatchingPredicateOperator"] {
            add(name, "NSStringPredicateOperator", "NSPredicateOperator")
        }
        for name in ["NSSelfExpression", "NSConstantValueExpression", "NSVariableExpression", "NSKeyPathSpecifierExpression",
                     "NSFunctionExpression", "NSAggregateExpression", "NSSubqueryExpression", "NSTernaryExpression", "NSSymbolicExpression"] {
            add(name, "NSExpression")
        }
        add("NSKeyPathExpression", "NSFunctionExpression", "NSExpression")
        return chains
    }()

    /// A string: stored in the table itself (nil is `$null`).
    func string(_ s: String?) -> Object {
        guard let s else { return Self.null }
        return value(.string(s), key: "s" + s)
    }

    /// A number or data referred to as an object (a default value, a member of an array).
    func value(_ v: Object) -> Object {
        switch v {
        case .string(let s): return string(s)
        case .int(let i): return value(v, key: "i\(i)")
        case .real(let d): return value(v, key: "r\(d.bitPattern)")
        case .bool(let b): return value(v, key: b ? "b1" : "b0")
        default:
            objects.append(v)
            return .uid(objects.count - 1)
        }
    }

    private func value(_ v: Object, key: String) -> Object {
        if let known = values[key] { return .uid(known) }
        objects.append(v)
        values[key] = objects.count - 1
        return .uid(objects.count - 1)
    }

    /// A reference that does not encode the object (`encodeConditionalObject:`): the
    /// object keeps the UID it gets here and is encoded when it is met unconditionally.
    func conditional(_ identity: String) -> Object {
        if let known = identities[identity] { return .uid(known) }
        // An object never encoded stays `$null`, which unarchivers read as nil.
        objects.append(.string("$null"))
        identities[identity] = objects.count - 1
        reserved.insert(objects.count - 1)
        return .uid(objects.count - 1)
    }

    /// An object of `className` whose fields `fields` encodes, in order. An object with an
    /// `identity` is encoded once; later references to it get the same UID.
    func object(_ identity: String? = nil, _ className: String, _ fields: () -> [(String, Object)]) -> Object {
        let uid: Int
        if let identity, let known = identities[identity] {
            // Encoded already (or being encoded: a field refers back to it), or only reserved.
            guard reserved.remove(known) != nil else { return .uid(known) }
            uid = known
        } else {
            objects.append(.dict([:]))
            uid = objects.count - 1
            if let identity { identities[identity] = uid }
        }
        var dict: [String: Object] = [:]
        for (key, v) in fields() { dict[key] = v }
        dict["$class"] = classReference(className)
        objects[uid] = .dict(dict)
        return .uid(uid)
    }

    /// The object `make` encodes, made once for `identity`: later calls refer to it.
    func shared(_ identity: String, _ make: () -> Object) -> Object {
        if let known = identities[identity] { return .uid(known) }
        let made = make()
        if case .uid(let uid) = made, uid != 0 { identities[identity] = uid }
        return made
    }

    private func classReference(_ name: String) -> Object {
        if let known = classes[name] { return .uid(known) }
        let chain = Self.hierarchy[name] ?? [name, "NSObject"]
        objects.append(.dict(["$classname": .string(name), "$classes": .array(chain.map { .string($0) })]))
        classes[name] = objects.count - 1
        return .uid(objects.count - 1)
    }

    /// An array or set (`NS.objects`) whose members `members` encodes.
    func array(_ className: String = "NSArray", _ members: () -> [Object]) -> Object {
        object(nil, className) { [("NS.objects", .array(members()))] }
    }

    /// A dictionary with string keys (`NS.keys`, `NS.objects`): the keys first, then the
    /// value of each, as Foundation encodes them.
    func dictionary(_ className: String, keys: [String], _ valueFor: (String) -> Object) -> Object {
        object(nil, className) {
            let keyRefs = keys.map { string($0) }
            return [("NS.keys", .array(keyRefs)), ("NS.objects", .array(keys.map(valueFor)))]
        }
    }

    /// The archive as a binary property list, `root` being its top object.
    func finish(root: Object) -> [UInt8] {
        let top: Object = .dict([
            "$version": .int(100000), "$archiver": .string("NSKeyedArchiver"), "$top": .dict(["root": root]), "$objects": .array(objects),
        ])
        return BinaryPropertyList.encode(top, uniquing: true)
    }
}
