/// A failure of a contender or of the runner, with a message for people.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
