import ArgumentParser
import NormCache

/// `normcache load`: merges JSON lines of records, as `dump` prints them, into a cache.
struct LoadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Merge records from JSON lines into a cache, creating it if needed.",
        discussion: """
            Each line is a record as dump prints it, {"key": KEY, "record": {...}}, or records in \
            the notation of normcache_put, {"Pet:7": {...}, ...}; blank lines are skipped. Every \
            line is checked before anything is written: a bad line fails the load with status 3, \
            naming its line number, and writes nothing. Records merge field by field into what \
            the cache holds, in writes of about 4 MB each.

            EXAMPLE
              normcache load app.cache app.jsonl
              normcache dump old.cache | normcache load new.cache
            """
    )

    @OptionGroup var file: CacheFile
    @Argument(help: "The JSON lines file; - or nothing: standard input.")
    var input = "-"

    /// The put notation of a run of lines, ready to write.
    private struct Batch {
        var json: [UInt8] = [UInt8(ascii: "{")]
        var records = 0
        var firstLine = 0
        var lastLine = 0
    }

    /// How many bytes of records one write carries, at most (one record may exceed it).
    private static let batchBytes = 4 << 20

    func run() throws {
        let bytes = try InputFile.read(input, what: "records")
        var batches: [Batch] = []
        var batch = Batch()
        var total = 0
        var lineNumber = 0
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            guard line.contains(where: { ![0x20, 0x09, 0x0D].contains($0) }) else { continue }
            let members = try Self.records(in: Array(line), lineNumber: lineNumber)
            if batch.records > 0 && batch.json.count >= Self.batchBytes {
                batches.append(batch)
                batch = Batch()
            }
            if batch.records == 0 { batch.firstLine = lineNumber }
            for member in members {
                if batch.records > 0 { batch.json.append(UInt8(ascii: ",")) }
                batch.json.append(contentsOf: member.name.utf8)
                batch.json.append(UInt8(ascii: ":"))
                batch.json.append(contentsOf: member.value.compact.utf8)
                batch.records += 1
            }
            batch.lastLine = lineNumber
            total += members.count
        }
        if batch.records > 0 { batches.append(batch) }
        let cache = try file.openForWriting(creating: true)
        defer { cache.close() }
        for var batch in batches {
            batch.json.append(UInt8(ascii: "}"))
            do {
                _ = try batch.json.withUnsafeBytes { json in try cache.put(json: json, reportingChanges: false) }
            } catch let error as NormCacheError {
                var failure = CommandFailure(error)
                failure.message = "lines \(batch.firstLine)-\(batch.lastLine): \(error.message)"
                throw failure
            }
        }
        print("loaded \(total) record\(total == 1 ? "" : "s")")
    }

    /// The records of one line, as members of the put notation (name: key, value: record).
    private static func records(in line: [UInt8], lineNumber: Int) throws -> [JSONValue.Member] {
        let value: JSONValue
        do {
            value = try JSONText.parse(line)
        } catch {
            throw CommandFailure(.badInput, "line \(lineNumber): \(error.message)")
        }
        guard case .object(let members) = value else {
            throw CommandFailure(.badInput, "line \(lineNumber): expected a JSON object, {\"key\": KEY, \"record\": {...}}")
        }
        if members.count == 2, case .scalar(let key)? = value.member("key"), key.hasPrefix("\""),
           case .object? = value.member("record"), let record = value.member("record") {
            return [JSONValue.Member(name: key, value: record)]
        }
        for member in members {
            guard case .object = member.value else {
                throw CommandFailure(.badInput, "line \(lineNumber): the record \(member.name) is not a JSON object; "
                                     + "expected {\"key\": KEY, \"record\": {...}} or {\"Key\": {...}}")
            }
        }
        return members
    }
}
