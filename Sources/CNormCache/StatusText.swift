import CNormCacheHeader

/// The fixed English text of each status code, for `normcache_errstr`.
enum StatusText {
    /// The text of `code`; "unknown status code" for codes the library does not define.
    static func text(for code: Int32) -> StaticString {
        switch code {
        case NORMCACHE_OK: return "ok"
        case NORMCACHE_MISS: return "missing data"
        case NORMCACHE_NOTFOUND: return "not found"
        case NORMCACHE_STALE: return "stale data"
        case NORMCACHE_NOTSTORED: return "not stored: the response said no-store"
        case NORMCACHE_TIMEOUT: return "timed out"
        case NORMCACHE_EINVAL: return "invalid argument"
        case NORMCACHE_EJSON: return "malformed JSON"
        case NORMCACHE_EDOCUMENT: return "invalid GraphQL document"
        case NORMCACHE_ESCHEMA: return "invalid schema"
        case NORMCACHE_EDATA: return "response data does not match the operation"
        case NORMCACHE_ESTORAGE: return "storage error"
        case NORMCACHE_ECALLBACK: return "callback failed"
        case NORMCACHE_ENOMEM: return "out of memory"
        case NORMCACHE_ENOTCACHE: return "not a normcache cache, damaged, or of a newer format"
        case NORMCACHE_EREADONLY: return "cache is read-only"
        case NORMCACHE_EFETCH: return "fetch failed"
        case NORMCACHE_EGRAPHQL: return "the response carried GraphQL errors"
        case NORMCACHE_INTERRUPTED: return "interrupted"
        default: return "unknown status code"
        }
    }
}
