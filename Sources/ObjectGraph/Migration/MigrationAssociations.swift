/// The pairs of source and destination objects each entity mapping made, in the order
/// they were made: what the relationship stage and the policies look up.
struct MigrationAssociations {
    struct Table {
        var destinationsBySource: [ObjectIdentifier: [ManagedObject]] = [:]
        var sourcesByDestination: [ObjectIdentifier: [ManagedObject]] = [:]
        /// Every destination, in creation order; keeps the objects alive.
        var destinations: [ManagedObject] = []
        var sources: [ManagedObject] = []
    }

    private(set) var tables: [String: Table] = [:]

    mutating func associate(_ source: ManagedObject, _ destination: ManagedObject, mapping: String) {
        // Mutated in place: a copy of the table would copy its arrays on every call.
        Self.add(source, destination, to: &tables[mapping, default: Table()])
    }

    private static func add(_ source: ManagedObject, _ destination: ManagedObject, to table: inout Table) {
        let s = ObjectIdentifier(source), d = ObjectIdentifier(destination)
        if table.destinationsBySource[s] == nil { table.sources.append(source) }
        if table.sourcesByDestination[d] == nil { table.destinations.append(destination) }
        if !(table.destinationsBySource[s]?.contains { $0 === destination } ?? false) { table.destinationsBySource[s, default: []].append(destination) }
        if !(table.sourcesByDestination[d]?.contains { $0 === source } ?? false) { table.sourcesByDestination[d, default: []].append(source) }
    }

    /// The destinations `mapping` made from `sources`, in their order; nil: all of them.
    func destinations(mapping: String, sources: [ManagedObject]?) -> [ManagedObject] {
        guard let table = tables[mapping] else { return [] }
        guard let sources else { return table.destinations }
        return unique(sources.flatMap { table.destinationsBySource[ObjectIdentifier($0)] ?? [] })
    }

    /// The sources `mapping` made `destinations` from; nil: all of them.
    func sources(mapping: String, destinations: [ManagedObject]?) -> [ManagedObject] {
        guard let table = tables[mapping] else { return [] }
        guard let destinations else { return table.sources }
        return unique(destinations.flatMap { table.sourcesByDestination[ObjectIdentifier($0)] ?? [] })
    }

    /// The destinations made from `source` by any mapping, in mapping order.
    func destinations(ofSource source: ManagedObject, mappings: [String]) -> [ManagedObject] {
        unique(mappings.flatMap { tables[$0]?.destinationsBySource[ObjectIdentifier(source)] ?? [] })
    }

    mutating func removeAll() { tables = [:] }

    private func unique(_ objects: [ManagedObject]) -> [ManagedObject] {
        var seen = Set<ObjectIdentifier>()
        return objects.filter { seen.insert(ObjectIdentifier($0)).inserted }
    }
}
