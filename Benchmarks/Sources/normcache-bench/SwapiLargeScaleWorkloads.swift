import Foundation

extension Bench {
    /// Workload 2, swapi: a SWAPI-shaped schema (the repository's own Star Wars schema,
    /// testdata/starwars/schema.graphql, which has every type and field of
    /// `Responses.swapiQuery` under SWAPI's names), people with their homeworlds and
    /// films through nested connections (many shared entities): write and read.
    func runSwapi() throws {
        let schemaPath = repositoryPath("testdata/starwars/schema.graphql")
        guard let schema = FileManager.default.contents(atPath: schemaPath) else {
            throw BenchError("cannot read the Star Wars schema at \(schemaPath)")
        }
        let people = options.swapiPeople
        let response = Responses.swapi(people: people)
        let testCase = ResponseCase(workload: "swapi", label: "people=\(people)", query: Responses.swapiQuery,
                                    schema: Array(schema), config: Responses.keyByID, response: response, objects: Responses.objectCount(response))
        addResponseFigures(testCase, try measure(testCase), targeted: false)
    }

    /// Workload 3, large: one response of about 50 MB, wide and deep: write and read
    /// against the ceilings, and the peak memory of writing and reading it in a fresh
    /// process that holds the response throughout. The peak is set against the response
    /// and against the floor of any design: for the write, the response plus the dirty
    /// pages of its one atomic transaction (the pages the write adds to the new file,
    /// which LMDB keeps in memory until the commit); for the read, the response plus
    /// the file pages it maps plus its output. Each phase is also given alone, and what
    /// the write leaves resident after it returns.
    func runLarge() throws {
        let response = Responses.large(megabytes: options.largeMegabytes)
        let label = "\(response.count / 1_000_000) MB"
        let testCase = ResponseCase(workload: "large", label: label, query: Responses.largeQuery,
                                    config: Responses.keyByID, response: response, objects: Responses.objectCount(response))
        addResponseFigures(testCase, try measure(testCase), targeted: true)

        let responsePath = try scratchFile("large.json", response)
        var memory = LargeMemory()
        for run in 0..<options.runs {
            progress("  large memory: run \(run + 1)/\(options.runs)")
            let cachePath = freshPath("large-memory.cache")
            try memory.append(runChild("large-memory", [responsePath, cachePath]), response: response.count)
            removeCache(cachePath)
        }
        let measure = "peak memory, write+read \(label)"
        add(Figure(workload: "large", measure: measure, unit: .bytes, normcache: memory.peak,
                   baselineName: "response size", baseline: Series(values: memory.peak.values.map { _ in Double(response.count) }),
                   target: Target(kind: .ratioAtMost, bound: 2.5)))
        add(Figure(workload: "large", measure: measure, unit: .bytes, normcache: memory.peak,
                   baselineName: "floor: the larger of the two below", baseline: memory.floor))
        add(Figure(workload: "large", measure: "peak memory, the write alone \(label)", unit: .bytes, normcache: memory.writePeak,
                   baselineName: "floor: response + the write's dirty pages", baseline: memory.writeFloor))
        add(Figure(workload: "large", measure: "peak memory, the read alone \(label)", unit: .bytes, normcache: memory.readPeak,
                   baselineName: "floor: response + file pages read + output", baseline: memory.readFloor))
        add(Figure(workload: "large", measure: "resident after the write \(label)", unit: .bytes, normcache: memory.kept,
                   baselineName: "the write's dirty pages", baseline: memory.dirty))
    }

    /// Workload 7, scale: feed write and read time per object at each size; the time
    /// per object at the largest size against that at 10,000 (or the smallest) shows
    /// whether growth is linear.
    func runScale() throws {
        var perObject: [(size: Int, write: Series, read: Series)] = []
        for posts in options.scaleSizes {
            let testCase = ResponseCase(workload: "scale", label: "N=\(posts)", query: Responses.feedQuery,
                                        config: Responses.keyByID, response: Responses.feed(posts: posts), objects: 2 * posts)
            let series = try measure(testCase)
            addResponseFigures(testCase, series, targeted: true)
            let scale = { (series: Series) in Series(values: series.values.map { $0 / Double(2 * posts) }) }
            perObject.append((posts, scale(series.coldWrite), scale(series.read)))
        }
        guard let largest = perObject.last, perObject.count > 1 else { return }
        let reference = perObject.first { $0.size == 10_000 } ?? perObject[0]
        add(Figure(workload: "scale", measure: "write time per object N=\(largest.size)", normcache: largest.write,
                   baselineName: "per object at N=\(reference.size)", baseline: reference.write,
                   target: Target(kind: .ratioAtMost, bound: 1.3)))
        add(Figure(workload: "scale", measure: "read time per object N=\(largest.size)", normcache: largest.read,
                   baselineName: "per object at N=\(reference.size)", baseline: reference.read,
                   target: Target(kind: .ratioAtMost, bound: 1.3)))
    }
}
