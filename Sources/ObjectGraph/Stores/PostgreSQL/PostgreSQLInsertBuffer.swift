/// New rows of a save, held back and inserted many to a statement: one round trip to the
/// server per few hundred rows instead of one per row. Rows wait only until the save runs
/// any other statement (which may read or change them), or until the transaction commits:
/// `flush` runs first, so the server sees every statement in the save's order.
///
/// Statements take 256, 64, 16, 4 or 1 rows, so a connection prepares at most five per
/// entity, whatever the sizes of saves.
final class PostgreSQLInsertBuffer {
    static let sizes = [256, 64, 16, 4, 1]

    private struct Pending {
        let plan: SQLiteStore.WritePlan
        var rows: [[PostgreSQLParameter]] = []
    }

    private var pending: [ObjectIdentifier: Pending] = [:]
    /// Entities in the order their first row came, so inserts keep that order.
    private var order: [ObjectIdentifier] = []
    private var sql: [Key: String] = [:]

    private struct Key: Hashable {
        let plan: ObjectIdentifier
        let rows: Int
    }

    var isEmpty: Bool { order.isEmpty }

    func add(_ parameters: [PostgreSQLParameter], plan: SQLiteStore.WritePlan) {
        let id = ObjectIdentifier(plan)
        if pending[id] == nil {
            pending[id] = Pending(plan: plan)
            order.append(id)
        }
        pending[id]!.rows.append(parameters)
    }

    func discard() {
        pending.removeAll()
        order.removeAll()
    }

    /// Inserts every row held, largest statements first.
    func flush(_ db: PostgreSQLConnection) throws(ObjectGraphError) {
        defer { discard() }
        for id in order {
            guard let group = pending[id], let head = group.plan.multiRowInsertHead else { continue }
            var start = 0
            while start < group.rows.count {
                let left = group.rows.count - start
                let n = Self.sizes.first { $0 <= left }!
                var parameters: [PostgreSQLParameter] = []
                parameters.reserveCapacity(n * group.rows[start].count)
                for row in group.rows[start..<(start + n)] { parameters += row }
                try db.query(statement(head, id, rows: n, columns: group.rows[start].count), parameters)
                start += n
            }
        }
    }

    private func statement(_ head: String, _ plan: ObjectIdentifier, rows: Int, columns: Int) -> String {
        let key = Key(plan: plan, rows: rows)
        if let known = sql[key] { return known }
        var text = head
        var p = 1
        for r in 0..<rows {
            text += r == 0 ? "(" : ", ("
            for c in 0..<columns {
                text += c == 0 ? "?\(p)" : ", ?\(p)"
                p += 1
            }
            text += ")"
        }
        sql[key] = text
        return text
    }
}
