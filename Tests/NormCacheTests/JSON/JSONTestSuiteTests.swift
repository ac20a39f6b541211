import TestSupport
import Testing
@testable import NormCache

/// JSONTestSuite (JSONTestSuite/test_parsing of the external corpora, `ExternalCorpus.sharedRoot`;
/// skipped with the reason when it is missing, a failure under CI=true) through the
/// paths a user takes: each document as the value of a record field in `put`, and as the value
/// of a custom scalar in a GraphQL response that is written and read back. Every `y_`
/// document is accepted and comes back as the same value (`CompactJSON`, an oracle
/// apart from the scanner); every `n_` document is refused with a JSON error and a
/// byte offset; every `i_` document is either, without a crash.
@Suite(TestData.external("JSONTestSuite")) struct JSONTestSuiteTests {
    static let directory = TestData.path("JSONTestSuite/test_parsing")

    /// The suite's documents whose names start with `prefix`, with their bytes.
    static func documents(_ prefix: String) throws -> [(name: String, bytes: [UInt8])] {
        try TestData.files(in: directory).filter { $0.hasPrefix(prefix) }.map { ($0, try TestData.read(directory + "/" + $0)) }
    }

    @Test func acceptedDocumentsComeBackAsTheSameValue() throws {
        let (test, operation) = try TestCache.withScalarField()
        let documents = try Self.documents("y_")
        #expect(documents.count == 95)
        for (name, bytes) in documents {
            guard let expected = CompactJSON.of(bytes) else {
                Issue.record("the oracle cannot read \(name)")
                continue
            }
            let key = "J:\(name)"
            do {
                _ = try test.cache.put(bytes: Array("{\"\(key)\": {\"v\": ".utf8) + bytes + Array("}}".utf8))
                #expect(try test.cache.record(key) == "{\"v\":" + String(decoding: expected, as: UTF8.self) + "}", "\(name)")
                _ = try test.cache.write(operation, responseBytes: Array("{\"data\": {\"v\": ".utf8) + bytes + Array("}}".utf8))
                #expect(try test.cache.read(operation) == ReadResult(status: .complete, data: Array("{\"v\":".utf8) + expected + Array("}".utf8)), "\(name)")
            } catch {
                Issue.record("\(name): \(error)")
            }
        }
    }

    @Test func rejectedDocumentsGiveAJSONErrorWithAnOffset() throws {
        let (test, operation) = try TestCache.withScalarField()
        let documents = try Self.documents("n_")
        #expect(documents.count == 188)
        for (name, bytes) in documents {
            let whole = Result { () throws(NormCacheError) in try test.cache.put(bytes: bytes) }
            let field = Result { () throws(NormCacheError) in
                try test.cache.put(bytes: Array("{\"J:1\": {\"v\": ".utf8) + bytes + Array("}}".utf8))
            }
            let response = Result { () throws(NormCacheError) in
                try test.cache.write(operation, responseBytes: Array("{\"data\": {\"v\": ".utf8) + bytes + Array("}}".utf8))
            }
            for (path, result) in [("put of the document", whole), ("put of a record holding it", field), ("write of a response holding it", response)] {
                guard case .failure(let error) = result else {
                    Issue.record("\(name): the \(path) was accepted")
                    continue
                }
                #expect(error.code == .json, "\(name), \(path): \(error)")
                #expect(error.message.hasPrefix("JSON error at byte "), "\(name), \(path): \(error.message)")
            }
            if case .failure(let error) = whole, let offset = Self.offset(in: error.message) {
                #expect(offset <= bytes.count, "\(name): offset \(offset) past the end of \(bytes.count) bytes")
            }
        }
        #expect(try test.cache.keys(withPrefix: "").isEmpty)
    }

    @Test func implementationDefinedDocumentsEitherWay() throws {
        let (test, operation) = try TestCache.withScalarField()
        let documents = try Self.documents("i_")
        #expect(documents.count == 35)
        for (name, bytes) in documents {
            do {
                _ = try test.cache.put(bytes: Array("{\"J:1\": {\"v\": ".utf8) + bytes + Array("}}".utf8))
                _ = try test.cache.write(operation, responseBytes: Array("{\"data\": {\"v\": ".utf8) + bytes + Array("}}".utf8))
                guard try test.cache.read(operation).status == .complete else {
                    Issue.record("\(name): accepted but not read back")
                    continue
                }
            } catch {
                #expect(error.code == .json, "\(name): \(error)")
            }
        }
    }

    /// The byte offset a "JSON error at byte N: ..." message names.
    static func offset(in message: String) -> Int? {
        Int(message.dropFirst("JSON error at byte ".count).prefix { $0.isNumber })
    }
}
