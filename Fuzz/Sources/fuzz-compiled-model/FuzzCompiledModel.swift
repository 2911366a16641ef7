import Foundation
import FuzzSupport
import ObjectGraph

/// One input: a compiled model (`.mom`, an NSKeyedArchiver archive in a binary property
/// list), loaded from a file as applications load them. A model that reads is written in
/// both file formats and read back, and stores are opened with it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCompiledModel(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let path = Scratch.write("model.mom", inputBytes(data, size))
    guard let model = attempt("model", { try ManagedObjectModel(contentsOf: path) }) else { return 0 }
    exerciseModel(model, origin: "a compiled model")
    return 0
}

// MARK: Seeds

/// An archived object of a Core Data class: each subclass is archived under one of Core
/// Data's class names, with the keys Xcode's model compiler writes.
class Archived: NSObject, NSCoding {
    var fields: [String: Any] = [:]
    init(_ fields: [String: Any] = [:]) { self.fields = fields }
    required init?(coder: NSCoder) { nil }
    func encode(with coder: NSCoder) {
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            switch value {
            case let b as Bool: coder.encode(b, forKey: key)
            case let i as Int: coder.encode(i, forKey: key)
            case let d as Double: coder.encode(d, forKey: key)
            default: coder.encode(value as AnyObject, forKey: key)
            }
        }
    }
}
final class ArchivedModel: Archived {}
final class ArchivedEntity: Archived {}
final class ArchivedAttribute: Archived {}
final class ArchivedRelationship: Archived {}
final class ArchivedFetchedProperty: Archived {}
final class ArchivedFetchRequest: Archived {}
final class ArchivedComparison: Archived {}
final class ArchivedOperator: Archived {}
final class ArchivedExpression: Archived {}

