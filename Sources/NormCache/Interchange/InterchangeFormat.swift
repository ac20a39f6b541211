/// A cache format that records can be imported from and exported to.
public enum InterchangeFormat: Int32, Sendable, CaseIterable {
    /// Apollo Client's `cache.extract()` JSON: `ROOT_QUERY`, `{"__ref": "Human:1000"}`,
    /// field keys `hero({"episode":"JEDI"})`, objects without an id inline.
    case apolloClient = 1
    /// Apollo iOS's SQLite cache as a JSON object of record key to the text of the
    /// record as its `records` table stores it (`{"QUERY_ROOT": "{\"hero\":{\"$reference\":\"Droid:2001\"}}"}`).
    case apolloIOS = 2

    /// The name of the format in messages and on the command line.
    public var name: String {
        switch self {
        case .apolloClient: return "apollo-client"
        case .apolloIOS: return "apollo-ios"
        }
    }
}
