import Glibc
import TestSupport
import Testing
@testable import NormCache

/// A mutation's root fields, whose keys hold its arguments (a password), are not stored
/// unless `storeMutationRoot` asks for Apollo's behaviour; the entities it returns are.
@Suite struct MutationRootTests {
    /// The login of the issue: a password argument, a token in the answer, a keyed user.
    static let login = #"mutation { login(email: "a@b", password: "hunter2") { token user { __typename id name } } }"#
    /// The server's answer to `login`.
    static let loginResponse = #"{"data": {"login": {"__typename": "LoginPayload", "token": "t0k3n", "user": {"__typename": "User", "id": "1", "name": "Ann"}}}}"#
    /// Key rules for `User` alone.
    static let userRule = #"{"typePolicies": {"User": {"keyFields": ["id"]}}}"#

    @Test func aMutationStoresTheEntitiesItReturnsAndNotItsRoot() throws {
        let test = try TestCache()
        try test.cache.configure(Self.userRule)
        let op = try test.cache.prepare(Self.login)
        #expect(try test.cache.normalize(op, Self.loginResponse) == #"{"User:1":{"__typename":"User","id":"1","name":"Ann"}}"#)
        #expect(try test.cache.write(op, Self.loginResponse) == ["User:1.__typename", "User:1.id", "User:1.name"])
        #expect(try test.cache.keys(withPrefix: "") == ["User:1"])
        #expect(try test.cache.record("User:1") == #"{"__typename":"User","id":"1","name":"Ann"}"#)
        #expect(!(try Self.fileBytes(test.path)).contains("hunter2".utf8))
    }

    @Test func storeMutationRootKeepsApollosRecords() throws {
        let test = try TestCache()
        try test.cache.configure(Self.userRule)
        try test.cache.configure(#"{"storeMutationRoot": true}"#)
        let op = try test.cache.prepare(Self.login)
        let payload = "MUTATION_ROOT.login(email:a@b,password:hunter2)"
        #expect(try test.cache.normalize(op, Self.loginResponse) == #"""
        {"User:1":{"__typename":"User","id":"1","name":"Ann"},"\#(payload)":{"token":"t0k3n","user":{"$reference":"User:1"},"__typename":"LoginPayload"},"MUTATION_ROOT":{"login(email:a@b,password:hunter2)":{"$reference":"\#(payload)"}}}
        """#)
        #expect(try test.cache.write(op, Self.loginResponse) == [
            "User:1.__typename", "User:1.id", "User:1.name",
            "\(payload).token", "\(payload).user", "\(payload).__typename",
            "MUTATION_ROOT.login(email:a@b,password:hunter2)",
        ])
        #expect(try test.cache.keys(withPrefix: "") == ["MUTATION_ROOT", payload, "User:1"])
        #expect(try test.cache.readText(op) == #"{"login":{"token":"t0k3n","user":{"__typename":"User","id":"1","name":"Ann"}}}"#)
    }

    @Test func aReadOfAMutationMissesItsRootFields() throws {
        let test = try TestCache()
        try test.cache.configure(Self.userRule)
        let op = try test.cache.prepare(Self.login)
        _ = try test.cache.write(op, Self.loginResponse)
        #expect(try test.cache.readText(op) == #"MISS ["login"]"#)
        // The miss names the field without its arguments: no password in a host's logs.
        #expect(try test.cache.read(op).missing == [FieldReport(path: [.key("login")], reason: .absent, record: "MUTATION_ROOT", field: "login")])
    }

    @Test func objectsWithoutAKeyBelowAnEntityAreStoredAndThoseBelowTheRootAreNot() throws {
        let test = try TestCache()
        try test.cache.configure(Self.userRule)
        let op = try test.cache.prepare(#"mutation { rename(id: "1", name: "Bo") { id name profile { bio } } promote(ids: ["1"]) { result { id } } ping }"#)
        let records = try test.cache.normalize(op, #"""
        {"data": {"rename": {"__typename": "User", "id": "1", "name": "Bo", "profile": {"bio": "hi"}},
                  "promote": [{"result": {"__typename": "User", "id": "1"}}], "ping": true}}
        """#)
        #expect(records == #"{"User:1.profile":{"bio":"hi"},"User:1":{"id":"1","name":"Bo","profile":{"$reference":"User:1.profile"},"__typename":"User"}}"#)
    }

    @Test func aMutationResponseIsCheckedWhole() throws {
        let test = try TestCache()
        try test.cache.configure(Self.userRule)
        let op = try test.cache.prepare(Self.login)
        #expect(throws: NormCacheError(.data, "invalid response data at login.token: the response has no 'token'")) {
            try test.cache.write(op, #"{"data": {"login": {"user": {"__typename": "User", "id": "1", "name": "Ann"}}}}"#)
        }
        #expect(try test.cache.keys(withPrefix: "") == [])
    }

    @Test func aSubscriptionRootIsStoredAsAQuerys() throws {
        let test = try TestCache()
        try test.cache.configure(Self.userRule)
        let op = try test.cache.prepare(#"subscription { userChanged(id: "1") { __typename id name } }"#)
        #expect(try test.cache.normalize(op, #"{"data": {"userChanged": {"__typename": "User", "id": "1", "name": "Ann"}}}"#)
            == #"{"User:1":{"__typename":"User","id":"1","name":"Ann"},"SUBSCRIPTION_ROOT":{"userChanged(id:1)":{"$reference":"User:1"}}}"#)
    }

    @Test func theOptionIsFixedWhenAnOperationIsPrepared() throws {
        let test = try TestCache()
        let before = try test.cache.prepare(#"mutation { ping(secret: "s") }"#)
        try test.cache.configure(#"{"storeMutationRoot": true}"#)
        let storing = try test.cache.prepare(#"mutation { ping(secret: "s") }"#)
        try test.cache.configure(#"{"storeMutationRoot": false}"#)
        let after = try test.cache.prepare(#"mutation { ping(secret: "s") }"#)
        let response = #"{"data": {"ping": true}}"#
        #expect(try test.cache.normalize(before, response) == "{}")
        #expect(try test.cache.normalize(storing, response) == #"{"MUTATION_ROOT":{"ping(secret:s)":true}}"#)
        #expect(try test.cache.normalize(after, response) == "{}")
    }

    @Test func storeMutationRootMustBeABoolean() throws {
        let test = try TestCache()
        #expect(throws: NormCacheError(.invalidArgument, "configuration error at byte 23: storeMutationRoot must be true or false")) {
            try test.cache.configure(#"{"storeMutationRoot": "yes"}"#)
        }
    }

    /// The bytes of the cache file at `path`.
    private static func fileBytes(_ path: String) throws -> [UInt8] {
        guard let file = fopen(path, "rb") else { throw NormCacheError(.storage, "cannot open \(path)") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count == 0 { break }
            bytes += chunk[0..<count]
        }
        return bytes
    }
}

extension Array where Element == UInt8 {
    /// Whether `needle` occurs in the bytes.
    fileprivate func contains(_ needle: String.UTF8View) -> Bool {
        let pattern = Array(needle)
        guard pattern.count <= count else { return false }
        return (0...(count - pattern.count)).contains { start in self[start..<(start + pattern.count)].elementsEqual(pattern) }
    }
}
