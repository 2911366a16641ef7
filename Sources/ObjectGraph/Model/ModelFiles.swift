import FoundationEssentials

extension ManagedObjectModel {
    /// Loads a model file; the format is chosen from the path (`.json`: ObjectGraph's JSON
    /// model format). Errors name the file and, for invalid models, the entity and property.
    public convenience init(contentsOf path: String) throws(ObjectGraphError) {
        let url = URL(fileURLWithPath: path)
        switch url.pathExtension.lowercased() {
        case "json":
            let data: Data
            do { data = try Data(contentsOf: url) } catch {
                throw .invalidArgument("cannot read the model file '\(path)'")
            }
            try self.init(jsonData: data, source: path)
        default:
            throw .invalidArgument("'\(path)': unknown model file format '.\(url.pathExtension)'; this build reads .json model files")
        }
    }

    /// Parses a model in ObjectGraph's JSON model format.
    public convenience init(jsonData: Data, source: String = "JSON model") throws(ObjectGraphError) {
        self.init()
        let parsed = try JSONModelFormat.read(jsonData, source: source)
        adopt(parsed)
    }

    /// The model in ObjectGraph's JSON model format.
    public func jsonString() -> String { JSONModelFormat.write(self) }

    /// Writes the model in ObjectGraph's JSON model format to `path`, replacing the file.
    public func write(toPath path: String) throws(ObjectGraphError) {
        do { try Data(jsonString().utf8).write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
            throw .invalidArgument("cannot write the model file '\(path)': \(error)")
        }
    }

    /// Takes over the entities of a freshly parsed model (used by the convenience inits).
    private func adopt(_ other: ManagedObjectModel) {
        versionIdentifiers = other.versionIdentifiers
        for e in other.entities { e.model = self }
        setEntities(other.entities)
    }
}
