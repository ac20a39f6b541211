import Glibc

/// Whole files and standard input read as bytes, without Foundation.
enum InputFile {
    /// The bytes of the file at `path`, or of standard input when `path` is `-`; a file
    /// that cannot be read is a bad-input failure naming it and why.
    static func read(_ path: String, what: String) throws(CommandFailure) -> [UInt8] {
        let descriptor = path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CommandFailure(.badInput, "cannot read the \(what) '\(path)': \(String(cString: strerror(errno)))")
        }
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                let source = path == "-" ? "standard input" : "'\(path)'"
                throw CommandFailure(.badInput, "cannot read the \(what) from \(source): \(String(cString: strerror(errno)))")
            }
            bytes.append(contentsOf: chunk[..<count])
        }
    }

    /// `read(_:what:)` as UTF-8 text.
    static func text(_ path: String, what: String) throws(CommandFailure) -> String {
        String(decoding: try read(path, what: what), as: UTF8.self)
    }

    /// Whether something exists at `path`.
    static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }
}
