import NormCache

/// The JSON the C interface hands over that the core does not make itself.
enum JSONEncoding {
    /// A compact JSON array of strings: `["Pet:1","Pet:2"]` (the changed fields of a
    /// write).
    static func stringArray(_ strings: [String]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "[")]
        for (index, string) in strings.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONString.appendQuoted(string.utf8, to: &out)
        }
        out.append(UInt8(ascii: "]"))
        return out
    }
}
