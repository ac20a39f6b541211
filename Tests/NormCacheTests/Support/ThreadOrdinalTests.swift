import Glibc
import Testing
@testable import NormCache

/// `ThreadOrdinal`: a number each thread keeps, handed out in the order threads ask.
@Suite struct ThreadOrdinalTests {
    @Test func aThreadKeepsItsNumberAndALaterThreadGetsALargerOne() {
        final class Seen: @unchecked Sendable { var numbers: [UInt] = [] }
        let mine = ThreadOrdinal.current
        #expect(ThreadOrdinal.current == mine)
        let seen = Seen()
        for _ in 0..<2 {
            let thread = startThread {
                seen.numbers.append(ThreadOrdinal.current)
                seen.numbers.append(ThreadOrdinal.current)
            }
            pthread_join(thread, nil)
        }
        #expect(seen.numbers.count == 4)
        #expect(seen.numbers[0] == seen.numbers[1])
        #expect(seen.numbers[2] == seen.numbers[3])
        #expect(seen.numbers[2] > seen.numbers[0])
        #expect(!seen.numbers.contains(mine))
    }
}
