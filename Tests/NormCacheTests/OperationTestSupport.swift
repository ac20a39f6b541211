@testable import NormCache

/// Reads as text, for exact comparisons in tests.
extension NormalizedCache {
    func prepare(_ document: String, name: String?) throws(NormCacheError) -> PreparedOperation {
        try prepare(document, operationName: name)
    }

    func normalize(_ operation: PreparedOperation, _ response: String, variables: String = "") throws(NormCacheError) -> String {
        try NormalizedCache.normalize(operation, response: response, variables: variables)
    }

    func write(_ operation: PreparedOperation, _ response: String, variables: String = "") throws(NormCacheError) -> ChangedFields {
        try write(operation, response: response, variables: variables)
    }

    /// `put` of raw bytes (which need not be UTF-8).
    func put(bytes: [UInt8]) throws(NormCacheError) -> ChangedFields {
        try bytes.withUnsafeBytes { raw in Result { () throws(NormCacheError) in try put(json: raw) } }.get()
    }

    /// `write` of a response given as raw bytes (which need not be UTF-8), without variables.
    func write(_ operation: PreparedOperation, responseBytes: [UInt8]) throws(NormCacheError) -> ChangedFields {
        try responseBytes.withUnsafeBytes { raw in
            Result { () throws(NormCacheError) in try write(operation, variables: UnsafeRawBufferPointer(start: nil, count: 0), response: raw) }
        }.get()
    }

    /// The data as JSON text, or "MISS " and the missing paths (and partial data).
    func readText(_ operation: PreparedOperation, variables: String = "", partial: Bool = false) throws(NormCacheError) -> String {
        Self.text(try read(operation, variables: variables, options: ReadOptions(partial: partial)))
    }

    /// The fragment's data as JSON text, or "MISS " and the number of missing paths.
    func readFragmentText(_ fragment: PreparedOperation, key: String, variables: String = "") throws(NormCacheError) -> String {
        let result = try readFragment(fragment, key: key, variables: variables)
        guard result.status == .miss else { return String(decoding: result.data ?? [], as: UTF8.self) }
        return "MISS \(result.missing.count)"
    }

    /// The data of a complete read as JSON text; "STALE " and the data of a stale one;
    /// "MISS ", the missing paths (dotted) and any partial data of a miss.
    static func text(_ result: ReadResult) -> String {
        let data = result.data.map { String(decoding: $0, as: UTF8.self) }
        switch result.status {
        case .complete: return data ?? ""
        case .stale: return "STALE " + (data ?? "")
        case .miss:
            let paths = result.missing.map { $0.path.map(\.description).joined(separator: ".") }
            return "MISS \(paths)" + (data.map { " " + $0 } ?? "")
        }
    }
}
