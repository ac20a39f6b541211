import NormCache
import Synchronization

/// The open caches behind `normcache*` handles.
///
/// A handle is not a pointer to memory: it encodes a slot of this table and the
/// slot's generation, so a closed, doubly closed or made-up handle is recognised and
/// refused (`NORMCACHE_EINVAL`) instead of being dereferenced.
enum HandleTable {
    private struct Slot {
        var generation: UInt64
        var cache: NormalizedCache?
    }

    private static let slotBits = 24
    /// Generations count modulo 2^40, the bits of a handle above the slot index.
    private static let generationMask: UInt64 = (1 << 40) - 1
    private static let slots = Mutex<[Slot]>([])

    /// Registers an open cache and returns its handle.
    static func register(_ cache: NormalizedCache) throws(NormCacheError) -> OpaquePointer {
        let handle: UInt? = slots.withLock { slots in
            let index: Int
            if let free = slots.firstIndex(where: { $0.cache == nil }) {
                index = free
            } else {
                guard slots.count < (1 << slotBits) - 1 else { return nil }
                slots.append(Slot(generation: 0, cache: nil))
                index = slots.count - 1
            }
            slots[index].generation = (slots[index].generation + 1) & generationMask
            slots[index].cache = cache
            return UInt(index + 1) | UInt(slots[index].generation) << UInt(slotBits)
        }
        guard let handle, let pointer = OpaquePointer(bitPattern: handle) else {
            cache.close()
            throw NormCacheError(.outOfMemory, "too many open caches")
        }
        return pointer
    }

    /// The open cache of a handle.
    static func cache(_ handle: OpaquePointer?) throws(NormCacheError) -> NormalizedCache {
        guard let cache = slots.withLock({ slots in find(handle, in: slots).map { slots[$0].cache } ?? nil }) else {
            throw invalid(handle)
        }
        return cache
    }

    /// Removes a handle from the table and returns its cache, for closing.
    static func unregister(_ handle: OpaquePointer?) throws(NormCacheError) -> NormalizedCache {
        let cache: NormalizedCache? = slots.withLock { slots in
            guard let index = find(handle, in: slots) else { return nil }
            defer { slots[index].cache = nil }
            return slots[index].cache
        }
        guard let cache else { throw invalid(handle) }
        return cache
    }

    private static func find(_ handle: OpaquePointer?, in slots: [Slot]) -> Int? {
        guard let handle else { return nil }
        let value = UInt(bitPattern: handle)
        let index = Int(value & ((1 << UInt(slotBits)) - 1)) - 1
        let generation = UInt64(value >> UInt(slotBits))
        guard index >= 0, index < slots.count, slots[index].cache != nil, slots[index].generation == generation else { return nil }
        return index
    }

    private static func invalid(_ handle: OpaquePointer?) -> NormCacheError {
        guard handle != nil else { return NormCacheError(.invalidArgument, "the cache handle is NULL") }
        return NormCacheError(.invalidArgument, "the cache handle is closed or was never opened")
    }
}
