/// The record keys an import holds and the references it makes, so that an import
/// with a reference to a record it does not hold fails before anything is written.
struct ReferenceTargets {
    private var keys: Set<[UInt8]> = []
    private var references: [(target: [UInt8], place: () -> String)] = []

    /// Notes a record key the import holds.
    mutating func hold(_ key: [UInt8]) { keys.insert(key) }

    /// Notes a reference to `target`, made at `place` ("field 'hero' of record 'ROOT_QUERY'").
    mutating func refer(to target: [UInt8], at place: @escaping () -> String) {
        references.append((target, place))
    }

    /// Throws `.data` naming the first reference, in input order, to a record the
    /// import does not hold.
    func check(_ format: InterchangeFormat) throws(NormCacheError) {
        for reference in references where !keys.contains(reference.target) {
            throw NormCacheError(.data, "\(format.name) import: \(reference.place()) refers to '\(String(decoding: reference.target, as: UTF8.self))', which the file does not hold; nothing was imported")
        }
    }
}
