/// Builds an NSKeyedArchiver archive (a binary property list with UID references), the
/// form Xcode keeps expressions and user info in inside an `.xcmappingmodel`: small
/// archives built value by value (the compiled-model writer's `KeyedArchiveWriter`
/// shares objects by identity, which these do not need).
struct MappingArchiveBuilder {
    typealias Object = BinaryPropertyList.Object

    /// `$objects`: index 0 is always `$null`, as NSKeyedArchiver writes it.
    private var objects: [Object] = [.string("$null")]
    private var classes: [String: Int] = [:]

    /// Adds an object of class `className` (with its superclasses, most derived first) and
    /// returns its reference.
    mutating func add(_ className: [String], _ fields: [String: Object]) -> Object {
        var d = fields
        d["$class"] = classReference(className)
        objects.append(.dict(d))
        return .uid(objects.count - 1)
    }

    /// Adds a string object (archived strings are shared by reference, never inline).
    mutating func add(string: String) -> Object {
        objects.append(.string(string))
        return .uid(objects.count - 1)
    }

    mutating func add(array: [Object]) -> Object {
        add(["NSArray", "NSObject"], ["NS.objects": .array(array)])
    }

    mutating func add(dictionary: [String: String]) -> Object {
        let keys = dictionary.keys.sorted()
        let keyRefs = keys.map { add(string: $0) }
        let valueRefs = keys.map { add(string: dictionary[$0]!) }
        return add(["NSDictionary", "NSObject"], ["NS.keys": .array(keyRefs), "NS.objects": .array(valueRefs)])
    }

    private mutating func classReference(_ names: [String]) -> Object {
        if let i = classes[names[0]] { return .uid(i) }
        objects.append(.dict(["$classname": .string(names[0]), "$classes": .array(names.map { .string($0) })]))
        classes[names[0]] = objects.count - 1
        return .uid(objects.count - 1)
    }

    /// The archive's bytes with `root` as its root object.
    func archive(root: Object) -> [UInt8] {
        let top: Object = .dict([
            "$version": .int(100000), "$archiver": .string("NSKeyedArchiver"), "$top": .dict(["root": root]),
            "$objects": .array(objects),
        ])
        return BinaryPropertyList.encode(top, uniquing: false)
    }
}
