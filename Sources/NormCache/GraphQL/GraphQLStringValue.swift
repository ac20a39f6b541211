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
    /// lines but the first removed, and leading and trailing blank lines dropped. It
    /// works on Unicode scalars, as the specification's algorithm does (not on Swift
    /// characters, which would merge a combining mark with the space or quote before it).
    static func blockString<Raw: Collection>(_ raw: Raw) -> String where Raw.Element == UInt8 {
        let source = Array(String(decoding: Array(raw), as: UTF8.self).unicodeScalars)
        var lines: [[Unicode.Scalar]] = [[]]
        var index = 0
        while index < source.count {
            let scalar = source[index]
            if scalar == "\\", index + 3 < source.count, source[index + 1] == "\"", source[index + 2] == "\"", source[index + 3] == "\"" {
                lines[lines.count - 1] += ["\"", "\"", "\""]
                index += 4
            } else if scalar == "\n" || scalar == "\r" {
                index += scalar == "\r" && index + 1 < source.count && source[index + 1] == "\n" ? 2 : 1
                lines.append([])
            } else {
                lines[lines.count - 1].append(scalar)
                index += 1
            }
        }
        let isSpace: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" }
        let isBlank: ([Unicode.Scalar]) -> Bool = { $0.allSatisfy(isSpace) }
        let indents = lines.dropFirst().filter { !isBlank($0) }.map { $0.prefix(while: isSpace).count }
        if let common = indents.min(), common > 0 {
            for line in lines.indices.dropFirst() { lines[line] = Array(lines[line].dropFirst(common)) }
        }
        while let first = lines.first, isBlank(first) { lines.removeFirst() }
        while let last = lines.last, isBlank(last) { lines.removeLast() }
        var value = String.UnicodeScalarView()
        for (position, line) in lines.enumerated() {
            if position > 0 { value.append("\n") }
            value.append(contentsOf: line)
        }
        return String(value)
    }
}
