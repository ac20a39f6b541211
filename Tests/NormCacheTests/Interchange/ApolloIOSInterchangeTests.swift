import TestSupport
import Testing
@testable import NormCache

/// Apollo iOS's SQLite rows (record key to record text) into normcache and back.
@Suite struct ApolloIOSInterchangeTests {
    /// Rows as Apollo iOS's `SQLiteNormalizedCache` writes them for
    /// `{ hero(episode: JEDI) { name friends { name } } }`.
    static let rows = #"""
        {"QUERY_ROOT":"{\"hero(episode:JEDI)\":{\"$reference\":\"QUERY_ROOT.hero(episode:JEDI)\"}}",\#
        "QUERY_ROOT.hero(episode:JEDI)":"{\"__typename\":\"Droid\",\"name\":\"R2-D2\",\"friends\":[{\"$reference\":\"Human:1000\"}]}",\#
        "Human:1000":"{\"__typename\":\"Human\",\"name\":\"Luke Skywalker\"}"}
        """#

    @Test func importPutsEachRowAsItIsAndExportGivesTheRowsBack() throws {
        let test = try TestCache()
        #expect(try test.cache.importRecords(.apolloIOS, from: Self.rows).count == 6)
        #expect(try test.cache.record("QUERY_ROOT.hero(episode:JEDI)") == #"{"__typename":"Droid","friends":[{"$reference":"Human:1000"}],"name":"R2-D2"}"#)
        let operation = try test.cache.prepare("{ hero(episode: JEDI) { name friends { name } } }")
        #expect(try test.cache.readText(operation) == #"{"hero":{"name":"R2-D2","friends":[{"name":"Luke Skywalker"}]}}"#)
        #expect(String(decoding: try test.cache.exportRecords(.apolloIOS), as: UTF8.self) == #"""
            {"Human:1000":"{\"__typename\":\"Human\",\"name\":\"Luke Skywalker\"}",\#
            "QUERY_ROOT":"{\"hero(episode:JEDI)\":{\"$reference\":\"QUERY_ROOT.hero(episode:JEDI)\"}}",\#
            "QUERY_ROOT.hero(episode:JEDI)":"{\"__typename\":\"Droid\",\"friends\":[{\"$reference\":\"Human:1000\"}],\"name\":\"R2-D2\"}"}
            """#)
    }

    @Test(arguments: [
        (#"{"QUERY_ROOT": "{\"a\": tru}"}"#, NormCacheError(.json, "apollo-ios import: the record of key 'QUERY_ROOT' is not JSON: JSON error at byte 9: invalid literal (expected 'true')")),
        (#"{"QUERY_ROOT": "[1]"}"#, NormCacheError(.json, "apollo-ios import: the record of key 'QUERY_ROOT' must be a JSON object of fields, not array")),
        (#"{"QUERY_ROOT": {"a": 1}}"#, NormCacheError(.json, "apollo-ios import: the record of key 'QUERY_ROOT' must be text, not object")),
        (#"{"QUERY_ROOT": "{\"hero\": [{\"$reference\": \"Droid:9\"}]}"}"#,
         NormCacheError(.data, "apollo-ios import: field 'hero' of record 'QUERY_ROOT' refers to 'Droid:9', which the file does not hold; nothing was imported")),
        (#"{"": "{}"}"#, NormCacheError(.invalidArgument, "apollo-ios import: row 1 has an empty key")),
    ])
    func malformedRowsWriteNothing(input: String, error: NormCacheError) throws {
        let test = try TestCache()
        #expect(throws: error) { try test.cache.importRecords(.apolloIOS, from: input) }
        #expect(try test.cache.keys(withPrefix: "").isEmpty)
    }
}
