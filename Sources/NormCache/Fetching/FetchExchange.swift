/// What `execute` asks of the network: the operation as the server must see it, or
/// the document key a plain JSON document is cached under.
public struct FetchRequest: Sendable {
    /// The network document (`PreparedOperation.document`: `__typename` and key fields
    /// added); empty for a plain JSON document.
    public let document: String
    /// The operation's name, if it has one.
    public let operationName: String?
    /// The variables as the caller gave them: a JSON object (`{}` for none; empty for a
    /// plain JSON document).
    public let variables: [UInt8]
    /// For a plain JSON document, its key (`GET /articles?page=1`); nil for an operation.
    public let key: String?
}

/// What the network answered: the response body (a GraphQL response,
/// `{"data": ..., "errors": ...}`) and its caching headers.
public struct FetchReply: Sendable {
    /// The response body.
    public var body: [UInt8]
    /// The response's `Cache-Control`, `Age`, `Date` and `Expires`, and a lifetime of
    /// the caller's (`maxAge`), which set the expiry of what is written.
    public var headers: WriteOptions

    /// A reply of `body` with `headers`.
    public init(body: [UInt8], headers: WriteOptions = WriteOptions()) {
        self.body = body
        self.headers = headers
    }
}

/// How `execute` runs (see `FetchPolicy`, `ErrorPolicy`).
public struct ExecuteOptions: Equatable, Sendable {
    /// When to read the cache and when to fetch.
    public var policy: FetchPolicy
    /// How many seconds past its expiry cached data may be and still be used.
    public var maxStale: UInt64?
    /// What a response with GraphQL `errors` does.
    public var errorPolicy: ErrorPolicy
    /// Cached results are rendered for the C interface in place (`RenderedResult`),
    /// their `read.data` left nil.
    package var rendersJSON = false

    /// Options of every part; the defaults are cache-first, fresh data only, error policy none.
    public init(policy: FetchPolicy = .cacheFirst, maxStale: UInt64? = nil, errorPolicy: ErrorPolicy = .none) {
        self.policy = policy
        self.maxStale = maxStale
        self.errorPolicy = errorPolicy
    }
}
