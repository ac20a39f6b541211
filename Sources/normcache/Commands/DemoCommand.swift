import ArgumentParser
import NormCache

/// `normcache demo`: the README's main job, on a cache file it clears first.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Write, merge, read, list and normalize records on a cache file, with timings.",
        discussion: """
            The file is cleared first: give it a path of its own. ./scripts/demo runs this.

            EXAMPLE
              normcache demo /tmp/demo.cache
            """
    )

    @Argument(help: "The cache file to use (cleared first).")
    var path = "normcache-demo.cache"

    func run() throws {
        try Demo(path: path).run()
    }
}
