import ObjectGraph

// og_set_sql_debug, og_sql_debug_level, og_set_sql_log_callback, og_context_explain.

public typealias SQLLogCallback = @convention(c) (Int32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void

/// The C callback and its userdata, handed to the engine's handler.
struct SQLLogTarget: @unchecked Sendable {
    let callback: SQLLogCallback
    let user: UnsafeMutableRawPointer?
}

@_cdecl("og_set_sql_debug")
public func og_set_sql_debug(_ level: Int32, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        guard (0...3).contains(level) else { throw .invalidArgument("\(level) is not an SQL debug level (0 to 3)") }
        SQLDebug.level = Int(level)
        return OG_OK
    }
}

@_cdecl("og_sql_debug_level")
public func og_sql_debug_level() -> Int32 { Int32(SQLDebug.level) }

@_cdecl("og_set_sql_log_callback")
public func og_set_sql_log_callback(_ callback: SQLLogCallback?, _ user: UnsafeMutableRawPointer?, _ err: ErrorOut) -> Int32 {
    guard let callback else {
        SQLDebug.setHandler(nil)
        return OG_OK
    }
    let target = SQLLogTarget(callback: callback, user: user)
    SQLDebug.setHandler { message in
        message.text.withCString { target.callback(Int32(message.level), $0, target.user) }
    }
    return OG_OK
}
