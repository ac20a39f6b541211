/// How a cache is opened.
public struct CacheOptions: Equatable, Sendable {
    /// What a committed write survives.
    public enum Durability: String, Sendable {
        /// Every committed write survives a power cut (data and meta pages synced).
        case full
        /// A system crash may lose the last committed writes, never corrupting the
        /// cache (LMDB's `MDB_NOMETASYNC`); a process crash loses nothing.
        case fast
    }

    /// Which rules a handle uses when the file holds saved rules (see
    /// `NormalizedCache.saveRules`).
    public enum Rules: String, Sendable {
        /// The file's saved rules become the handle's at open, until it is given rules
        /// of its own; a difference shows only in `stats` (the default).
        case saved
        /// The handle starts with no rules, as if the file had none saved; a difference
        /// shows only in `stats`. Opens a file whose saved rules are damaged or no
        /// longer load, to clear or replace them.
        case own
        /// As `saved`, and `prepare` and every write (except saving or clearing rules)
        /// fail with `.invalidArgument` while the handle's rules differ from the file's.
        case strict
    }

    /// What a committed write survives; `.full` by default.
    public var durability: Durability = .full
    /// Open for reading only; the file must exist.
    public var readOnly = false
    /// The initial size of the memory map in bytes; it grows by itself when full.
    public var mapSize = 64 << 20
    /// The reader slots of the lock file, set by the first process to open it.
    public var maxReaders: UInt32 = 126
    /// Which rules the handle uses; `.saved` by default.
    public var rules: Rules = .saved
    /// The permission bits of the cache and lock files when this open creates them
    /// (less the process's umask): owner-only `0o600` by default; `0o660` shares the
    /// cache with the owner's group. At most `0o777`.
    public var mode: UInt32 = 0o600
    /// The longest GraphQL document `prepare` takes, in bytes (4 MiB by default, some
    /// thousand times a large hand-written query); a longer one is a `.document` error
    /// naming option `max_document_bytes`, raised before the document is read.
    public var maxDocumentBytes = 4 << 20
    /// The most tokens of a GraphQL document `prepare` takes (500,000 by default); the
    /// first token past it is a `.document` error naming option `max_document_tokens`,
    /// raised as the document is read, before anything is built from it.
    public var maxDocumentTokens = 500_000
    /// The most bytes of data (`CacheStats.dataBytes`: the pages the records and the
    /// meta database hold, not the file's size) this handle's writes leave; 0 (the
    /// default) for no limit. A write that leaves more evicts the least recently written
    /// records, whole, down to `lowWater` × `maxBytes`, in its own transaction; the
    /// root records and the records the write itself changed are never evicted, and a
    /// write that stays over the limit even so fails with `.storage`, having written
    /// nothing. At least `minimumMaxBytes`. Each handle enforces its own limit on its
    /// own writes.
    public var maxBytes = 0
    /// The fraction of `maxBytes` an eviction brings the data down to (0.8 by default),
    /// greater than 0 and at most 1.
    public var lowWater = 0.8

    /// The default options.
    public init() {}

    /// The smallest initial map size accepted.
    public static let minimumMapSize = 1 << 20
    /// The smallest `maxBytes` accepted: 64 KiB, room for the databases of an empty
    /// cache and some records.
    public static let minimumMaxBytes = 64 << 10

