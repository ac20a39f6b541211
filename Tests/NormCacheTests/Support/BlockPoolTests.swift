import Glibc
import Testing
@testable import NormCache

/// The pool of large blocks kept between calls: its two tiers, their bounds, when the
/// reclaimable tier keeps blocks, and how they leave.
@Suite struct BlockPoolTests {
    /// A clock the test moves by hand.
    final class ManualClock: @unchecked Sendable {
        var milliseconds: UInt64 = 1_000
    }

    /// More than the ready tier keeps of one block.
    static let overReady = BlockPool.maximumReady + (1 << 20)

    /// A block of `bytes` from `pool`, written whole: it holds all its pages, and the
    /// pool counts all of them.
    static func written(_ pool: BlockPool, _ bytes: Int) throws -> (UnsafeMutableRawPointer, Int) {
        let (block, capacity) = try #require(pool.reallocate(nil, used: 0, capacity: 0, to: bytes))
        memset(block, 0x5A, capacity)
        return (block, capacity)
    }

    /// Arms `pool`'s reclaimable tier (a block of `overReady` freed, then wanted again)
    /// and returns the block it keeps there, written whole.
    static func keptReclaimable(_ pool: BlockPool) throws -> UnsafeMutableRawPointer {
        let (first, firstCapacity) = try written(pool, overReady)
        pool.release(first, capacity: firstCapacity)
        let (second, secondCapacity) = try written(pool, overReady)
        pool.release(second, capacity: secondCapacity)
        #expect(pool.kept == (0, 0, 1, overReady))
        return second
    }

