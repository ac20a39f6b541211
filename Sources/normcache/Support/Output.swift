import Glibc

/// Writing to standard output and standard error without Foundation.
enum Output {
    /// Writes `text` and a newline to standard error.
    static func error(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.append(0x0A)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
            guard count > 0 || (count < 0 && errno == EINTR) else { return }
            written += max(count, 0)
        }
    }

    /// `text` as a JSON string literal, quotes included.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A time in seconds since 1970 as ISO 8601 in UTC: `2026-11-25T22:44:32Z`.
    static func time(_ seconds: UInt64) -> String {
        var time = time_t(clamping: seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        var text = [CChar](repeating: 0, count: 32)
        let count = strftime(&text, text.count, "%Y-%m-%dT%H:%M:%SZ", &parts)
        return String(decoding: text[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
