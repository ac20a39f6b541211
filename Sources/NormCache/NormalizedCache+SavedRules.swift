/// Saved rules: the schema and rules a cache file keeps for every handle that opens it
/// without bringing its own (see `SavedRules`, `CacheOptions.Rules`).
extension NormalizedCache {
    /// Saves this handle's rules — the SDL of its schema and its configurations, in the
    /// order given — in the cache file, in one transaction, replacing any saved before;
    /// returns their fingerprint (16 hexadecimal digits, as `stats` shows it). Handles
    /// opened on the file afterwards (in any process) take them as their own. The
    /// programmatic key rule (`setKeyResolver`) is code and is not saved. A handle
    /// without rules throws `.invalidArgument`; a read-only one, `.readOnly`.
    @discardableResult
    public func saveRules() throws(NormCacheError) -> String {
        let saved = rules.saved
        guard !saved.isEmpty else {
            throw NormCacheError(.invalidArgument, "this handle has no rules to save: load a schema or configure rules first")
        }
        let stored = saved.stored
        try store.write(reserving: stored.count, checked: false) { (txn) throws(NormCacheError) in
            try stored.withBytes { (bytes) throws(NormCacheError) in try txn.setMetaValue(SavedRules.metaName, bytes) }
        }
        return SavedRules.text(saved.fingerprint)
    }

    /// Removes the rules saved in the cache file; returns false when there were none.
    /// Handles keep the rules they have; those opened afterwards start with none.
    @discardableResult
    public func clearSavedRules() throws(NormCacheError) -> Bool {
        try store.write(checked: false) { (txn) throws(NormCacheError) in try txn.removeMetaValue(SavedRules.metaName) }
    }

    /// Takes the rules saved in the file, if any, as this new handle's. A handle open
    /// for writing reads them with `peek`: opening it needs no reader slot when every
    /// slot is taken, and does not wait for the writer lock when one is free.
    func adoptSavedRules() throws(NormCacheError) {
        let decode = { [path] (txn: StoreTransaction) throws(NormCacheError) -> SavedRules? in
            try txn.metaValue(SavedRules.metaName).map { (stored) throws(NormCacheError) in try SavedRules(stored: stored, path: path) }
        }
        let saved = options.readOnly ? try store.read(decode) : try store.peek(decode)
        guard let saved else { return }
        do throws(NormCacheError) {
            try rules.adopt(saved)
        } catch {
            throw NormCacheError(.notACache, "'\(path)' has saved rules that do not load: \(error.message)\(SavedRules.remedy)")
        }
    }

    /// The fingerprint of the rules saved in the file, nil when it has none.
    static func savedFingerprint(in txn: StoreTransaction) throws(NormCacheError) -> UInt64? {
        try txn.metaValue(SavedRules.metaName).map { (stored) throws(NormCacheError) in
            try SavedRules.fingerprint(stored: stored, path: txn.path)
        }
    }

    /// A strict handle's check, before `prepare` and every write: its rules must be the
    /// rules saved in the file (no rules and none saved match too).
    static func checkRules(_ rules: CacheRules, in txn: StoreTransaction) throws(NormCacheError) {
        let own = rules.fingerprint
        let saved = try savedFingerprint(in: txn)
        guard own != saved else { return }
        throw NormCacheError(.invalidArgument, "the rules of this handle (fingerprint \(SavedRules.text(own))) differ from the rules saved in '\(txn.path)' (fingerprint \(SavedRules.text(saved))), and it was opened with \"rules\": \"strict\": give it no rules of its own to use the saved ones, or save its rules in the file")
    }
}
