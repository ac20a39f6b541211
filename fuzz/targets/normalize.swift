// normalize.swift — fuzz target: normalize + write of arbitrary response bytes
// through a fixed operation (aliases, arguments, variables, fragments, lists and
// nested objects; Apollo's `Type:id` keys).
//
// A response that writes must write again with nothing changed and read back
// (fields it lacks are reported missing), and its records (normalize without the
// cache) must themselves be a valid `put`.

@testable import NormCache

/// The scratch cache (keys by `id`) and the operation.
private let state = RunState { () -> (scratch: ScratchCache, operation: PreparedOperation) in
    let scratch = ScratchCache(clearEvery: 256)
    do throws(NormCacheError) {
        try scratch.cache.configure(#"{"defaultKeyFields":["id"]}"#)
        let operation = try scratch.cache.prepare("""
            query Feed($first: Int, $tag: String) {
              feed(first: $first, tag: $tag) {
                id title score
                top: tags
                author { id name friends { id name } }
                ... on Video { length }
                ...Meta
              }
              viewer { id settings { theme } }
            }
            fragment Meta on Post { published url }
            """)
        return (scratch, operation)
    } catch {
        require(false, "setup failed: \(error.message)")
        fatalError()
    }
}

private let variables = Array(#"{"first": 10, "tag": "swift"}"#.utf8)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNormalize(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let (scratch, operation) = state.current
    scratch.nextInput()
    let response = UnsafeRawBufferPointer(start: data, count: size)
    variables.withUnsafeBytes { variables in
        let records: [UInt8]
        do throws(NormCacheError) {
            records = try NormalizedCache.normalize(operation, variables: variables, response: response)
        } catch {
            requireInputError(error, allowed: [.json, .data, .invalidArgument], "normalize")
            do throws(NormCacheError) {
                _ = try scratch.cache.write(operation, variables: variables, response: response)
                require(false, "write accepted a response that normalize rejected")
            } catch {
                requireInputError(error, allowed: [.json, .data, .invalidArgument], "write")
            }
            return
        }
        do throws(NormCacheError) {
            _ = try records.withUnsafeBytes { raw in
                Result { () throws(NormCacheError) in try scratch.cache.put(json: raw) }
            }.get()
            _ = try scratch.cache.write(operation, variables: variables, response: response)
        } catch {
            require(false, "normalized records do not write: \(error.message)\n\(String(decoding: records, as: UTF8.self))")
        }
        do throws(NormCacheError) {
            let again = try scratch.cache.write(operation, variables: variables, response: response)
            require(again.isEmpty, "writing the same response again changed \(again)")
            _ = try scratch.cache.read(operation, variables: variables, options: ReadOptions(partial: true))
        } catch {
            require(false, "a written response does not write again or read back: \(error.message)")
        }
    }
    return 0
}
