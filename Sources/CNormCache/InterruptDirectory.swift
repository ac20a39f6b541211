import NormCache
import Synchronization

/// Where `normcache_interrupt` finds the interrupt flag of a cache handle without the
/// handle table's lock, which a signal handler must not take: an entry per slot of the
/// table (`HandleTable`), in chunks of 4096 that are made on first use and never freed,
/// holding the handle's value, the address of its flag's word and the word's
/// generation. Reading one is a few atomic loads, writing it is done by open and close.
///
/// A reader loads the handle, the flag and the handle again (as a seqlock reads): a
/// close, or a close and an open of the same slot, in between changes the handle it
/// sees, and it gives up. A flag read just before a close stays harmless: its word is
/// never freed, and once recycled it has another generation (`InterruptFlag`).
enum InterruptDirectory {
    private static var chunkBits: Int { 12 }
    private static var chunkSize: Int { 1 << chunkBits }
    private static var entryWords: Int { 3 }

    /// The chunks, by the high bits of a slot index; 0 where none is made yet. Shared
    /// through atomic operations only.
    nonisolated(unsafe) private static let chunks: UnsafeMutablePointer<Atomic<UInt>> = {
        let count = 1 << (HandleTable<NormalizedCache>.slotBits - chunkBits)
        let chunks = UnsafeMutablePointer<Atomic<UInt>>.allocate(capacity: count)
        for index in 0..<count { (chunks + index).initialize(to: Atomic(0)) }
        return chunks
    }()

    /// Records the flag of the cache `handle`, newly registered.
    static func publish(_ handle: OpaquePointer, _ flag: InterruptFlag) {
        guard let entry = entry(handle, making: true) else { return }
        let (word, generation) = flag.reference
        entry[1].store(word, ordering: .relaxed)
        entry[2].store(UInt(generation), ordering: .relaxed)
        entry[0].store(UInt(bitPattern: handle), ordering: .releasing)
    }

    /// Forgets the cache `handle`, before it is closed (an entry that holds another
    /// handle stays).
    static func withdraw(_ handle: OpaquePointer) {
        _ = entry(handle, making: false)?[0].compareExchange(expected: UInt(bitPattern: handle), desired: 0, ordering: .releasing)
    }

    /// The flag of the open cache `handle`, or nil; atomic loads only.
    static func flag(_ handle: OpaquePointer) -> InterruptFlag? {
        guard let entry = entry(handle, making: false) else { return nil }
        let value = UInt(bitPattern: handle)
        guard entry[0].load(ordering: .acquiring) == value else { return nil }
        let word = entry[1].load(ordering: .relaxed)
        let generation = entry[2].load(ordering: .relaxed)
        atomicMemoryFence(ordering: .acquiring)
        guard entry[0].load(ordering: .relaxed) == value else { return nil }
        return InterruptFlag(reference: (word, UInt64(generation)))
    }

    /// The three words of the entry of `handle`'s slot; its chunk is made when
    /// `making` (an open), and otherwise a missing chunk means no entry.
    private static func entry(_ handle: OpaquePointer, making: Bool) -> UnsafeMutablePointer<Atomic<UInt>>? {
        let slotMask = (UInt(1) << UInt(HandleTable<NormalizedCache>.slotBits)) - 1
        let slot = Int(UInt(bitPattern: handle) & slotMask) - 1
        guard slot >= 0 else { return nil }
        var chunk = chunks[slot >> chunkBits].load(ordering: .acquiring)
        if chunk == 0 {
            guard making else { return nil }
            chunk = makeChunk(at: slot >> chunkBits)
        }
        return UnsafeMutablePointer<Atomic<UInt>>(bitPattern: chunk).map { $0 + (slot & (chunkSize - 1)) * entryWords }
    }

    /// Makes the chunk `index`, or takes the one another thread made first.
    private static func makeChunk(at index: Int) -> UInt {
        let made = UnsafeMutablePointer<Atomic<UInt>>.allocate(capacity: chunkSize * entryWords)
        for word in 0..<chunkSize * entryWords { (made + word).initialize(to: Atomic(0)) }
        let (exchanged, current) = chunks[index].compareExchange(expected: 0, desired: UInt(bitPattern: made), ordering: .acquiringAndReleasing)
        guard exchanged else {
            made.deallocate()
            return current
        }
        return UInt(bitPattern: made)
    }
}
