import FoundationEssentials

/// The model file formats, chosen from the path's extension.
public enum ModelFileFormat: String, Sendable, CaseIterable {
    /// ObjectGraph's JSON model format (docs/model-format.md).
    case json
    /// An Xcode model version: a folder holding the `contents` XML, or Xcode 3's binary
    /// `elements` archive (read only).
    case xcdatamodel
    /// An Xcode versioned model: a folder of `.xcdatamodel` versions and `.xccurrentversion`.
    case xcdatamodeld
    /// A compiled model: a binary keyed archive (read only).
    case mom
    /// A folder of compiled model versions with `VersionInfo.plist` (read only).
    case momd

    public init?(path: String) {
        let ext = URL(fileURLWithPath: path).pathExtension.lowercased()
        guard let f = ModelFileFormat(rawValue: ext) else { return nil }
        self = f
    }
}

extension ManagedObjectModel {
    /// Loads a model file; the format is chosen from the path (`.json`, `.xcdatamodel`,
    /// `.xcdatamodeld`, `.mom`, `.momd`). For versioned folders `version` names the
    /// version to load (without extension); nil loads the current one. Errors name the
    /// file and, for invalid models, the entity and property.
    public convenience init(contentsOf path: String, version: String? = nil) throws(ObjectGraphError) {
        self.init()
        adopt(try ModelFiles.load(path, version: version))
    }

    /// Parses a model in ObjectGraph's JSON model format.
    public convenience init(jsonData: Data, source: String = "JSON model") throws(ObjectGraphError) {
        self.init()
        adopt(try JSONModelFormat.read(jsonData, source: source))
    }

    /// Parses the `contents` XML of an Xcode `.xcdatamodel`.
    public convenience init(xcodeXML data: Data, source: String = "Xcode model") throws(ObjectGraphError) {
        self.init()
        adopt(try XcodeModelReader.read(Array(data), source: source))
    }

    /// The model in ObjectGraph's JSON model format.
    public func jsonString() -> String { JSONModelFormat.write(self) }

    /// The model as the `contents` XML of an Xcode `.xcdatamodel`.
    public func xcodeXMLString() -> String { XcodeModelWriter.write(self) }

    /// Writes the model to `path` in the format its extension names: `.json`, `.xcdatamodel`
    /// (a folder with `contents`), or `.xcdatamodeld` (the model becomes the folder's
    /// current version, named after the folder; other versions there are kept).
    public func write(toPath path: String) throws(ObjectGraphError) {
        switch ModelFileFormat(path: path) {
        case .json: try ModelFiles.writeFile(path, Array(jsonString().utf8))
        case .xcdatamodel:
            try ModelFiles.makeDirectory(path)
            try ModelFiles.writeFile(path + "/contents", Array(xcodeXMLString().utf8))
        case .xcdatamodeld:
            let base = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
            try ModelFiles.makeDirectory(path)
            try write(toPath: path + "/" + base + ".xcdatamodel")
            let plist = XMLPropertyList.encode(.dictionary(["_XCCurrentVersionName": .string(base + ".xcdatamodel")]))
            try ModelFiles.writeFile(path + "/.xccurrentversion", Array(plist.utf8))
        case .mom, .momd:
            throw .invalidArgument("'\(path)': compiled models (.mom, .momd) are read, never written; write .json, .xcdatamodel or .xcdatamodeld")
        case nil:
            throw .invalidArgument("'\(path)': unknown model file format; use .json, .xcdatamodel or .xcdatamodeld")
        }
    }

    /// Whether two models define the same entities, properties, configurations, templates,
    /// localization and version identifiers (compared through the canonical JSON form).
    public func isEquivalent(to other: ManagedObjectModel) -> Bool {
        JSONModelFormat.write(self, canonical: true) == JSONModelFormat.write(other, canonical: true)
    }

    /// Takes over the contents of a freshly read model (used by the convenience inits).
    private func adopt(_ other: ManagedObjectModel) {
        versionIdentifiers = other.versionIdentifiers
        for e in other.entities { e.model = self }
        setEntities(other.entities)
        for name in other.configurations { setConfigurationNames(other.configurationEntityNames(name), forConfiguration: name) }
        fetchRequestTemplatesByName = other.fetchRequestTemplatesByName
        localizationDictionary = other.localizationDictionary
        loadWarnings = other.loadWarnings
        xcodeAttributes = other.xcodeAttributes
        preservedXML = other.preservedXML
    }

    /// The version names (without extension) of an `.xcdatamodeld` or `.momd` folder, sorted.
    public static func versionNames(inBundle path: String) throws(ObjectGraphError) -> [String] {
        try ModelFiles.versions(path).map(\.name)
    }

    /// The version an `.xcdatamodeld` (`.xccurrentversion`) or `.momd` (`VersionInfo.plist`) names as current.
    public static func currentVersionName(inBundle path: String) throws(ObjectGraphError) -> String {
        try ModelFiles.currentVersion(path)
    }
}

