/// An SVG chart: for each figure with a baseline, normcache's median against the
/// baseline's as two bars scaled to the larger, with the ratio and target beside them.
struct Chart {
    /// The figures; those without a baseline are left out.
    var figures: [Figure]
    /// The machine, for the caption.
    var machine: String

    /// The chart as an SVG document.
    var svg: String {
        let shown = figures.filter { $0.baseline != nil }
        let rowHeight = 34, top = 50, labelWidth = 430, barWidth = 360
        let height = top + rowHeight * shown.count + 30
        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(labelWidth + barWidth + 260)" height="\(height)" \
            font-family="sans-serif" font-size="11">
            <rect width="100%" height="100%" fill="white"/>
            <text x="10" y="18" font-size="14" font-weight="bold">normcache against its baselines (median of each; shorter is better)</text>
            <text x="10" y="36" fill="#555">\(escape(machine)) — blue: normcache, grey: baseline measured in the same run</text>

            """
        for (row, figure) in shown.enumerated() {
            let baseline = figure.baseline!.median, value = figure.normcache.median
            let largest = Swift.max(baseline, value, .leastNonzeroMagnitude)
            let y = top + row * rowHeight
            let target = figure.target?.text(in: figure.unit) ?? ""
            let verdict = figure.met.map { $0 ? " ✓ target \(target)" : " ✗ target \(target)" } ?? ""
            out += """
                <text x="10" y="\(y + 12)">\(escape(figure.workload + ": " + figure.measure))</text>
                <text x="10" y="\(y + 25)" fill="#555">vs \(escape(figure.baselineName ?? ""))</text>
                <rect x="\(labelWidth)" y="\(y + 2)" width="\(Int(Double(barWidth) * value / largest))" height="12" fill="#2b6cb0"/>
                <rect x="\(labelWidth)" y="\(y + 16)" width="\(Int(Double(barWidth) * baseline / largest))" height="12" fill="#a0aec0"/>
                <text x="\(labelWidth + barWidth + 8)" y="\(y + 12)">\(escape(formatValue(value, figure.unit))) vs \(escape(formatValue(baseline, figure.unit)))</text>
                <text x="\(labelWidth + barWidth + 8)" y="\(y + 25)" fill="\(figure.met.map { $0 ? "#2f855a" : "#c53030" } ?? "#555")">\(format(figure.ratio ?? .nan))×\(escape(verdict))</text>

                """
        }
        return out + "</svg>\n"
    }

    private func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }
}
