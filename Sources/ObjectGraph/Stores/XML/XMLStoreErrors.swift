/// The errors an XML store file gives, each naming the file and, where it applies, the line.
enum XMLStoreErrors {
    /// The file is not a readable XML store (134000, as for other damaged store files).
    static func damaged(_ path: String, line: Int? = nil, _ why: String) -> ObjectGraphError {
        let place = line.map { "'\(path)', line \($0)" } ?? "'\(path)'"
        return ObjectGraphError(
            code: ErrorCode.storeInvalidType, message: "\(place) is not a valid XML store: \(why)",
            userInfo: [(ErrorUserInfoKey.filePath, path)])
    }

    /// A value the XML format cannot hold: the save writes nothing.
    static func unwritable(_ path: String, entity: String, key: String, _ why: String) -> ObjectGraphError {
        ObjectGraphError(
            code: ErrorCode.storeSave,
            message: "the store '\(path)' was not saved: '\(entity).\(key)' \(why); nothing was written",
            userInfo: [(ErrorUserInfoKey.entity, entity), (ErrorUserInfoKey.validationKey, key), (ErrorUserInfoKey.filePath, path)])
    }
}
