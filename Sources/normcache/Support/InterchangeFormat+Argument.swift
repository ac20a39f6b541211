import ArgumentParser
import NormCache

/// `--from` and `--to` take a format by its name: apollo-client or apollo-ios.
extension InterchangeFormat: ExpressibleByArgument {
    public init?(argument: String) {
        guard let format = Self.allCases.first(where: { $0.name == argument }) else { return nil }
        self = format
    }

    public static var allValueStrings: [String] { allCases.map(\.name) }

    public var defaultValueDescription: String { name }
}
