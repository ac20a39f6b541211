@testable import NormCache

/// String forms of the operation API, for tests.
extension NormalizedCache {
    func loadSchema(_ sdl: String) throws(NormCacheError) {
        try sdl.withUTF8Bytes { (bytes) throws(NormCacheError) in try loadSchema(sdl: bytes) }
    }

    func configure(_ json: String) throws(NormCacheError) {
        try json.withUTF8Bytes { (bytes) throws(NormCacheError) in try configure(json: bytes) }
    }

    func prepare(_ document: String, name: String? = nil) throws(NormCacheError) -> PreparedOperation {
        try document.withUTF8Bytes { (bytes) throws(NormCacheError) in try prepare(document: bytes, operationName: name) }
    }

    func normalize(_ operation: PreparedOperation, _ response: String, variables: String = "") throws(NormCacheError) -> String {
        try variables.withUTF8Bytes { (vars) throws(NormCacheError) in
            try response.withUTF8Bytes { (data) throws(NormCacheError) in
                String(decoding: try NormalizedCache.normalize(operation, variables: vars, response: data), as: UTF8.self)
            }
        }
    }

    func write(_ operation: PreparedOperation, _ response: String, variables: String = "") throws(NormCacheError) -> [String] {
        try variables.withUTF8Bytes { (vars) throws(NormCacheError) in
            try response.withUTF8Bytes { (data) throws(NormCacheError) in try write(operation, variables: vars, response: data) }
        }
    }

    /// The data as JSON text, or "MISS " and the missing paths (and partial data).
    func read(_ operation: PreparedOperation, variables: String = "", partial: Bool = false) throws(NormCacheError) -> String {
        let result = try variables.withUTF8Bytes { (vars) throws(NormCacheError) in try read(operation, variables: vars, partial: partial) }
        switch result {
        case .data(let data): return String(decoding: data, as: UTF8.self)
        case .miss(let missing, let partialData):
            let paths = missing.map { path in
                path.map { segment -> String in
                    switch segment {
                    case .key(let key): return key
                    case .index(let index): return String(index)
                    }
                }.joined(separator: ".")
            }
            return "MISS \(paths)" + (partialData.map { " " + String(decoding: $0, as: UTF8.self) } ?? "")
        }
    }
}

extension NormalizedCache {
    func readFragment(_ fragment: PreparedOperation, key: String, variables: String = "") throws(NormCacheError) -> String {
        let result = try variables.withUTF8Bytes { (vars) throws(NormCacheError) in try readFragment(fragment, key: key, variables: vars) }
        switch result {
        case .data(let data): return String(decoding: data, as: UTF8.self)
        case .miss(let missing, _): return "MISS \(missing.count)"
        }
    }

    func writeFragment(_ fragment: PreparedOperation, key: String, data: String, variables: String = "") throws(NormCacheError) -> [String] {
        try variables.withUTF8Bytes { (vars) throws(NormCacheError) in
            try data.withUTF8Bytes { (bytes) throws(NormCacheError) in try writeFragment(fragment, key: key, data: bytes, variables: vars) }
        }
    }
}
