/// JSON output helpers of the public face, for callers that hand results on as JSON
/// (the C interface).
public enum JSONEncoding {
    /// A compact JSON array of strings: `["Pet:1","Pet:2"]`.
    public static func stringArray(_ strings: [String]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "[")]
        for (index, string) in strings.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONString.appendQuoted(string.utf8, to: &out)
        }
        out.append(UInt8(ascii: "]"))
        return out
    }

    /// The result of a read that missed: `{"data":<partial data or null>,"missing":[paths]}`,
    /// each path a JSON array of response keys and list indexes.
    public static func miss(_ missing: [[ResponsePathSegment]], partialData: [UInt8]?) -> [UInt8] {
        var out = Array(#"{"data":"#.utf8)
        out.append(contentsOf: partialData ?? Array("null".utf8))
        out.append(contentsOf: #","missing":["#.utf8)
        for (index, path) in missing.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            ResponsePath(segments: path).appendJSON(to: &out)
        }
        out.append(contentsOf: "]}".utf8)
        return out
    }
}
