import Testing
@testable import NormCache

/// The reader table as `mdb_reader_list` prints it, and when a writer checks it for
/// dead readers (`StaleReaderSchedule`).
@Suite struct ReaderTableTests {
    @Test func slotsAndTheOldestSnapshotComeFromTheLines() {
        var table = ReaderTable()
        for line in ["    pid     thread     txnid\n", "      4242 7f00aa 17\n", "      4243 7f00bb -\n", "      4244 7f00cc 12\n"] {
            line.withCString { table.add(line: $0) }
        }
        // The slot of 4243 is kept between reads: taken, but not reading.
        #expect(table.slotsTaken == 3)
        #expect(table.reading == 2)
        #expect(table.oldestSnapshot == 12)
    }

    @Test func noActiveReadersIsAnEmptyTable() {
        var table = ReaderTable()
        "(no active readers)\n".withCString { table.add(line: $0) }
        #expect(table.slotsTaken == 0)
        #expect(table.reading == 0)
        #expect(table.oldestSnapshot == nil)
    }

    @Test func aCheckIsDueFirstAndWheneverThePagesGrew() {
        var schedule = StaleReaderSchedule()
        let due = [10, 11, 40].map { schedule.isDue(pages: $0) }
        #expect(due == [true, true, true])
    }
}
