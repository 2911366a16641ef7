import FoundationEssentials

/// How a fetched results controller follows its context: each objects-did-change is laid
/// over the results, and the delegate hears the difference.
extension FetchedResultsController {
    /// A notification of the context. One that arrives while the delegate is being told of
    /// an earlier batch (a callback that saves, say) waits for that batch to end.
    func receive(_ notification: ContextNotification) {
        queued.append(notification)
        guard !isReporting else { return }
        isReporting = true
        defer { isReporting = false }
        while !queued.isEmpty {
            let next = queued.removeFirst()
            if let changes = apply(next) { report(changes) }
        }
    }

    /// The results after `n`, made current; the changes, or nil when no tracked object
    /// changed and no object came to match.
    func apply(_ n: ContextNotification) -> ResultsChanges? {
        guard let old = layout, let tracked else { return nil }
        var touched = Set<ObjectIdentifier>()
        var newcomers: [ManagedObject] = []
        for list in [n.inserted, n.updated, n.refreshed, n.deleted, n.invalidated] {
            for o in list where touched.insert(ObjectIdentifier(o)).inserted {
                if old.positions[ObjectIdentifier(o)] == nil, tracked.covers(o.entity) { newcomers.append(o) }
            }
        }
        // A reset forgets every object: all of them leave the results.
        let all = n.invalidatedAll
        guard all || !newcomers.isEmpty || touched.contains(where: { old.positions[$0] != nil }) else { return nil }

        var kept: [(object: ManagedObject, values: [AttributeValue], place: Int, section: String)] = []
        for (place, o) in (old.objects + newcomers).enumerated() {
            let id = ObjectIdentifier(o)
            if all { continue }
            if touched.contains(id), !matches(o, tracked) { continue }
            // An object that can no longer be read (its row is gone) leaves the results.
            guard let values = try? managedObjectContext.sortValues(of: o, tracked.sortKeys),
                let section = try? sectionName(of: o)
            else { continue }
            kept.append((o, values, place, section))
        }
        // Equal sort values keep their former order; newcomers follow in the order reported.
        kept.sort { a, b in
            let c = InMemoryFetch.compare(a.values, b.values, tracked.sortKeys)
            return c != 0 ? c < 0 : a.place < b.place
        }
        let new = ResultsLayout(kept.map { ResultsLayout.Entry(object: $0.object, section: $0.section) })
        layout = new
        let changes = ResultsChanges.between(old, new, touched: touched)
        return changes.isEmpty ? nil : changes
    }

    /// Whether a changed object belongs in the results now.
    private func matches(_ o: ManagedObject, _ tracked: TrackedRequest) -> Bool {
        guard o.managedObjectContext === managedObjectContext, !o.isDeleted, tracked.covers(o.entity) else { return false }
        guard let p = tracked.predicate else { return true }
        return (try? p.evaluate(with: .object(o))) ?? false
    }

    /// Tells the delegate (read again before each call: a callback may clear it).
    private func report(_ changes: ResultsChanges) {
        delegate?.controllerWillChangeContent(self)
        for s in changes.sections {
            let section = FetchedResultsSection(name: s.name, indexTitle: indexTitle(for: s.name), objects: s.objects)
            delegate?.controller(self, didChange: section, atSectionIndex: s.index, for: s.type)
        }
        for c in changes.objects {
            delegate?.controller(self, didChange: c.object, at: c.old, for: c.type, newIndexPath: c.new)
        }
        delegate?.controllerDidChangeContent(self)
    }
}
