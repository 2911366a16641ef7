/// Runs `body` and returns how long it took with its result. Contenders time only the
/// work itself: opening stores, creating schemas and releasing objects stay outside.
@inline(__always)
func timed<T>(_ body: () throws -> T) rethrows -> (time: Duration, result: T) {
    let clock = ContinuousClock()
    let start = clock.now
    let result = try body()
    return (clock.now - start, result)
}

extension Duration {
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
