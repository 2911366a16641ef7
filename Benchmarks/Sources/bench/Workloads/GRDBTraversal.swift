import GRDB

/// traversal, GRDB: `Author.including(all: Author.books)` (one query per level), decoded into
/// records by hand, then every title read.
struct GRDBTraversal: PhaseContender {
    struct Author: FetchableRecord, TableRecord {
        static let databaseTableName = "author"
        static let books = hasMany(Book.self)
        var id: Int64
        var name: String
        init(row: Row) throws { (id, name) = (row["id"], row["name"]) }
    }

    struct Book: FetchableRecord, TableRecord {
        static let databaseTableName = "book"
        var id: Int64
        var authorId: Int64
        var title: String
        init(row: Row) throws { (id, authorId, title) = (row["id"], row["authorId"], row["title"]) }
    }

    /// An author with its books, from a row of `including(all:)`.
    struct AuthorWithBooks: FetchableRecord {
        var author: Author
        var books: [Book]
        init(row: Row) throws {
            author = try Author(row: row)
            books = try (row.prefetchedRows["books"] ?? []).map(Book.init(row:))
        }
    }

    func prepare(path: String, sizes: Sizes) throws {
        let db = try SQLiteDB(path: path)
        try db.execute("PRAGMA journal_mode=WAL")
        try db.execute(Library.createTablesSQL)
        try Library.fillTables(db, sizes)
    }

    func run(path: String, sizes: Sizes) throws -> PhaseResult {
        let queue = try GRDBItem.open(path)
        // The records are returned out of the timed block: releasing them is not timed.
        let run = try timed { () throws -> ([AuthorWithBooks], Int, Int64) in
            let authors = try queue.read { db in
                try AuthorWithBooks.fetchAll(db, Author.including(all: Author.books))
            }
            var (count, bytes): (Int, Int64) = (0, 0)
            for author in authors {
                for book in author.books {
                    bytes += Int64(book.title.utf8.count)
                    count += 1
                }
            }
            return (authors, count, bytes)
        }
        return PhaseResult(time: run.time, count: run.result.1, sum: run.result.2)
    }
}
