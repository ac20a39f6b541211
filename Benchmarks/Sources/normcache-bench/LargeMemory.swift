/// The large workload's memory figures, a value per run of its child process
/// (`ChildModes` "large-memory"): peaks from the process's start, before it read the
/// response.
struct LargeMemory {
    /// The peak over the write and the read.
    var peak = Series()
    /// The larger of the two floors below.
    var floor = Series()
    /// The peak while writing.
    var writePeak = Series()
    /// The response plus the write's dirty pages.
    var writeFloor = Series()
    /// The peak while reading, after the write.
    var readPeak = Series()
    /// The response plus the file pages the read mapped plus its output.
    var readFloor = Series()
    /// What stayed resident after the write returned.
    var kept = Series()
    /// The write's dirty pages: the pages it added to the new file.
    var dirty = Series()

    /// Adds the run that `child` reported, for a response of `responseBytes` bytes.
    mutating func append(_ child: [String: Any], response responseBytes: Int) throws {
        func value(_ key: String) throws -> Double {
            guard let value = child[key] as? Double else { throw BenchError("the large-memory child gave no \(key)") }
            return value
        }
        let start = try value("start_bytes")
        let response = Double(responseBytes)
        let written = try value("written_bytes")
        let floorOfWrite = response + written
        let floorOfRead = response + (try value("mapped_bytes")) + (try value("output_bytes"))
        peak.append(try value("peak_bytes") - start)
        writePeak.append(try value("write_peak_bytes") - start)
        readPeak.append(try value("read_peak_bytes") - start)
        writeFloor.append(floorOfWrite)
        readFloor.append(floorOfRead)
        floor.append(max(floorOfWrite, floorOfRead))
        kept.append(try value("kept_bytes"))
        dirty.append(written)
    }
}
