import ObjectGraph

// og_context_fetch_async and og_async_fetch_*: asynchronous fetches (include/objectgraph.h).

/// `og_async_fetch_fn`: a fetch's completion, on the context's queue.
public typealias AsyncFetchCallback = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void

final class AsyncFetchBox: HandleBox {
    static let kindName = "an og_async_fetch"
    let result: AsynchronousFetchResult
    /// The context handle that lends the objects.
    let contextHandle: OpaquePointer
    init(_ result: AsynchronousFetchResult, contextHandle: OpaquePointer) {
        self.result = result
        self.contextHandle = contextHandle
    }
}

/// The C caller's completion and userdata, carried to the context's queue.
private struct Completion: @unchecked Sendable {
    let callback: AsyncFetchCallback
    let userdata: UnsafeMutableRawPointer?
}

@_cdecl("og_context_fetch_async")
public func og_context_fetch_async(_ c: OpaquePointer?, _ r: OpaquePointer?, _ estimated: Int, _ completion: AsyncFetchCallback?,
                                   _ user: UnsafeMutableRawPointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let x = try context(c)
        let fetch = try fetchRequest(r)
        let call = completion.map { Completion(callback: $0, userdata: user) }
        // The completion's handle: made with the result, lent to the callback and released after it.
        let request = AsynchronousFetchRequest(fetchRequest: fetch) { result in
            guard let call else { return }
            let lent = handles.make(AsyncFetchBox(result, contextHandle: c!))
            call.callback(lent, call.userdata)
            handles.release(lent, AsyncFetchBox.self)
        }
        request.estimatedResultCount = estimated
        let result = try x.execute(request)
        return handles.make(AsyncFetchBox(result, contextHandle: c!))
    }
}

@_cdecl("og_async_fetch_cancel")
public func og_async_fetch_cancel(_ h: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try handles.get(h, AsyncFetchBox.self).result.cancel()
        return OG_OK
    }
}

@_cdecl("og_async_fetch_progress")
public func og_async_fetch_progress(_ h: OpaquePointer?, _ out: UnsafeMutablePointer<Double>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let result = try handles.get(h, AsyncFetchBox.self).result
        try required(out, "out").pointee = result.progress
        return OG_OK
    }
}

@_cdecl("og_async_fetch_is_finished")
public func og_async_fetch_is_finished(_ h: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    flag(out, { () throws(ObjectGraphError) in try handles.get(h, AsyncFetchBox.self).result.isFinished }, err)
}

@_cdecl("og_async_fetch_results")
public func og_async_fetch_results(_ h: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let box = try handles.get(h, AsyncFetchBox.self)
        if let error = box.result.operationError { throw error }
        guard let objects = box.result.finalResult else {
            throw .invalidArgument("the asynchronous fetch has not finished (og_async_fetch_is_finished)")
        }
        return handles.make(ResultsBox(objects, contextHandle: box.contextHandle))
    }
}

@_cdecl("og_async_fetch_release")
public func og_async_fetch_release(_ h: OpaquePointer?) {
    handles.release(h, AsyncFetchBox.self)
}
