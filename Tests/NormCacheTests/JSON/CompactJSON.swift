/// A test oracle, written apart from normcache's scanner: the compact JSON normcache
/// gives back for a valid JSON text. Whitespace outside strings is dropped; strings are
/// decoded and escaped the way normcache.h documents (`"`, `\` and control characters:
/// \n \r \t \b \f, others as \u00xx; every other code point as raw UTF-8); numbers and
/// literals stay as written. Returns nil for text it cannot decode (a lone surrogate).
enum CompactJSON {
    static func of(_ text: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        var index = 0
        while index < text.count {
            switch text[index] {
            case 0x20, 0x09, 0x0A, 0x0D:
                index += 1
            case UInt8(ascii: "\""):
                guard let end = appendString(text, from: index + 1, to: &out) else { return nil }
                index = end
            default:
                out.append(text[index])
                index += 1
            }
        }
        return out
    }

    /// Appends the string whose contents start at `start`, re-escaped; returns the index
    /// after its closing quote.
    private static func appendString(_ text: [UInt8], from start: Int, to out: inout [UInt8]) -> Int? {
        var decoded: [UInt8] = []
        var index = start
        while index < text.count {
            let byte = text[index]
            if byte == UInt8(ascii: "\"") { break }
            guard byte == UInt8(ascii: "\\") else {
                decoded.append(byte)
                index += 1
                continue
            }
            guard index + 1 < text.count else { return nil }
            let escape = text[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "b"): decoded.append(0x08)
            case UInt8(ascii: "f"): decoded.append(0x0C)
            case UInt8(ascii: "n"): decoded.append(0x0A)
            case UInt8(ascii: "r"): decoded.append(0x0D)
            case UInt8(ascii: "t"): decoded.append(0x09)
            case UInt8(ascii: "u"):
                guard var scalar = hex4(text, at: index) else { return nil }
                index += 4
                if (0xD800..<0xDC00).contains(scalar) {
                    guard index + 1 < text.count, text[index] == UInt8(ascii: "\\"), text[index + 1] == UInt8(ascii: "u"),
                          let low = hex4(text, at: index + 2), (0xDC00..<0xE000).contains(low) else { return nil }
                    scalar = 0x10000 + (scalar - 0xD800) << 10 + (low - 0xDC00)
                    index += 6
                } else if (0xDC00..<0xE000).contains(scalar) {
                    return nil
                }
                guard let unicode = Unicode.Scalar(scalar) else { return nil }
                decoded.append(contentsOf: Array(String(Character(unicode)).utf8))
            default: decoded.append(escape)
            }
        }
        guard index < text.count else { return nil }
        out.append(UInt8(ascii: "\""))
        for byte in decoded {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), byte])
            case 0x0A: out.append(contentsOf: Array("\\n".utf8))
            case 0x0D: out.append(contentsOf: Array("\\r".utf8))
            case 0x09: out.append(contentsOf: Array("\\t".utf8))
            case 0x08: out.append(contentsOf: Array("\\b".utf8))
            case 0x0C: out.append(contentsOf: Array("\\f".utf8))
            case 0..<0x20:
                let digits = Array("0123456789abcdef".utf8)
                out.append(contentsOf: Array("\\u00".utf8) + [digits[Int(byte >> 4)], digits[Int(byte & 15)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
        return index + 1
    }

    /// The value of four hex digits at `index`.
    private static func hex4(_ text: [UInt8], at index: Int) -> UInt32? {
        guard index + 4 <= text.count else { return nil }
        return UInt32(String(decoding: text[index..<index + 4], as: UTF8.self), radix: 16)
    }
}
