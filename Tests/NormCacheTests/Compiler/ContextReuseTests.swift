import TestSupport
import Testing
@testable import NormCache

/// A prepared operation keeps the contexts of its ended calls, with the shapes they
/// compiled, for the next call with the same variables and max-age rules
/// (`ContextShelf`). Calls with other variables must never get them: every read below
/// is checked against what its own variables select. (Threads doing the same:
/// `ConcurrencyTests.threadsReadingOneOperationWithDifferentVariables`.)
@Suite struct ContextReuseTests {
    static let query = """
        query Pet($id: ID!, $full: Boolean!) {
          pet(id: $id) { id name owner @include(if: $full) { id name } }
        }
        """

    /// A cache holding pets 1 and 2, each with an owner, and the query prepared.
    func petCache() throws -> (TestCache, PreparedOperation) {
        let test = try TestCache()
        try test.cache.configure(#"{"defaultKeyFields": ["id"]}"#)
        let pet = try test.cache.prepare(Self.query)
        for id in 1...2 {
            _ = try test.cache.write(pet, response: #"{"data": {"pet": {"__typename": "Pet", "id": "\#(id)", "name": "P\#(id)", "#
                                         + #""owner": {"__typename": "User", "id": "u\#(id)", "name": "U\#(id)"}}}}"#,
                                     variables: #"{"id": "\#(id)", "full": true}"#)
        }
        return (test, pet)
    }

    /// The variables of each read and the data they select.
    static let reads: [(variables: String, data: String)] = [
        (#"{"id": "1", "full": true}"#, #"{"pet":{"id":"1","name":"P1","owner":{"id":"u1","name":"U1"}}}"#),
        (#"{"id": "2", "full": false}"#, #"{"pet":{"id":"2","name":"P2"}}"#),
        (#"{"id": "1", "full": false}"#, #"{"pet":{"id":"1","name":"P1"}}"#),
        (#"{"id":"2","full":true}"#, #"{"pet":{"id":"2","name":"P2","owner":{"id":"u2","name":"U2"}}}"#),
    ]

    @Test func readsWithAlternatingVariablesEachGetTheirOwnData() throws {
        let (test, pet) = try petCache()
        // Four sets of variables take turns over two slots: each read finds another's
        // context there, or its own, and must tell them apart.
        for round in 0..<25 {
            for (variables, data) in Self.reads.shuffled() {
                #expect(try test.cache.readText(pet, variables: variables) == data, "round \(round), variables \(variables)")
            }
        }
    }

    @Test func aWriteAndAReadOfOneOperationShareItsShapes() throws {
        let (test, pet) = try petCache()
        for round in 0..<10 {
            let changed = try test.cache.write(pet, response: #"{"data": {"pet": {"__typename": "Pet", "id": "1", "name": "P1-\#(round)"}}}"#,
                                               variables: #"{"id": "1", "full": false}"#)
            #expect(changed == ["Pet:1.name"])
            #expect(try test.cache.readText(pet, variables: Self.reads[0].variables)
                == #"{"pet":{"id":"1","name":"P1-\#(round)","owner":{"id":"u1","name":"U1"}}}"#)
        }
    }

    @Test func aKeptContextOwnsItsVariables() throws {
        let (test, pet) = try petCache()
        let variables = Array(#"{"id": "1", "full": false}"#.utf8)
        let given = UnsafeMutableRawBufferPointer.allocate(byteCount: variables.count, alignment: 1)
        defer { given.deallocate() }
        given.copyBytes(from: variables)
        let read = try test.cache.read(pet, variables: UnsafeRawBufferPointer(given))
        #expect(read.data == Array(#"{"pet":{"id":"1","name":"P1"}}"#.utf8))
        // The caller's buffer is reused once the read has returned; the context the read
        // left behind compiles the write's shapes, with the variables it copied.
        given.initializeMemory(as: UInt8.self, repeating: UInt8(ascii: " "))
        let response = Array(#"{"data": {"pet": {"__typename": "Pet", "id": "1", "name": "Polly"}}}"#.utf8)
        let changed = try variables.withUnsafeBytes { (bytes) in
            response.withUnsafeBytes { (responseBytes) in
                Result { () throws(NormCacheError) in try test.cache.write(pet, variables: bytes, response: responseBytes) }
            }
        }.get()
        #expect(changed == ["Pet:1.name"])
        let root = try test.cache.record("QUERY_ROOT")
        #expect(root == #"{"pet(id:1)":{"$reference":"Pet:1"},"pet(id:2)":{"$reference":"Pet:2"}}"#, "\(root ?? "nil")")
    }
}
