import Glibc

extension NormCacheError {
    /// The error for a failed LMDB call on the cache at `path` (`doing`: what the storage
    /// layer was doing, when the call alone does not say): the one mapping of the storage
    /// layer's failures to the library's errors. The message names the call, or what was
    /// being done with the call after the reason: "mdb_get on '/a.cache' failed: ...",
    /// "opening the cache on '/a.cache' failed: Permission denied (mdb_env_open)".
    init(_ failure: LMDBError, path: String, doing: String? = nil) {
        let what = doing ?? "\(failure.call)"
        let call = doing == nil ? "" : " (\(failure.call))"
        let status = failure.status
        switch status {
        case .corrupted, .pageNotFound, .panic, .invalid, .versionMismatch, .incompatible:
            self.init(.notACache, "'\(path)' is damaged: \(what) failed: \(status.text)\(call)")
        case .mapFull:
            self.init(.storage, "\(what) on '\(path)' failed: the map is full\(call)")
        case .readersFull:
            self.init(.storage, "\(what) on '\(path)' failed: all reader slots are in use (raise max_readers): \(status.text)\(call)")
        case LMDBStatus(rawValue: ENOMEM):
            self.init(.outOfMemory, "out of memory: \(what) on '\(path)' failed: \(status.text)\(call)")
        case LMDBStatus(rawValue: ENOSPC):
            self.init(.storage, "\(what) on '\(path)' failed: the disk is full\(call)")
        default:
            self.init(.storage, "\(what) on '\(path)' failed: \(status.text)\(call)")
        }
    }
}
