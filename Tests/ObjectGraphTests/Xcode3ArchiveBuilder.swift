import Foundation
@testable import ObjectGraph

/// Writes small Xcode 3 `elements` archives object by object, so the reader's refusals
/// can be tested on archives that are wrong in exactly one way (and without the real
/// fixtures). The shapes follow docs/model-format.md, "Xcode 3 models": elements with a
/// `_name`, their Core Data settings in stereotypes of `XDUMLPropertyImp` defaults.
struct Xcode3ArchiveBuilder {
    typealias Object = BinaryPropertyList.Object

    var objects: [Object] = [.string("$null")]
    private var classRecords: [String: Int] = [:]
    var root: Object = .uid(0)

    /// Appends an object; returns the reference to it.
    mutating func add(_ o: Object) -> Object {
        objects.append(o)
        return .uid(objects.count - 1)
    }

    /// An archived object of class `name` (with NSObject as its superclass).
    mutating func object(_ name: String, _ fields: [String: Object]) -> Object {
        let cls: Int
        if let known = classRecords[name] {
            cls = known
        } else {
            objects.append(.dict(["$classname": .string(name), "$classes": .array([.string(name), .string("NSObject")])]))
            cls = objects.count - 1
            classRecords[name] = cls
        }
        var f = fields
        f["$class"] = .uid(cls)
        return add(.dict(f))
    }

    mutating func string(_ s: String) -> Object { add(.string(s)) }

    mutating func dictionary(_ entries: [(String, Object)]) -> Object {
        var keys: [Object] = []
        for (k, _) in entries { keys.append(string(k)) }
        return object("NSMutableDictionary", ["NS.keys": .array(keys), "NS.objects": .array(entries.map(\.1))])
    }

    mutating func array(_ items: [Object]) -> Object { object("NSMutableArray", ["NS.objects": .array(items)]) }

    /// A stereotype holding `settings`, each the `_default` of an XDUMLPropertyImp.
    mutating func stereotype(_ settings: [(String, Object)]) -> Object {
        var owned: [(String, Object)] = []
        for (k, v) in settings { owned.append((k, object("XDUMLPropertyImp", ["_name": string(k), "_default": v]))) }
        return object("XDUMLStereotypeImp", ["XDBucketForOwnedAttributesstorage": dictionary(owned)])
    }

    /// Replaces (or adds) a field of an archived object.
    mutating func set(_ ref: Object, _ key: String, _ value: Object) {
        guard case .uid(let i) = ref, case .dict(var d) = objects[i] else { fatalError("not an object reference") }
        d[key] = value
        objects[i] = .dict(d)
    }

    /// The field of an archived object.
    func field(_ ref: Object, _ key: String) -> Object? {
        guard case .uid(let i) = ref, case .dict(let d) = objects[i] else { return nil }
        return d[key]
    }

    /// The archive's bytes (`$top` → root).
    func bytes() -> [UInt8] {
        BinaryPropertyList.encode(
            .dict(["$archiver": .string("NSKeyedArchiver"), "$version": .int(100_000), "$top": .dict(["root": root]), "$objects": .array(objects)]),
            uniquing: false)
    }

    /// The archive written as `<dir>/<name>.xcdatamodel/elements`; returns the folder.
    func write(in dir: String, name: String = "Sample") throws -> String {
        let folder = "\(dir)/\(name).xcdatamodel"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data(bytes()).write(to: URL(fileURLWithPath: folder + "/elements"))
        return folder
    }
}

