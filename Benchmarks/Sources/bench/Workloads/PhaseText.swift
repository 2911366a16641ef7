/// The lines above a one-phase workload's table: what it does with the sizes of this run,
/// and what is timed.
func describe(_ workload: WorkloadKind, _ s: Sizes) -> String {
    switch workload {
    case .update:
        "change \(grouped(s.updateCount)) of \(grouped(s.updateRows)) items (\(s.updatePercent)%, a0 < \(grouped(s.updateCount * 10))) and save"
    case .indexed:
        "fetch \(grouped(s.indexedRange.count)) of \(grouped(s.indexedRows)) items (\(s.indexedPercent)%) by a range of the indexed a0, read every attribute"
    case .traversal:
        "\(grouped(s.authors)) authors × \(s.booksPerAuthor) books, read every title (\(grouped(s.books)) books)"
    case .batchInsert:
        "insert \(grouped(s.batchInsertRows)) items into an empty store in one transaction"
    case .batchUpdate:
        "set a9 = \(Sizes.batchUpdateValue) on all \(grouped(s.batchRows)) items (a0 >= 0) in one transaction"
    case .batchDelete:
        "delete all \(grouped(s.batchRows)) items (a0 >= 0) in one transaction, the store rebuilt before every run"
    case .upsert:
        "insert \(grouped(s.batchInsertRows)) items into \(grouped(s.batchRows)) with a0 unique: \(grouped(s.batchRows - s.upsertRange.lowerBound)) update, "
            + "\(grouped(s.upsertRowsAfter - s.batchRows)) insert; the store rebuilt before every run"
    case .history:
        "persistent history (NSPersistentHistoryTrackingKey): its cost in main's insert, and reading \(grouped(s.historyChanges)) changes after a token"
    case .main, .postgres, .scaling: ""
    }
}

func timedPart(_ workload: WorkloadKind) -> [String] {
    switch workload {
    case .update:
        ["timed: finding the items, changing a9 (a9 + 1) and saving, in one transaction",
         "  raw SQLite: one UPDATE … WHERE a0 < ?; GRDB: fetchAll, then update(db) per record; ObjectGraph: predicate fetch, setValue, save()"]
    case .indexed:
        ["timed: the fetch by `a0 >= ? AND a0 < ?` and reading the results; every contender's table has an index of a0 alone"]
    case .traversal:
        ["timed: fetching the authors and their books and reading every title",
         "  raw SQLite: one join; GRDB: including(all:) (two queries); ObjectGraph: relationshipKeyPathsForPrefetching [\"books\"]"]
    case .batchInsert:
        ["timed: the whole insert; the empty store is made before",
         "  raw SQLite: one prepared INSERT per row; ObjectGraph: a batch insert given by column; Python sqlite3: executemany"]
    case .batchUpdate:
        ["timed: the whole update; the store is copied from a template before",
         "  raw SQLite: one UPDATE … SET a9 = ? WHERE a0 >= ?; ObjectGraph: a batch update with the predicate a0 >= 0"]
    case .batchDelete:
        ["timed: the whole delete; the store is copied from a template before",
         "  raw SQLite: one DELETE … WHERE a0 >= ?; ObjectGraph: a batch delete of a fetch request with a0 >= 0"]
    case .upsert:
        ["timed: the whole insert; the store is copied from a template before",
         "  raw SQLite: one prepared INSERT … ON CONFLICT(a0) DO UPDATE per row; Python sqlite3: executemany of it;",
         "  ObjectGraph: a uniqueness constraint on a0, merge policy merge-by-property object trump, a batch insert"]
    case .history:
        ["timed, insert: main's insert (N objects through a context, one save) into a new store, history tracking off and on,",
         "  both in every run (alternating which goes first); ×off = the contender's median with history / its median without",
         "timed, read: the history after a token, every change's type and object ID read; the store is built before the runs",
         "  (\(grouped(Sizes.historyTransaction)) items saved and the token kept, then the items read saved in transactions of \(grouped(Sizes.historyTransaction)))",
         "  raw SQLite: one SELECT of ACHANGE joined with ATRANSACTION (Z_PK > the token's), every column read;",
         "  ObjectGraph: history(after: token), og_context_history + og_history_change_*, ctx.history(after=token)"]
    case .main, .postgres, .scaling: []
    }
}
