/// New rows of a save, held back and inserted many to a statement: one round trip to the
/// server per few hundred rows instead of one per row. Rows wait only until the save runs
/// any other statement (which may read or change them), or until the transaction commits:
/// `flush` runs first, so the server sees every statement in the save's order.
///
/// Many rows of an entity go in one `COPY … FROM STDIN`, which the server loads about
/// twice as fast as INSERTs of the same rows; fewer than `copyRows` (where COPY's extra
/// round trip would cost more than it saves) go in INSERTs of 256, 64, 16, 4 or 1 rows, so
/// a connection prepares at most five per entity, whatever the sizes of saves. An entity's
/// rows wait as one flat list of parameters, and its statements' types are its columns'
/// types, fixed once.
final class PostgreSQLInsertBuffer {
    static let sizes = [256, 64, 16, 4, 1]
    static let copyRows = 128

    private final class Pending {
        let plan: SQLiteStore.WritePlan
        let head: String
        /// `COPY table (columns) FROM STDIN`, in PostgreSQL's spelling.
        let copy: String
        /// The parameter types of one row: its columns' types.
        let types: [UInt32]
        var parameters: [PostgreSQLParameter] = []
        var rows = 0
        /// By rows per statement.
        var statements: [Int: PostgreSQLPreparedStatement] = [:]

        init(plan: SQLiteStore.WritePlan, head: String, copy: String, types: [UInt32]) {
            self.plan = plan
            self.head = head
            self.copy = copy
            self.types = types
        }

        func statement(rows n: Int) -> PostgreSQLPreparedStatement {
            if let known = statements[n] { return known }
            var text = head
            var p = 1
            for r in 0..<n {
                text += r == 0 ? "(" : ", ("
                for c in 0..<types.count {
                    text += c == 0 ? "?\(p)" : ", ?\(p)"
                    p += 1
                }
                text += ")"
            }
            let made = PostgreSQLPreparedStatement(sql: text, types: Array((0..<n).map { _ in types }.joined()))
            statements[n] = made
            return made
        }
    }

    /// Per plan; kept across saves, so statements stay prepared.
    private var pending: [ObjectIdentifier: Pending] = [:]
    /// Plans with rows waiting, in the order their first row came.
    private var order: [ObjectIdentifier] = []

    var isEmpty: Bool { order.isEmpty }

    /// The parameters of a new row of `plan` (whose `multiRowInsertHead` is set) go into
    /// `fill`'s list; `types` are the parameter types of its row (its columns'), `copy` the
    /// COPY statement of the same columns.
    func add(plan: SQLiteStore.WritePlan, types: @autoclosure () -> [UInt32], copy: @autoclosure () -> String,
             _ fill: (inout [PostgreSQLParameter]) throws(ObjectGraphError) -> Void) throws(ObjectGraphError) {
        let id = ObjectIdentifier(plan)
        let group: Pending
        if let known = pending[id] {
            group = known
        } else {
            group = Pending(plan: plan, head: plan.multiRowInsertHead!, copy: copy(), types: types())
            pending[id] = group
        }
        let before = group.parameters.count
        do throws(ObjectGraphError) { try fill(&group.parameters) } catch {
            group.parameters.removeSubrange(before...)
            throw error
        }
        if group.rows == 0 { order.append(id) }
        group.rows += 1
    }

    func discard() {
        for id in order {
            pending[id]?.parameters.removeAll(keepingCapacity: true)
            pending[id]?.rows = 0
        }
        order.removeAll()
    }

    /// Inserts every row held, largest statements first.
    func flush(_ db: PostgreSQLConnection) throws(ObjectGraphError) {
        defer { discard() }
        for id in order {
            guard let group = pending[id] else { continue }
            let width = group.types.count
            if group.rows >= Self.copyRows {
                var data: [UInt8] = []
                data.reserveCapacity(group.parameters.count * 8)
                PostgreSQLCopyText.append(group.parameters[...], width: width, to: &data)
                try db.copyIn(group.copy, data)
                continue
            }
            var start = 0
            while start < group.rows {
                let n = Self.sizes.first { $0 <= group.rows - start }!
                try db.query(group.statement(rows: n), group.parameters[(start * width)..<((start + n) * width)])
                start += n
            }
        }
    }
}