    @Test func theReadyTierKeepsLargeBlocksWithinItsBounds() throws {
        let pool = BlockPool()
        // A small block is freed, not kept; a large one is given back for the next request.
        let (small, smallCapacity) = try #require(pool.reallocate(nil, used: 0, capacity: 0, to: 1024))
        pool.release(small, capacity: smallCapacity)
        #expect(pool.kept == (0, 0, 0, 0))
        let (large, largeCapacity) = try #require(pool.reallocate(nil, used: 0, capacity: 0, to: BlockPool.minimumBlock))
        large.storeBytes(of: 42, as: UInt8.self)
        pool.release(large, capacity: largeCapacity)
        #expect(pool.kept == (1, BlockPool.minimumBlock, 0, 0))
        let (again, againCapacity) = try #require(pool.reallocate(nil, used: 0, capacity: 0, to: BlockPool.minimumBlock))
        #expect(again == large)
        #expect(againCapacity == largeCapacity)
        // Growing a block keeps what it holds, whether it is reallocated or swapped for a kept one.
        again.storeBytes(of: 7, toByteOffset: 100, as: UInt8.self)
        let (grown, grownCapacity) = try #require(pool.reallocate(again, used: 101, capacity: againCapacity, to: 4 * BlockPool.minimumBlock))
        #expect(grown.load(fromByteOffset: 100, as: UInt8.self) == 7)
        #expect(grownCapacity == 4 * BlockPool.minimumBlock)
        // More than the tier may keep: the oldest go, and, while the reclaimable tier keeps
        // nothing, they are freed.
        let held = try (0..<(BlockPool.maximumReadyBlocks + 3)).map { _ in try #require(pool.reallocate(nil, used: 0, capacity: 0, to: BlockPool.minimumBlock)) }
        for (block, capacity) in held { pool.release(block, capacity: capacity) }
        pool.release(grown, capacity: grownCapacity)
        #expect(pool.kept == (BlockPool.maximumReadyBlocks, 7 * BlockPool.minimumBlock + grownCapacity, 0, 0))
        #expect(pool.releaseAll() == 7 * BlockPool.minimumBlock + grownCapacity)
        #expect(pool.kept == (0, 0, 0, 0))
        #expect(pool.releaseAll() == 0)
    }

    @Test func theTiersCountWhatABlockHoldsNotItsCapacity() throws {
        let clock = ManualClock()
        let pool = BlockPool(clock: { clock.milliseconds })
        // A block reserved for more than the reclaimable tier may hold (as a tape is, for
        // the most tokens its document could have), of which a megabyte was written: it
        // holds that, give or take a page (or a huge page, where the kernel makes them),
        // and the ready tier keeps it.
        let reserved = BlockPool.maximumReclaimable + Self.overReady
        let (tape, tapeCapacity) = try #require(pool.reallocate(nil, used: 0, capacity: 0, to: reserved))
        memset(tape, 1, 1 << 20)
        pool.release(tape, capacity: tapeCapacity)
        let held = pool.kept
        #expect(held.readyBlocks == 1 && held.ready >= 1 << 20 && held.ready <= 5 << 20 && held.reclaimableBlocks == 0)
        // Taken again and written to more than the ready tier keeps, it is freed for want
        // of room.
        let (again, againCapacity) = try #require(pool.reallocate(nil, used: 0, capacity: 0, to: reserved - 4096))
        #expect(again == tape && againCapacity == reserved)
        memset(again, 2, Self.overReady)
        pool.release(again, capacity: againCapacity)
        #expect(pool.kept == (0, 0, 0, 0))
        // Its size wanted again: the reclaimable tier keeps such blocks, counted by what
        // they hold, their capacity past its bound.
        let (next, nextCapacity) = try #require(pool.reallocate(nil, used: 0, capacity: 0, to: reserved))
        memset(next, 3, Self.overReady)
        pool.release(next, capacity: nextCapacity)
        let kept = pool.kept
        #expect(kept.readyBlocks == 0 && kept.reclaimableBlocks == 1)
        #expect(kept.reclaimable >= Self.overReady && kept.reclaimable <= Self.overReady + (4 << 20))
        #expect(pool.releaseAll() == kept.reclaimable)
    }

    @Test func aSizeWantedAgainIsJudgedByWhatTheFreedBlockHeld() throws {
        let clock = ManualClock()
        let pool = BlockPool(clock: { clock.milliseconds })
        // A block reserved far beyond its use (a tape), kept ready for the megabyte it
        // holds, serves the next want it fits: a result of more than the ready tier
        // keeps, written whole, and then freed for want of room.
        let (tape, tapeCapacity) = try #require(pool.reallocate(nil, used: 0, capacity: 0, to: 4 * Self.overReady))
        memset(tape, 1, 1 << 20)
        pool.release(tape, capacity: tapeCapacity)
        let (result, resultCapacity) = try #require(pool.reallocate(nil, used: 0, capacity: 0, to: Self.overReady))
        #expect(result == tape)
        memset(result, 2, Self.overReady)
        pool.release(result, capacity: resultCapacity)
        #expect(pool.kept == (0, 0, 0, 0))
        // The result's size wanted again, a quarter of that block's capacity but what it
        // held: a size that comes again, kept from now on.
        let (again, againCapacity) = try Self.written(pool, Self.overReady)
        pool.release(again, capacity: againCapacity)
        #expect(pool.kept == (0, 0, 1, Self.overReady))
    }

    @Test func theReclaimableTierKeepsBlocksOnceOneFreedIsWantedAgain() throws {
        let clock = ManualClock()
        let pool = BlockPool(clock: { clock.milliseconds })
        // One large call: its block is freed, as malloc would free it.
        let (first, firstCapacity) = try Self.written(pool, Self.overReady)
        pool.release(first, capacity: firstCapacity)
        #expect(pool.kept == (0, 0, 0, 0))
        // The same size wanted again within the lifetime: from now on such blocks are kept,
        // their pages marked MADV_FREE, and the next call gets the same block.
        clock.milliseconds += BlockPool.reclaimableLifetime - 1
        let (second, secondCapacity) = try Self.written(pool, Self.overReady)
        pool.release(second, capacity: secondCapacity)
        #expect(pool.kept == (0, 0, 1, Self.overReady))
        let (third, thirdCapacity) = try #require(pool.reallocate(nil, used: 0, capacity: 0, to: Self.overReady - 4096))
        #expect(third == second && thirdCapacity == Self.overReady)
        #expect(pool.kept == (0, 0, 0, 0))
        // Its pages, given to the kernel, can be written again whole.
        memset(third, 0xA5, thirdCapacity)
        #expect(third.load(fromByteOffset: thirdCapacity - 1, as: UInt8.self) == 0xA5)
        pool.release(third, capacity: thirdCapacity)
        // Unused for the lifetime, it is freed at the pool's next use.
        clock.milliseconds += BlockPool.reclaimableLifetime
        let (small, smallCapacity) = try #require(pool.reallocate(nil, used: 0, capacity: 0, to: BlockPool.minimumBlock))
        #expect(pool.kept == (0, 0, 0, 0))
        pool.release(small, capacity: smallCapacity)
        // And the tier keeps nothing again until a block freed is wanted again.
        let (fourth, fourthCapacity) = try Self.written(pool, Self.overReady)
        pool.release(fourth, capacity: fourthCapacity)
        #expect(pool.kept == (1, BlockPool.minimumBlock, 0, 0))
    }

    @Test func takingAReclaimableBlockKeepsTheTierKeepingBlocks() throws {
        let clock = ManualClock()
        let pool = BlockPool(clock: { clock.milliseconds })
        // A size wanted again: the tier keeps blocks for its lifetime.
        let second = try Self.keptReclaimable(pool)
        // Taken again and again, each time nearly a lifetime later (the same large read
        // every few seconds): every time it is kept, long after the lifetime that the
        // first want again began.
        for _ in 0..<3 {
            clock.milliseconds += BlockPool.reclaimableLifetime - 1
            let (again, againCapacity) = try #require(pool.reallocate(nil, used: 0, capacity: 0, to: Self.overReady))
            #expect(again == second)
            memset(again, 4, againCapacity)
            pool.release(again, capacity: againCapacity)
            #expect(pool.kept == (0, 0, 1, Self.overReady))
        }
    }

    @Test func aReclaimableBlockServesOnlyWantsOfAtLeastHalfWhatItHeld() throws {
        let clock = ManualClock()
        let pool = BlockPool(clock: { clock.milliseconds })
        let kept = try Self.keptReclaimable(pool)
        // A much smaller want (a small put's tape after large writes) gets a block of its
        // own, and the kept one stays kept.
        let (small, smallCapacity) = try #require(pool.reallocate(nil, used: 0, capacity: 0, to: BlockPool.minimumBlock))
        #expect(small != kept)
        #expect(pool.kept == (0, 0, 1, Self.overReady))
        pool.release(small, capacity: smallCapacity)
        #expect(pool.kept == (1, BlockPool.minimumBlock, 1, Self.overReady))
        // A want of half what it held takes it, and keeps the tier keeping blocks.
        clock.milliseconds += BlockPool.reclaimableLifetime - 1
        let (half, halfCapacity) = try #require(pool.reallocate(nil, used: 0, capacity: 0, to: Self.overReady / 2))
        #expect(half == kept && halfCapacity == Self.overReady)
        pool.release(half, capacity: halfCapacity)
        // Small wants take the ready block; a lifetime after its last use, the
        // reclaimable block leaves at the pool's next use.
        clock.milliseconds += BlockPool.reclaimableLifetime - 1
        let (again, againCapacity) = try #require(pool.reallocate(nil, used: 0, capacity: 0, to: BlockPool.minimumBlock))
        #expect(again == small)
        pool.release(again, capacity: againCapacity)
        #expect(pool.kept == (1, BlockPool.minimumBlock, 1, Self.overReady))
        clock.milliseconds += 1
        let (last, lastCapacity) = try #require(pool.reallocate(nil, used: 0, capacity: 0, to: BlockPool.minimumBlock))
        #expect(last == small)
        #expect(pool.kept == (0, 0, 0, 0))
        pool.release(last, capacity: lastCapacity)
    }

    @Test func aSmallerBlockWantedAfterALargeOneIsFreedKeepsNothing() throws {
        let clock = ManualClock()
        let pool = BlockPool(clock: { clock.milliseconds })
        // A write's tape freed, then its much smaller output wanted: no sign of a size
        // that comes again, so the tier keeps nothing.
        let (tape, tapeCapacity) = try Self.written(pool, 3 * Self.overReady)
        pool.release(tape, capacity: tapeCapacity)
        let (output, outputCapacity) = try Self.written(pool, Self.overReady)
        pool.release(output, capacity: outputCapacity)
        #expect(pool.kept == (0, 0, 0, 0))
        // The output's size wanted again (or up to half of it less): a size that comes
        // again, and kept from now on.
        let (again, againCapacity) = try Self.written(pool, BlockPool.maximumReady + 4096)
        pool.release(again, capacity: againCapacity)
        #expect(pool.kept == (0, 0, 1, BlockPool.maximumReady + 4096))
    }

    @Test func theReclaimableTierKeepsWithinItsBounds() throws {
        let clock = ManualClock()
        let pool = BlockPool(clock: { clock.milliseconds })
        let (primer, primerCapacity) = try Self.written(pool, Self.overReady)
        pool.release(primer, capacity: primerCapacity)
        let blocks = try (0...BlockPool.maximumReclaimableBlocks).map { _ in
            try Self.written(pool, Self.overReady)
        }
        for (block, capacity) in blocks { pool.release(block, capacity: capacity) }
        // Nine blocks of 33 MiB: the bytes bound (256 MiB) leaves seven, the oldest gone.
        let keptBlocks = BlockPool.maximumReclaimable / Self.overReady
        #expect(pool.kept == (0, 0, keptBlocks, keptBlocks * Self.overReady))
        // A block past the tier's bytes is never kept.
        let (huge, hugeCapacity) = try Self.written(pool, BlockPool.maximumReclaimable + 4096)
        pool.release(huge, capacity: hugeCapacity)
        #expect(pool.kept == (0, 0, keptBlocks, keptBlocks * Self.overReady))
        #expect(pool.releaseAll() == keptBlocks * Self.overReady)
        // Ready blocks pushed out of their tier become reclaimable while it keeps blocks.
        let ready = try (0...BlockPool.maximumReadyBlocks).map { _ in
            try #require(pool.reallocate(nil, used: 0, capacity: 0, to: BlockPool.minimumBlock))
        }
        for (block, capacity) in ready { pool.release(block, capacity: capacity) }
        let readyBytes = BlockPool.maximumReadyBlocks * BlockPool.minimumBlock
        #expect(pool.kept == (BlockPool.maximumReadyBlocks, readyBytes, 1, BlockPool.minimumBlock))
        #expect(pool.releaseAll() == readyBytes + BlockPool.minimumBlock)
    }
}
