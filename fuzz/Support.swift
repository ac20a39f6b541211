// Support.swift — what every fuzz target shares: a scratch cache, and checks that
// stop the run with a message when an invariant of the library does not hold.
//
// Each target defines LLVMFuzzerTestOneInput (libFuzzer's entry point) and is
// compiled with this file against the core built with -enable-testing, so it can
// reach internal decoders as well as the public API. A thrown NormCacheError is a
// correct answer to bad input; a trap, a sanitizer report or a failed `require` is a
// defect.

@testable import NormCache

#if canImport(Glibc)
import Glibc
#endif

/// Stops the run with `message` (libFuzzer saves the input as a crash) unless `condition`.
func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
             file: StaticString = #fileID, line: UInt = #line) {
    if !condition() {
        fputs("fuzz check failed at \(file):\(line): \(message())\n", stderr)
        abort()
    }
}

/// Stops the run unless `error` is one of the codes bad input may give.
func requireInputError(_ error: NormCacheError, allowed: [NormCacheError.Code], _ what: String) {
    require(allowed.contains(error.code), "\(what): unexpected error \(error.code.rawValue): \(error.message)")
    require(!error.message.isEmpty, "\(what): error \(error.code.rawValue) without a message")
}

/// The fuzz input as an array of bytes.
func inputBytes(_ data: UnsafePointer<UInt8>, _ size: Int) -> [UInt8] {
    Array(UnsafeBufferPointer(start: data, count: size))
}

/// A cache in a fresh temporary directory, opened once per process with durability
/// `fast` (a process crash loses nothing; no fsync per input). `clearEvery` inputs
/// the cache is emptied so that it stays small however long the run.
final class ScratchCache {
    let cache: NormalizedCache
    private let path: String
    private let options: CacheOptions
    private let clearEvery: Int
    private var inputs = 0

    init(clearEvery: Int = 512) {
        var template = Array("/tmp/normcache-fuzz-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        require(made != nil, "mkdtemp failed: errno \(errno)")
        let directory = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
        var options = CacheOptions()
        options.durability = .fast
        options.mapSize = 1 << 20
        path = directory + "/fuzz.cache"
        self.options = options
        do throws(NormCacheError) {
            cache = try NormalizedCache(path: path, options: options)
        } catch {
            fputs("cannot open the scratch cache: \(error.message)\n", stderr)
            abort()
        }
        self.clearEvery = clearEvery
    }

    /// Another handle on the same cache file (it shares the first one's LMDB
    /// environment, so opening it is cheap); the caller closes it.
    func secondHandle() -> NormalizedCache {
        do throws(NormCacheError) {
            return try NormalizedCache(path: path, options: options)
        } catch {
            require(false, "cannot open a second handle: \(error.message)")
            fatalError()
        }
    }

    /// Counts one input, emptying the cache every `clearEvery` inputs.
    func nextInput() {
        inputs += 1
        if inputs % clearEvery == 0 {
            do { try cache.clear() } catch { require(false, "clear failed: \(error.message)") }
        }
    }
}

/// The bytes of `relative` under the repository's own testdata/ folder, found from this
/// source file's location (fuzz/Support.swift); stops the run when it cannot be read.
func ownTestData(_ relative: String) -> [UInt8] {
    var root = "\(#filePath)"
    for _ in 0..<2 { root = String(root[..<(root.lastIndex(of: "/") ?? root.startIndex)]) }
    return readTestFile(root + "/testdata/" + relative)
}

/// The bytes of `relative` under `$NORMCACHE_TESTDATA`, the external corpora, which
/// `scripts/fuzz` sets only when they are there; nil when it is not set. Stops the run
/// when it is set and the file cannot be read.
func sharedTestData(_ relative: String) -> [UInt8]? {
    guard let root = getenv("NORMCACHE_TESTDATA"), root.pointee != 0 else { return nil }
    return readTestFile(String(cString: root) + "/" + relative)
}

/// The bytes of the file at `path`; stops the run when it cannot be read.
private func readTestFile(_ path: String) -> [UInt8] {
    guard let file = fopen(path, "rb") else {
        require(false, "cannot open \(path): errno \(errno)")
        return []
    }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = fread(&chunk, 1, chunk.count, file)
        if count == 0 { break }
        bytes.append(contentsOf: chunk[0..<count])
    }
    return bytes
}

/// State a fuzz target keeps for the whole run (a cache, prepared operations): made
/// on first use and dropped at exit by `releaseAtExit`.
final class RunState<Value> {
    private var value: Value?
    private let make: () -> Value

    init(_ make: @escaping () -> Value) { self.make = make }

    /// The state, made now if this is its first use.
    var current: Value {
        if let value { return value }
        let made = make()
        value = made
        releaseAtExit { self.value = nil }
        return made
    }
}

/// The state `releaseAtExit` drops, most recent first.
nonisolated(unsafe) private var exitReleases: [() -> Void] = []

/// Runs `release` at exit, before LeakSanitizer's final check: state that lives for
/// the whole run (a cache with a schema) is dropped first, because LeakSanitizer
/// cannot follow the tagged pointers inside Swift enums and would report what that
/// state holds as leaked.
func releaseAtExit(_ release: @escaping () -> Void) {
    if exitReleases.isEmpty {
        atexit {
            while let release = exitReleases.popLast() { release() }
        }
    }
    exitReleases.append(release)
}

/// Every record of the cache as key and JSON; stops the run on a record that does
/// not read or is not a JSON object.
func snapshot(_ cache: NormalizedCache) -> [String: [UInt8]] {
    var records: [String: [UInt8]] = [:]
    do throws(NormCacheError) {
        for key in try cache.keys(withPrefix: "") {
            let record = try key.withUTF8Bytes { (bytes) throws(NormCacheError) in try cache.record(bytes) }
            require(record != nil, "listed key '\(key)' has no record")
            record?.withUnsafeBytes { raw in
                let document = try? JSONDocument(scanning: raw)
                require(document?.tokens.first?.kind == .object, "record '\(key)' is not a JSON object")
            }
            records[key] = record
        }
    } catch {
        require(false, "the cache does not read back: \(error.message)")
    }
    return records
}
