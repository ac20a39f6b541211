import Foundation
import NormCache

/// normcache-cli: runs the demo and inspects cache files.
let usage = """
usage: normcache-cli demo [PATH]            write, read and search records (default PATH: normcache-demo.cache)
       normcache-cli stats PATH             print the stats of a cache as JSON
       normcache-cli get PATH KEY           print one record as JSON
       normcache-cli search PATH PREFIX     print the keys of a key group, one per line
"""

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(1)
}

/// Runs the command that `arguments` name.
func run(_ arguments: [String]) throws(NormCacheError) {
    switch (arguments.first, arguments.count) {
    case ("demo", 1), ("demo", 2):
        try Demo(path: arguments.count == 2 ? arguments[1] : "normcache-demo.cache").run()
    case ("stats", 2):
        let cache = try NormalizedCache(path: arguments[1], options: readOnly())
        print(String(decoding: try cache.stats().json, as: UTF8.self))
    case ("get", 3):
        let cache = try NormalizedCache(path: arguments[1], options: readOnly())
        guard let record = try cache.record(arguments[2]) else { fail("no record '\(arguments[2])'") }
        print(record)
    case ("search", 3):
        let cache = try NormalizedCache(path: arguments[1], options: readOnly())
        for key in try cache.keys(withPrefix: arguments[2]) { print(key) }
    default:
        fail(usage)
    }
}

func readOnly() -> CacheOptions {
    var options = CacheOptions()
    options.readOnly = true
    return options
}

do {
    try run(Array(CommandLine.arguments.dropFirst()))
} catch {
    fail("normcache-cli: \(error.message)")
}
