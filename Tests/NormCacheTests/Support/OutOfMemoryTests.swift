import Glibc
import Testing
@testable import NormCache

/// Allocation failure in the blocks of the hot paths: an allocation of an exabyte, which
/// malloc refuses, fails with `.outOfMemory` naming the bytes and the work, and leaves
/// the block as it was. (tests/c/test_out_of_memory.c does the same through the C
/// interface under an address-space limit.) In the checked build, the checks stop the
/// process and the pool of the process keeps nothing.
@Suite struct OutOfMemoryTests {
    /// More bytes than any machine has: malloc answers NULL at once.
    static let exabyte = 1 << 60

    @Test func aByteBufferThatCannotGrowFailsAndTakesNoMore() {
        var buffer = ByteBuffer()
        buffer.append("abc")
        #expect(buffer.reserve(Self.exabyte) == nil)
        let expected = NormCacheError(.outOfMemory, "out of memory: could not allocate \(3 + Self.exabyte) bytes while testing")
        #expect(throws: expected) { try buffer.check(while: "testing") }
        // Later bytes are dropped, even those that would fit: the bytes held are a prefix.
        buffer.append(UInt8(ascii: "d"))
        buffer.appendUInt32(7)
        #expect(buffer.count == 3)
        #expect(throws: expected) { try buffer.takeAll().takeBlock(while: "testing") }
    }

    @Test func aByteBufferMadeTooLargeFailsFromTheStart() {
        let buffer = ByteBuffer(capacity: Self.exabyte)
        #expect(buffer.count == 0 && buffer.capacity == 0)
        #expect(throws: NormCacheError(.outOfMemory, "out of memory: could not allocate \(Self.exabyte) bytes while testing")) {
            try buffer.check(while: "testing")
        }
    }

    @Test func aPlainArrayThatCannotGrowThrowsAndKeepsItsElements() throws {
        var array = PlainArray<Int>()
        try array.reserve(2, while: "testing")
        array.append(1)
        array.append(2)
        let elements = Self.exabyte / MemoryLayout<Int>.stride
        #expect(throws: NormCacheError(.outOfMemory, "out of memory: could not allocate \((2 + elements) * MemoryLayout<Int>.stride) bytes while testing")) {
            try array.reserve(elements, while: "testing")
        }
        #expect(array.count == 2 && array[0] == 1 && array[1] == 2)
    }

    @Test func aHashTableThatCannotGrowStaysAsItWas() throws {
        var table = HashSlots<Int>()
        #expect(try table.double(minimum: 4, empty: -1) == nil)
        table[3] = 7
        #expect(throws: NormCacheError(.outOfMemory, "out of memory: could not allocate \(Self.exabyte) bytes while growing a hash table")) {
            try table.double(minimum: Self.exabyte / MemoryLayout<Int>.stride, empty: -1)
        }
        #expect(table.count == 4 && table[3] == 7)
    }

    @Test func aPoolThatKeepsNothingFreesEveryBlock() throws {
        let pool = BlockPool(keepsBlocks: false)
        let (block, capacity) = try #require(pool.reallocate(nil, used: 0, capacity: 0, to: BlockPool.minimumBlock))
        pool.release(block, capacity: capacity)
        #expect(pool.kept.ready == 0 && pool.kept.reclaimable == 0)
        #expect(pool.reallocate(nil, used: 0, capacity: 0, to: Self.exabyte) == nil)
    }

    #if NORMCACHE_INTERNAL_CHECKS
    @Test func theCheckedBuildStopsAtAnIndexOutOfBounds() async {
        await #expect(processExitsWith: .failure) {
            var array = PlainArray<Int>()
            array.append(1)
            _ = array[1]
        }
        await #expect(processExitsWith: .failure) {
            let pointer: UnsafeRawPointer? = nil
            _ = pointer.assumedPresent
        }
        await #expect(processExitsWith: .failure) {
            var buffer = ByteBuffer()
            _ = buffer.reserve(4)
            buffer.advance(by: 65)
        }
    }

    @Test func theCheckedBuildKeepsNoBlocks() {
        #expect(BlockPool.shared.kept.ready == 0 && BlockPool.shared.kept.reclaimable == 0)
    }
    #endif
}
