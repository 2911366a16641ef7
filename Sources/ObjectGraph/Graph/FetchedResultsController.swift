import FoundationEssentials

/// The results of a fetch request, kept up to date as its context changes
/// (`NSFetchedResultsController`, without a cache): objects in the request's order,
/// grouped in sections by `sectionNameKeyPath`, and a delegate told of every change.
///
/// `performFetch()` fetches and starts tracking. From then on the controller reacts to
/// each objects-did-change of its context — at `processPendingChanges()`, at the end of a
/// `perform` block, at a save and at a merge: an object that comes to match the request
/// is inserted, one that stops matching (or is deleted) is deleted, one whose section or
/// position among the others changes is moved, and any other change to a tracked object
/// is an update. Changes that touch no tracked object call nothing.
///
/// Core Data requires that the first sort key groups the sections together (it is the
/// section key path, or sorts as it does). `performFetch()` checks the fetched objects
/// and fails with 134060 naming the first object out of order when they are not grouped;
/// should later changes break the grouping, each section still gathers all of its
/// objects, placed where its first object falls.
///
/// Unlike Core Data, the controller tracks changes whether or not it has a delegate. Its
/// objects and sections are already the new ones when the delegate's first callback of a
/// batch runs. `fetchLimit` and `fetchOffset` apply to `performFetch()` only.
public final class FetchedResultsController {
    public let fetchRequest: FetchRequest
    public let managedObjectContext: ManagedObjectContext
    public let sectionNameKeyPath: String?
    /// Held weakly, as Core Data holds it.
    public weak var delegate: (any FetchedResultsControllerDelegate)?

    /// The results as last computed; nil before `performFetch()`.
    var layout: ResultsLayout?
    /// What `performFetch()` fetched with: changes are judged by it.
    var tracked: TrackedRequest?
    var isObserving = false
    /// Notifications that arrived while the delegate was being told of an earlier one.
    var queued: [ContextNotification] = []
    var isReporting = false

    /// Fails with 140002 when the request has no sort keys (Core Data raises) or does not
    /// return managed objects, or when the section key path is empty.
    public init(fetchRequest: FetchRequest, managedObjectContext: ManagedObjectContext, sectionNameKeyPath: String? = nil)
        throws(ObjectGraphError)
    {
        try Self.check(fetchRequest)
        if let key = sectionNameKeyPath, key.isEmpty {
            throw .invalidArgument("the section key path is empty; pass nil for a single section")
        }
        self.fetchRequest = fetchRequest
        self.managedObjectContext = managedObjectContext
        self.sectionNameKeyPath = sectionNameKeyPath
    }

    static func check(_ request: FetchRequest) throws(ObjectGraphError) {
        guard !request.sortKeys.isEmpty else {
            throw .invalidArgument(
                "a fetched results controller needs a fetch request with at least one sort key: its sections and rows follow them")
        }
        guard request.resultType == .managedObject else {
            throw .invalidArgument("a fetched results controller tracks managed objects; the request's result type is \(request.resultType)")
        }
    }

    /// Fetches the request's objects and starts tracking the context (`performFetch:`).
    /// Calling it again fetches again (after the request was changed), calling nothing.
    /// Errors: those of the fetch; 140002 when the request has no sort keys; 134060 when
    /// the fetched objects are not grouped by section (the first sort key does not agree
    /// with the section key path).
    public func performFetch() throws(ObjectGraphError) {
        try managedObjectContext.checkThread()
        try Self.check(fetchRequest)
        let entity = try managedObjectContext.persistentStoreCoordinator.entity(named: fetchRequest.entityName)
        let request = TrackedRequest(entity: entity, predicate: fetchRequest.predicate, sortKeys: fetchRequest.sortKeys,
                                     includesSubentities: fetchRequest.includesSubentities)
        let objects = try managedObjectContext.fetch(fetchRequest)
        var entries: [ResultsLayout.Entry] = []
        entries.reserveCapacity(objects.count)
        var seen = Set<String>()
        for (i, o) in objects.enumerated() {
            let name = try sectionName(of: o)
            if name != entries.last?.section, !seen.insert(name).inserted {
                throw ObjectGraphError(
                    code: ErrorCode.coreData,
                    message: "the fetched object at index \(i) has an out of order section name '\(name)'. Objects must be sorted by section name: "
                        + "make the first sort key '\(sectionNameKeyPath ?? "")' or one that orders as it does",
                    userInfo: [(key: "reason", value: "out of order section name '\(name)' at index \(i)")])
            }
            entries.append(ResultsLayout.Entry(object: o, section: name))
        }
        tracked = request
        layout = ResultsLayout(entries)
        startObserving()
    }

