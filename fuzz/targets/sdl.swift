// sdl.swift — fuzz target: schema definition language (the SDL parser and the schema
// builder behind `loadSchema`) on arbitrary bytes.
//
// A schema that loads must serve a query for `__typename` on its query type, or
// refuse it for want of one when it has none. Each
// input loads into a handle of its own, closed after it, so that no schema outlives
// its input (LeakSanitizer cannot follow the tagged pointers of Swift's enums and
// reports what a live schema holds as leaked).

@testable import NormCache

private let scratch = ScratchCache()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSDL(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let sdl = UnsafeRawBufferPointer(start: data, count: size)
    let cache = scratch.secondHandle()
    defer { _ = cache.close() }
    do throws(NormCacheError) {
        try cache.loadSchema(sdl: sdl)
    } catch {
        requireInputError(error, allowed: [.schema, .document, .invalidArgument], "loadSchema")
        return 0
    }
    // A schema may lack a query type (SDL of types alone): then a query is refused
    // with that reason; otherwise `{ __typename }` prepares.
    let schema = cache.rules.current.schema
    let hasQueryType = schema.flatMap { schema in schema.rootTypes[.query].map { schema.type(named: $0)?.kind == .object } } ?? false
    do throws(NormCacheError) {
        _ = try cache.prepare("{ __typename }")
        require(hasQueryType, "a schema without a query type accepted a query")
    } catch {
        require(!hasQueryType && error.message.hasSuffix("the schema has no query type"),
                "a loaded schema rejects { __typename }: \(error.message)")
    }
    return 0
}
