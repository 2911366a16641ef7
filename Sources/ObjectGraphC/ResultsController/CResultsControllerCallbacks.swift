import FoundationEssentials
import ObjectGraph
import Synchronization

// og_results_controller_callbacks: the C table as the controller's delegate.

typealias ResultsBatchCallback = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void
typealias ResultsSectionCallback = @convention(c) (OpaquePointer?, Int32, UnsafePointer<CChar>?, OpaquePointer?, Int,
                                                   UnsafeMutableRawPointer?) -> Void
typealias ResultsObjectCallback = @convention(c) (OpaquePointer?, Int32, OpaquePointer?, Int64, Int64, Int64, Int64,
                                                  UnsafeMutableRawPointer?) -> Void

/// The layout of `og_results_controller_callbacks`, version 1.
struct CResultsControllerCallbacks: CallbackTableLayout {
    var version: Int32
    var userdata: UnsafeMutableRawPointer?
    var willChange: ResultsBatchCallback?
    var didChangeSection: ResultsSectionCallback?
    var didChangeObject: ResultsObjectCallback?
    var didChange: ResultsBatchCallback?
    var release: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?
}

final class ResultsControllerBox: HandleBox {
    static let kindName = "an og_results_controller"
    let controller: FetchedResultsController
    /// The context handle that lends the objects.
    let contextHandle: OpaquePointer
    /// Held here: the controller holds its delegate weakly.
    var delegate: CResultsDelegate?
    init(_ controller: FetchedResultsController, contextHandle: OpaquePointer) {
        self.controller = controller
        self.contextHandle = contextHandle
    }
}

/// Calls the C table for each change. A release asked for during a callback waits until
/// the callbacks on the stack return (the handle stays valid for them), and no callback
/// runs after it.
final class CResultsDelegate: FetchedResultsControllerDelegate {
    let table: CResultsControllerCallbacks
    let handle: OpaquePointer
    let contextHandle: OpaquePointer
    private let state = Mutex<(depth: Int, releasing: Bool)>((0, false))

    init(_ table: CResultsControllerCallbacks, handle: OpaquePointer, contextHandle: OpaquePointer) {
        self.table = table
        self.handle = handle
        self.contextHandle = contextHandle
    }

    deinit { table.release?(table.userdata) }

    /// Whether a release must wait for callbacks still running; marks it as asked for.
    func deferRelease() -> Bool {
        state.withLock { s in
            guard s.depth > 0 else { return false }
            s.releasing = true
            return true
        }
    }

    private func call(_ body: () -> Void) {
        let go = state.withLock { s in
            guard !s.releasing else { return false }
            s.depth += 1
            return true
        }
        guard go else { return }
        body()
        let release = state.withLock { s in
            s.depth -= 1
            return s.depth == 0 && s.releasing
        }
        if release { handles.release(handle, ResultsControllerBox.self) }
    }

    func controllerWillChangeContent(_ controller: FetchedResultsController) {
        guard let f = table.willChange else { return }
        call { f(handle, table.userdata) }
    }

    func controllerDidChangeContent(_ controller: FetchedResultsController) {
        guard let f = table.didChange else { return }
        call { f(handle, table.userdata) }
    }

    func controller(_ controller: FetchedResultsController, didChange section: FetchedResultsSection,
                    atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType) {
        guard let f = table.didChangeSection else { return }
        call {
            let objects = handles.make(ResultsBox(section.objects, contextHandle: contextHandle))
            section.name.withCString { f(handle, Int32(type.rawValue), $0, objects, sectionIndex, table.userdata) }
            handles.release(objects, ResultsBox.self)
        }
    }

    func controller(_ controller: FetchedResultsController, didChange object: ManagedObject, at indexPath: IndexPath?,
                    for type: FetchedResultsChangeType, newIndexPath: IndexPath?) {
        guard let f = table.didChangeObject else { return }
        call {
            // An object the context no longer lends (after a reset) is passed as NULL.
            let o = try? lendObject(object, from: contextHandle)
            let old = indexPath.map { (Int64($0[0]), Int64($0[1])) } ?? (-1, -1)
            let new = newIndexPath.map { (Int64($0[0]), Int64($0[1])) } ?? (-1, -1)
            f(handle, Int32(type.rawValue), o, old.0, old.1, new.0, new.1, table.userdata)
        }
    }
}
