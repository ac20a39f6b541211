// The checked build of the core. Compiled with `-DNORMCACHE_INTERNAL_CHECKS`
// (`swift test -Xswiftc -DNORMCACHE_INTERNAL_CHECKS`), as swift-collections does with
// `COLLECTIONS_INTERNAL_CHECKS`, the unsafe core checks what it otherwise assumes:
// subscripts of `PlainArray`, `ByteBuffer`, `HashSlots` and `RecordView` stay in bounds,
// a pointer assumed present is there (`assumedPresent`), and `BlockPool` keeps nothing,
// so that AddressSanitizer sees every free. The Swift tests, the ASan runs and the fuzz
// targets use it; without the flag every check compiles to nothing.

/// Stops the process with `message` when `condition` does not hold, in the checked
/// build only: an invariant of the core, never a check of input (input gets an error).
@inline(__always)
func internalCheck(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
                   file: StaticString = #fileID, line: UInt = #line) {
    #if NORMCACHE_INTERNAL_CHECKS
    precondition(condition(), "normcache internal check: \(message())", file: file, line: line)
    #endif
}

extension Optional {
    /// The value, which the code knows is there: `unsafelyUnwrapped` (no check in an
    /// optimized build), or in the checked build an unwrap that stops the process on nil.
    @inline(__always)
    var assumedPresent: Wrapped {
        #if NORMCACHE_INTERNAL_CHECKS
        guard let self else { preconditionFailure("normcache internal check: a value assumed present is nil") }
        return self
        #else
        return unsafelyUnwrapped
        #endif
    }
}
