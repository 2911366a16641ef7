#if canImport(Glibc)
import Glibc
#endif

/// An undo manager with Core Data's semantics (`NSUndoManager` as a context uses it; the
/// name `UndoManager` belongs to Foundation). It keeps two stacks of groups. A context
/// registers each event's changes as one action; with `groupsByEvent` (the default) the
/// first registration opens a group and the context's next `processPendingChanges` (the
/// end of the event) closes it. `undo()` runs the newest group's actions backwards, and
/// what they register while undoing becomes a redo group; `redo()` does the opposite.
///
/// Safe to share between threads: its state is behind a lock. Each action checks the
/// thread of its context before it runs, so an undo from the wrong thread fails with
/// 140007 and changes nothing.
public final class ObjectUndoManager: @unchecked Sendable {
    /// One registered action: what to run, and the contexts it touches (checked first).
    struct Action {
        let context: ObjectIdentifier
        let isOwnedByCurrentThread: () -> Bool
        let run: () throws(ObjectGraphError) -> Void
    }

    /// A group of actions and its action name; nested groups fold into their parent.
    final class Group {
        var actions: [Action] = []
        var name = ""
    }

    private struct State {
        var undoStack: [Group] = []
        var redoStack: [Group] = []
        /// Open groups, outermost first.
        var open: [Group] = []
        var levelsOfUndo = 0
        var groupsByEvent = true
        var disabled = 0
        var undoing = false
        var redoing = false
        /// The group collecting what an undo or redo registers.
        var collecting: Group?
    }

    private let lock = RecursiveLock()
    private var current = State()

    /// The state under the lock (the manager is shared between threads).
    private var state: Locked { Locked(manager: self) }

    private struct Locked {
        let manager: ObjectUndoManager
        func withLock<T, E: Error>(_ body: (inout State) throws(E) -> T) throws(E) -> T {
            try manager.lock.withLock { () throws(E) -> T in try body(&manager.current) }
        }
    }

    public init() {}

    // MARK: Settings

    /// How many groups are kept (0: all); older ones are dropped as new ones close.
    public var levelsOfUndo: Int {
        get { state.withLock { $0.levelsOfUndo } }
        set { state.withLock { s in s.levelsOfUndo = max(0, newValue); Self.trim(&s) } }
    }

    /// Whether registrations outside an explicit group open one per event.
    public var groupsByEvent: Bool {
        get { state.withLock { $0.groupsByEvent } }
        set { state.withLock { $0.groupsByEvent = newValue } }
    }

    /// How many groups are open.
    public var groupingLevel: Int { state.withLock { $0.open.count } }

    public var isUndoRegistrationEnabled: Bool { state.withLock { $0.disabled == 0 } }

    /// Stops registration; calls nest, each needing its `enableUndoRegistration()`.
    public func disableUndoRegistration() { state.withLock { $0.disabled += 1 } }

    /// Undoes one `disableUndoRegistration()`; 140002 when registration is not disabled.
    public func enableUndoRegistration() throws(ObjectGraphError) {
        try state.withLock { (s: inout State) throws(ObjectGraphError) in
            guard s.disabled > 0 else { throw .invalidArgument("undo registration is not disabled: enableUndoRegistration has no disable to match") }
            s.disabled -= 1
        }
    }

    public var isUndoing: Bool { state.withLock { $0.undoing } }
    public var isRedoing: Bool { state.withLock { $0.redoing } }

    public var canUndo: Bool {
        state.withLock { s in !s.undoStack.isEmpty || (s.open.count == 1 && s.groupsByEvent && !s.open[0].actions.isEmpty) }
    }

    public var canRedo: Bool { state.withLock { !$0.redoStack.isEmpty } }

    /// The name of the group `undo()` would undo ("" when none is named).
    public var undoActionName: String {
        get {
            state.withLock { s in
                if s.groupsByEvent, s.open.count == 1, !s.open[0].actions.isEmpty { return s.open[0].name }
                return s.undoStack.last?.name ?? ""
            }
        }
        set { setActionName(newValue) }
    }

    /// The name of the group `redo()` would redo.
    public var redoActionName: String { state.withLock { $0.redoStack.last?.name ?? "" } }

    /// Names the open group, or else the newest group (`setActionName:`).
    public func setActionName(_ name: String) {
        state.withLock { s in
            if let group = s.collecting ?? s.open.last { group.name = name } else { s.undoStack.last?.name = name }
        }
    }

