/// Documents written for the oracle: corners of the grammar (GraphQL specification,
/// October 2021, §2 and §3) on which both parsers must agree. Those on which they
/// disagree are in `Disagreements`.
enum EdgeCases {
    static let documents: [CorpusDocument] = [
        // MARK: Block strings (§2.9.4)
        CorpusDocument(name: "block string: common indentation, blank first and last lines", source: #"""
        { f(text: """
              Hello,
                World!

              Yours,
                GraphQL.
            """) }
        """#),
        CorpusDocument(name: "block string: text on the first line keeps it, the rest loses the common indent", source: #"""
        { f(text: """first line
                second
                  third
                """) }
        """#),
        CorpusDocument(name: "block string: escaped triple quote, lone and double quotes, backslashes kept", source: #"""
        { f(text: """a \""" b "c" ""d"" \n \u0041 C:\path\""" """) }
        """#),
        CorpusDocument(name: "block string: empty, and blank lines only", source: "{ f(a: \"\"\"\"\"\", b: \"\"\"  \n \t \n   \"\"\") }"),
        CorpusDocument(name: "block string: tabs as indentation, a blank line inside kept", source: "{ f(text: \"\"\"\n\t\tone\n\n\t\t  two\n\t\t\"\"\") }"),
        CorpusDocument(name: "block string: CR line terminators", source: "{ f(text: \"\"\"\r    one\r      two\r    \"\"\") }"),
        CorpusDocument(name: "block string: whitespace-only lines do not count for the common indent", source: "{ f(text: \"\"\"\n        x\n  \n          y\n\"\"\") }"),
        CorpusDocument(name: "block string: non-ASCII text", source: "{ f(text: \"\"\"\n    héllo 中文\n      😀 e\u{301}\n    \"\"\") }"),

        // MARK: Strings (§2.9.4)
        CorpusDocument(name: "string: every single-character escape but \\f", source: #"""
        { f(a: "quote \" backslash \\ slash \/ b \b n \n r \r t \t end") }
        """#),
        CorpusDocument(name: "string: \\u escapes in the BMP, upper and lower case hex", source: #"""
        { f(a: "\u0041\u00e9\u00E9\u4E2D\u0000\u001F\u007f\uFFFD\uffff") }
        """#),
        CorpusDocument(name: "string: raw non-ASCII, combining marks, emoji, a tab", source: "{ f(a: \"héllo e\u{301} 中文 😀 👩‍👩‍👧\tend\") }"),
        CorpusDocument(name: "string: empty, and containing # and ,", source: #"""
        { f(a: "", b: "# not a comment, nor, commas", c: "}{)(") }
        """#),

        // MARK: Numbers (§2.9.1, §2.9.2)
        CorpusDocument(name: "numbers as written", source: #"""
        { f(a: 0, b: -0, c: 1e10, d: 0.5E-3, e: -1.5e+3, f: 1E0, g: -0.0, h: 123456789012345678901234567890,
            i: 1.0e-0, j: 9007199254740993, k: 0.000001, l: -9e-9, m: 3.14159) }
        """#),
        CorpusDocument(name: "numbers next to punctuation", source: "{f(a:[1,-2,3.5,4e1],b:{x:-1,y:0.0}c:1)}"),

        // MARK: Lists, objects, enums, variables (§2.9)
        CorpusDocument(name: "nested lists and empty lists", source: #"""
        { f(a: [[1, [2]], [], [[]], [[[[["deep"]]]]]]) }
        """#),
        CorpusDocument(name: "nested objects, empty object, null inside", source: #"""
        { f(a: {b: {c: [{d: null}, {}]}, e: {}}, f: {}) }
        """#),
        CorpusDocument(name: "variables inside lists and objects", source: #"""
        query Q($a: Int, $c: String) { f(a: [$a, {b: $c, list: [$a, $a]}], v: $c) }
        """#),
        CorpusDocument(name: "enum values that look like keywords", source: #"""
        { f(a: RED, b: on, c: query, d: fragment, e: True, f: NULL, g: FALSE, h: _, i: __typename) }
        """#),
        CorpusDocument(name: "duplicate object keys and arguments are syntax, not errors", source: #"""
        { f(a: {x: 1, x: 2}, a: 3) }
        """#),

        // MARK: Operations, variables, directives (§2.3, §2.10, §2.12)
        CorpusDocument(name: "variables with defaults of every kind and directives", source: #"""
        query Q(
          $a: Int = 1
          $b: [String!] = ["x", "y"]
          $c: In = {x: 1, y: [true], z: {w: null}}
          $d: E = RED
          $e: Boolean = null
          $f: [[Float]!]! = [[1.5]]
          $g: ID @deprecated @other(reason: "r", list: [1, {a: B}])
          $h: String = "s" @x
        ) { f }
        """#),
        CorpusDocument(name: "directives everywhere in an executable document", source: #"""
        query Q($v: Boolean = true @onVar) @onQuery @second(a: 1) {
          field @include(if: $v) @skip(if: false)
          alias: other(x: 1) @onField { inner @deep(list: [$v]) }
          ...Frag @onSpread(a: {b: $v})
          ... on T @onInline { x }
          ... @onBareInline { y }
        }
        mutation M @onMutation { m }
        subscription S @onSubscription { s }
        fragment Frag on T @onFragment(x: "y") { z }
        """#),
        CorpusDocument(name: "inline fragments without type condition, nested", source: #"""
        { ... { a ... { b ... on T { c ... @d { e } } } } }
        """#),
        CorpusDocument(name: "keywords as field names, aliases, arguments and names", source: #"""
        query query($query: query = query) {
          query mutation subscription fragment on true false null type schema extend implements directive
          on: fragment(on: on, null: null, true: true)
          null: true
          ...on on { on }
          ...query
        }
        mutation mutation { mutation }
        subscription subscription { subscription }
        fragment query on on { on }
        fragment fragment on fragment { fragment }
        """#),
        CorpusDocument(name: "spreads of fragments whose names start with on", source: #"""
        { ...onFoo ...on_ ...one @d ... on T { a } }
        """#),
        CorpusDocument(name: "a document of fragments only", source: #"""
        fragment A on T { ...B } fragment B on U { c }
        """#),
        CorpusDocument(name: "anonymous operations with variables and directives", source: #"""
        query ($a: Int) { a(x: $a) }
        query @dir { b }
        mutation { c }
        """#),
        CorpusDocument(name: "no white space between tokens", source: #"""
        query Q($a:Int=1,$b:[ID!]!){a:f(x:$a,y:"s")@d(z:1){b}...F@e...on T@f{g}...@h{i}}fragment F on T{j}
        """#),
        CorpusDocument(name: "comments and commas in odd places", source: "#first\r\n,,query,#c\n Q#c\n(#c\n,$a#c\n:#c\nInt#c\n=#c\n1#c\n,)#c\n{,,a,#c\n,b(,x:1,,y:[,1,,2,],z:{,k:1,,}),,#c\n}#c\n,,# trailing comment without a line end"),
        CorpusDocument(name: "byte order mark, tabs, CR and CRLF line ends", source: "\u{FEFF}query\tQ\r{\r\n\ta\r\n\tb\u{FEFF}c\r}\r\n"),
        CorpusDocument(name: "non-ASCII in comments", source: "# héllo 中文 😀 \u{7F}\n{ a # ünïcödé\n}"),
        CorpusDocument(name: "deep nesting: 100 selection sets, lists and list types",
                       source: "query($v: " + String(repeating: "[", count: 100) + "Int" + String(repeating: "]", count: 100) + ") {"
                           + String(repeating: "a {", count: 99) + " b(x: " + String(repeating: "[", count: 100)
                           + String(repeating: "]", count: 100) + ")" + String(repeating: "}", count: 100)),
        CorpusDocument(name: "many definitions", source: (0..<200).map { "fragment F\($0) on T { f\($0)(i: \($0)) }" }.joined(separator: "\n")),

        // MARK: Type system (§3)
        CorpusDocument(name: "descriptions everywhere, quoted and block", source: #"""
        "scalar"
        scalar S @d
        """
          object
            indented
        """
        type T implements I @d {
          "field" f(
            "arg" a: Int = 1 @d
            """
            block arg
            """
            b: [S!] = [] 
          ): String @deprecated(reason: "no")
          """field 2""" g: T
        }
        "interface" interface I { f(a: Int): String }
        "union" union U = T
        "enum" enum E { "one" ONE @d """two""" TWO }
        "input" input In { "x" x: Int = 2 @d, y: In }
        "directive" directive @d("arg" a: Int) on SCALAR | OBJECT | FIELD_DEFINITION | ARGUMENT_DEFINITION | INTERFACE | UNION | ENUM | ENUM_VALUE | INPUT_OBJECT | INPUT_FIELD_DEFINITION | SCHEMA
        """#),
        CorpusDocument(name: "implements with &, leading &, interfaces implementing interfaces", source: #"""
        type A implements B & C & D { f: Int }
        type E implements & F { f: Int }
        type G implements H
        interface I implements & J & K @d
        interface L implements M { f: Int }
        extend type A implements X & Y
        extend interface I implements Z
        extend type E implements & W @d { g: Int }
        """#),
        CorpusDocument(name: "unions: leading |, one line and many, directives, no members", source: #"""
        union A = B | C
        union D = | E
        union F @d =
          | G
          | H
          | I
        union J
        union K @d
        extend union A = | X | Y
        extend union D @e
        """#),
        CorpusDocument(name: "schema, extend schema with directives and with roots", source: #"""
        schema @a(x: 1) { query: Q mutation: M subscription: S }
        extend schema @b
        extend schema { mutation: M2 }
        extend schema @c @d { subscription: S2, query: Q2 }
        """#),
        CorpusDocument(name: "repeatable directives and locations with leading |", source: #"""
        directive @a repeatable on FIELD
        directive @b(x: Int = 1, y: [String!]! @d) repeatable on
          | QUERY
          | MUTATION
          | SUBSCRIPTION
          | FIELD
          | FRAGMENT_DEFINITION
          | FRAGMENT_SPREAD
          | INLINE_FRAGMENT
          | VARIABLE_DEFINITION
        directive @c on | SCHEMA
        directive @repeatable on OBJECT
        """#),
        CorpusDocument(name: "extensions of every kind", source: #"""
        extend scalar S @d
        extend type T @d
        extend type T { f: Int }
        extend type T implements I @d { g(a: Int = 1): [T!]! }
        extend interface I @d
        extend interface I { f: Int }
        extend union U @d
        extend union U = A
        extend enum E @d
        extend enum E { A B @d }
        extend input In @d
        extend input In { a: Int = 1 @d }
        """#),
        CorpusDocument(name: "types without bodies and with directives only", source: #"""
        scalar S
        type T
        type T2 @d
        interface I
        union U
        enum E
        input In
        input In2 @d(a: {b: [1]})
        """#),
        CorpusDocument(name: "field arguments and input defaults of every value kind", source: #"""
        type T {
          f(a: Int = -1, b: Float = 1.5e3, c: String = "s\n", d: Boolean = false, e: E = ON, f: [Int] = [1, 2],
            g: In = {a: {b: [null]}}, h: String = null, i: [[In!]!] = [[{}]], j: String = """block"""): [[T!]]!
        }
        input In { a: Int = 0, b: In = {a: 1} @x(y: "z"), c: [Int!]! = [] }
        """#),
        CorpusDocument(name: "type system names that are keywords", source: #"""
        type type implements interface & union { type: type, query(query: query): query, on: on, null: null }
        enum enum { ON OFF on off query type Type }
        input input { input: input = input }
        union union = type | input
        scalar scalar
        interface interface
        directive @on(on: on) on FIELD
        schema { query: query mutation: mutation }
        """#),
        CorpusDocument(name: "type system with comments and commas in odd places", source: "type,T#c\nimplements#c\n&,A,&#c\nB#c\n@d#c\n(#c\nx:#c\n1)#c\n{#c\n,f#c\n(,a:Int,,b:Int,)#c\n:#c\n[#c\nInt#c\n!#c\n]#c\n!#c\n,}#c\nenum E{A,B,,C}union U=|A|B,,"),
    ]
}
