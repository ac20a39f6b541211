import ExternalCorpora
import Glibc
import Testing
@testable import NormCache

/// The material the tests read: the repository's own `testdata/` and the external
/// corpora in `../shared/testdata`, where `ExternalCorpus` finds them. A test that reads
/// an external corpus carries `TestData.external(_:)`: it runs when the corpus is there,
/// is skipped with the reason when it is not, and fails when it is not and `CI=true`.
enum TestData {
    /// A file or folder under the external corpora (`ExternalCorpus.sharedRoot`).
    static func path(_ relative: String) -> String { ExternalCorpus.path(relative) }

    /// A file or folder of the repository's own test material, `testdata/<relative>`.
    static func own(_ relative: String) -> String { ExternalCorpus.own(relative) }

    /// The trait of a test that reads the external corpus `corpus` (`ExternalCorpus.required`).
    static func external(_ corpus: String) -> ConditionTrait { ExternalCorpus.required(corpus) }

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

    /// The text of a file.
    static func text(_ path: String) throws -> String {
        String(decoding: try read(path), as: UTF8.self)
    }
}
