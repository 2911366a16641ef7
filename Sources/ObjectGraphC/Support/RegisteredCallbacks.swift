

/// What every C callback table (`og_*_callbacks` in include/objectgraph.h) has: the
/// caller's `userdata`, handed back to each callback, and the `release` that frees it.
protocol CallbackTableLayout {
    var userdata: UnsafeMutableRawPointer? { get }
    var release: (@convention(c) (UnsafeMutableRawPointer?) -> Void)? { get }
}

/// A callback table registered under a name (a store type, a migration policy), copied
/// from the caller's struct when it was registered. Everything made from it holds it, so
/// its `release` runs once, when it has been unregistered (or replaced) and nothing uses
/// it any more.
final class RegisteredCallbacks<Layout: CallbackTableLayout>: @unchecked Sendable {
    let name: String
    let callbacks: Layout

    init(name: String, callbacks: Layout) {
        self.name = name
        self.callbacks = callbacks
    }

    deinit { callbacks.release?(callbacks.userdata) }
}