/// A small valid model in the Xcode 3 form, with references to its parts so a test can
/// break one: Person (name, age) ⇄ Pet (owner/pets), Dog a subentity of Pet, a fetched
/// property and a fetch request template.
struct Xcode3SampleArchive {
    var b = Xcode3ArchiveBuilder()
    var model: Xcode3ArchiveBuilder.Object = .uid(0)
    var package: Xcode3ArchiveBuilder.Object = .uid(0)
    var person: Xcode3ArchiveBuilder.Object = .uid(0)
    var pet: Xcode3ArchiveBuilder.Object = .uid(0)
    var dog: Xcode3ArchiveBuilder.Object = .uid(0)
    var age: Xcode3ArchiveBuilder.Object = .uid(0)
    var pets: Xcode3ArchiveBuilder.Object = .uid(0)
    var owner: Xcode3ArchiveBuilder.Object = .uid(0)
    var generalization: Xcode3ArchiveBuilder.Object = .uid(0)

    init() {
        var b = Xcode3ArchiveBuilder()
        let yes = Xcode3ArchiveBuilder.Object.bool(true), no = Xcode3ArchiveBuilder.Object.bool(false)
        func entity(_ name: String) -> Xcode3ArchiveBuilder.Object {
            b.object("XDPMEntity", ["_name": b.string(name), "_isAbstract": no])
        }
        func settings(_ e: Xcode3ArchiveBuilder.Object, _ name: String, _ extra: [(String, Xcode3ArchiveBuilder.Object)] = []) {
            let st = b.stereotype([("XD_PSK_entityClassName", b.string(name)), ("XD_PSK_isAbstract", no),
                                   ("XD_PSK_userInfo", b.dictionary([("table", b.string(name.lowercased()))]))] + extra)
            b.set(e, "XDBucketForStereotypesstorage", b.dictionary([("XD_PStereotype", st)]))
        }
        func common(optional: Bool) -> (String, Xcode3ArchiveBuilder.Object) {
            ("XD_PPropStereotype", b.stereotype([("XD_PPSK_isOptional", .bool(optional)), ("XD_PPSK_isTransient", no), ("XD_PPSK_isIndexed", no)]))
        }
        func attribute(_ name: String, _ owner: Xcode3ArchiveBuilder.Object, type: Int, optional: Bool = true,
                       defaultText: String? = nil) -> Xcode3ArchiveBuilder.Object {
            var settings: [(String, Xcode3ArchiveBuilder.Object)] = [("XD_PAttK_attributeType", .int(Int64(type)))]
            if let defaultText { settings.append(("XD_PAttK_defaultValueAsString", b.string(defaultText))) }
            let stereotypes = b.dictionary([common(optional: optional), ("XD_PAtt_Stereotype", b.stereotype(settings))])
            return b.object("XDPMAttribute", ["_name": b.string(name), "_owner": owner, "XDBucketForStereotypesstorage": stereotypes])
        }
        let person = entity("Person"), pet = entity("Pet"), dog = entity("Dog")
        let name = attribute("name", person, type: 700, optional: false, defaultText: "nobody")
        let age = attribute("age", person, type: 100, defaultText: "0")
        let barks = attribute("barks", dog, type: 800, defaultText: "YES")
        // The two relationships refer to each other, so both exist before their settings.
        let pets = b.object("XDPMRelationship", ["_name": b.string("pets"), "_owner": person])
        let owner = b.object("XDPMRelationship", ["_name": b.string("owner"), "_owner": pet])
        b.set(pets, "XDBucketForStereotypesstorage", b.dictionary([common(optional: true), ("XD_PR_Stereotype", b.stereotype([
            ("XD_PRK_destination", pet), ("XD_PRK_inverseRelationship", owner), ("XD_PRK_isToMany", yes),
            ("XD_PRK_minCount", .int(0)), ("XD_PRK_maxCount", .int(0)), ("XD_PRK_deleteRule", .int(2)),
        ]))]))
        b.set(owner, "XDBucketForStereotypesstorage", b.dictionary([common(optional: true), ("XD_PR_Stereotype", b.stereotype([
            ("XD_PRK_destination", person), ("XD_PRK_inverseRelationship", pets), ("XD_PRK_isToMany", no),
            ("XD_PRK_minCount", .int(1)), ("XD_PRK_maxCount", .int(1)), ("XD_PRK_deleteRule", .int(1)),
        ]))]))
        let request = b.object("XDPMFetchRequest", ["_entity": dog, "_predicateString": b.string("barks == YES")])
        let barkers = b.object("XDPMFetchedProperty", [
            "_name": b.string("barkers"), "_owner": person,
            "XDBucketForStereotypesstorage": b.dictionary([
                ("XD_PPropStereotype", b.stereotype([("XD_PPSK_isTransient", yes)])),
                ("XD_PFP_Stereotype", b.stereotype([("XD_PFP_fetchRequestKey", request)])),
            ]),
        ])
        b.set(request, "_fetchedProperty", barkers)
        b.set(person, "XDBucketForOwnedAttributesstorage", b.dictionary([("name", name), ("age", age), ("pets", pets), ("barkers", barkers)]))
        b.set(pet, "XDBucketForOwnedAttributesstorage", b.dictionary([("owner", owner)]))
        b.set(dog, "XDBucketForOwnedAttributesstorage", b.dictionary([("barks", barks)]))
        let generalization = b.object("XDUMLGeneralizationImp", ["_specific": dog, "_general": pet, "_owner": dog])
        b.set(dog, "XDBucketForGeneralizationsstorage", b.array([generalization]))
        b.set(pet, "XDBucketForSpecializationsstorage", b.array([generalization]))
        let template = b.object("XDPMFetchRequest", ["_name": b.string("olderThan"), "_entity": person, "_predicateString": b.string("age > $AGE")])
        settings(person, "Person", [("XD_PSK_fetchRequestsArray", b.array([template]))])
        settings(pet, "Pet")
        settings(dog, "Dog")
        let package = b.object("XDModelPackage", ["_name": b.string(""), "XDBucketForClassesstorage": b.dictionary([("Person", person), ("Pet", pet), ("Dog", dog)])])
        let model = b.object("XDPMModel", ["_xd_rootPackage": package, "_xd_modelName": b.string("untitled.xcdatamodel"),
                                           "_modelVersionIdentifier": b.string("v1"), "_configurationsByName": b.dictionary([])])
        b.root = model
        self.b = b
        (self.model, self.package, self.person, self.pet, self.dog, self.age, self.pets, self.owner, self.generalization) =
            (model, package, person, pet, dog, age, pets, owner, generalization)
    }

