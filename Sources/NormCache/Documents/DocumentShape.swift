/// The shape of a document stored with entities: for each position of the document (a
/// path of member names, list indices left out), the members its entities had there,
/// and the way down to the positions below that hold entities. A read of the document
/// gives each entity exactly the members it had in the document, with the values its
/// record holds now.
///
/// Stored as the document record's `$shape` field: a tree of objects (`FieldValue` tag
/// 6) whose members are member names and whose values are the shapes below them, e.g.
/// `{"articles":{"id":{},"title":{},"author":{"id":{},"name":{}}}}`. The positions of a
/// list share one shape, the union of its elements' members, in order of first appearance.
enum DocumentShape {
    /// The shape of a position below which the document had no entity: an empty object.
    static var empty: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: emptyBytes.utf8Start, count: emptyBytes.utf8CodeUnitCount) }

    /// `FieldValue`'s empty object: tag 6, no members, a body of 0 bytes.
    private static let emptyBytes: StaticString = "\u{06}\u{00}\u{00}\u{00}\u{00}\u{00}"

    /// Whether the shape `node` lists no member: no entity was below its position.
    static func isEmpty(_ node: UnsafeRawBufferPointer) -> Bool {
        node.count > 1 && node[1] == 0
    }

    /// The members of the shape `node` (an encoded object) with the shape below each, in
    /// order; nil when the bytes are not a shape (a damaged record).
    static func members(of node: UnsafeRawBufferPointer) -> [(name: UnsafeRawBufferPointer, shape: UnsafeRawBufferPointer)]? {
        var reader = ByteReader(node)
        guard reader.readByte() == FieldValue.Tag.object.rawValue, let count = reader.readVarint(),
              let bodyLength = reader.readUInt32(), let body = reader.readBytes(Int(bodyLength)), reader.isAtEnd else { return nil }
        var inner = ByteReader(body)
        var members: [(UnsafeRawBufferPointer, UnsafeRawBufferPointer)] = []
        for _ in 0..<count {
            guard let nameLength = inner.readLength(), let name = inner.readBytes(nameLength) else { return nil }
            let start = inner.offset
            guard FieldValue.skip(&inner) else { return nil }
            members.append((name, UnsafeRawBufferPointer(rebasing: body[start..<inner.offset])))
        }
        return inner.isAtEnd ? members : nil
    }

    /// Builds a shape while a document is normalized: node 0 is the document's top level.
    struct Builder {
        private struct Node {
            /// The member name this node is under (empty at the top).
            var name: [UInt8] = []
            /// Member names in order of first appearance, the node below each, and
            /// whether an entity had the member (else it leads to entities below).
            var names: [[UInt8]] = []
            var children: [Int] = []
            var onEntity: [Bool] = []
            /// Positions in `names` by name, once there are more than `scannedNames`.
            var lookup: [[UInt8]: Int] = [:]
            /// Where the next member's name is looked for first: after the last one found
            /// (objects at one position mostly give their members in one order).
            var nextPosition = 0
            /// The type the entity rules give this node's member under an object of
            /// `parentType`, as last asked (see `memberType(at:under:)`).
            var memberType: (parentType: String, type: String?)?
            /// Whether an entity sits at this position.
            var holdsEntity = false
        }

        private var nodes = [Node()]

        /// The node of the document's top level.
        static let top = 0

        /// The most names of a node found by comparing them in turn; past that, by hash.
        private static let scannedNames = 16

        /// The node below `node` at the member `name`, made if new; `onEntity`: the
        /// member is one of an entity's.
        mutating func child(of node: Int, named name: UnsafeRawBufferPointer, onEntity: Bool) -> Int {
            let position = position(of: name, in: node) ?? add(name, to: node)
            if onEntity { nodes[node].onEntity[position] = true }
            nodes[node].nextPosition = position + 1 == nodes[node].names.count ? 0 : position + 1
            return nodes[node].children[position]
        }

        /// The member name node `node` is under.
        func name(of node: Int) -> [UInt8] { nodes[node].name }

        /// The member type last noted for node `node` under an object of `parentType`:
        /// nil when none was, else the type the rules gave (itself nil for none).
        func memberType(at node: Int, under parentType: String) -> String?? {
            guard let known = nodes[node].memberType, known.parentType == parentType else { return nil }
            return .some(known.type)
        }

        /// Notes the member type the rules give node `node` under an object of `parentType`.
        mutating func noteMemberType(_ type: String?, at node: Int, under parentType: String) {
            nodes[node].memberType = (parentType, type)
        }

        private func position(of name: UnsafeRawBufferPointer, in node: Int) -> Int? {
            let count = nodes[node].names.count
            guard count <= Self.scannedNames else { return nodes[node].lookup[Array(name)] }
            var position = nodes[node].nextPosition
            for _ in 0..<count {
                if nodes[node].names[position].withUnsafeBytes({ KeyBytes.equal($0, name) }) { return position }
                position = position + 1 == count ? 0 : position + 1
            }
            return nil
        }

        private mutating func add(_ name: UnsafeRawBufferPointer, to node: Int) -> Int {
            let child = nodes.count, position = nodes[node].names.count, stored = Array(name)
            nodes.append(Node(name: stored))
            nodes[node].names.append(stored)
            nodes[node].children.append(child)
            nodes[node].onEntity.append(false)
            if position == Self.scannedNames {
                for (known, name) in nodes[node].names.enumerated() { nodes[node].lookup[name] = known }
            } else if position > Self.scannedNames {
                nodes[node].lookup[nodes[node].names[position]] = position
            }
            return position
        }

        /// Notes that an entity sits at `node`.
        mutating func markEntity(_ node: Int) { nodes[node].holdsEntity = true }

        /// Appends the shape as an encoded object: each node keeps the members its
        /// entities had and those that lead to an entity.
        func encode(into out: inout ByteBuffer) throws(NormCacheError) {
            var leadsToEntity = nodes.map(\.holdsEntity)
            // A child's index is above its parent's: going down from the last, every
            // node's children are settled before it.
            for index in nodes.indices.reversed() where nodes[index].children.contains(where: { leadsToEntity[$0] }) {
                leadsToEntity[index] = true
            }
            try encode(Self.top, leadsToEntity, into: &out)
        }

        private func encode(_ index: Int, _ leadsToEntity: [Bool], into out: inout ByteBuffer) throws(NormCacheError) {
            let node = nodes[index]
            let kept = node.names.indices.filter { node.onEntity[$0] || leadsToEntity[node.children[$0]] }
            let bodyStart = FieldValue.beginContainer(.object, count: UInt32(kept.count), in: &out)
            for position in kept {
                node.names[position].withUnsafeBytes { out.appendLengthPrefixed($0) }
                try encode(node.children[position], leadsToEntity, into: &out)
            }
            try FieldValue.endContainer(bodyStart: bodyStart, in: &out, context: "the document's shape")
        }
    }
}
