/// Records to and from other caches' formats (`InterchangeFormat`).
extension NormalizedCache {
    /// Merges the records of `data`, in `format`, into the cache in one atomic
    /// transaction (as `put(json:)` does) and returns the changed fields. Malformed
    /// data, or a reference to a record that `data` does not hold, throws naming the
    /// record and field, and nothing is written.
    public func importRecords(_ format: InterchangeFormat, from data: UnsafeRawBufferPointer,
                              reportingChanges: Bool = true) throws(NormCacheError) -> ChangedFields {
        let records: [UInt8]
        switch format {
        case .apolloClient: records = try ApolloClientImport.records(data)
        case .apolloIOS: records = try ApolloIOSRecords.records(data)
        }
        return try records.withBytes { (bytes) throws(NormCacheError) in try put(json: bytes, reportingChanges: reportingChanges) }
    }

    /// `importRecords(_:from:reportingChanges:)` for text.
    public func importRecords(_ format: InterchangeFormat, from data: String) throws(NormCacheError) -> ChangedFields {
        try data.withUTF8Bytes { (bytes) throws(NormCacheError) in try importRecords(format, from: bytes) }
    }

    /// Every record of the cache, as of one moment, in `format`'s JSON. With a schema,
    /// Apollo Client's argument JSON types each value as the schema does (an `ID` argument
    /// `1000` as the string `"1000"`); without one, values that read as numbers, booleans
    /// or null are written as those literals.
    public func exportRecords(_ format: InterchangeFormat) throws(NormCacheError) -> [UInt8] {
        var records: [(key: [UInt8], json: [UInt8])] = []
        try forEachRecord { (key, json) throws(NormCacheError) in records.append((Array(key.utf8), json)) }
        switch format {
        case .apolloClient: return try ApolloClientExport.extract(records, schema: rules.current.schema)
        case .apolloIOS: return ApolloIOSRecords.rows(records)
        }
    }
}
