import Foundation
import ObjectGraph

/// The library app the object-graph tests share: authors, books (validated), loans (deny
/// their book's deletion), tags (many-to-many with books), built in code. `Book` objects are instances of `BookObject`.
func makeLendingModel() throws -> ManagedObjectModel {
    let model = ManagedObjectModel()
    let author = try model.addEntity(named: "Author")
    try author.addAttribute(named: "name", type: .string, optional: false)
    try author.addAttribute(named: "scratch", type: .string).setTransient(true)
    let book = try model.addEntity(named: "Book")
    try book.setManagedObjectClassName("BookObject")
    let title = try book.addAttribute(named: "title", type: .string, optional: false)
    try title.setLengthBounds(min: 1, max: 40)
    let pages = try book.addAttribute(named: "pages", type: .integer32, defaultValue: 100)
    try pages.setValueBounds(min: .integer(1), max: .integer(5000))
    let isbn = try book.addAttribute(named: "isbn", type: .string)
    try isbn.setRegularExpression("[0-9]{3}-[0-9]{10}")
    let rating = try book.addAttribute(named: "rating", type: .integer16)
    try rating.setValidationPredicates(["SELF >= 0 AND SELF <= 5"], warnings: ["a rating is between 0 and 5 stars"])
    try book.addAttribute(named: "published", type: .date)
    try book.addAttribute(named: "saveCount", type: .integer32, defaultValue: 0)
    let loan = try model.addEntity(named: "Loan")
    try loan.addAttribute(named: "borrower", type: .string, optional: false)
    let books = try author.addRelationship(named: "books", destination: book, toMany: true, deleteRule: .cascade)
    let writtenBy = try book.addRelationship(named: "author", destination: author, deleteRule: .nullify)
    try books.setInverse(writtenBy)
    let tag = try model.addEntity(named: "Tag")
    try tag.addAttribute(named: "name", type: .string, optional: false)
    let tags = try book.addRelationship(named: "tags", destination: tag, toMany: true, deleteRule: .nullify)
    let tagged = try tag.addRelationship(named: "books", destination: book, toMany: true, deleteRule: .nullify)
    try tags.setInverse(tagged)
    let loans = try book.addRelationship(named: "loans", destination: loan, toMany: true, deleteRule: .deny)
    let lent = try loan.addRelationship(named: "book", destination: book, deleteRule: .nullify)
    try loans.setInverse(lent)
    return model
}

/// A Book subclass that records its hooks, counts its saves in `willSave`, and refuses a
/// title of "Untitled" in its own validator.
final class BookObject: ManagedObject {
    nonisolated(unsafe) static var events: [String] = []

    override func awakeFromInsert() {
        Self.events.append("awakeFromInsert")
        try? setPrimitiveValue("New book", forKey: "title")
    }
    override func awakeFromFetch() { Self.events.append("awakeFromFetch") }
    override func awakeFromSnapshotEvents(_ events: SnapshotEvents) { Self.events.append("awakeFromSnapshotEvents(\(events.rawValue))") }
    override func willSave() {
        Self.events.append("willSave")
        // Counts saves once per save: the change here triggers one more willSave, which sees it.
        if !isDeleted, let changed = try? changedValues(), changed["saveCount"] == nil,
            case .integer(let n)? = try? value(forKey: "saveCount")
        {
            try? setValue(.integer(n + 1), forKey: "saveCount")
        }
    }
    override func didSave() { Self.events.append("didSave") }
    override func prepareForDeletion() { Self.events.append("prepareForDeletion") }
    override func willTurnIntoFault() { Self.events.append("willTurnIntoFault") }
    override func didTurnIntoFault() { Self.events.append("didTurnIntoFault") }
    override func validateValue(_ value: PredicateValue, forKey key: String) throws(ObjectGraphError) -> PredicateValue {
        if key == "title", case .scalar(.string("Untitled")) = value {
            throw ObjectGraphError(code: ErrorCode.validation, message: "a book needs a real title",
                                   userInfo: [(ErrorUserInfoKey.validationKey, "title")])
        }
        return value
    }
}

/// A coordinator over an SQLite file in a fresh directory, with the lending model.
func lendingStack(_ path: String? = nil, type: String = StoreType.sqlite) throws -> Stack {
    ManagedObjectClasses.register(BookObject.self)
    return try Stack(model: try makeLendingModel(), path: path ?? (try temporaryDirectory() + "/lending.sqlite"), type: type)
}

/// The authors the fetch-option tests share, inserted into `context` (not saved): Le Guin
/// (Earthsea, Lathe), Butler (Kindred, Dawn, Imago) and Banks (no books). `eachBook` sees
/// every book once its title and author are set.
func insertSampleAuthors(_ context: ManagedObjectContext, eachBook: (ManagedObject, String) throws -> Void = { _, _ in }) throws {
    for (name, titles) in [("Le Guin", ["Earthsea", "Lathe"]), ("Butler", ["Kindred", "Dawn", "Imago"]), ("Banks", [])] {
        let a = try context.insertObject(entityName: "Author")
        try a.setValue(.string(name), forKey: "name")
        for t in titles {
            let b = try context.insertObject(entityName: "Book")
            try b.setValue(.string(t), forKey: "title")
            try b.setObject(a, forKey: "author")
            try eachBook(b, t)
        }
    }
}

extension ManagedObject {
    func string(_ key: String) -> String? {
        if case .string(let s)? = try? value(forKey: key) { return s }
        return nil
    }
}
