import CSQLite3
import Glibc

/// Apollo iOS's SQLite cache file — its `records` table of `_id`, `key` and `record` —
/// read and written through Debian's libsqlite3. The records pass through the core's
/// `InterchangeFormat.apolloIOS` JSON, a JSON object of key to record text.
struct ApolloIOSFile {
    /// The `records` table and its index as Apollo iOS's SQLiteNormalizedCache (through
    /// SQLite.swift) creates them.
    static let schema = [
        #"CREATE TABLE IF NOT EXISTS "records" ("_id" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, "key" TEXT NOT NULL UNIQUE, "record" TEXT NOT NULL)"#,
        #"CREATE UNIQUE INDEX IF NOT EXISTS "index_records_on_key" ON "records" ("key")"#,
    ]

    private let database: OpaquePointer
    /// What a failure says first: "apollo-ios import: 'app.sqlite' cannot be read as SQLite".
    private let failing: String

    private init(path: String, readOnly: Bool) throws(CommandFailure) {
        failing = readOnly ? "apollo-ios import: '\(path)' cannot be read as SQLite" : "apollo-ios export: '\(path)' cannot be written as SQLite"
        if readOnly, !InputFile.exists(path) { throw CommandFailure(.badInput, "apollo-ios import: no file '\(path)'") }
        var handle: OpaquePointer?
        let flags = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_close(handle)
            throw CommandFailure(.badInput, "\(failing): \(message)")
        }
        database = handle
    }

    /// The rows of the `records` table of the file at `path`, in `_id` order, as the
    /// core's Apollo iOS JSON. A file that is not SQLite, is damaged, lacks the table or
    /// a column, or has a row whose key or record is not text fails naming the file and
    /// the row.
    static func rows(of path: String) throws(CommandFailure) -> [UInt8] {
        let file = try ApolloIOSFile(path: path, readOnly: true)
        defer { sqlite3_close(file.database) }
        var columns: Set<String> = []
        try file.query(#"PRAGMA table_info("records")"#) { statement in
            columns.insert(String(cString: sqlite3_column_text(statement, 1)))
        }
        let missing = ["_id", "key", "record"].filter { !columns.contains($0) }
        guard missing.isEmpty else {
            let what = columns.isEmpty ? "no table 'records'" : "a 'records' table without \(missing.joined(separator: ", "))"
            throw CommandFailure(.badInput, "apollo-ios import: '\(path)' has \(what); not an Apollo iOS cache")
        }
        var json: [UInt8] = [UInt8(ascii: "{")]
        try file.query(#"SELECT "_id", "key", "record" FROM "records" ORDER BY "_id""#) { (statement) throws(CommandFailure) in
            guard sqlite3_column_type(statement, 1) == SQLITE_TEXT, sqlite3_column_type(statement, 2) == SQLITE_TEXT else {
                let key = sqlite3_column_type(statement, 1) == SQLITE_TEXT ? "'\(String(cString: sqlite3_column_text(statement, 1)))'" : "not text"
                throw CommandFailure(.badInput, "apollo-ios import: row \(sqlite3_column_int64(statement, 0)) (key \(key)) of '\(path)': key and record must be text")
            }
            if json.count > 1 { json.append(UInt8(ascii: ",")) }
            json.append(contentsOf: Output.quoted(String(cString: sqlite3_column_text(statement, 1))).utf8)
            json.append(UInt8(ascii: ":"))
            json.append(contentsOf: Output.quoted(String(cString: sqlite3_column_text(statement, 2))).utf8)
        }
        json.append(UInt8(ascii: "}"))
        return json
    }

    /// Writes `rows` (key, record text) into the file at `path` in one transaction,
    /// creating the file and its table when absent and replacing a row of the same key.
    static func write(_ rows: [(key: String, record: String)], to path: String) throws(CommandFailure) {
        let file = try ApolloIOSFile(path: path, readOnly: false)
        defer { sqlite3_close(file.database) }
        try file.execute("BEGIN IMMEDIATE")
        do {
            for statement in schema { try file.execute(statement) }
            var insert: OpaquePointer?
            try file.check(sqlite3_prepare_v2(file.database, #"INSERT OR REPLACE INTO "records" ("key", "record") VALUES (?, ?)"#, -1, &insert, nil))
            defer { sqlite3_finalize(insert) }
            let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
            for row in rows {
                sqlite3_reset(insert)
                sqlite3_bind_text(insert, 1, row.key, -1, transient)
                sqlite3_bind_text(insert, 2, row.record, -1, transient)
                let status = sqlite3_step(insert)
                if status != SQLITE_DONE { try file.check(status) }
            }
            try file.execute("COMMIT")
        } catch {
            sqlite3_exec(file.database, "ROLLBACK", nil, nil, nil)
            throw error
        }
    }

    /// Runs `sql`, calling `row` for each row it gives.
    private func query(_ sql: String, _ row: (OpaquePointer) throws(CommandFailure) -> Void) throws(CommandFailure) {
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v2(database, sql, -1, &statement, nil))
        defer { sqlite3_finalize(statement) }
        guard let statement else { return }
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return }
            guard status == SQLITE_ROW else { return try check(status) }
            try row(statement)
        }
    }

    /// Runs `sql`, which gives no rows.
    private func execute(_ sql: String) throws(CommandFailure) {
        try check(sqlite3_exec(database, sql, nil, nil, nil))
    }

    /// Throws a failure naming the file and SQLite's message unless `status` is SQLITE_OK.
    private func check(_ status: Int32) throws(CommandFailure) {
        guard status != SQLITE_OK else { return }
        throw CommandFailure(.badInput, "\(failing): \(String(cString: sqlite3_errmsg(database)))")
    }
}
