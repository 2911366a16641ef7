import BenchSQLite

/// The problems with a report: every fetch must see all rows and the expected sum, and the
/// insert file (postgres: the insert schema on the server, of the contender `id`) must hold
/// N rows with the expected sum (so nothing skipped the save).
func check(_ report: Report, options: Options, insertsOn postgres: (server: PostgresServer, id: String)? = nil) -> [String] {
    var problems: [String] = []
    if report.insertSeconds.count != options.runs || report.fetchSeconds.count != options.runs {
        problems.append("\(report.insertSeconds.count)/\(report.fetchSeconds.count) timed runs instead of \(options.runs)")
    }
    let expected = Workload.expectedSum(rows: options.fetchRows)
    if let bad = report.fetchSums.first(where: { $0 != expected }) {
        problems.append("fetch sum \(bad) ≠ \(expected)")
    }
    if report.fetchSums.count != report.fetchSeconds.count {
        problems.append("\(report.fetchSums.count) fetch sums for \(report.fetchSeconds.count) runs")
    }
    if let bad = report.fetchCounts.first(where: { $0 != options.fetchRows }) {
        problems.append("fetched \(bad) objects, not \(options.fetchRows)")
    }
    if let postgres {
        problems += postgres.server.checkInsert(report, id: postgres.id, options: options)
    } else {
        problems += checkInsertFile(report, options: options)
    }
    return problems
}

private func checkInsertFile(_ report: Report, options: Options) -> [String] {
    guard let file = report.insertFile, let table = report.insertTable,
          let columns = report.insertColumns, !columns.isEmpty else {
        return ["the report does not name its insert file, table and columns"]
    }
    do {
        let db = try SQLiteDB(path: file)
        let sums = columns.map { "sum(\($0))" }.joined(separator: " + ")
        let statement = try db.prepare("SELECT count(*), \(sums) FROM \(table)")
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { return ["insert file: \(db.lastError)"] }
        let rows = Int(sqlite3_column_int64(statement, 0))
        let sum = sqlite3_column_int64(statement, 1)
        var problems: [String] = []
        if rows != options.n { problems.append("insert file has \(rows) rows, not \(options.n)") }
        let expected = Workload.expectedSum(rows: options.n)
        if sum != expected { problems.append("insert file sum \(sum) ≠ \(expected)") }
        return problems
    } catch {
        return ["insert file: \(error)"]
    }
}
