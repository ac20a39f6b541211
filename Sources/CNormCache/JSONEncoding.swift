import NormCache

/// The JSON the C interface hands over that the core does not make itself.
enum JSONEncoding {
    /// The key groups of `normcache_key_groups`: `[{"group":"Pet:","records":2,
    /// "bytes":80,"oldest_write":1700000000,"newest_write":1700000060}]`.
    static func keyGroups(_ groups: [KeyGroupStats]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "[")]
        for (index, group) in groups.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            var object = JSONObject()
            object.add("group", group.group)
            object.add(["records": group.records, "bytes": group.bytes])
            object.add("oldest_write", group.oldestWrite)
            object.add("newest_write", group.newestWrite)
            out.append(contentsOf: object.bytes)
        }
        out.append(UInt8(ascii: "]"))
        return out
    }
}
