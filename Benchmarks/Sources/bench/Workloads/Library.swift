import BenchSQLite

/// The traversal workload's data: authors, each with the same number of books. Raw SQLite
/// and GRDB use the tables below; ObjectGraph the entities Author (name, books) and
/// Book (title, author).
enum Library {
    static func authorName(_ a: Int) -> String { "Author \(a)" }

    /// The title of book `b` of author `a`.
    static func title(author a: Int, book b: Int) -> String { "Book \(b) of author \(a)" }

    /// What reading every title must add up to: their UTF-8 lengths.
    static func expectedTitleBytes(_ sizes: Sizes) -> Int64 {
        var total: Int64 = 0
        for a in 0..<sizes.authors {
            for b in 0..<sizes.booksPerAuthor { total += Int64(title(author: a, book: b).utf8.count) }
        }
        return total
    }

    /// The tables of raw SQLite and GRDB, with the index ObjectGraph gives a to-one's foreign key.
    static let createTablesSQL = """
        CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
        CREATE TABLE book (id INTEGER PRIMARY KEY, authorId INTEGER NOT NULL REFERENCES author(id), title TEXT NOT NULL);
        CREATE INDEX book_authorId ON book(authorId);
        """

    /// Fills the tables of `createTablesSQL` through a connection (not timed: preparation).
    static func fillTables(_ db: SQLiteDB, _ sizes: Sizes) throws {
        try db.execute("BEGIN")
        let author = try db.prepare("INSERT INTO author (id, name) VALUES (?, ?)")
        let book = try db.prepare("INSERT INTO book (authorId, title) VALUES (?, ?)")
        defer { sqlite3_finalize(author); sqlite3_finalize(book) }
        for a in 0..<sizes.authors {
            sqlite3_bind_int64(author, 1, Int64(a + 1))
            try db.bindText(author, 2, authorName(a))
            try db.stepDone(author)
            for b in 0..<sizes.booksPerAuthor {
                sqlite3_bind_int64(book, 1, Int64(a + 1))
                try db.bindText(book, 2, title(author: a, book: b))
                try db.stepDone(book)
            }
        }
        try db.execute("COMMIT")
    }
}