    private func startObserving() {
        guard !isObserving else { return }
        isObserving = true
        // The context holds the closure, the closure holds the controller weakly: once the
        // controller is gone the closure removes itself at the next notification.
        let token = TokenCell()
        token.value = managedObjectContext.addObserver(for: .objectsDidChange) { [weak self] n in
            guard let self else {
                if let t = token.value { n.context.removeObserver(t) }
                return
            }
            self.receive(n)
        }
    }

    // MARK: Reading the results

    /// The fetched objects in order (`fetchedObjects`); nil before `performFetch()`.
    public var fetchedObjects: [ManagedObject]? { layout.map { $0.sections.flatMap(\.objects) } }

    /// The sections in order (`sections`); nil before `performFetch()`. One section,
    /// named "", when there is no section key path (none when nothing matches).
    public var sections: [FetchedResultsSection]? {
        layout.map { l in l.sections.map { FetchedResultsSection(name: $0.name, indexTitle: indexTitle(for: $0.name), objects: $0.objects) } }
    }

    /// The object at `[section, row]` (`objectAtIndexPath:`); 140002 when there is none.
    public func object(at indexPath: IndexPath) throws(ObjectGraphError) -> ManagedObject {
        guard indexPath.count == 2 else { throw .invalidArgument("an index path of the results is [section, row]; this one has \(indexPath.count) indexes") }
        guard let layout else { throw .invalidArgument("the controller has no results yet: call performFetch() first") }
        let s = indexPath[0], r = indexPath[1]
        guard s >= 0, s < layout.sections.count else {
            throw .invalidArgument("section \(s) is out of range (there are \(layout.sections.count))")
        }
        let objects = layout.sections[s].objects
        guard r >= 0, r < objects.count else { throw .invalidArgument("row \(r) is out of range (section \(s) has \(objects.count))") }
        return objects[r]
    }

    /// Where `object` is, `[section, row]` (`indexPathForObject:`); nil when it is not in the results.
    public func indexPath(forObject object: ManagedObject) -> IndexPath? {
        guard let p = layout?.positions[ObjectIdentifier(object)] else { return nil }
        return IndexPath(indexes: [p.section, p.row])
    }

    /// The index titles of the sections, each once, in section order (`sectionIndexTitles`).
    public var sectionIndexTitles: [String] {
        var titles: [String] = []
        for s in layout?.sections ?? [] {
            if let t = indexTitle(for: s.name), !titles.contains(t) { titles.append(t) }
        }
        return titles
    }

    /// The first section whose index title is `title` (`sectionForSectionIndexTitle:atIndex:`;
    /// `index` is the title's place in `sectionIndexTitles` and is only checked). 140002
    /// when no section has that title.
    public func section(forSectionIndexTitle title: String, at index: Int) throws(ObjectGraphError) -> Int {
        let titles = sectionIndexTitles
        guard index >= 0, index < titles.count else {
            throw .invalidArgument("index \(index) is out of range (there are \(titles.count) section index titles)")
        }
        guard let s = layout?.sections.firstIndex(where: { indexTitle(for: $0.name) == title }) else {
            throw .invalidArgument("no section has the index title '\(title)'")
        }
        return s
    }

    /// The index title of a section named `name` (`sectionIndexTitleForSectionName:`): the
    /// delegate's, else the name's first letter, capitalised.
    public func sectionIndexTitle(forSectionName name: String) -> String? {
        if let custom = delegate?.controller(self, sectionIndexTitleForSectionName: name) { return custom }
        return name.first.map { String($0).uppercased() }
    }

    func indexTitle(for name: String) -> String? { sectionIndexTitle(forSectionName: name) }

    /// The section an object belongs in: its value at the section key path, as text.
    func sectionName(of object: ManagedObject) throws(ObjectGraphError) -> String {
        guard let key = sectionNameKeyPath else { return "" }
        switch try InMemoryFetch.sortValue(key, of: object) {
        case .null: return ""
        case .string(let s): return s
        case let other: return other.description
        }
    }
}

/// A token known only after the closure that needs it was made.
final class TokenCell {
    var value: ContextObserverToken?
}

/// The request a controller judges changes by, as it was at `performFetch()`.
struct TrackedRequest {
    let entity: EntityDescription
    let predicate: ObjectPredicate?
    let sortKeys: [SortKey]
    let includesSubentities: Bool

    func covers(_ e: EntityDescription) -> Bool { includesSubentities ? e.isKind(of: entity) : e === entity }
}
