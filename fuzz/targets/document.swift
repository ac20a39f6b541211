// document.swift — fuzz target: `putDocument` of arbitrary JSON under entity rules
// (a type member, a key prefix's type, member types, default key fields).
//
// A put that succeeds reads back complete, as JSON, and reading it back and storing
// what was read as another document reads back the same again, up to the order of
// members (the entities it merges are those it read; the elements of a list share the
// union of their members, in order of first appearance, which a second round may
// order otherwise); a put that fails leaves the cache as it was. The cache is emptied
// before each input: with records from earlier inputs, an entity may show members of
// theirs.

@testable import NormCache

private let scratch = ScratchCache(clearEvery: 1)
private let rules = #"""
    {"defaultKeyFields": ["id"],
     "documents": {"typeMember": "__typename", "prefixes": {"doc": "Page"},
                   "types": {"Page": {"members": {"items": "Item", "owner": "User"}},
                             "Item": {"keyFields": ["id", "v"], "members": {"by": "User"}}}}}
    """#
private let configured: Bool = {
    do throws(NormCacheError) { try scratch.cache.configure(rules) } catch { require(false, "configure failed: \(error.message)") }
    return true
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDocument(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    require(configured, "not configured")
    scratch.nextInput()
    let cache = scratch.cache
    let json = UnsafeRawBufferPointer(start: data, count: size)
    let before = snapshot(cache)
    do throws(NormCacheError) {
        _ = try "doc-1".withUTF8Bytes { (key) throws(NormCacheError) in try cache.putDocument(key, json: json) }
    } catch {
        requireInputError(error, allowed: [.json, .invalidArgument], "putDocument")
        require(snapshot(cache) == before, "a failed putDocument changed the cache")
        return 0
    }
    let first = readBack("doc-1", cache)
    do throws(NormCacheError) {
        try first.withBytes { (bytes) throws(NormCacheError) in
            _ = try "doc-2".withUTF8Bytes { (key) throws(NormCacheError) in try cache.putDocument(key, json: bytes) }
        }
    } catch {
        require(false, "a document read back does not store again: \(error.message)")
    }
    require(canonical(readBack("doc-2", cache)) == canonical(first), "a document read back and stored again reads back otherwise")
    require(canonical(readBack("doc-1", cache)) == canonical(first), "storing what a document read back changed the document")
    return 0
}

/// The document `key`, which must read back complete and as JSON.
private func readBack(_ key: String, _ cache: NormalizedCache) -> [UInt8] {
    do throws(NormCacheError) {
        let result = try cache.document(key)
        require(result.status == .complete, "the document '\(key)' does not read back complete: \(result.missing)")
        let data = result.data ?? []
        data.withUnsafeBytes { raw in require((try? JSONDocument(scanning: raw)) != nil, "the document '\(key)' reads back as no JSON") }
        return data
    } catch {
        require(false, "the document '\(key)' does not read back: \(error.message)")
        return []
    }
}

/// The JSON text `json` with the members of every object sorted by name (stably: of a
/// name given twice, in their order), so that texts that differ only in member order
/// compare equal.
private func canonical(_ json: [UInt8]) -> [UInt8] {
    json.withUnsafeBytes { raw in
        guard let document = try? JSONDocument(scanning: raw) else { return json }
        var out: [UInt8] = []
        appendCanonical(document, document.root, to: &out)
        return out
    }
}

private func appendCanonical(_ document: JSONDocument, _ index: Int, to out: inout [UInt8]) {
    switch document.tokens[index].kind {
    case .array:
        out.append(UInt8(ascii: "["))
        for element in document.elements(ofArray: index) {
            appendCanonical(document, element, to: &out)
            out.append(UInt8(ascii: ","))
        }
        out.append(UInt8(ascii: "]"))
    case .object:
        out.append(UInt8(ascii: "{"))
        let members = document.members(ofObject: index).map { (name: document.stringBytes($0.key), key: $0.key, value: $0.value) }
        for member in members.enumerated().sorted(by: { $0.element.name.lexicographicallyPrecedes($1.element.name) || ($0.element.name == $1.element.name && $0.offset < $1.offset) }) {
            out.append(contentsOf: document.json(member.element.key))
            out.append(UInt8(ascii: ":"))
            appendCanonical(document, member.element.value, to: &out)
            out.append(UInt8(ascii: ","))
        }
        out.append(UInt8(ascii: "}"))
    default:
        out.append(contentsOf: document.json(index))
    }
}
