/// The values of GraphQL string and block string tokens (GraphQL specification,
/// October 2021, §2.9.4), from their raw text between the quotes.
enum GraphQLStringValue {
    /// Resolves the escapes of a string's contents; nil for a lone surrogate escape.
    /// The lexer has already checked every escape's form.
    static func string<Raw: Collection>(_ raw: Raw) -> String? where Raw.Element == UInt8 {
        let bytes = Array(raw)
        var scalars = String.UnicodeScalarView()
        var text = String(decoding: bytes, as: UTF8.self).unicodeScalars[...]
        while let scalar = text.popFirst() {
            guard scalar == "\\", let escape = text.popFirst() else {
                scalars.append(scalar)
                continue
            }
            switch escape {
            case "b": scalars.append("\u{8}")
            case "f": scalars.append("\u{C}")
            case "n": scalars.append("\n")
            case "r": scalars.append("\r")
            case "t": scalars.append("\t")
            case "u":
                guard let unit = hexUnit(&text) else { return nil }
                if unit >= 0xD800 && unit < 0xDC00 {
                    guard text.first == "\\", text.dropFirst().first == "u" else { return nil }
                    text.removeFirst(2)
                    guard let low = hexUnit(&text), low >= 0xDC00 && low < 0xE000,
                          let combined = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)) else { return nil }
                    scalars.append(combined)
                } else {
                    guard let value = Unicode.Scalar(unit) else { return nil }
                    scalars.append(value)
                }
            default: scalars.append(escape)
            }
        }
        return String(scalars)
    }

    private static func hexUnit(_ text: inout Substring.UnicodeScalarView) -> UInt32? {
        var unit: UInt32 = 0
        for _ in 0..<4 {
            guard let scalar = text.popFirst(), scalar.isASCII, let digit = JSONString.hexValue(UInt8(scalar.value)) else { return nil }
            unit = unit << 4 | UInt32(digit)
        }
        return unit
    }

    /// The value of a block string: `\"""` unescaped, the common indentation of all
    /// lines but the first removed, and leading and trailing blank lines dropped.
    static func blockString<Raw: Collection>(_ raw: Raw) -> String where Raw.Element == UInt8 {
        let text = String(decoding: Array(raw), as: UTF8.self).replacing("\\\"\"\"", with: "\"\"\"")
        var lines = text.splitLines()
        let isBlank: (Substring) -> Bool = { $0.allSatisfy { $0 == " " || $0 == "\t" } }
        let indents = lines.dropFirst().filter { !isBlank($0) }.map { $0.prefix { $0 == " " || $0 == "\t" }.count }
        if let common = indents.min(), common > 0 {
            for index in lines.indices.dropFirst() { lines[index] = lines[index].dropFirst(common) }
        }
        while let first = lines.first, isBlank(first) { lines.removeFirst() }
        while let last = lines.last, isBlank(last) { lines.removeLast() }
        return lines.joined(separator: "\n")
    }
}

private extension String {
    /// The lines of the text, split at `\r\n`, `\n` and `\r`.
    func splitLines() -> [Substring] {
        var lines: [Substring] = []
        var start = startIndex
        var index = startIndex
        while index < endIndex {
            let character = self[index]
            if character == "\n" || character == "\r" || character == "\r\n" {
                lines.append(self[start..<index])
                index = self.index(after: index)
                start = index
            } else {
                index = self.index(after: index)
            }
        }
        lines.append(self[start..<endIndex])
        return lines
    }

}
