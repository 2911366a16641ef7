import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The mapping model file formats, chosen from the path's extension.
public enum MappingFileFormat: String, Sendable, CaseIterable {
    /// ObjectGraph's JSON form (docs/mapping-format.md), read and written.
    case json
    /// An Xcode mapping model: a folder holding `xcmapping.xml`, read and written.
    case xcmappingmodel
    /// A compiled mapping model: a keyed archive of an NSMappingModel (read only).
    case cdm

    public init?(path: String) {
        let ext = URL(fileURLWithPath: path).pathExtension.lowercased()
        guard let f = MappingFileFormat(rawValue: ext) else { return nil }
        self = f
    }
}

extension MappingModel {
    /// Loads a mapping model file: `.json` (ObjectGraph's form), an `.xcmappingmodel`
    /// folder (Xcode's) or a compiled `.cdm`. A file that cannot be read, or a path of
    /// another kind, is error 140002; a malformed file is error 140009 naming the file and,
    /// where it applies, the entity mapping and property mapping (also in the user info).
    public static func load(path: String) throws(ObjectGraphError) -> MappingModel {
        guard let format = MappingFileFormat(path: path) else {
            throw .invalidArgument("'\(path)': unknown mapping model format; this library reads .json, .xcmappingmodel and .cdm")
        }
        switch format {
        case .json:
            return try MappingJSONFormat.read(Data(try MappingModelFiles.read(path)), source: path)
        case .xcmappingmodel:
            guard ModelFiles.isDirectory(path) else {
                throw MappingLocation(file: path).error("an .xcmappingmodel must be a folder holding xcmapping.xml")
            }
            let xml = path + "/" + MappingModelFiles.xcodeDocument
            guard FileManager.default.fileExists(atPath: xml) else {
                throw MappingLocation(file: path).error("the folder has no \(MappingModelFiles.xcodeDocument)")
            }
            return try XcodeMappingReader.read(try MappingModelFiles.read(xml), source: xml)
        case .cdm:
            return try CompiledMappingReader.read(try MappingModelFiles.read(path), source: path)
        }
    }

    /// The same as `MappingModel.load(path:)`.
    public convenience init(contentsOf path: String) throws(ObjectGraphError) {
        self.init(entityMappings: try MappingModel.load(path: path).entityMappings)
    }

    /// Writes the mapping model to `path` in the format its extension names: `.json`, or an
    /// `.xcmappingmodel` folder (its `xcmapping.xml` is replaced; Xcode's copies of the two
    /// models already in it are kept). A `.cdm` or another extension is error 140002.
    public func save(path: String) throws(ObjectGraphError) {
        switch MappingFileFormat(path: path) {
        case .json:
            try ModelFiles.writeFile(path, Array(jsonString().utf8))
        case .xcmappingmodel:
            try ModelFiles.makeDirectory(path)
            let xml = path + "/" + MappingModelFiles.xcodeDocument
            let previous = try? MappingModelFiles.read(xml)
            try ModelFiles.writeFile(xml, Array(XcodeMappingWriter.write(self, previous: previous).utf8))
        case .cdm:
            throw .invalidArgument("'\(path)': compiled mapping models (.cdm) are read, never written; write .json or .xcmappingmodel")
        case nil:
            throw .invalidArgument("'\(path)': unknown mapping model format; use .json or .xcmappingmodel")
        }
    }

    /// Parses a mapping model in ObjectGraph's JSON form; errors name `source`.
    public convenience init(jsonData: Data, source: String = "JSON mapping model") throws(ObjectGraphError) {
        self.init(entityMappings: try MappingJSONFormat.read(jsonData, source: source).entityMappings)
    }

    /// Parses the `xcmapping.xml` of an Xcode `.xcmappingmodel`; errors name `source`.
    public convenience init(xcodeMappingXML data: Data, source: String = "xcmapping.xml") throws(ObjectGraphError) {
        self.init(entityMappings: try XcodeMappingReader.read(Array(data), source: source).entityMappings)
    }

    /// Parses a compiled mapping model (`.cdm`); errors name `source`.
    public convenience init(compiledData data: Data, source: String = "compiled mapping model") throws(ObjectGraphError) {
        self.init(entityMappings: try CompiledMappingReader.read(Array(data), source: source).entityMappings)
    }

    /// The mapping model in ObjectGraph's JSON form.
    public func jsonString() -> String { MappingJSONFormat.write(self) }

    /// The mapping model in ObjectGraph's JSON form, as UTF-8.
    public func jsonData() -> Data { Data(jsonString().utf8) }

    /// The mapping model as the `xcmapping.xml` of an Xcode `.xcmappingmodel`.
    public func xcodeMappingXMLString() -> String { XcodeMappingWriter.write(self) }
}

/// Reading mapping model files: bounded in size, and an unreadable file is error 140002
/// naming it, as for model files.
enum MappingModelFiles {
    static let xcodeDocument = "xcmapping.xml"

    static func read(_ path: String) throws(ObjectGraphError) -> [UInt8] {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        let size = (attributes?[.size] as? Int) ?? (attributes?[.size] as? UInt64).map { Int(clamping: $0) } ?? 0
        if size > MappingLimits.maximumFileBytes {
            throw MappingLocation(file: path).error("the file is larger than \(MappingLimits.maximumFileBytes) bytes")
        }
        guard !ModelFiles.isDirectory(path), let data = try? Data(contentsOf: URL(fileURLWithPath: path)) else {
            // As for a store file that cannot be opened (134080), with the system's reason.
            let reason = access(path, R_OK) == 0 ? "it is not a readable file" : String(cString: strerror(errno))
            throw ObjectGraphError(
                code: ErrorCode.storeOpen, message: "cannot read the mapping model file '\(path)': \(reason)",
                userInfo: [(ErrorUserInfoKey.filePath, path)])
        }
        return Array(data)
    }
}
