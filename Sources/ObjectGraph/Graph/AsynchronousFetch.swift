/// A fetch that runs later on its context's queue and hands its objects to a completion
/// (`NSAsynchronousFetchRequest`): `execute(_:)` returns at once with the result object,
/// which the completion receives when the fetch is done.
public final class AsynchronousFetchRequest: @unchecked Sendable {
    public let fetchRequest: FetchRequest
    /// Runs on the context's queue with the result, once, whether the fetch succeeded,
    /// failed (`operationError`) or was cancelled first (an empty `finalResult`).
    public let completion: (AsynchronousFetchResult) -> Void
    /// The caller's guess at the number of results (`estimatedResultCount`): the progress
    /// counts towards it.
    public var estimatedResultCount = 0
    public let requestType = PersistentStoreRequestType.fetch

    public init(fetchRequest: FetchRequest, completion: @escaping (AsynchronousFetchResult) -> Void) {
        self.fetchRequest = fetchRequest
        self.completion = completion
    }
}

/// An asynchronous fetch under way, then done (`NSAsynchronousFetchResult`). Its state
/// may be read from any thread; the objects belong to the context and are used on its queue.
public final class AsynchronousFetchResult: @unchecked Sendable {
    public weak var context: ManagedObjectContext?
    public let fetchRequest: AsynchronousFetchRequest

    private struct State {
        var finalResult: [ManagedObject]?
        var operationError: ObjectGraphError?
        var cancelled = false
        var running = false
    }
    private let lock = RecursiveLock()
    private var stateValue = State()

    private func withState<T>(_ body: (inout State) -> T) -> T { lock.withLock { body(&stateValue) } }

    init(context: ManagedObjectContext, request: AsynchronousFetchRequest) {
        self.context = context
        self.fetchRequest = request
    }

    /// The objects, once the fetch is done (empty when it was cancelled before it ran);
    /// nil before, or when it failed.
    public var finalResult: [ManagedObject]? { withState { $0.finalResult } }
    /// Why the fetch failed; nil while it runs and when it succeeded.
    public var operationError: ObjectGraphError? { withState { $0.operationError } }
    public var isCancelled: Bool { withState { $0.cancelled } }
    /// How far it got, 0 to 1: 0 until it runs, 1 once it is done.
    public var progress: Double {
        withState { s in s.finalResult != nil || s.operationError != nil ? 1 : (s.running ? 0.5 : 0) }
    }
    public var isFinished: Bool { withState { $0.finalResult != nil || $0.operationError != nil } }

    /// Asks the fetch not to run (`cancel`). The completion still runs, with an empty
    /// `finalResult` and no error; a fetch already running completes as it would have.
    public func cancel() { withState { $0.cancelled = true } }

    /// Runs the fetch on the context's queue (unless cancelled), then the completion.
    func run(on context: ManagedObjectContext) {
        let cancelled = withState { s in
            s.running = !s.cancelled
            return s.cancelled
        }
        if cancelled {
            withState { $0.finalResult = [] }
        } else {
            do {
                let objects = try context.fetch(fetchRequest.fetchRequest)
                withState { $0.finalResult = objects }
            } catch {
                withState { $0.operationError = error }
            }
        }
        fetchRequest.completion(self)
    }
}

extension ManagedObjectContext {
    /// Starts an asynchronous fetch (`executeRequest:` with an `NSAsynchronousFetchRequest`)
    /// and returns its result at once; the fetch and then the request's completion run on
    /// the context's queue. 140002 on a confinement context, which has no queue.
    public func execute(_ request: AsynchronousFetchRequest) throws(ObjectGraphError) -> AsynchronousFetchResult {
        guard concurrencyType != .confinement else {
            throw .invalidArgument("an asynchronous fetch runs on a context's queue; this context is a confinement context (use a private-queue or main-queue context)")
        }
        let result = AsynchronousFetchResult(context: self, request: request)
        try perform { [weak self] in
            guard let self else { return }
            result.run(on: self)
        }
        return result
    }
}