    /// Parses the JSON options object of `normcache_open`:
    /// `{"durability": "full"|"fast", "read_only": bool, "map_size": bytes, "max_readers": n,
    /// "rules": "saved"|"own"|"strict", "mode": "0640"|416, "max_document_bytes": n,
    /// "max_document_tokens": n, "max_bytes": bytes, "low_water": fraction}` (the mode as a
    /// string of octal digits, or as an integer).
    /// Empty input gives the defaults; anything else unknown or mistyped is an error.
    public init(json bytes: UnsafeRawBufferPointer) throws(NormCacheError) {
        guard !bytes.isEmpty else { return }
        let document = try JSONDocument(scanning: bytes)
        guard document.tokens[document.root].kind == .object else {
            throw NormCacheError(.invalidArgument, "options must be a JSON object")
        }
        for member in document.members(ofObject: document.root) {
            let name = String(decoding: document.stringBytes(member.key), as: UTF8.self)
            let token = document.tokens[member.value]
            switch name {
            case "durability":
                guard let value: Durability = Self.choice(document, member.value) else {
                    throw NormCacheError(.invalidArgument, "option 'durability' must be \"full\" or \"fast\"")
                }
                durability = value
            case "read_only":
                guard token.kind == .true || token.kind == .false else {
                    throw NormCacheError(.invalidArgument, "option 'read_only' must be true or false")
                }
                readOnly = token.kind == .true
            case "map_size":
                guard let value = Self.integer(document, member.value), value >= Self.minimumMapSize else {
                    throw NormCacheError(.invalidArgument, "option 'map_size' must be an integer number of bytes, at least \(Self.minimumMapSize)")
                }
                mapSize = value
            case "max_readers":
                guard let value = Self.integer(document, member.value), value >= 1, value <= 65535 else {
                    throw NormCacheError(.invalidArgument, "option 'max_readers' must be an integer from 1 to 65535")
                }
                maxReaders = UInt32(value)
            case "rules":
                guard let value: Rules = Self.choice(document, member.value) else {
                    throw NormCacheError(.invalidArgument, "option 'rules' must be \"saved\", \"own\" or \"strict\"")
                }
                rules = value
            case "mode":
                guard let value = Self.mode(document, member.value), value >= 0, value <= 0o777 else {
                    throw NormCacheError(.invalidArgument, "option 'mode' must be permission bits from 0 to 0777: "
                        + "a string of octal digits (\"0640\") or an integer (416)")
                }
                mode = UInt32(value)
            case "max_document_bytes":
                maxDocumentBytes = try Self.limit(document, member.value, name: name)
            case "max_document_tokens":
                maxDocumentTokens = try Self.limit(document, member.value, name: name)
            case "max_bytes":
                guard let value = Self.integer(document, member.value), value >= Self.minimumMaxBytes else {
                    throw NormCacheError(.invalidArgument, "option 'max_bytes' must be an integer number of bytes, at least \(Self.minimumMaxBytes)")
                }
                maxBytes = value
            case "low_water":
                guard token.kind == .number, let value = Double(String(decoding: document.rawText(member.value), as: UTF8.self)),
                      value > 0, value <= 1 else {
                    throw NormCacheError(.invalidArgument, "option 'low_water' must be a number greater than 0 and at most 1")
                }
                lowWater = value
            default:
                throw NormCacheError(.invalidArgument, "unknown option '\(name)' (known: durability, read_only, map_size, max_readers, "
                    + "rules, mode, max_document_bytes, max_document_tokens, max_bytes, low_water)")
            }
        }
    }

    /// The choice the string at `index` names, or nil for anything else.
    private static func choice<Choice: RawRepresentable>(_ document: JSONDocument, _ index: Int) -> Choice? where Choice.RawValue == String {
        guard document.tokens[index].kind == .string else { return nil }
        return Choice(rawValue: String(decoding: document.stringBytes(index), as: UTF8.self))
    }

    /// The mode at `index`: a string of octal digits or a non-negative integer; nil
    /// for anything else.
    private static func mode(_ document: JSONDocument, _ index: Int) -> Int? {
        guard document.tokens[index].kind == .string else { return integer(document, index) }
        let digits = document.stringBytes(index)
        guard !digits.isEmpty, digits.count <= 12, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "7") }) else { return nil }
        return digits.reduce(0) { $0 * 8 + Int($1 - UInt8(ascii: "0")) }
    }

    /// The limit option `name` at `index`: an integer of at least 1.
    private static func limit(_ document: JSONDocument, _ index: Int, name: String) throws(NormCacheError) -> Int {
        guard let value = integer(document, index), value >= 1 else {
            throw NormCacheError(.invalidArgument, "option '\(name)' must be an integer of at least 1")
        }
        return value
    }

    /// The non-negative integer at `index`, or nil for anything else.
    private static func integer(_ document: JSONDocument, _ index: Int) -> Int? {
        guard document.tokens[index].kind == .number else { return nil }
        return Int(String(decoding: document.rawText(index), as: UTF8.self))
    }
}
