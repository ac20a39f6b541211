import NormCache

/// The JSON the C interface hands over that the core does not make itself.
enum JSONEncoding {
    /// The key groups of `normcache_key_groups`: `[{"group":"Pet:","records":2,
    /// "bytes":80,"oldest_write":1700000000,"newest_write":1700000060}]`.
    static func keyGroups(_ groups: [KeyGroupStats]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "[")]
        for (index, group) in groups.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: "{\"group\":".utf8)
            JSONString.appendQuoted(group.group.utf8, to: &out)
            out.append(contentsOf: ",\"records\":\(group.records),\"bytes\":\(group.bytes),".utf8)
            out.append(contentsOf: "\"oldest_write\":\(group.oldestWrite),\"newest_write\":\(group.newestWrite)}".utf8)
        }
        out.append(UInt8(ascii: "]"))
        return out
    }
}
