import CNormCacheHeader
import Glibc
import NormCache

/// The crossing between C and Swift: every exported function runs its body through
/// `boundary`, so errors turn into status codes and thread-local messages and never
/// cross into C.
enum Boundary {
    /// Runs `body`; returns its status, or the code of the error it throws after
    /// recording the error's message for `normcache_errmsg`.
    static func run(_ body: () throws(NormCacheError) -> Int32) -> Int32 {
        do {
            return try body()
        } catch {
            ErrorMessage.set(error.message)
            return error.code.rawValue
        }
    }

    /// The input byte range `(pointer, length)`: NULL with length 0 is empty input,
    /// NULL with a length is an error naming `parameter`; the length
    /// NORMCACHE_NUL_TERMINATED (`(size_t)-1`, -1 here) takes the bytes before the
    /// first NUL.
    static func input(_ pointer: UnsafePointer<CChar>?, _ length: Int, _ parameter: String) throws(NormCacheError) -> UnsafeRawBufferPointer {
        if length == nulTerminated {
            guard let pointer else { throw NormCacheError(.invalidArgument, "\(parameter) is NULL but its length is NORMCACHE_NUL_TERMINATED") }
            return UnsafeRawBufferPointer(start: pointer, count: strlen(pointer))
        }
        guard length >= 0 else {
            throw NormCacheError(.invalidArgument, "\(parameter): length \(UInt(bitPattern: length)) is too large (above SIZE_MAX / 2)")
        }
        guard let pointer else {
            guard length == 0 else { throw NormCacheError(.invalidArgument, "\(parameter) is NULL but its length is \(length)") }
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        return UnsafeRawBufferPointer(start: pointer, count: length)
    }

    /// NORMCACHE_NUL_TERMINATED, `(size_t)-1`, as the `Int` a `size_t` parameter arrives as.
    static let nulTerminated = -1

    /// Runs the body of a function with one output buffer: clears the pair, checks it
    /// (`optional`: both NULL means the caller does not want the output), and hands the
    /// bytes `body` makes to the caller with NORMCACHE_OK.
    static func returning(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ outLength: UnsafeMutablePointer<Int>?,
                          _ parameter: String, optional: Bool = false,
                          _ body: () throws(NormCacheError) -> [UInt8]) -> Int32 {
        clear(out, outLength)
        return run { () throws(NormCacheError) in
            if optional { try allow(out, outLength, parameter) } else { try require(out, outLength, parameter) }
            try output(body(), out, outLength)
            return NORMCACHE_OK
        }
    }

    /// `returning` for a body that makes the malloc'd block itself: it is handed to the
    /// caller as it is, without a copy.
    static func returningBlock(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ outLength: UnsafeMutablePointer<Int>?,
                               _ parameter: String,
                               _ body: () throws(NormCacheError) -> (block: UnsafeMutableRawPointer, count: Int)) -> Int32 {
        clear(out, outLength)
        return run { () throws(NormCacheError) in
            let (out, outLength) = try require(out, outLength, parameter)
            let result = try body()
            out.pointee = result.block.assumingMemoryBound(to: CChar.self)
            outLength.pointee = result.count
            return NORMCACHE_OK
        }
    }

    /// `returning` for a write: the changed fields as a JSON array, in `out_changed`,
    /// which the caller may leave NULL; `body` learns whether they are wanted, so that
    /// it builds them only then.
    static func returningChanged(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ outLength: UnsafeMutablePointer<Int>?,
                                 _ body: (_ wanted: Bool) throws(NormCacheError) -> ChangedFields) -> Int32 {
        clear(out, outLength)
        return run { () throws(NormCacheError) in
            try allow(out, outLength, "out_changed")
            try output(body(out != nil), out, outLength)
            return NORMCACHE_OK
        }
    }

    /// Hands the changed fields to the caller as a JSON array in a malloc'd,
    /// NUL-terminated buffer that `normcache_free` releases (nothing when `out` is NULL).
    static func output(_ changed: ChangedFields, _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                       _ outLength: UnsafeMutablePointer<Int>?) throws(NormCacheError) {
        guard let out, let outLength else { return }
        let json = try changed.jsonBlock()
        out.pointee = json.start.assumingMemoryBound(to: CChar.self)
        outLength.pointee = json.count
    }

    /// Runs the body of a read: checks the flags, and hands over the block the read
    /// made (`NormalizedCache.readBlock`) with the read's status: NORMCACHE_OK,
    /// NORMCACHE_STALE or NORMCACHE_MISS.
    static func returningRead(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ outLength: UnsafeMutablePointer<Int>?,
                              flags: UInt32, known: UInt32 = NORMCACHE_READ_PARTIAL,
                              _ body: (_ flags: UInt32) throws(NormCacheError) -> (block: UnsafeMutableRawPointer, count: Int, status: ReadResult.Status)) -> Int32 {
        clear(out, outLength)
        return run { () throws(NormCacheError) in
            guard let out, let outLength else { throw NormCacheError(.invalidArgument, "out_json or its length pointer is NULL") }
            guard flags & ~known == 0 else {
                throw NormCacheError(.invalidArgument, "unknown read flags 0x\(String(flags, radix: 16))")
            }
            let result = try body(flags)
            out.pointee = result.block.assumingMemoryBound(to: CChar.self)
            outLength.pointee = result.count
            return status(result.status)
        }
    }

    /// The C status of a read's outcome.
    static func status(_ status: ReadResult.Status) -> Int32 {
        switch status {
        case .complete: NORMCACHE_OK
        case .stale: NORMCACHE_STALE
        case .miss: NORMCACHE_MISS
        }
    }

    /// Checks the `size` member of an options struct: at least the struct's first
    /// version, the only one so far.
    static func checkSize<Options>(_ size: Int, of _: Options.Type, _ parameter: String) throws(NormCacheError) {
        let known = MemoryLayout<Options>.size
        guard size >= known else {
            throw NormCacheError(.invalidArgument, "\(parameter)->size is \(size), below sizeof the struct (\(known)): set it to sizeof")
        }
    }

    /// Checks the `size` member of an options struct that has grown since its first
    /// version, which ended before `firstNewMember`: at least that first version, which
    /// callers built against it pass.
    static func checkSize<Options, Member>(_ size: Int, firstNewMember: KeyPath<Options, Member>,
                                           _ parameter: String) throws(NormCacheError) {
        let firstVersion = MemoryLayout<Options>.offset(of: firstNewMember) ?? MemoryLayout<Options>.size
        guard size >= firstVersion else {
            throw NormCacheError(.invalidArgument,
                                 "\(parameter)->size is \(size), below sizeof the struct's first version (\(firstVersion)): set it to sizeof")
        }
    }

    /// Whether an options struct whose `size` member says `size` holds `member`: the
    /// members added after its first version are read only then, never past `size`.
    static func holds<Options, Member>(_ size: Int, _ member: KeyPath<Options, Member>) -> Bool {
        guard let offset = MemoryLayout<Options>.offset(of: member) else { return false }
        return size >= offset + MemoryLayout<Member>.size
    }

    /// An input byte range that must be UTF-8 text.
    static func text(_ pointer: UnsafePointer<CChar>?, _ length: Int, _ parameter: String) throws(NormCacheError) -> String {
        guard let text = String(validating: try input(pointer, length, parameter), as: UTF8.self) else {
            throw NormCacheError(.invalidArgument, "\(parameter) is not valid UTF-8")
        }
        return text
    }

    /// Clears an output buffer pair so that it reads NULL/0 whatever happens next.
    static func clear(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ outLength: UnsafeMutablePointer<Int>?) {
        out?.pointee = nil
        outLength?.pointee = 0
    }

    /// Checks that an output buffer pair is present; returns it.
    @discardableResult
    static func require(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ outLength: UnsafeMutablePointer<Int>?,
                        _ parameter: String) throws(NormCacheError) -> (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, UnsafeMutablePointer<Int>) {
        guard let out, let outLength else {
            throw NormCacheError(.invalidArgument, "\(parameter) or its length pointer is NULL")
        }
        return (out, outLength)
    }

    /// Checks an optional output pair: both NULL (not wanted) or both given.
    static func allow(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ outLength: UnsafeMutablePointer<Int>?,
                      _ parameter: String) throws(NormCacheError) {
        if out != nil { try require(out, outLength, parameter) }
    }

    /// Hands `bytes` to the caller as a malloc'd, NUL-terminated buffer that
    /// `normcache_free` releases.
    static func output(_ bytes: [UInt8], _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                       _ outLength: UnsafeMutablePointer<Int>?) throws(NormCacheError) {
        guard let out, let outLength else { return }
        guard let buffer = malloc(bytes.count + 1) else {
            throw NormCacheError(.outOfMemory, "cannot allocate \(bytes.count + 1) bytes for the result")
        }
        bytes.withUnsafeBytes { source in
            if let base = source.baseAddress { memcpy(buffer, base, bytes.count) }
        }
        buffer.storeBytes(of: 0, toByteOffset: bytes.count, as: UInt8.self)
        out.pointee = buffer.assumingMemoryBound(to: CChar.self)
        outLength.pointee = bytes.count
    }

    /// A static string as a C string (Swift string literals are NUL-terminated).
    static func cString(_ string: StaticString) -> UnsafePointer<CChar> {
        UnsafeRawPointer(string.utf8Start).assumingMemoryBound(to: CChar.self)
    }
}
