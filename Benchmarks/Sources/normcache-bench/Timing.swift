import Glibc

/// The monotonic clock, in seconds.
func monotonicSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// The seconds `body` takes.
func timed(_ body: () throws -> Void) rethrows -> Double {
    let start = monotonicSeconds()
    try body()
    return monotonicSeconds() - start
}

/// The values of one measure over its runs (seconds, or bytes for sizes).
struct Series {
    /// One value per run, in run order.
    var values: [Double] = []

    /// The middle value (the mean of the middle two for an even count).
    var median: Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The smallest value.
    var min: Double { values.min() ?? .nan }
    /// The largest value.
    var max: Double { values.max() ?? .nan }

    /// (max − min) / median: how far apart the runs were.
    var spread: Double { median > 0 ? (max - min) / median : 0 }

    /// Adds the value of one run.
    mutating func append(_ value: Double) { values.append(value) }
}

/// The element-wise sum of two series of equal length (a baseline made of two steps).
func + (left: Series, right: Series) -> Series {
    Series(values: zip(left.values, right.values).map { $0 + $1 })
}
