/// The checks that a data file is a whole cache of a format this library reads, made
/// before its pages are used: by an open (`SharedEnvironment`) and by an in-place
/// compaction (`InPlaceCompaction`), which reads the file without opening it as a cache.
enum CacheFileCheck {
    /// The meta database's key of the format version (a little-endian UInt32).
    static let formatKey = Array("format".utf8)

    /// The bytes of the pages in use, or nil when the meta page's count overflows.
    static func usedBytes(_ environment: LMDBEnvironment) -> Int? {
        usedBytes(environment.info(), pageSize: environment.pageSize)
    }

    /// The bytes of the pages in use that `info` shows, or nil when the count overflows.
    static func usedBytes(_ info: LMDBInfo, pageSize: Int) -> Int? {
        let (pages, overflow) = info.me_last_pgno.addingReportingOverflow(1)
        guard !overflow, pages <= Int.max else { return nil }
        let (bytes, tooMany) = pages.multipliedReportingOverflow(by: pageSize)
        return tooMany ? nil : bytes
    }

    /// Refuses a data file shorter than the pages its meta page claims (`needed`, nil
    /// when the count overflows): LMDB would map it and fault (SIGBUS) on the first read
    /// past the end.
    static func checkLength(_ needed: Int?, fileSize: Int, path: String) throws(NormCacheError) {
        guard let needed else {
            throw NormCacheError(.notACache, "'\(path)' is damaged: its meta page claims an impossible number of pages")
        }
        guard fileSize >= needed else {
            throw NormCacheError(.notACache, "'\(path)' is truncated: \(fileSize) bytes, but its pages end at byte \(needed)")
        }
    }

    /// Refuses a meta database without a format version this library reads; `read`
    /// runs the LMDB call that reads it and reports its failures.
    static func checkFormatVersion(path: String, _ read: () throws(NormCacheError) -> [UInt8]?) throws(NormCacheError) {
        guard let stamp = try read(), stamp.count == 4 else { throw notACache(path, "its meta database has no valid format version") }
        let version = stamp.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) }
        guard version > 0 else { throw notACache(path, "its format version is 0, which no normcache writes") }
        guard version <= SharedEnvironment.formatVersion else {
            throw notACache(path, "format version \(version) is newer than this library reads (up to \(SharedEnvironment.formatVersion))")
        }
    }

    /// The error for a file that is not a cache, and why.
    static func notACache(_ path: String, _ reason: String) -> NormCacheError {
        NormCacheError(.notACache, "'\(path)' is not a normcache cache: \(reason)")
    }
}