    /// The stereotype `name` of an element, to change its settings.
    func stereotype(of element: Xcode3ArchiveBuilder.Object, _ name: String) -> Xcode3ArchiveBuilder.Object {
        entry(b.field(element, "XDBucketForStereotypesstorage")!, name)!
    }

    /// The XDUMLPropertyImp holding setting `key` of a stereotype.
    func setting(_ stereotype: Xcode3ArchiveBuilder.Object, _ key: String) -> Xcode3ArchiveBuilder.Object {
        entry(b.field(stereotype, "XDBucketForOwnedAttributesstorage")!, key)!
    }

    /// Sets the value of a setting of an element's stereotype.
    mutating func set(_ element: Xcode3ArchiveBuilder.Object, _ stereotypeName: String, _ key: String, _ value: Xcode3ArchiveBuilder.Object) {
        b.set(setting(stereotype(of: element, stereotypeName), key), "_default", value)
    }

    /// The value for `key` in an archived dictionary.
    func entry(_ dictionary: Xcode3ArchiveBuilder.Object, _ key: String) -> Xcode3ArchiveBuilder.Object? {
        guard case .dict(let d) = b.objects[dictionary.uidValue], case .array(let keys)? = d["NS.keys"], case .array(let values)? = d["NS.objects"]
        else { return nil }
        for (k, v) in zip(keys, values) where b.objects[k.uidValue] == .string(key) { return v }
        return nil
    }
}

extension BinaryPropertyList.Object {
    /// The index a reference holds (tests only build references).
    var uidValue: Int { if case .uid(let u) = self { u } else { fatalError("not a reference") } }
}
