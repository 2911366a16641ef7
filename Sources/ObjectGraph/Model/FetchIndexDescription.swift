/// A fetch index of an entity (Core Data's NSFetchIndexDescription): a name, the
/// properties it covers in order, and an optional partial-index predicate. Indexes are
/// hints for stores: they never change what a fetch returns, nor a version hash.
public struct FetchIndexDescription: Sendable, Equatable {
    /// How an element is indexed (NSFetchIndexElementType).
    public enum Collation: String, Sendable, CaseIterable {
        /// An ordinary B-tree index (`type="Binary"` in Xcode's files).
        case binary
        /// A spatial index over numbers (`type="RTree"`).
        case rtree
    }

    /// One property of an index (NSFetchIndexElementDescription).
    public struct Element: Sendable, Equatable {
        public var property: String
        public var ascending: Bool
        public var collation: Collation
        public init(property: String, ascending: Bool = true, collation: Collation = .binary) {
            self.property = property
            self.ascending = ascending
            self.collation = collation
        }
    }

    public var name: String
    public var elements: [Element]
    /// A predicate format string: only rows it holds for are indexed (nil: every row).
    public var partialPredicate: String?

    public init(name: String, elements: [Element], partialPredicate: String? = nil) {
        self.name = name
        self.elements = elements
        self.partialPredicate = partialPredicate
    }

    /// The index `setIndexed(true)` makes for a property: named after it, one ascending
    /// binary element.
    static func named(after property: String) -> FetchIndexDescription {
        FetchIndexDescription(name: property, elements: [Element(property: property)])
    }

    /// Whether this index makes `property` indexed in Core Data's sense: one ascending
    /// binary element naming it, partial or not.
    func indexesAlone(_ property: String) -> Bool {
        elements.count == 1 && elements[0].property == property && elements[0].ascending && elements[0].collation == .binary
    }
}

extension EntityDescription {
    /// The indexes an archive's indexed flags and stored indexes give, as Core Data reads
    /// its archives: each flagged property that no stored index is named after gets an
    /// index named after it, ahead of the stored ones.
    func setFetchIndexes(stored: [FetchIndexDescription], indexedProperties: [String]) throws(ObjectGraphError) {
        let names = Set(stored.map(\.name))
        let flagged = indexedProperties.filter { !names.contains($0) }.map(FetchIndexDescription.named(after:))
        try setFetchIndexes(flagged + stored)
    }
}
