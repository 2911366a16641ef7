import FoundationEssentials
import ObjectGraph

// Transformable values from C: archived objects as og_values, archivable classes, and
// named value transformers whose callbacks turn og_values into bytes and back.

public typealias TransformForwardCallback = @convention(c) (OpaquePointer?, UnsafeMutablePointer<OpaquePointer?>?, UnsafeMutableRawPointer?) -> OpaquePointer?
public typealias TransformReverseCallback = @convention(c) (UnsafeRawPointer?, Int, UnsafeMutablePointer<OpaquePointer?>?, UnsafeMutableRawPointer?) -> OpaquePointer?

@_cdecl("og_register_archivable_class")
public func og_register_archivable_class(_ className: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try ValueTransformers.registerArchivableClass(try string(className, "the class name"))
        return OG_OK
    }
}

@_cdecl("og_unregister_archivable_class")
public func og_unregister_archivable_class(_ className: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try ValueTransformers.unregisterArchivableClass(try string(className, "the class name"))
        return OG_OK
    }
}

/// A C transformer: the callbacks and their user data, called on the thread that saves or reads.
struct TransformCall: @unchecked Sendable {
    let name: String
    let forward: TransformForwardCallback
    let reverse: TransformReverseCallback
    let user: UnsafeMutableRawPointer?

    func encode(_ value: TransformableValue) throws(ObjectGraphError) -> Data {
        let lent = handles.make(ValueBox(value.attributeValue))
        defer { handles.release(lent, ValueBox.self) }
        var reported: OpaquePointer? = nil
        let made = forward(lent, &reported, user)
        let result = try taken(made, reported, "forward")
        guard case .data(let d) = result.value else {
            throw failure("the forward callback gave a \(result.content.kindName), not binary data")
        }
        return d
    }

    func decode(_ bytes: Data) throws(ObjectGraphError) -> TransformableValue {
        var reported: OpaquePointer? = nil
        let made = bytes.withUnsafeBytes { raw in reverse(raw.baseAddress, raw.count, &reported, user) }
        return try ValueBox.transformable(try taken(made, reported, "reverse").content)
    }

    /// The value a callback made (released here), or the error it reported.
    private func taken(_ made: OpaquePointer?, _ reported: OpaquePointer?, _ which: String) throws(ObjectGraphError) -> ValueBox {
        let error = takeReported(reported)
        guard let made else { throw error ?? failure("the \(which) callback failed") }
        defer { handles.release(made, ValueBox.self) }
        guard let box = try? handles.get(made, ValueBox.self) else { throw failure("the \(which) callback returned no og_value") }
        return box
    }

    private func failure(_ message: String) -> ObjectGraphError {
        ObjectGraphError(code: ErrorCode.coreData, message: "value transformer '\(name)': \(message)")
    }
}

@_cdecl("og_register_value_transformer")
public func og_register_value_transformer(_ name: UnsafePointer<CChar>?, _ forward: TransformForwardCallback?, _ reverse: TransformReverseCallback?,
                                          _ user: UnsafeMutableRawPointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let name = try string(name, "the transformer name")
        guard let forward, let reverse else { throw .invalidArgument("a value transformer needs a forward and a reverse callback") }
        let call = TransformCall(name: name, forward: forward, reverse: reverse, user: user)
        try ValueTransformers.register(name: name, forward: { (v) throws(ObjectGraphError) in try call.encode(v) },
                                       reverse: { (b) throws(ObjectGraphError) in try call.decode(b) })
        return OG_OK
    }
}

@_cdecl("og_unregister_value_transformer")
public func og_unregister_value_transformer(_ name: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try ValueTransformers.unregister(name: try string(name, "the transformer name"))
        return OG_OK
    }
}

// The og_<noun>_<verb> names; the og_register_* / og_unregister_* ones stay one release.

@_cdecl("og_archivable_class_register")
public func og_archivable_class_register(_ className: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    og_register_archivable_class(className, err)
}

@_cdecl("og_archivable_class_unregister")
public func og_archivable_class_unregister(_ className: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    og_unregister_archivable_class(className, err)
}

@_cdecl("og_value_transformer_register")
public func og_value_transformer_register(_ name: UnsafePointer<CChar>?, _ forward: TransformForwardCallback?,
                                          _ reverse: TransformReverseCallback?, _ user: UnsafeMutableRawPointer?,
                                          _ err: ErrorOut) -> Int32 {
    og_register_value_transformer(name, forward, reverse, user, err)
}

@_cdecl("og_value_transformer_unregister")
public func og_value_transformer_unregister(_ name: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    og_unregister_value_transformer(name, err)
}
