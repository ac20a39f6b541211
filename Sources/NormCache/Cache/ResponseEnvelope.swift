/// The top level of a GraphQL response (GraphQL specification, October 2021, §7.1): a
/// JSON object whose members are `data`, `errors` and `extensions`, with `data` or
/// `errors` (or both) present.
///
/// What a write takes from it:
/// - `data` holding an object: the data to normalize;
/// - `data` absent or `null` (a request error, or a field error that nulled the root):
///   nothing to write, not an error — the response's `errors` say why;
/// - `errors` and `extensions`: not read (errors beside data do not stop a write).
///
/// Anything else is a `.data` error, since the likeliest cause is a response passed
/// without its envelope (`write(op, response["data"])`), which would otherwise write
/// nothing without a word:
/// - not an object: `a GraphQL response must be a JSON object with 'data', not array`;
/// - a top-level member that the operation selects at its root:
///   `the response has no 'data' envelope: its member 'feed' is a field of the operation;
///   pass {"data": <this object>}`;
/// - any other member: `unexpected member 'result' at the top of the response: a GraphQL
///   response holds only 'data', 'errors' and 'extensions'`;
/// - neither `data` nor `errors`: `the response has neither 'data' nor 'errors': a
///   GraphQL response holds one or both`.
enum ResponseEnvelope {
    /// The token index of the response's `data` object, or nil when `data` is absent or
    /// null; `rootPlan` is the operation's root selection plan (to tell a response
    /// without its envelope from a stray member).
    static func data(of response: JSONDocument, rootPlan: SelectionPlan) throws(NormCacheError) -> Int? {
        let root = response.root
        guard response.tokens[root].kind == .object else {
            throw NormCacheError(.data, "a GraphQL response must be a JSON object with 'data', not \(response.tokens[root].kind)")
        }
        var data: Int?
        var hasErrors = false
        for member in response.members(ofObject: root) {
            if response.string(member.key, equals: "data") {
                data = data ?? member.value
            } else if response.string(member.key, equals: "errors") {
                hasErrors = true
            } else if !response.string(member.key, equals: "extensions") {
                let name = String(decoding: response.stringBytes(member.key), as: UTF8.self)
                guard rootPlan.field(withResponseKey: name) == nil else {
                    throw NormCacheError(.data, "the response has no 'data' envelope: its member '\(name)' is a field of the operation; pass {\"data\": <this object>}")
                }
                throw NormCacheError(.data, "unexpected member '\(name)' at the top of the response: a GraphQL response holds only 'data', 'errors' and 'extensions'")
            }
        }
        guard data != nil || hasErrors else {
            throw NormCacheError(.data, "the response has neither 'data' nor 'errors': a GraphQL response holds one or both")
        }
        guard let data, response.tokens[data].kind != .null else { return nil }
        return data
    }

    /// The token index of the response's `errors` when it is a non-empty array; nil
    /// when absent, null or empty. Any other value is a `.data` error.
    static func errors(of response: JSONDocument) throws(NormCacheError) -> Int? {
        guard response.tokens[response.root].kind == .object else { return nil }
        for member in response.members(ofObject: response.root) where response.string(member.key, equals: "errors") {
            let token = response.tokens[member.value]
            switch token.kind {
            case .null: return nil
            case .array: return token.length == 0 ? nil : member.value
            default: throw NormCacheError(.data, "the response's 'errors' must be a list, not \(token.kind)")
            }
        }
        return nil
    }

    /// A short account of the errors at `errors` (a non-empty array): how many, and
    /// the first one's `message`.
    static func summary(of errors: Int, in response: JSONDocument) -> String {
        let count = response.tokens[errors].length
        var first = "no message"
        if let element = response.elements(ofArray: errors).first(where: { _ in true }), response.tokens[element].kind == .object {
            for member in response.members(ofObject: element) where response.string(member.key, equals: "message") {
                if response.tokens[member.value].kind == .string {
                    first = "'" + String(decoding: response.stringBytes(member.value), as: UTF8.self) + "'"
                }
            }
        }
        return "\(count) error\(count == 1 ? "" : "s"), the first: \(first)"
    }
}