/// File-system work for model files: reading, writing, versioned folders.
enum ModelFiles {
    static func readFile(_ path: String) throws(ObjectGraphError) -> [UInt8] {
        do { return Array(try Data(contentsOf: URL(fileURLWithPath: path))) } catch {
            var e = ObjectGraphError.invalidArgument("cannot read the model file '\(path)'")
            e.userInfo = [(ErrorUserInfoKey.filePath, path)]
            throw e
        }
    }

    static func writeFile(_ path: String, _ bytes: [UInt8]) throws(ObjectGraphError) {
        do { try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
            throw .invalidArgument("cannot write the model file '\(path)': \(error)")
        }
    }

    static func makeDirectory(_ path: String) throws(ObjectGraphError) {
        do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
            throw .invalidArgument("cannot create the folder '\(path)': \(error)")
        }
    }

    static func isDirectory(_ path: String) -> Bool {
        var dir: Bool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &dir) && dir
    }

    static func list(_ path: String) throws(ObjectGraphError) -> [String] {
        do { return try FileManager.default.contentsOfDirectory(atPath: path).sorted() } catch {
            var e = ObjectGraphError.invalidArgument("cannot list the model folder '\(path)'")
            e.userInfo = [(ErrorUserInfoKey.filePath, path)]
            throw e
        }
    }

    static func load(_ path: String, version: String?) throws(ObjectGraphError) -> ManagedObjectModel {
        guard let format = ModelFileFormat(path: path) else {
            throw .invalidArgument("'\(path)': unknown model file format; this library reads .json, .xcdatamodel, .xcdatamodeld, .mom and .momd")
        }
        if version != nil && format != .xcdatamodeld && format != .momd {
            throw .invalidArgument("'\(path)': only .xcdatamodeld and .momd folders hold named versions")
        }
        switch format {
        case .json:
            return try JSONModelFormat.read(Data(try readFile(path)), source: path)
        case .xcdatamodel:
            // Xcode 4 and later write `contents`; Xcode 3 wrote `elements` (and `layout`,
            // the diagram). A folder with both is read as Xcode reads it: `contents`.
            let contents = path + "/contents", elements = path + "/elements"
            if FileManager.default.fileExists(atPath: contents) {
                return try XcodeModelReader.read(try readFile(contents), source: contents)
            }
            guard FileManager.default.fileExists(atPath: elements) else {
                throw ModelLocation(file: path).error("the model folder has no 'contents' file (Xcode 4 and later) and no 'elements' file (Xcode 3)")
            }
            return try Xcode3ModelReader.read(try readFile(elements), source: elements)
        case .mom:
            return try CompiledModelReader.read(try readFile(path), source: path)
        case .xcdatamodeld, .momd:
            let all = try versions(path)
            let name: String
            if let version { name = version } else { name = try currentVersion(path) }
            guard let chosen = all.first(where: { $0.name == name }) else {
                throw ModelLocation(file: path).error("no model version named '\(name)' (versions: \(all.map(\.name).joined(separator: ", ")))")
            }
            return try load(chosen.path, version: nil)
        }
    }

    static func versions(_ path: String) throws(ObjectGraphError) -> [(name: String, path: String)] {
        guard isDirectory(path) else { throw ModelLocation(file: path).error("a versioned model must be a folder") }
        let ext = ModelFileFormat(path: path) == .momd ? ".mom" : ".xcdatamodel"
        let found = try list(path).filter { $0.hasSuffix(ext) }.map { (name: String($0.dropLast(ext.count)), path: path + "/" + $0) }
            .sorted { $0.name < $1.name }
        guard !found.isEmpty else { throw ModelLocation(file: path).error("the folder holds no \(ext) model versions") }
        return found
    }

    static func currentVersion(_ path: String) throws(ObjectGraphError) -> String {
        let isMomd = ModelFileFormat(path: path) == .momd
        let file = path + (isMomd ? "/VersionInfo.plist" : "/.xccurrentversion")
        let key = isMomd ? "NSManagedObjectModel_CurrentVersionName" : "_XCCurrentVersionName"
        guard FileManager.default.fileExists(atPath: file) else {
            let all = try versions(path)
            guard all.count == 1 else {
                throw ModelLocation(file: path).error("\(all.count) versions and no \(isMomd ? "VersionInfo.plist" : ".xccurrentversion") naming the current one")
            }
            return all[0].name
        }
        let bytes = try readFile(file)
        let plist: PropertyListValue
        do throws(ObjectGraphError) {
            plist = try PropertyListValue.decode(bytes)
        } catch { throw ModelLocation(file: file).error(error.message) }
        guard var name = plist.dictionaryValue?[key]?.stringValue else { throw ModelLocation(file: file).error("no \(key) entry") }
        for ext in [".xcdatamodel", ".mom"] where name.hasSuffix(ext) { name = String(name.dropLast(ext.count)) }
        return name
    }
}
