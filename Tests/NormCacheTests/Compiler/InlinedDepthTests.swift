import TestSupport
import Testing

@testable import NormCache

/// The depth of an operation once its fragments are inlined, measured before they are:
/// counted as the planner counts it, and refused with the planner's message.
@Suite struct InlinedDepthTests {
    /// The message `InlinedDepth.check` throws for the first operation of `text` at
    /// `maximum`, or nil when it passes.
    func problem(_ text: String, maximum: Int) throws -> String? {
        let document = try GraphQLParser.parseExecutable(Array(text.utf8))
        let fragments = DocumentFragments(document)
        let operation = try #require(NetworkDocumentTests.operation(of: document))
        do throws(NormCacheError) {
            try InlinedDepth.check(operation.selections, fragments: fragments, maximum: maximum)
            return nil
        } catch {
            return error.message
        }
    }

    /// `maximum` in the planner's message.
    func tooDeep(_ maximum: Int) -> String {
        "the operation nests deeper than \(maximum) levels once its fragments are inlined"
    }

    @Test func fieldsInlineFragmentsAndSpreadsEachAddALevel() throws {
        // Root set 1, a's set 2, the inline fragment 3, F 4, b's set 5.
        let text = "{ a { ... on Q { ...F } } }\nfragment F on Q { x b { c } }"
        #expect(try problem(text, maximum: 5) == nil)
        #expect(try problem(text, maximum: 4) == tooDeep(4))
        // The deepest of several branches counts, wherever a fragment is spread.
        let branches = "{ x ...F a { ...G } }\nfragment F on Q { x }\nfragment G on Q { ...F y { z } }"
        #expect(try problem(branches, maximum: 4) == nil)
        #expect(try problem(branches, maximum: 3) == tooDeep(3))
    }

    @Test func aChainOfFragmentsIsMeasuredWithoutInliningIt() throws {
        // `{ ...F0 }` and F0 → F1 → … → F(n-1): the root set and n fragment levels.
        func chain(_ count: Int) -> String {
            (0..<count).reduce("{ ...F0 }\n") { text, index in
                text + "fragment F\(index) on Q { x \(index == count - 1 ? "" : "...F\(index + 1)") }\n"
            }
        }
        #expect(try problem(chain(511), maximum: 512) == nil)
        #expect(try problem(chain(512), maximum: 512) == tooDeep(512))
        // 25,600 links: refused, each measured once.
        #expect(try problem(chain(25_600), maximum: 512) == tooDeep(512))
    }

    @Test func prepareRefusesAnOverDeepChainWithThePlannersMessage() throws {
        let test = try TestCache()
        var text = "{ ...F0 }\n"
        for index in 0..<20_000 { text += "fragment F\(index) on Query { x \(index == 19_999 ? "" : "...F\(index + 1)") }\n" }
        #expect(throws: NormCacheError(.document, tooDeep(512))) { try test.cache.prepare(text) }
        // A chain as deep as allowed prepares.
        var allowed = "{ ...F0 }\n"
        for index in 0..<511 { allowed += "fragment F\(index) on Query { x \(index == 510 ? "" : "...F\(index + 1)") }\n" }
        #expect(try test.cache.prepare(allowed).name == nil)
    }
}
