import CHandleLookup
import Glibc
import NormCache

/// The live objects behind C handles (`normcache*`, `normcache_op*`).
///
/// A handle is not a pointer to memory: it encodes a slot of its table and the slot's
/// generation, so a closed, doubly closed or made-up handle is recognised and refused
/// (`NORMCACHE_EINVAL`) instead of being dereferenced. A table bound to its process
/// also refuses, in a child made by fork(), the handles the parent registered: they
/// may be closed there, nothing else. Its lock is one of `ForkSafety`'s, so a child can
/// register handles whatever the parent's threads were doing at the fork.
///
/// A thread looks up the handle it looked up last without the lock while no handle has
/// left the table since (`normcache_lookup_again`, hazard pointers: see
/// `Sources/CHandleLookup`): two threads calling through one handle took turns at the
/// lock on every call. A handle's object still goes when its handle is closed and no
/// call holds it: the thread that closes it waits for any thread retaining it that way.
final class HandleTable<Object: AnyObject & Sendable>: @unchecked Sendable {
    private struct Slot {
        var generation: UInt64
        var object: Object?
        /// The fork generation (`ForkSafety.generation`) the handle was registered in.
        var forkGeneration: UInt64 = 0
    }

    static var slotBits: Int { 24 }
    /// Generations count modulo 2^40, the bits of a handle above the slot index.
    private static var generationMask: UInt64 { (1 << 40) - 1 }

    /// What the handles are called in messages ("cache handle").
    private let name: String
    private let boundToProcess: Bool
    private let lock: Mutex
    /// Read and changed only under `lock`, which also keeps the accesses exclusive: so
    /// Swift's run-time exclusivity check, which every call of the C interface would
    /// pay in its handle lookup, is left out.
    @exclusivity(unchecked) private var slots: [Slot] = []
    /// What the lookups without the lock share (never freed: a table lives as long as
    /// the process); nil when memory for it could not be had, and every lookup locks.
    private let shared = normcache_lookup_table_make()
    /// The key of each thread's record in `shared`; nil when the process has no key
    /// left (`PTHREAD_KEYS_MAX`), and every lookup locks.
    private let recordKey: pthread_key_t?

    /// A table whose slots `lock` guards.
    init(name: String, boundToProcess: Bool, lock: Mutex) {
        self.name = name
        self.boundToProcess = boundToProcess
        self.lock = lock
        var key = pthread_key_t()
        // A table lives as long as the process: its key is never deleted.
        let made = pthread_key_create(&key) { record in
            if let record { normcache_lookup_leave(record) }
        }
        recordKey = made == 0 ? key : nil
    }

    /// Registers an object and returns its handle.
    func register(_ object: Object) throws(NormCacheError) -> OpaquePointer {
        let handle: UInt? = lock.withLock {
            let index: Int
            if let free = slots.firstIndex(where: { $0.object == nil }) {
                index = free
            } else {
                guard slots.count < (1 << Self.slotBits) - 1 else { return nil }
                slots.append(Slot(generation: 0, object: nil))
                index = slots.count - 1
            }
            slots[index].generation = (slots[index].generation + 1) & Self.generationMask
            slots[index].object = object
            slots[index].forkGeneration = ForkSafety.generation
            return UInt(index + 1) | UInt(slots[index].generation) << UInt(Self.slotBits)
        }
        guard let handle, let pointer = OpaquePointer(bitPattern: handle) else {
            throw NormCacheError(.outOfMemory, "too many open \(name)s")
        }
        return pointer
    }

