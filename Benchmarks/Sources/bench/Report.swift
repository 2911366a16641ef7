/// What a contender's process prints as the last line of its standard output, as JSON.
/// The C and Python contenders print the same keys (see README.md, "The report").
struct Report: Codable {
    /// Set instead of the rest when the contender cannot run here (a missing optional package).
    var skipped: String?
    /// One entry per timed run (warm-up runs left out).
    var insertSeconds: [Double] = []
    var fetchSeconds: [Double] = []
    var fetchSums: [Int64] = []
    var fetchCounts: [Int] = []
    /// The file the last timed insert wrote, and where its rows are: the runner checks them.
    var insertFile: String?
    var insertTable: String?
    var insertColumns: [String]?
    /// postgres: the schema of the last timed insert (instead of `insertFile`), whose table
    /// and columns are `insertTable` and `insertColumns`.
    var insertSchema: String?
    /// Optional: versions worth printing under the table ("Python 3.11.7, SQLAlchemy 2.1.9").
    var about: String?

    enum CodingKeys: String, CodingKey {
        case skipped
        case insertSeconds = "insert_seconds"
        case fetchSeconds = "fetch_seconds"
        case fetchSums = "fetch_sums"
        case fetchCounts = "fetch_counts"
        case insertFile = "insert_file"
        case insertTable = "insert_table"
        case insertColumns = "insert_columns"
        case insertSchema = "insert_schema"
        case about
    }

    init() {}

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        skipped = try c.decodeIfPresent(String.self, forKey: .skipped)
        insertSeconds = try c.decodeIfPresent([Double].self, forKey: .insertSeconds) ?? []
        fetchSeconds = try c.decodeIfPresent([Double].self, forKey: .fetchSeconds) ?? []
        fetchSums = try c.decodeIfPresent([Int64].self, forKey: .fetchSums) ?? []
        fetchCounts = try c.decodeIfPresent([Int].self, forKey: .fetchCounts) ?? []
        insertFile = try c.decodeIfPresent(String.self, forKey: .insertFile)
        insertTable = try c.decodeIfPresent(String.self, forKey: .insertTable)
        insertColumns = try c.decodeIfPresent([String].self, forKey: .insertColumns)
        insertSchema = try c.decodeIfPresent(String.self, forKey: .insertSchema)
        about = try c.decodeIfPresent(String.self, forKey: .about)
    }
}
