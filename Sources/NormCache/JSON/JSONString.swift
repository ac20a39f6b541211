/// Escaping and unescaping of JSON string contents, on UTF-8 bytes.
package enum JSONString {
    /// The value of one hex digit, or nil.
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// Resolves the escapes of string contents that `JSONScanner` has validated.
    static func unescape(_ raw: UnsafeRawBufferPointer) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = 0
        while i < raw.count {
            let byte = raw[i]
            guard byte == UInt8(ascii: "\\"), i + 1 < raw.count else {
                out.append(byte)
                i += 1
                continue
            }
            let escape = raw[i + 1]
            i += 2
            switch escape {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = UInt32(codeUnit(raw, at: i))
                i += 4
                if scalar >= 0xD800 && scalar <= 0xDBFF && i + 6 <= raw.count {
                    let low = UInt32(codeUnit(raw, at: i + 2))
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    i += 6
                }
                appendUTF8(scalar, to: &out)
            default: out.append(escape)
            }
        }
        return out
    }

    private static func codeUnit(_ raw: UnsafeRawBufferPointer, at index: Int) -> UInt16 {
        var unit: UInt16 = 0
        for offset in 0..<4 {
            unit = unit << 4 | UInt16(hexValue(raw[index + offset]) ?? 0)
        }
        return unit
    }

    private static func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            out.append(UInt8(scalar))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | scalar >> 6))
            out.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | scalar >> 12))
            out.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            out.append(UInt8(0x80 | scalar & 0x3F))
        default:
            out.append(UInt8(0xF0 | scalar >> 18))
            out.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            out.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            out.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// Appends `"contents"` to `out`, escaping `"`, `\` and control characters; every
    /// other byte (valid UTF-8 by construction) is copied as it is.
    package static func appendQuoted<Bytes: Collection>(_ contents: Bytes, to out: inout [UInt8]) where Bytes.Element == UInt8 {
        out.append(UInt8(ascii: "\""))
        // Most text needs no escape: copied in one piece.
        if !contents.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out.append(contentsOf: contents)
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in contents {
            switch byte {
            case UInt8(ascii: "\""): out.append(UInt8(ascii: "\\")); out.append(byte)
            case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\")); out.append(byte)
            case 0x0A: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "t"))
            case 0x08: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "b"))
            case 0x0C: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "f"))
            case 0..<0x20:
                let digits: StaticString = "0123456789abcdef"
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                        digits.utf8Start[Int(byte >> 4)], digits.utf8Start[Int(byte & 15)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
