/// The root record keys of Apollo Client (`ROOT_QUERY`) and the ones normcache and
/// Apollo iOS use (`QUERY_ROOT`); every other key is the same in both.
enum ApolloRootKeys {
    private static let pairs: [(client: [UInt8], normcache: [UInt8])] = [
        (Array("ROOT_QUERY".utf8), Array("QUERY_ROOT".utf8)),
        (Array("ROOT_MUTATION".utf8), Array("MUTATION_ROOT".utf8)),
        (Array("ROOT_SUBSCRIPTION".utf8), Array("SUBSCRIPTION_ROOT".utf8)),
    ]

    /// The normcache key of an Apollo Client record key.
    static func normcacheKey(_ key: [UInt8]) -> [UInt8] {
        pairs.first { $0.client == key }?.normcache ?? key
    }

    /// The Apollo Client key of a normcache record key.
    static func clientKey(_ key: [UInt8]) -> [UInt8] {
        pairs.first { $0.normcache == key }?.client ?? key
    }
}
