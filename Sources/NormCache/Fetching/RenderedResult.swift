/// A cached result of `execute` rendered for the C interface in the buffer its reader
/// wrote the data into — `{"source":"cache","data":...,"missing":...,...,"earliestExpiry":n`,
/// without the members that may change before it is handed over (`errors`,
/// `fetchError`) — so that a cache hit hands its data over without a copy.
final class RenderedResult: Equatable, @unchecked Sendable {
    /// The opening the reader writes before the data.
    static let prefix: StaticString = #"{"source":"cache","data":"#

    private var buffer: ByteBuffer

    /// The rendering in `buffer`.
    init(_ buffer: consuming ByteBuffer) {
        self.buffer = buffer
    }

    /// Runs `body` with the whole JSON, `tail` (the closing members) appended for the call.
    func withJSON<R>(tail: (inout ByteBuffer) -> Void, _ body: (UnsafeRawBufferPointer) throws(NormCacheError) -> R) throws(NormCacheError) -> R {
        let mark = buffer.count
        defer { buffer.truncate(to: mark) }
        tail(&buffer)
        try buffer.check(while: "writing the result of execute")
        return try body(buffer.bytes)
    }

    /// The whole JSON with `tail` as one malloc'd, NUL-terminated block; the rendering is
    /// given up to it.
    func takeBlock(tail: (inout ByteBuffer) -> Void) throws(NormCacheError) -> (block: UnsafeMutableRawPointer, count: Int) {
        var taken = buffer.takeAll()
        tail(&taken)
        let block = try taken.takeBlock(while: "writing the result of execute")
        return (block.start, block.count)
    }

    static func == (left: RenderedResult, right: RenderedResult) -> Bool { left === right }
}
