// json.swift — fuzz target: the JSON reader on arbitrary bytes.
//
// Any input is scanned; a valid document is encoded to the record value format and
// printed back as JSON, which must itself scan, and encode to the very same bytes
// (printing is a fixed point after one round). Invalid input must give a `.json`
// error naming a byte offset.

@testable import NormCache

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let document: JSONDocument
    do throws(NormCacheError) {
        document = try JSONDocument(scanning: bytes)
    } catch {
        require(error.code == .json, "scan gave code \(error.code.rawValue)")
        require(error.message.hasPrefix("JSON error at byte ") || error.message.hasPrefix("JSON input of "),
                "no position in: \(error.message)")
        return 0
    }
    require((try? JSONValidation.valueCount(bytes)) == document.tokens.count, "valueCount disagrees with the scan")
    guard let encoded = encodedValue(document) else { return 0 }
    let printed: [UInt8] = encoded.withUnsafeBytes { raw in
        var reader = ByteReader(raw)
        var output = ByteBuffer()
        guard case .written = FieldValue.appendJSON(from: &reader, to: &output), reader.isAtEnd else { return [] }
        return output.array
    }
    require(!printed.isEmpty, "own encoding does not decode")
    printed.withUnsafeBytes { raw in
        do throws(NormCacheError) {
            let again = try JSONDocument(scanning: raw)
            require(encodedValue(again) == encoded, "printing is not a fixed point: \(String(decoding: printed, as: UTF8.self))")
        } catch {
            require(false, "printed JSON does not scan: \(error.message)")
        }
    }
    return 0
}

/// The record value encoding of the document's root, or nil when the document uses
/// `$reference` in a way a record may not (an error with a message).
private func encodedValue(_ document: JSONDocument) -> [UInt8]? {
    var out = ByteBuffer()
    do throws(NormCacheError) {
        try FieldValue.encode(document, document.root, into: &out, context: "fuzz")
        return out.array
    } catch {
        requireInputError(error, allowed: [.json, .data, .invalidArgument], "encode")
        return nil
    }
}