    /// The live object of a handle registered in this process.
    func object(_ handle: OpaquePointer?) throws(NormCacheError) -> Object {
        let forkGeneration = ForkSafety.generation
        let record = threadRecord()
        if let shared, let record, let object = normcache_lookup_again(shared, record, UInt(bitPattern: handle), forkGeneration) {
            return Unmanaged<Object>.fromOpaque(object).takeRetainedValue()
        }
        // Read before the slot: a handle that leaves after it leaves the lookup behind.
        let removals = shared.map { normcache_lookup_removals($0) } ?? 0
        lock.lock()
        let slot = Self.find(handle, in: slots).map { slots[$0] }
        lock.unlock()
        guard let slot, let object = slot.object else { throw invalid(handle) }
        guard !boundToProcess || slot.forkGeneration == forkGeneration else {
            throw NormCacheError(.invalidArgument, "the \(name) was opened before fork() by the parent process: open the cache again in this process")
        }
        if let record {
            normcache_lookup_remember(record, UInt(bitPattern: handle), removals, forkGeneration,
                                      Unmanaged.passUnretained(object).toOpaque())
        }
        return object
    }

    /// The calling thread's record in `shared`, claimed on its first lookup; nil when
    /// memory for it cannot be had.
    private func threadRecord() -> UnsafeMutablePointer<normcache_lookup_record>? {
        guard let recordKey else { return nil }
        if let record = pthread_getspecific(recordKey) { return record.assumingMemoryBound(to: normcache_lookup_record.self) }
        guard let shared, let record = normcache_lookup_claim(shared) else { return nil }
        guard pthread_setspecific(recordKey, record) == 0 else {
            normcache_lookup_leave(record)
            return nil
        }
        return record
    }

    /// Counts the removal of `object`'s handle, after its slot let go of it, and waits
    /// for the threads retaining it through their last lookup; the caller holds it.
    private func removed(_ object: Object) {
        guard let shared else { return }
        normcache_lookup_removed(shared, Unmanaged.passUnretained(object).toOpaque(), ForkSafety.generation)
    }

    /// Removes a handle from the table and returns its object, for closing.
    func unregister(_ handle: OpaquePointer?) throws(NormCacheError) -> Object {
        let object: Object? = lock.withLock {
            guard let index = Self.find(handle, in: slots) else { return nil }
            defer { slots[index].object = nil }
            return slots[index].object
        }
        guard let object else { throw invalid(handle) }
        removed(object)
        return object
    }

    /// Closes the object of a handle with `close` (false when it was already closed),
    /// then removes the handle from the table. The handle stays valid while `close`
    /// runs, which may wait: the thread whose transaction the close waits for ends it
    /// through the handle.
    func remove(_ handle: OpaquePointer?, closing close: (Object) -> Bool) throws(NormCacheError) {
        let object: Object? = lock.withLock { Self.find(handle, in: slots).flatMap { slots[$0].object } }
        guard let object, close(object) else { throw invalid(handle) }
        let left: Bool = lock.withLock {
            guard let index = Self.find(handle, in: slots), slots[index].object === object else { return false }
            slots[index].object = nil
            return true
        }
        if left { removed(object) }
    }

    private static func find(_ handle: OpaquePointer?, in slots: [Slot]) -> Int? {
        guard let handle else { return nil }
        let value = UInt(bitPattern: handle)
        let index = Int(value & ((1 << UInt(slotBits)) - 1)) - 1
        let generation = UInt64(value >> UInt(slotBits))
        guard index >= 0, index < slots.count, slots[index].object != nil, slots[index].generation == generation else { return nil }
        return index
    }

    private func invalid(_ handle: OpaquePointer?) -> NormCacheError {
        guard handle != nil else { return NormCacheError(.invalidArgument, "the \(name) is NULL") }
        return NormCacheError(.invalidArgument, "the \(name) is closed or was never opened")
    }
}

/// The open caches.
let caches = HandleTable<NormalizedCache>(name: "cache handle", boundToProcess: true, lock: ForkSafety.locks.cacheHandles)
/// The prepared operations: plain values, usable in a child process with a handle it opens.
let operations = HandleTable<PreparedOperation>(name: "operation handle", boundToProcess: false,
                                                lock: ForkSafety.locks.operationHandles)