    // MARK: Groups

    public func beginUndoGrouping() {
        state.withLock { s in s.open.append(Group()) }
    }

    /// Closes the innermost open group; 140002 when none is open.
    public func endUndoGrouping() throws(ObjectGraphError) {
        try state.withLock { (s: inout State) throws(ObjectGraphError) in
            guard !s.open.isEmpty else { throw .invalidArgument("endUndoGrouping without an open group (beginUndoGrouping first)") }
            Self.close(&s)
        }
    }

    private static func close(_ s: inout State) {
        let group = s.open.removeLast()
        if let parent = s.open.last {
            parent.actions += group.actions
            if parent.name.isEmpty { parent.name = group.name }
        } else if !group.actions.isEmpty {
            s.undoStack.append(group)
            trim(&s)
        }
    }

    private static func trim(_ s: inout State) {
        if s.levelsOfUndo > 0, s.undoStack.count > s.levelsOfUndo { s.undoStack.removeFirst(s.undoStack.count - s.levelsOfUndo) }
        if s.levelsOfUndo > 0, s.redoStack.count > s.levelsOfUndo { s.redoStack.removeFirst(s.redoStack.count - s.levelsOfUndo) }
    }

    /// Empties both stacks (`removeAllActions`); open groups stay open, emptied.
    public func removeAllActions() {
        state.withLock { s in
            s.undoStack.removeAll()
            s.redoStack.removeAll()
            for g in s.open { g.actions.removeAll() }
        }
    }

    // MARK: Registering

    /// Records an action: into the group an undo or redo is collecting, or into the open
    /// group (one is opened for the event when `groupsByEvent`). A new action outside undo
    /// and redo clears the redo stack. Nothing is recorded while registration is disabled.
    func register(_ action: Action) {
        state.withLock { s in
            guard s.disabled == 0 else { return }
            if let collecting = s.collecting {
                collecting.actions.append(action)
                return
            }
            if s.open.isEmpty {
                guard s.groupsByEvent else { return }  // Apple's raises: nothing open to register into
                s.open.append(Group())
            }
            s.open.last!.actions.append(action)
            s.redoStack.removeAll()
        }
    }

    /// The end of an event: closes the group `groupsByEvent` opened for it.
    func endEvent() {
        state.withLock { s in
            guard s.groupsByEvent, s.collecting == nil, s.open.count == 1 else { return }
            Self.close(&s)
        }
    }

    // MARK: Undo and redo

    /// Undoes the newest group; with `groupsByEvent` an open event is closed first. Nothing
    /// to undo: nothing happens. Errors: 140002 with a group open that is not the event's,
    /// or while an undo or redo runs; 140007 when one of the group's contexts belongs to
    /// another thread (nothing is changed then).
    public func undo() throws(ObjectGraphError) { try run(undoing: true) }

    /// Redoes the newest undone group.
    public func redo() throws(ObjectGraphError) { try run(undoing: false) }

    private func run(undoing: Bool) throws(ObjectGraphError) {
        let group = try state.withLock { (s: inout State) throws(ObjectGraphError) -> Group? in
            guard !s.undoing && !s.redoing else { throw .invalidArgument("an undo or redo is already running") }
            if undoing, s.groupsByEvent, s.open.count == 1 { Self.close(&s) }
            guard s.open.isEmpty else {
                throw .invalidArgument("\(undoing ? "undo" : "redo") with \(s.open.count) undo group(s) open: end them first")
            }
            guard let group = undoing ? s.undoStack.last : s.redoStack.last else { return nil }
            for action in group.actions where !action.isOwnedByCurrentThread() {
                throw .wrongThread("an undo group's context, from another thread than its own")
            }
            if undoing { s.undoStack.removeLast() } else { s.redoStack.removeLast() }
            if undoing { s.undoing = true } else { s.redoing = true }
            let collecting = Group()
            collecting.name = group.name
            s.collecting = collecting
            return group
        }
        guard let group else { return }
        var failure: ObjectGraphError?
        for action in group.actions.reversed() {
            do throws(ObjectGraphError) { try action.run() } catch {
                failure = error
                break
            }
        }
        state.withLock { s in
            let collected = s.collecting!
            s.collecting = nil
            s.undoing = false
            s.redoing = false
            if !collected.actions.isEmpty {
                if undoing { s.redoStack.append(collected) } else { s.undoStack.append(collected) }
                Self.trim(&s)
            }
        }
        if let failure { throw failure }
    }
}
