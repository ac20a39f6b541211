/// A target of the table: a ratio bound, or an absolute bound on the value.
struct Target {
    /// What the bound applies to.
    enum Kind {
        /// normcache's median ÷ the baseline's median must be at most `bound` (and above 0:
        /// a median at or below 0, a difference of two timings lost in noise, is no ratio).
        case ratioAtMost
        /// the baseline's median ÷ normcache's median (a speed-up) must be at least `bound`.
        case speedupAtLeast
        /// normcache's median must be below `bound` (in the figure's unit).
        case valueBelow
    }

    /// What the bound applies to.
    var kind: Kind
    /// The bound.
    var bound: Double

    /// The target as the table prints it, a bound on a value in `unit`: "≤ 1.5×", "≥ 5×",
    /// "< 5 ms", "< 5 µs", "< 1.2 MB".
    func text(in unit: FigureUnit) -> String {
        switch kind {
        case .ratioAtMost: return "≤ \(format(bound))×"
        case .speedupAtLeast: return "≥ \(format(bound))×"
        case .valueBelow: return "< " + formatValue(bound, unit)
        }
    }
}

/// The unit of a figure's values.
enum FigureUnit: String {
    /// Seconds per run.
    case seconds
    /// Bytes (file sizes, memory).
    case bytes
}

/// One line of the results: normcache's runs of a measure, the baseline measured in
/// the same run, and the target that applies.
struct Figure {
    /// The workload ("feed", "groups", ...).
    var workload: String
    /// The measure within the workload ("write cold N=10000").
    var measure: String
    /// The unit of `normcache` and `baseline`.
    var unit: FigureUnit = .seconds
    /// normcache's values, one per run.
    var normcache: Series
    /// Objects handled per run (records, keys, writes), for objects/s; 0 when none apply.
    var objects: Int = 0
    /// Bytes handled per run (response or output), for MB/s; 0 when none apply.
    var bytes: Int = 0
    /// The baseline's name, when there is one.
    var baselineName: String? = nil
    /// The baseline's values, one per run, measured interleaved with normcache's.
    var baseline: Series? = nil
    /// The target of the issue that this figure checks, when there is one.
    var target: Target? = nil
    /// Whether the ratio is a speed-up (baseline ÷ normcache) even without a target.
    var reportsSpeedup = false

    /// normcache ÷ baseline, or baseline ÷ normcache for a speed-up.
    var ratio: Double? {
        guard let baseline else { return nil }
        if reportsSpeedup || target?.kind == .speedupAtLeast { return baseline.median / normcache.median }
        return normcache.median / baseline.median
    }

    /// Whether the target is met; nil without a target.
    var met: Bool? {
        guard let target else { return nil }
        switch target.kind {
        case .ratioAtMost: return ratio.map { $0 > 0 && $0 <= target.bound }
        case .speedupAtLeast: return ratio.map { $0 >= target.bound }
        case .valueBelow: return normcache.median < target.bound
        }
    }

    /// Objects per second at the median, when the figure counts objects.
    var objectsPerSecond: Double? {
        unit == .seconds && objects > 0 ? Double(objects) / normcache.median : nil
    }

    /// Megabytes (10⁶ bytes) per second at the median, when the figure counts bytes.
    var megabytesPerSecond: Double? {
        unit == .seconds && bytes > 0 ? Double(bytes) / 1e6 / normcache.median : nil
    }
}

/// A number with up to three significant decimals, without trailing zeros.
func format(_ value: Double) -> String {
    guard value.isFinite else { return "-" }
    let magnitude = Swift.abs(value)
    let decimals = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : magnitude >= 1 ? 2 : 3
    var text = String(Double(Int((value * pow10(decimals)).rounded())) / pow10(decimals))
    if text.hasSuffix(".0") { text.removeLast(2) }
    return text
}

private func pow10(_ exponent: Int) -> Double {
    (0..<exponent).reduce(1.0) { result, _ in result * 10 }
}

/// A value in its unit, readably: "12.3 ms", "4.1 MB".
func formatValue(_ value: Double, _ unit: FigureUnit) -> String {
    switch unit {
    case .seconds:
        if value >= 1 { return "\(format(value)) s" }
        if value >= 1e-3 { return "\(format(value * 1e3)) ms" }
        return "\(format(value * 1e6)) µs"
    case .bytes:
        if value >= 1e9 { return "\(format(value / 1e9)) GB" }
        if value >= 1e6 { return "\(format(value / 1e6)) MB" }
        return "\(format(value / 1e3)) kB"
    }
}
