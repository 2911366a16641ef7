/// history: the checks of the inserts (the read's are checkPhase's count and sum). A
/// contender of `historyInsertContenders` must time both inserts in every run; after it
/// exits, the stores of its last inserts must hold N items with main's values, the one
/// without history no history tables, and the one with history one transaction of N
/// inserts, of the keys 1 … N: so a contender that left history off (or recorded nothing)
/// fails its row instead of looking cheap.
func checkHistoryInserts(_ report: PhaseReport, id: String, options: Options) -> [String] {
    let off = report.insertSeconds, on = report.historyInsertSeconds
    guard historyInsertContenders.contains(id) || off != nil || on != nil else { return [] }
    var problems: [String] = []
    if off?.count != options.runs || on?.count != options.runs {
        problems.append("\(off?.count ?? 0)/\(on?.count ?? 0) timed inserts without/with history instead of \(options.runs)")
    }
    guard let offFile = report.insertFile, let onFile = report.historyInsertFile,
          let table = report.table, let columns = report.columns, !columns.isEmpty else {
        return problems + ["the report does not name its insert stores, table and columns"]
    }
    let n = Int64(options.n)
    do {
        let plain = try SQLiteDB(path: offFile)
        problems += try checkItems(plain, table: table, columns: columns, n: options.n, label: "insert store without history")
        if try plain.integer("SELECT count(*) FROM sqlite_master WHERE name = 'ATRANSACTION'") != 0 {
            problems.append("the insert store without history has history tables")
        }
        let tracked = try SQLiteDB(path: onFile)
        problems += try checkItems(tracked, table: table, columns: columns, n: options.n, label: "insert store with history")
        let transactions = try tracked.integer("SELECT count(*) FROM ATRANSACTION")
        let changes = try tracked.integer("SELECT count(*) FROM ACHANGE WHERE ZCHANGETYPE = 0")
        let all = try tracked.integer("SELECT count(*) FROM ACHANGE")
        let keys = try tracked.integer("SELECT IFNULL(sum(ZENTITYPK), 0) FROM ACHANGE")
        if transactions != 1 { problems.append("the insert store with history has \(transactions) transactions, not 1") }
        if changes != n || all != n { problems.append("the insert store with history has \(all) changes (\(changes) inserts), not \(n) inserts") }
        if keys != n * (n + 1) / 2 { problems.append("the changes' keys add up to \(keys), not \(n * (n + 1) / 2)") }
    } catch {
        problems.append("insert stores: \(error)")
    }
    return problems
}

/// N items with main's values in `table`.
private func checkItems(_ db: SQLiteDB, table: String, columns: [String], n: Int, label: String) throws -> [String] {
    let rows = try db.integer("SELECT count(*) FROM \(table)")
    let sum = try db.integer("SELECT \(columns.map { "sum(\($0))" }.joined(separator: " + ")) FROM \(table)")
    var problems: [String] = []
    if rows != Int64(n) { problems.append("the \(label) has \(rows) rows, not \(n)") }
    if sum != Workload.expectedSum(rows: n) { problems.append("the \(label)'s sum \(sum) ≠ \(Workload.expectedSum(rows: n))") }
    return problems
}
