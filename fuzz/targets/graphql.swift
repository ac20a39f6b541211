// graphql.swift — fuzz target: GraphQL executable documents (the parser, validation
// and the planner behind `prepare`) on arbitrary bytes.
//
// Each input is prepared without a schema, against the repository's own Star Wars
// schema (testdata/starwars) and, when the external corpora are there, against the
// public SWAPI schema. A prepared operation's network document must prepare again to
// the very same document: what normcache sends is something it accepts itself.

import Glibc
@testable import NormCache

/// Caches with no schema, with the Star Wars schema and, when the external corpora are
/// there, with the SWAPI schema.
private let caches = RunState { () -> [NormalizedCache] in
    var caches = [ScratchCache().cache]
    var schemas = [("Star Wars", ownTestData("starwars/schema.graphql"))]
    if let swapi = sharedTestData("swapi/schema.graphql") { schemas.append(("SWAPI", swapi)) }
    for (name, schema) in schemas {
        let cache = ScratchCache().cache
        do throws(NormCacheError) {
            try cache.loadSchema(String(decoding: schema, as: UTF8.self))
        } catch {
            require(false, "the \(name) schema does not load: \(error.message)")
        }
        caches.append(cache)
    }
    return caches
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGraphQL(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let source = UnsafeRawBufferPointer(start: data, count: size)
    for cache in caches.current {
        let prepared: PreparedOperation
        do throws(NormCacheError) {
            prepared = try cache.prepare(document: source)
        } catch {
            requireInputError(error, allowed: [.document, .schema, .invalidArgument], "prepare")
            continue
        }
        do throws(NormCacheError) {
            let again = try cache.prepare(prepared.document, operationName: prepared.name)
            require(again.document == prepared.document, "the network document changes when prepared again:\n\(prepared.document)\n---\n\(again.document)")
        } catch {
            require(false, "the network document does not prepare: \(error.message)\n\(prepared.document)")
        }
    }
    return 0
}
