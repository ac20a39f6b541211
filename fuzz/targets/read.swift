// read.swift — fuzz target: reads with arbitrary variables.
//
// The cache holds the answer of an operation with variables of every kind (scalars,
// lists, input objects, defaults); each input is the variables JSON of a read, whole
// and partial, of the operation and of a fragment. A read answers with data, a list
// of missing paths, or an error with a message, never anything else.

@testable import NormCache

/// The cache holding the operation's answer, the operation and a fragment over it.
private let state = RunState { () -> (cache: NormalizedCache, operation: PreparedOperation, fragment: PreparedOperation) in
    let cache = ScratchCache(clearEvery: Int.max).cache
    do throws(NormCacheError) {
        let operation = try cache.prepare("""
            query Hero($episode: String = "JEDI", $first: Int!, $filter: Filter, $ids: [ID!], $flag: Boolean = true) {
              hero(episode: $episode) {
                id name
                friends(first: $first, filter: $filter) { id name }
                appearsIn(ids: $ids) @include(if: $flag)
              }
            }
            """)
        _ = try cache.write(operation, response: """
            {"data": {"hero": {"id": "2001", "name": "R2-D2",
              "friends": [{"id": "1000", "name": "Luke"}, {"id": "1002", "name": "Han"}],
              "appearsIn": ["NEWHOPE", "EMPIRE"]}}}
            """, variables: #"{"first": 2, "filter": {"side": "light", "min": [1, 2.5]}, "ids": ["1"]}"#)
        let fragment = try cache.prepare("fragment F on Hero { name friends(first: $first) { name } }")
        return (cache, operation, fragment)
    } catch {
        require(false, "setup failed: \(error.message)")
        fatalError()
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRead(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let variables = UnsafeRawBufferPointer(start: data, count: size)
    let (cache, operation, fragment) = state.current
    for partial in [false, true] {
        do throws(NormCacheError) {
            check(try cache.read(operation, variables: variables, options: ReadOptions(partial: partial)), partial: partial)
        } catch {
            requireInputError(error, allowed: [.json, .invalidArgument, .data], "read")
        }
        do throws(NormCacheError) {
            check(try cache.readFragment(fragment, key: "QUERY_ROOT", variables: variables, options: ReadOptions(partial: partial)),
                  partial: partial)
        } catch {
            requireInputError(error, allowed: [.json, .invalidArgument, .data], "readFragment")
        }
    }
    return 0
}

/// Checks that data read is a JSON object, that a miss names what is missing and that
/// partial data is given exactly when asked for (no rules and no stored expiries here:
/// nothing is stale).
private func check(_ result: ReadResult, partial: Bool) {
    require(result.stale.isEmpty && result.status != .stale, "stale data without a max-age rule or an expiry")
    switch result.status {
    case .complete, .stale:
        guard let data = result.data else { return require(false, "a complete read without data") }
        requireJSONObject(data, "data")
    case .miss:
        require(!result.missing.isEmpty, "a miss without missing paths")
        require(result.missing.allSatisfy { $0.reason == .absent }, "a miss for another reason than absence: \(result.missing)")
        require((result.data != nil) == partial, "partial data given: \(result.data != nil), asked: \(partial)")
        if let partialData = result.data { requireJSONObject(partialData, "partial data") }
    }
}

/// Stops the run unless `bytes` scan as a JSON object.
private func requireJSONObject(_ bytes: [UInt8], _ what: String) {
    bytes.withUnsafeBytes { raw in
        let document = try? JSONDocument(scanning: raw)
        require(document?.tokens.first?.kind == .object, "\(what) is not a JSON object: \(String(decoding: bytes, as: UTF8.self))")
    }
}
