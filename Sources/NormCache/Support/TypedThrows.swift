// Typed-throws forms of the standard library's `rethrows` buffer accessors, so that
// code throwing one concrete error type keeps it across the closure.

extension Array where Element == UInt8 {
    /// `withUnsafeBytes` that keeps the body's error type.
    func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try withUnsafeBytes { bytes in Result { () throws(E) in try body(bytes) } }.get()
    }
}

extension String {
    /// The string's UTF-8 bytes, with the body's error type kept.
    func withUTF8Bytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        var text = self
        return try text.withUTF8 { bytes in Result { () throws(E) in try body(UnsafeRawBufferPointer(bytes)) } }.get()
    }
}

extension Unmanaged {
    /// `_withUnsafeGuaranteedRef` that keeps the body's error type: the instance is
    /// borrowed for the body, without a retain and release around it (the caller keeps
    /// it alive).
    @inline(__always)
    func borrowing<R, E: Error>(_ body: (Instance) throws(E) -> R) throws(E) -> R {
        try _withUnsafeGuaranteedRef { instance in Result { () throws(E) in try body(instance) } }.get()
    }
}
