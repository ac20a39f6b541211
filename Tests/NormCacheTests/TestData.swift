import Glibc
@testable import NormCache

/// The shared test material in ../shared/testdata, found from this source file.
enum TestData {
    /// The absolute path of a file or folder under shared/testdata.
    static func path(_ relative: String) -> String {
        var root = "\(#filePath)"
        for _ in 0..<3 { root = String(root[..<(root.lastIndex(of: "/") ?? root.startIndex)]) }
        return root + "/../shared/testdata/" + relative
    }

    /// The names of the files in a directory, sorted.
    static func files(in directory: String) throws -> [String] {
        guard let dir = opendir(directory) else { throw NormCacheError(.storage, "cannot open \(directory)") }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if !name.hasPrefix(".") { names.append(name) }
        }
        return names.sorted()
    }

    /// The bytes of a file.
    static func read(_ path: String) throws -> [UInt8] {
        guard let file = fopen(path, "rb") else { throw NormCacheError(.storage, "cannot open \(path)") }
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
}
