import ObjectGraph

/// traversal, ObjectGraph (Swift): fetch every Author with `relationshipKeyPathsForPrefetching`
/// = ["books"], then read the title of every book of every author.
struct OGTraversal: PhaseContender {
    func prepare(path: String, sizes: Sizes) throws {
        let stack = try OGStack(path: path, model: try OGStack.libraryModel())
        let context = stack.context
        for a in 0..<sizes.authors {
            let author = try context.insertObject(entityName: "Author")
            try author.setValue(.string(Library.authorName(a)), forKey: "name")
            for b in 0..<sizes.booksPerAuthor {
                let book = try context.insertObject(entityName: "Book")
                try book.setValue(.string(Library.title(author: a, book: b)), forKey: "title")
                try book.setObject(author, forKey: "author")
            }
        }
        try context.save()
    }

    func run(path: String, sizes: Sizes) throws -> PhaseResult {
        let stack = try OGStack(path: path, model: try OGStack.libraryModel())
        let (context, titleSlot) = (stack.context, try stack.slot("Book", "title"))
        let request = FetchRequest(entityName: "Author")
        request.relationshipKeyPathsForPrefetching = ["books"]
        // The objects are returned out of the timed block: releasing them is not timed.
        let run = try timed { () throws -> ([ManagedObject], Int, Int64) in
            let authors = try context.fetch(request)
            var (count, bytes): (Int, Int64) = (0, 0)
            for author in authors {
                for book in try author.objects(forKey: "books") {
                    guard case .string(let title) = try book.value(atSlot: titleSlot) else { throw BenchError("a title that is not a string") }
                    bytes += Int64(title.utf8.count)
                    count += 1
                }
            }
            return (authors, count, bytes)
        }
        return PhaseResult(time: run.time, count: run.result.1, sum: run.result.2)
    }
}
