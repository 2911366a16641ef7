import FoundationEssentials

/// One section of a fetched results controller (`NSFetchedResultsSectionInfo`): the
/// objects whose section key path has one value, in the request's order.
public struct FetchedResultsSection {
    /// The section key path's value as text ("" for nil, and for the single section of a
    /// controller without a section key path).
    public let name: String
    /// The title the section shows in an index: by default the name's first letter,
    /// capitalised; nil for an empty name.
    public let indexTitle: String?
    public let objects: [ManagedObject]
    public var numberOfObjects: Int { objects.count }
}

/// What happened to an object or a section (`NSFetchedResultsChangeType`, Core Data's numbers).
public enum FetchedResultsChangeType: Int, Sendable, CaseIterable {
    case insert = 1
    case delete = 2
    case move = 3
    case update = 4
}

/// Told about the changes of a controller's results (`NSFetchedResultsControllerDelegate`).
/// Every method has a default that does nothing. For each batch of changes: will-change,
/// the section changes, the object changes, then did-change; a batch that touches no
/// tracked object calls nothing. Index paths are `[section, row]`: the old one for a
/// delete, a move and an update, the new one for an insert and a move.
public protocol FetchedResultsControllerDelegate: AnyObject {
    func controllerWillChangeContent(_ controller: FetchedResultsController)
    func controller(_ controller: FetchedResultsController, didChange object: ManagedObject, at indexPath: IndexPath?,
                    for type: FetchedResultsChangeType, newIndexPath: IndexPath?)
    func controller(_ controller: FetchedResultsController, didChange section: FetchedResultsSection,
                    atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType)
    func controllerDidChangeContent(_ controller: FetchedResultsController)
    /// The index title of a section (`controller:sectionIndexTitleForSectionName:`); nil
    /// keeps the default.
    func controller(_ controller: FetchedResultsController, sectionIndexTitleForSectionName sectionName: String) -> String?
}

extension FetchedResultsControllerDelegate {
    public func controllerWillChangeContent(_ controller: FetchedResultsController) {}
    public func controller(_ controller: FetchedResultsController, didChange object: ManagedObject, at indexPath: IndexPath?,
                           for type: FetchedResultsChangeType, newIndexPath: IndexPath?) {}
    public func controller(_ controller: FetchedResultsController, didChange section: FetchedResultsSection,
                           atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType) {}
    public func controllerDidChangeContent(_ controller: FetchedResultsController) {}
    public func controller(_ controller: FetchedResultsController, sectionIndexTitleForSectionName sectionName: String) -> String? {
        nil
    }
}
