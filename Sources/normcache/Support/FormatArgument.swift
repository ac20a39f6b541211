import ArgumentParser
import NormCache

/// The value of `--from` and `--to`: a format by its name, apollo-client or apollo-ios.
struct FormatArgument: ExpressibleByArgument {
    /// The format named.
    let format: InterchangeFormat

    init?(argument: String) {
        guard let format = InterchangeFormat.allCases.first(where: { $0.name == argument }) else { return nil }
        self.format = format
    }

    static var allValueStrings: [String] { InterchangeFormat.allCases.map(\.name) }

    var defaultValueDescription: String { format.name }
}
