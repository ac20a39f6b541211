/// The JSON reader of `put`, `write` and `normalize`, on its own: checks a text the way
/// those calls do before they store anything. The perf harness measures it against
/// simdjson and Foundation.
public enum JSONValidation {
    /// The number of tokens in `bytes` (every value and every member name counts once),
    /// or a `.json` error naming the byte offset of the first problem.
    public static func valueCount(_ bytes: UnsafeRawBufferPointer) throws(NormCacheError) -> Int {
        try JSONDocument(scanning: bytes).tokens.count
    }
}
