import FoundationEssentials

/// Reads the `elements` file of an Xcode 3 `.xcdatamodel` folder: the binary form Xcode
/// wrote before Xcode 4's `contents` XML (and kept writing for models already in it).
/// docs/model-format.md, "Xcode 3 models", lists what is read and what is ignored.
///
/// The archive is Xcode's UML model, not Core Data's: entities sit in the root package's
/// class bucket, properties in each entity's owned-attribute bucket, parents in
/// generalization objects, and every Core Data setting in a stereotype (Xcode3Settings).
/// References between elements are archived objects, never names, so entities are
/// created first and matched by object identity afterwards. The model is built through
/// the same model API as the XML reader (XcodeModelReader) and the same reading of
/// default and bound text (XcodeAttributeText), so a model reads alike from both formats.
/// The `layout` file beside `elements` is the diagram and is never read.
struct Xcode3ModelReader {
    let archive: Xcode3Archive
    let source: String
    var warnings: [String] = []
    /// The model's entities by their archived `XDPMEntity` object.
    var entities: [Xcode3Archive.Ref: EntityDescription] = [:]
    /// The properties by their archived object, for finding inverses.
    var propertyObjects: [Xcode3Archive.Ref: PropertyDescription] = [:]
    /// Relationships whose inverse is resolved once every property exists.
    var pendingInverses: [(RelationshipDescription, Xcode3Archive.Ref, ModelLocation)] = []

    typealias Ref = Xcode3Archive.Ref

    static func read(_ bytes: [UInt8], source: String) throws(ObjectGraphError) -> ManagedObjectModel {
        var reader = Xcode3ModelReader(archive: try Xcode3Archive(bytes, file: ModelLocation(file: source)), source: source)
        let model = try reader.model()
        model.loadWarnings = reader.warnings
        return model
    }

    var file: ModelLocation { ModelLocation(file: source) }

    private mutating func model() throws(ObjectGraphError) -> ManagedObjectModel {
        let root = archive.root
        guard archive.className(root) == "XDPMModel" else {
            throw file.error("the archive's root object is an \(archive.className(root)), not an XDPMModel: not an Xcode 3 data model")
        }
        let model = ManagedObjectModel()
        if let id = try archive.string(archive.field(root, "_modelVersionIdentifier"), "_modelVersionIdentifier", at: file), !id.isEmpty {
            model.versionIdentifiers = [id]
        }
        guard let package = try archive.object(archive.field(root, "_xd_rootPackage"), "_xd_rootPackage", of: ["XDModelPackage"], at: file) else {
            throw file.error("the model has no _xd_rootPackage")
        }
        // Entities, in name order: the archive keeps them in hash order.
        var listed: [(name: String, ref: Ref)] = []
        for (key, value) in try archive.entries(archive.field(package, "XDBucketForClassesstorage"), "the package's entities", at: file) {
            guard let ref = try archive.object(value, "entity '\(key)'", of: ["XDPMEntity"], at: file) else {
                throw file.error("entity '\(key)' is nil")
            }
            listed.append((try archive.string(archive.field(ref, "_name"), "the _name of entity '\(key)'", at: file) ?? key, ref))
        }
        var created: [(EntityDescription, Ref)] = []
        for (name, ref) in listed.sorted(by: { $0.name < $1.name }) {
            guard entities[ref] == nil else { throw file.error("entity '\(name)' is listed twice in the package") }
            let entity: EntityDescription
            do throws(ObjectGraphError) { entity = try model.addEntity(named: name) } catch { throw file.with(entity: name).wrap(error) }
            entities[ref] = entity
            created.append((entity, ref))
        }
        for (entity, ref) in created {
            try settings(of: entity, ref)
        }
        for (entity, ref) in created {
            try properties(of: entity, ref, model: model)
        }
        for (relationship, inverseRef, at) in pendingInverses {
            try resolveInverse(relationship, inverseRef, at: at)
        }
        for (entity, ref) in created {
            try templates(of: entity, ref, into: model)
        }
        try configurations(root, into: model)
        do throws(ObjectGraphError) { try model.validate() } catch { throw file.wrap(error) }
        return model
    }

    /// An entity's own settings (stereotype `XD_PStereotype`) and its parent.
    private mutating func settings(of entity: EntityDescription, _ ref: Ref) throws(ObjectGraphError) {
        let at = file.with(entity: entity.name)
        let s = try Xcode3Settings(archive, of: ref, stereotype: "XD_PStereotype", at: at)
        do throws(ObjectGraphError) {
            let fieldAbstract = try archive.bool(archive.field(ref, "_isAbstract"), "_isAbstract", at: at)
            try entity.setAbstract(try s.bool("XD_PSK_isAbstract") ?? fieldAbstract ?? false)
            // nil: the file predates stored class names; Core Data then uses NSManagedObject.
            if let c = try s.string("XD_PSK_entityClassName"), !c.isEmpty { try entity.setManagedObjectClassName(c) }
            let info = try s.userInfo("XD_PSK_userInfo", skipped: &warnings)
            try entity.setUserInfo(info)
            try entity.setVersionHashModifier(try nonEmpty(s.string("XD_PSK_versionHashModifier")))
            try entity.setRenamingIdentifier(try nonEmpty(s.string("XD_PSK_elementID")))
            if !(try s.members("XDPMCompoundIndexes")).isEmpty {
                warnings.append("\(at.prefix)compound indexes (XDPMCompoundIndexes) are not read: no file examined holds one, so their form is unknown")
            }
            entity.xcodeAttributes = Self.syncable(info)
            if let parent = try parent(of: ref, at: at) { try entity.setSuperentity(parent) }
        } catch { throw at.wrap(error) }
    }

