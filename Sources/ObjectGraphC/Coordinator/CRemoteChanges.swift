import ObjectGraph

// og_coordinator_add_remote_change_observer and og_coordinator_remove_remote_change_observer:
// remote-change notifications (include/objectgraph.h, "Coordinators").

/// `og_remote_change_fn`.
public typealias RemoteChangeCallback = @convention(c) (UnsafePointer<CChar>?, OpaquePointer?, UnsafeMutableRawPointer?) -> Void

/// The C caller's callback and userdata, carried to the library thread.
private struct RemoteChangeTarget: @unchecked Sendable {
    let callback: RemoteChangeCallback
    let userdata: UnsafeMutableRawPointer?
}

@_cdecl("og_coordinator_add_remote_change_observer")
public func og_coordinator_add_remote_change_observer(_ c: OpaquePointer?, _ callback: RemoteChangeCallback?, _ user: UnsafeMutableRawPointer?,
                                                      _ token: UnsafeMutablePointer<UInt64>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let coordinator = try handles.get(c, CoordinatorBox.self).coordinator
        guard let callback else { throw .invalidArgument("callback is NULL") }
        let out = try required(token, "token")
        let target = RemoteChangeTarget(callback: callback, userdata: user)
        let registered = coordinator.addRemoteChangeObserver { notification in
            // The token handle is lent for the call only.
            let lent = notification.historyToken.map { handles.make(HistoryTokenBox($0)) }
            notification.storeIdentifier.withCString { target.callback($0, lent, target.userdata) }
            if let lent { handles.release(lent, HistoryTokenBox.self) }
        }
        out.pointee = UInt64(registered.id)
        return OG_OK
    }
}

@_cdecl("og_coordinator_remove_remote_change_observer")
public func og_coordinator_remove_remote_change_observer(_ c: OpaquePointer?, _ token: UInt64, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let coordinator = try handles.get(c, CoordinatorBox.self).coordinator
        guard let id = Int(exactly: token) else { throw .invalidArgument("no remote-change observer has the token \(token)") }
        try coordinator.removeRemoteChangeObserver(RemoteChangeObserverToken(id: id))
        return OG_OK
    }
}
