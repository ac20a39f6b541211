/// RFC 9110's entity-tag, the value of an `ETag` header that a document keeps to be
/// revalidated with (`If-None-Match`): `"v1"` or, weak, `W/"v1"`; between the quotes any
/// visible byte but `"` (0x21, 0x23-0x7E) and bytes from 0x80 (UTF-8 text).
enum EntityTag {
    /// The longest entity-tag kept, in bytes: a validator, not a payload.
    static let maximumLength = 1024

    /// Checks that `tag` is an entity-tag; `.invalidArgument` naming the byte that is not.
    static func check(_ tag: UnsafeRawBufferPointer) throws(NormCacheError) {
        guard tag.count <= maximumLength else {
            throw NormCacheError(.invalidArgument, "the ETag of \(tag.count) bytes is longer than the \(maximumLength) accepted")
        }
        var position = 0
        if tag.count >= 2, tag[0] == UInt8(ascii: "W"), tag[1] == UInt8(ascii: "/") { position = 2 }
        guard position < tag.count, tag[position] == UInt8(ascii: "\"") else {
            throw malformed(tag, "expected '\"' at byte \(position) (an entity-tag is \"v1\" or W/\"v1\")")
        }
        position += 1
        while position < tag.count, tag[position] != UInt8(ascii: "\"") {
            let byte = tag[position]
            guard byte == 0x21 || (byte >= 0x23 && byte != 0x7F) else {
                throw malformed(tag, "byte \(position) (0x\(String(byte, radix: 16))) may not be in an entity-tag")
            }
            position += 1
        }
        guard position < tag.count else { throw malformed(tag, "no closing '\"'") }
        guard position == tag.count - 1 else { throw malformed(tag, "unexpected bytes after the closing '\"', at byte \(position + 1)") }
    }

    /// The error for `tag`, shown with its control bytes as `\xNN` (a message is a C string).
    private static func malformed(_ tag: UnsafeRawBufferPointer, _ detail: String) -> NormCacheError {
        let hex = Array("0123456789abcdef".utf8)
        var shown: [UInt8] = []
        for byte in tag.prefix(80) {
            guard byte < 0x20 || byte == 0x7F else {
                shown.append(byte)
                continue
            }
            shown += [UInt8(ascii: "\\"), UInt8(ascii: "x"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
        }
        let more = tag.count > 80 ? "… (\(tag.count) bytes)" : ""
        return NormCacheError(.invalidArgument, "malformed ETag '\(String(decoding: shown, as: UTF8.self))\(more)': \(detail)")
    }
}
