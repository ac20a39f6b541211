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
        #expect(try key(#"hero(reviews: [{stars: 1, commentary: "x"}, {stars: 2}])"#) == "hero(reviews:[commentary:x,stars:1,stars:2])")
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

    /// Each input object in a list sorts its own pairs, at every depth, literal or variable.
    @Test func listsOfObjectsSortEachObject() throws {
        #expect(try key("hero(r: [{z: 1, a: {y: 2, b: 3}}, {m: [{q: 4, c: 5}], d: 6}])")
            == "hero(r:[[a:b:3,y:2],z:1,d:6,m:[c:5,q:4]])")
        #expect(try key("hero(r: [[{b: 1, a: 2}], [{d: 3, c: 4}]])") == "hero(r:[[a:2,b:1], [c:4,d:3]])")
        #expect(try key("hero(r: $r)", variables: #"{"r": [{"z": 1, "a": {"y": 2, "b": 3}}, {"m": [{"q": 4, "c": 5}], "d": 6}]}"#,
                        declared: "($r: [In])") == "hero(r:[[a:b:3,y:2],z:1,d:6,m:[c:5,q:4]])")
        #expect(try key("hero(o: {l: [{b: 1, a: 2}]})") == "hero([o:l:[a:2,b:1]])")
    }

    /// Separators and `\` in strings are escaped with `\`; ordinary strings keep Apollo's key.
    @Test func stringsEscapeSeparators() throws {
        #expect(try key(#"search(q: "cats,topic:dogs")"#) == #"search(q:cats\,topic\:dogs)"#)
        #expect(try key(#"search(q: "cats", topic: "dogs")"#) == "search(q:cats,topic:dogs)")
        #expect(try key(#"search(q: "R2-D2 é 🐈 <b>{x}=+ ok?!")"#) == "search(q:R2-D2 é 🐈 <b>{x}=+ ok?!)")
        #expect(try key(#"search(q: "plain text, é ñ 🐈 -_.!?<>{}=+")"#) == "search(q:plain text\\, é ñ 🐈 -_.!?<>{}=+)")
        #expect(try key(#"s(a: ",", b: ":", c: "[", d: "]", e: "(", f: ")", g: "\\")"#)
            == #"s(a:\,,b:\:,c:\[,d:\],e:\(,f:\),g:\\)"#)
        #expect(try key(#"s(q: "a\\,b")"#) == #"s(q:a\\\,b)"#)
        #expect(try key(#"s(a: "null", b: null, c: ["<null>", null, "null"])"#) == #"s(a:\null,b:null,c:[\<null>, <null>, \null])"#)
        #expect(try key(#"s(o: {k: "v:w"}, l: [{k: "x,y"}], m: ["[]", "()"])"#)
            == #"s(l:[k:x\,y],m:[\[\], \(\)],[o:k:v\:w])"#)
        #expect(try key("s(q: $q, o: $o)", variables: #"{"q": "cats,topic:dogs", "o": {"a:b": "c)d", "l": ["e]f"]}}"#,
                        declared: "($q: String, $o: In)") == #"s([o:a\:b:c\)d,l:[e\]f]],q:cats\,topic\:dogs)"#)
        #expect(try key("hero(episode: JEDI, e: $e)", variables: #"{"e": "EMPIRE"}"#, declared: "($e: Episode)") == "hero(e:EMPIRE,episode:JEDI)")
    }
}
