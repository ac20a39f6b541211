import Testing
import GraphQL
@testable import NormCache

@Suite struct GraphQLOracleTests {
    @Test func placeholder() throws {
        _ = try GraphQL.parse(source: "{ a }")
        _ = try NormCache.GraphQLParser.parseExecutable(Array("{ a }".utf8))
    }
}
