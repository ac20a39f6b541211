import Testing
@testable import NormCache

/// Field storage keys exactly as Apollo iOS writes them (DESIGN.md, "Field storage key").
@Suite struct FieldStorageKeyTests {
    func key(_ field: String, variables: String = "", declared: String = "") throws -> String {
        let document = try GraphQLParser.parseExecutable(Array("query Q\(declared) { \(field) }".utf8))
        guard case .operation(let operation) = document.definitions[0], case .field(let parsed) = operation.selections[0] else {
            throw NormCacheError(.document, "no field")
        }
        // Variables borrow their JSON: the key is made while the bytes live.
        return try variables.withUTF8Bytes { (bytes) throws(NormCacheError) in
            FieldStorageKey.make(name: parsed.name, arguments: parsed.arguments,
                                 variables: try Variables(json: bytes, declared: operation.variables))
        }
    }

    @Test func apolloFormats() throws {
        #expect(try key("hero") == "hero")
        #expect(try key("alias: hero") == "hero")
        #expect(try key("hero(episode: JEDI)") == "hero(episode:JEDI)")
        #expect(try key(#"hero(name: "R2", episode: JEDI)"#) == "hero(episode:JEDI,name:R2)")
        #expect(try key("hero(nested: {foo: 1, bar: 2})") == "hero([nested:bar:2,foo:1])")
        #expect(try key("hero(review: {stars: 4, review: {red: 9, color: {red: 9, blue: 7}}})")
            == "hero([review:[review:[color:blue:7,red:9],red:9],stars:4])")
        #expect(try key("hero(episodes: [1, 1, 2])") == "hero(episodes:[1, 1, 2])")
        #expect(try key(#"hero(reviews: [{stars: 1, commentary: "x"}, {stars: 2}])"#) == "hero(reviews:[stars:1,commentary:x,stars:2])")
        #expect(try key("hero(a: null, b: [1, null])") == "hero(a:null,b:[1, <null>])")
        #expect(try key("hero(f: 1.50, g: 2.0, h: 1e3, t: true)") == "hero(f:1.5,g:2.0,h:1000.0,t:true)")
    }

    @Test func variablesAndDefaults() throws {
        #expect(try key("hero(episode: $e)", variables: #"{"e": "EMPIRE"}"#, declared: "($e: Episode)") == "hero(episode:EMPIRE)")
        #expect(try key("hero(episode: $e)", declared: "($e: Episode = JEDI)") == "hero(episode:JEDI)")
        #expect(try key("hero(episode: $e, n: 1)", declared: "($e: Episode)") == "hero(n:1)")
        #expect(try key("hero(episode: $e)", declared: "($e: Episode)") == "hero")
        #expect(try key("hero(ints: [$missing, 5])", declared: "($missing: Int)") == "hero(ints:[5])")
        #expect(try key("hero(o: {a: $missing, b: 1})", declared: "($missing: Int)") == "hero([o:b:1])")
        #expect(try key("hero(o: $o)", variables: #"{"o": {"z": [1, 2.5], "a": {"y": null, "x": "s"}}}"#, declared: "($o: In)")
            == "hero([o:[a:x:s,y:null],z:[1, 2.5]])")
        #expect(try key("hero(e: $e)", variables: #"{"e": null}"#, declared: "($e: Episode = JEDI)") == "hero(e:null)")
    }
}
