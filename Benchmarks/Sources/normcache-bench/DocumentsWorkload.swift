import CNormCacheABI
import Glibc

extension Bench {
    /// Workload "documents": `normcache_prepare` of wide documents (`Documents`), each
    /// shape at each of `documentSizes`, against the same shape 4× narrower measured in
    /// the same run; the target: 4× wider costs at most 6× the time (linear is 4×,
    /// quadratic 16×). Then the large documents: `largeDocumentFragments` named
    /// fragments (about 1 MB at 25,600), prepared, and a chain of as many fragments,
    /// refused past 510 (`Documents.refuses`); the target: each under 2 s. The schema is loaded once, outside the timing.
    func runDocuments() throws {
        let sizes = options.documentSizes
        let path = freshPath("documents.cache")
        defer { removeCache(path) }
        let cache = try CacheClient(path: path)
        try cache.loadSchema(Array(Documents.schema(types: max(sizes.max() ?? 0, options.largeDocumentFragments)).utf8))
        for shape in Documents.Shape.allCases {
            let documents = sizes.map { Documents.document(shape, width: $0) }
            let steps = zip(sizes, documents).map { width, document in
                { try timed { try cache.prepareOnly(document, succeeds: !Documents.refuses(shape, width: width)) } }
            }
            let series = try interleave(steps, label: "documents \(shape.rawValue)")
            for (index, width) in sizes.enumerated() {
                let narrower = sizes.firstIndex(of: width / 4)
                add(
                    Figure(
                        workload: "documents", measure: "prepare \(shape.rawValue) N=\(width)", normcache: series[index],
                        objects: width, bytes: documents[index].utf8.count,
                        baselineName: narrower.map { "the same at N=\(sizes[$0])" }, baseline: narrower.map { series[$0] },
                        target: narrower.map { _ in Target(kind: .ratioAtMost, bound: 6) }))
            }
        }
        let fragments = options.largeDocumentFragments
        let large = [Documents.document(.namedFragments, width: fragments), Documents.document(.fragmentChain, width: fragments)]
        let series = try interleave(
            [
                { try timed { try cache.prepareOnly(large[0], succeeds: true) } },
                { try timed { try cache.prepareOnly(large[1], succeeds: !Documents.refuses(.fragmentChain, width: fragments)) } },
            ], label: "documents large")
        add(
            Figure(
                workload: "documents", measure: "prepare \(fragments) named fragments", normcache: series[0], objects: fragments,
                bytes: large[0].utf8.count, target: Target(kind: .valueBelow, bound: 2)))
        add(
            Figure(
                workload: "documents", measure: "prepare a chain of \(fragments) fragments", normcache: series[1], objects: fragments,
                bytes: large[1].utf8.count, target: Target(kind: .valueBelow, bound: 2)))
    }
}

extension CacheClient {
    /// Prepares `document` and frees the operation; it must succeed when `succeeds`, and
    /// fail with `NORMCACHE_EDOCUMENT` when not.
    func prepareOnly(_ document: String, succeeds: Bool) throws {
        var op: OpaquePointer?
        let code = document.withCString { normcache_prepare(handle, $0, strlen($0), nil, 0, &op) }
        normcache_op_free(op)
        if succeeds {
            try Self.check(code, "normcache_prepare")
        } else if code != NORMCACHE_EDOCUMENT {
            throw BenchError("normcache_prepare of a document it must refuse returned \(code)")
        }
    }
}