/// A compiled model of the fuzz model's shape, archived by Foundation: people with
/// attributes of every type, pets and dogs (a subentity), relationships both ways, a
/// fetched property and a fetch request template.
func compiledModel() throws -> [UInt8] {
    let person = ArchivedEntity(), pet = ArchivedEntity(), dog = ArchivedEntity()
    func attribute(_ type: Int, optional: Bool = true, defaultValue: Any? = nil, valueClass: String? = nil) -> ArchivedAttribute {
        var f: [String: Any] = ["NSAttributeType": type, "NSIsOptional": optional]
        if let defaultValue { f["NSDefaultValue"] = defaultValue }
        if let valueClass { f["NSAttributeValueClassName"] = valueClass }
        return ArchivedAttribute(f)
    }
    let pets = ArchivedRelationship(["NSDestinationEntity": pet, "NSMinCount": 0, "NSMaxCount": 0, "NSDeleteRule": 2,
                                     "NSIsOptional": true, "NSPropertyName": "pets"])
    let owner = ArchivedRelationship(["NSDestinationEntity": person, "NSMinCount": 0, "NSMaxCount": 1, "NSDeleteRule": 1,
                                      "NSIsOptional": true, "NSPropertyName": "owner", "NSEntity": pet])
    pets.fields["NSInverseRelationship"] = owner
    pets.fields["NSEntity"] = person
    owner.fields["NSInverseRelationship"] = pets
    let visits = ArchivedRelationship(["NSDestinationEntity": person, "NSMaxCount": 0, "NSIsOrdered": true, "NSDeleteRule": 1,
                                       "NSIsOptional": true])
    let nameIsRex = ArchivedComparison([
        "NSPredicateOperator": ArchivedOperator(["NSOperatorType": 4, "NSOptions": 1]),
        "NSLeftExpression": ArchivedExpression(["NSExpressionType": 10, "NSKeyPath": "name"]),
        "NSRightExpression": ArchivedExpression(["NSExpressionType": 0, "NSConstantValue": "Rex"]),
    ])
    let young = ArchivedComparison([
        "NSPredicateOperator": ArchivedOperator(["NSOperatorType": 0]),
        "NSLeftExpression": ArchivedExpression(["NSExpressionType": 10, "NSKeyPath": "age"]),
        "NSRightExpression": ArchivedExpression(["NSExpressionType": 2, "NSVariable": "AGE"]),
    ])
    let rexes = ArchivedFetchedProperty(["NSFetchRequest": ArchivedFetchRequest(["NSEntity": pet, "NSPredicate": nameIsRex]),
                                         "NSIsOptional": true])
    person.fields = [
        "NSEntityName": "Person",
        "NSProperties": NSDictionary(dictionary: [
            "name": attribute(700, defaultValue: "nobody"), "age": attribute(100, defaultValue: 3), "mid": attribute(200),
            "big": attribute(300), "salary": attribute(400), "score": attribute(500, defaultValue: 2.5), "ratio": attribute(600),
            "flag": attribute(800, defaultValue: true), "born": attribute(900), "photo": attribute(1000), "tag": attribute(1100),
            "home": attribute(1200), "pets": pets, "rexes": rexes,
        ]),
        "NSUserInfo": NSDictionary(dictionary: ["key": "value"]),
    ]
    pet.fields = [
        "NSEntityName": "Pet",
        "NSProperties": NSDictionary(dictionary: ["name": attribute(700, optional: false, defaultValue: "pet"), "owner": owner, "visits": visits]),
        "NSSubentities": NSDictionary(dictionary: ["Dog": dog]),
    ]
    dog.fields = [
        "NSEntityName": "Dog", "NSSuperentity": pet,
        "NSProperties": NSDictionary(dictionary: ["barks": attribute(800, defaultValue: true)]),
    ]
    let model = ArchivedModel([
        "NSEntities": NSDictionary(dictionary: ["Person": person, "Pet": pet, "Dog": dog]),
        "NSVersionIdentifiers": NSSet(array: ["1"]),
        "NSFetchRequestTemplates": NSDictionary(dictionary: [
            "Young": ArchivedFetchRequest(["NSEntity": person, "NSPredicate": young, "NSFetchLimit": 10]),
        ]),
        "NSConfigurations": NSDictionary(dictionary: ["Animals": NSArray(array: [pet, dog])]),
    ])
    // Foundation on Linux archives these under their Swift names whatever setClassName
    // says; Fuzz/run.sh renames them to Core Data's classes in the seed file.
    let archiver = NSKeyedArchiver(requiringSecureCoding: false)
    let names: [(AnyClass, String)] = [(ArchivedModel.self, "NSManagedObjectModel"), (ArchivedEntity.self, "NSEntityDescription"),
                        (ArchivedAttribute.self, "NSAttributeDescription"), (ArchivedRelationship.self, "NSRelationshipDescription"),
                        (ArchivedFetchedProperty.self, "NSFetchedPropertyDescription"), (ArchivedFetchRequest.self, "NSFetchRequest"),
                        (ArchivedComparison.self, "NSComparisonPredicate"), (ArchivedOperator.self, "NSPredicateOperator"),
                        (ArchivedExpression.self, "NSExpression")]
    for (cls, name) in names { NSKeyedArchiver.setClassName(name, for: cls) }
    archiver.encode(model, forKey: NSKeyedArchiveRootObjectKey)
    archiver.finishEncoding()
    return Array(archiver.encodedData)
}

/// Seeds: a compiled model archived by Foundation (`mom-generated`, its class names made
/// Core Data's by Fuzz/run.sh), the fixtures' `.mom` files, and Apple's compiled models
/// when present.
func makeSeeds(_ dir: String) throws {
    try writeSeed(dir, "mom-generated", try compiledModel())
    for root in [repositoryRoot + "/Tests/Fixtures", appleStores] {
        for file in files(under: root, suffix: ".mom") { try writeSeed(dir, seedName(file, prefix: "mom"), Scratch.read(file)) }
    }
}

@_cdecl("fuzz_compiled_model_main")
public func fuzzCompiledModelMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    fuzzMain(argc, argv, seeds: makeSeeds, target: fuzzCompiledModel)
}
