/// The operation API for `String` arguments: the same calls as the byte-buffer forms.
extension NormalizedCache {
    /// `loadSchema(sdl:)` for SDL text.
    public func loadSchema(_ sdl: String) throws(NormCacheError) {
        try sdl.withUTF8Bytes { (bytes) throws(NormCacheError) in try loadSchema(sdl: bytes) }
    }

    /// `configure(json:)` for JSON text.
    public func configure(_ json: String) throws(NormCacheError) {
        try json.withUTF8Bytes { (bytes) throws(NormCacheError) in try configure(json: bytes) }
    }

    /// `prepare(document:operationName:)` for document text.
    public func prepare(_ document: String, operationName: String? = nil) throws(NormCacheError) -> PreparedOperation {
        try document.withUTF8Bytes { (bytes) throws(NormCacheError) in try prepare(document: bytes, operationName: operationName) }
    }

    /// `normalize(_:variables:response:)` for JSON text: the records as JSON text.
    public static func normalize(_ operation: PreparedOperation, response: String, variables: String = "") throws(NormCacheError) -> String {
        try variables.withUTF8Bytes { (vars) throws(NormCacheError) in
            try response.withUTF8Bytes { (data) throws(NormCacheError) in
                String(decoding: try normalize(operation, variables: vars, response: data), as: UTF8.self)
            }
        }
    }

    /// `normalize(_:variables:response:strictKeys:)` for JSON text.
    public static func normalize(_ operation: PreparedOperation, response: String, variables: String = "",
                                 strictKeys: Bool) throws(NormCacheError) -> NormalizeResult {
        try variables.withUTF8Bytes { (vars) throws(NormCacheError) in
            try response.withUTF8Bytes { (data) throws(NormCacheError) in
                try normalize(operation, variables: vars, response: data, strictKeys: strictKeys)
            }
        }
    }

    /// `write(_:variables:response:)` for JSON text.
    public func write(_ operation: PreparedOperation, response: String, variables: String = "") throws(NormCacheError) -> ChangedFields {
        try variables.withUTF8Bytes { (vars) throws(NormCacheError) in
            try response.withUTF8Bytes { (data) throws(NormCacheError) in try write(operation, variables: vars, response: data) }
        }
    }

    /// `write(_:variables:response:options:)` for JSON text.
    public func write(_ operation: PreparedOperation, response: String, variables: String = "",
                      options: WriteOptions) throws(NormCacheError) -> WriteResult {
        try variables.withUTF8Bytes { (vars) throws(NormCacheError) in
            try response.withUTF8Bytes { (data) throws(NormCacheError) in try write(operation, variables: vars, response: data, options: options) }
        }
    }

    /// `read(_:variables:options:)` for JSON variables text.
    public func read(_ operation: PreparedOperation, variables: String = "", options: ReadOptions = ReadOptions()) throws(NormCacheError) -> ReadResult {
        try variables.withUTF8Bytes { (vars) throws(NormCacheError) in try read(operation, variables: vars, options: options) }
    }

    /// `readFragment(_:key:variables:options:)` for JSON variables text.
    public func readFragment(_ fragment: PreparedOperation, key: String, variables: String = "",
                             options: ReadOptions = ReadOptions()) throws(NormCacheError) -> ReadResult {
        try variables.withUTF8Bytes { (vars) throws(NormCacheError) in
            try readFragment(fragment, key: key, variables: vars, options: options)
        }
    }

    /// `writeFragment(_:key:data:variables:)` for JSON text.
    public func writeFragment(_ fragment: PreparedOperation, key: String, data: String,
                              variables: String = "") throws(NormCacheError) -> ChangedFields {
        try variables.withUTF8Bytes { (vars) throws(NormCacheError) in
            try data.withUTF8Bytes { (bytes) throws(NormCacheError) in try writeFragment(fragment, key: key, data: bytes, variables: vars) }
        }
    }

    /// `writeFragment(_:key:data:variables:options:)` for JSON text.
    public func writeFragment(_ fragment: PreparedOperation, key: String, data: String, variables: String = "",
                              options: WriteOptions) throws(NormCacheError) -> WriteResult {
        try variables.withUTF8Bytes { (vars) throws(NormCacheError) in
            try data.withUTF8Bytes { (bytes) throws(NormCacheError) in
                try writeFragment(fragment, key: key, data: bytes, variables: vars, options: options)
            }
        }
    }
}