    /// The parent named by the entity's generalizations. One whose `_general` is nil is a
    /// leftover of a removed parent and means none (seen on root entities of real files).
    private func parent(of ref: Ref, at: ModelLocation) throws(ObjectGraphError) -> EntityDescription? {
        var found: EntityDescription?
        for g in try archive.members(archive.field(ref, "XDBucketForGeneralizationsstorage"), "the generalizations", at: at) {
            guard let generalization = try archive.object(g, "a generalization", of: ["XDUMLGeneralizationImp"], at: at),
                let general = try archive.object(archive.field(generalization, "_general"), "the parent (_general)", of: ["XDPMEntity"], at: at)
            else { continue }
            let parent = try entity(general, "the parent", at: at)
            if let found, found !== parent { throw at.error("two parent entities, '\(found.name)' and '\(parent.name)'") }
            found = parent
        }
        return found
    }

    /// The model's entity for an archived `XDPMEntity`.
    func entity(_ ref: Ref, _ what: String, at: ModelLocation) throws(ObjectGraphError) -> EntityDescription {
        guard let e = entities[ref] else { throw at.error("\(what) (object #\(ref.index)) is not one of the model's entities") }
        return e
    }

    /// Fetch request templates: Xcode 3 keeps each in the `XD_PSK_fetchRequestsArray` of
    /// an entity (the one it fetches, in every file examined), not on the model.
    private func templates(of entity: EntityDescription, _ ref: Ref, into model: ManagedObjectModel) throws(ObjectGraphError) {
        let at = file.with(entity: entity.name)
        let s = try Xcode3Settings(archive, of: ref, stereotype: "XD_PStereotype", at: at)
        for item in try s.members("XD_PSK_fetchRequestsArray") {
            guard let request = try archive.object(item, "a fetch request template", of: ["XDPMFetchRequest"], at: at) else { continue }
            guard let name = try archive.string(archive.field(request, "_name"), "the name of a fetch request template", at: at), !name.isEmpty else {
                throw at.error("a fetch request template (object #\(request.index)) has no name")
            }
            let template = try fetchRequest(request, what: "fetch request template '\(name)'", at: at)
            guard model.fetchRequestTemplatesByName[name] == nil else { throw at.error("a second fetch request template named '\(name)'") }
            model.fetchRequestTemplatesByName[name] = template
        }
    }

    /// An `XDPMFetchRequest`: the entity it fetches and its predicate (NSPredicate format,
    /// `$name` for variables). Xcode 3 stores nothing else for a request.
    func fetchRequest(_ request: Ref, what: String, at: ModelLocation) throws(ObjectGraphError) -> FetchRequestTemplate {
        guard let target = try archive.object(archive.field(request, "_entity"), "the entity of \(what)", of: ["XDPMEntity"], at: at) else {
            throw at.error("\(what) names no entity")
        }
        let predicate = try archive.string(archive.field(request, "_predicateString"), "the predicate of \(what)", at: at)
        return FetchRequestTemplate(entityName: try entity(target, "the entity of \(what)", at: at).name, predicateFormat: nonEmpty(predicate))
    }

    /// Configurations: a dictionary from name to member entities. Empty in every file
    /// examined, so its form is inferred: members are entities or entity names.
    private func configurations(_ root: Ref, into model: ManagedObjectModel) throws(ObjectGraphError) {
        for (name, value) in try archive.entries(archive.field(root, "_configurationsByName"), "_configurationsByName", at: file) {
            let what = "configuration '\(name)'"
            let items = archive.archive.className(value) == "XDPMEntity" ? [value] : try archive.members(value, what, at: file)
            var members: [String] = []
            for item in items {
                if archive.archive.className(item) != nil {
                    guard let ref = try archive.object(item, "a member of \(what)", of: ["XDPMEntity"], at: file) else { continue }
                    members.append(try entity(ref, "a member of \(what)", at: file).name)
                } else if let n = try archive.string(item, "a member of \(what)", at: file) {
                    guard model.entity(named: n) != nil else { throw file.error("\(what) names an unknown entity '\(n)'") }
                    members.append(n)
                }
            }
            model.setConfigurationNames(members.sorted(), forConfiguration: name)
        }
    }

    /// Xcode 3 had no `syncable` flag: it kept the Sync Services switch in user info
    /// (`com.apple.syncservices.Syncable` = `NO`), and Xcode 4's conversion wrote
    /// `syncable="YES"` on exactly the elements without that entry. Kept the same way for
    /// writing the model back as `contents`.
    static func syncable(_ info: [String: String]) -> [(String, String)] {
        info["com.apple.syncservices.Syncable"]?.uppercased() == "NO" ? [] : [("syncable", "YES")]
    }

    /// Xcode 3 stores an emptied text field as an empty string.
    func nonEmpty(_ s: String?) -> String? { s?.isEmpty == true ? nil : s }
}
