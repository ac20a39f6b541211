/// The queries of the app workload and their responses, generated from one description
/// of each query's objects so that the query text and the response always agree.
///
/// Shapes (see also docs/perf/README.md):
///  - `pr-view`: a GitHub command-line client's "view a pull request", nested single
///    objects five deep (viewer → repository → pullRequest → headRepository → owner), 10 to
///    30 distinct fields per object, and three short lists (labels, assignees, commits).
///  - `repo-view`: its "view a repository", four deep (viewer → repository → parent →
///    owner; defaultBranchRef → target), 10 to 30 fields per object, two short lists.
///  - `fields-40`: `viewer { id login f0 { id b } … f39 { id b } }`, 40 objects each in a
///    single field of its own; `list-40`: the same 40 objects as one list,
///    `viewer { id login items { id b } }`; `fields-1` and `list-1`: one such object.
/// Every object has `__typename`; objects with an `id` are keyed `<__typename>:<id>` by
/// the workload's key rule, the connections (`labels(first: 5) { totalCount nodes … }`)
/// have none and are kept in their parent's record.
enum AppShapes {
    /// An object of a query: its type, whether it has an `id`, its leaf fields and the
    /// objects below it.
    struct Object {
        var typename: String
        var keyed = true
        var leaves: [String]
        var children: [Child] = []
    }

    /// A field of an object that holds an object, or a list of `count` objects.
    struct Child {
        /// The field as the query selects it, arguments included (`pullRequest(number: 1)`).
        var field: String
        var object: Object
        /// nil: a single object; else the length of the list.
        var count: Int? = nil

        /// The field's response name (without its arguments).
        var responseName: String { String(field.prefix { $0 != "(" }) }
    }

    /// A named query: the objects of its root fields.
    struct Query {
        var name: String
        var roots: [Child]

        /// The query's GraphQL text.
        var text: String {
            "query \(name.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()) "
                + AppShapes.selection([], roots)
        }

        /// The objects in one response.
        var objects: Int { roots.reduce(0) { $0 + AppShapes.objectCount($1) } }

        /// The response: every leaf's value is derived from the object's number (its
        /// place in the response) and the field's name.
        var response: [UInt8] {
            var out = JSONWriter()
            var number = 0
            out.raw(#"{"data":{"#)
            for (index, root) in roots.enumerated() {
                if index > 0 { out.raw(",") }
                AppShapes.write(root, &out, &number)
            }
            out.raw("}}")
            return out.bytes
        }
    }

    /// The key rule of the workload (as the feed's).
    static let config = Responses.keyByID

    /// The workload's queries, in the order of its figures.
    static let queries = [pullRequestView, repositoryView, singleFields(1), list(1), singleFields(40), list(40)]

    /// A user as a GitHub client selects one.
    static let user = Object(typename: "User", leaves: ["login", "name", "email", "bio", "company", "location", "url",
                                                        "avatarUrl", "websiteUrl", "createdAt", "isHireable", "followersCount"])

    /// An organization or user owning a repository.
    static let owner = Object(typename: "Organization", leaves: ["login", "name", "url", "avatarUrl", "description",
                                                                 "email", "location", "websiteUrl", "createdAt", "isVerified"])

    /// A repository's own fields.
    static let repositoryLeaves = [
        "name", "nameWithOwner", "description", "url", "homepageUrl", "sshUrl", "createdAt", "updatedAt", "pushedAt",
        "isPrivate", "isArchived", "isFork", "isTemplate", "isMirror", "isEmpty", "isLocked", "hasIssuesEnabled",
        "hasWikiEnabled", "hasProjectsEnabled", "hasDiscussionsEnabled", "stargazerCount", "forkCount", "diskUsage",
        "visibility", "viewerPermission", "mergeCommitAllowed", "squashMergeAllowed", "rebaseMergeAllowed",
        "deleteBranchOnMerge", "securityPolicyUrl",
    ]

    /// `gh pr view`: viewer → repository → pullRequest → headRepository → owner.
    static let pullRequestView = Query(name: "pr-view", roots: [
        Child(field: "viewer", object: Object(typename: "User", leaves: user.leaves, children: [
            Child(field: #"repository(owner: "cli", name: "cli")"#, object: Object(
                typename: "Repository", leaves: repositoryLeaves,
                children: [
                    Child(field: "owner", object: owner),
                    Child(field: "pullRequest(number: 1)", object: Object(
                        typename: "PullRequest",
                        leaves: ["number", "title", "body", "state", "url", "createdAt", "updatedAt", "closedAt",
                                 "mergedAt", "isDraft", "mergeable", "additions", "deletions", "changedFiles",
                                 "baseRefName", "headRefName", "headRefOid", "maintainerCanModify", "reviewDecision",
                                 "isCrossRepository", "locked", "activeLockReason", "totalCommentsCount",
                                 "viewerCanUpdate", "viewerDidAuthor"],
                        children: [
                            Child(field: "author", object: user),
                            Child(field: "mergedBy", object: user),
                            Child(field: "milestone", object: Object(
                                typename: "Milestone", leaves: ["number", "title", "description", "dueOn", "state", "url",
                                                                "progressPercentage", "createdAt", "updatedAt", "isClosed"])),
                            Child(field: "headRepository", object: Object(
                                typename: "Repository", leaves: Array(repositoryLeaves.prefix(12)),
                                children: [Child(field: "owner", object: owner)])),
                            connection("labels(first: 5)", of: Object(typename: "Label",
                                                                     leaves: ["name", "color", "description"]), count: 3),
                            connection("assignees(first: 5)", of: Object(typename: "User", leaves: ["login", "name"]),
                                       count: 2),
                            connection("commits(last: 1)", of: Object(
                                typename: "Commit", leaves: ["oid", "messageHeadline", "committedDate", "statusState"]),
                                       count: 1),
                        ])),
                ])),
        ])),
    ])

    /// `gh repo view`: viewer → repository → parent → owner, and defaultBranchRef → target.
    static let repositoryView = Query(name: "repo-view", roots: [
        Child(field: "viewer", object: Object(typename: "User", leaves: user.leaves, children: [
            Child(field: #"repository(owner: "cli", name: "go-gh")"#, object: Object(
                typename: "Repository", leaves: repositoryLeaves,
                children: [
                    Child(field: "owner", object: owner),
                    Child(field: "parent", object: Object(typename: "Repository", leaves: repositoryLeaves,
                                                          children: [Child(field: "owner", object: owner)])),
                    Child(field: "defaultBranchRef", object: Object(
                        typename: "Ref", leaves: ["name", "prefix", "viewerCanAdminister", "updatedAt", "url",
                                                  "protected", "associatedPullRequestsCount", "behindBy", "aheadBy",
                                                  "compareUrl"],
                        children: [Child(field: "target", object: Object(
                            typename: "Commit", leaves: ["oid", "abbreviatedOid", "messageHeadline", "messageBody",
                                                         "committedDate", "authoredDate", "additions", "deletions",
                                                         "changedFilesIfAvailable", "url", "statusState"]))])),
                    Child(field: "licenseInfo", object: Object(
                        typename: "License", leaves: ["key", "name", "spdxId", "url", "nickname", "description",
                                                      "implementation", "featured", "hidden", "pseudoLicense"])),
                    Child(field: "primaryLanguage", object: Object(
                        typename: "Language", leaves: ["name", "color", "aliasesCount", "popularityRank", "extension",
                                                       "type", "lineCommentStyle", "wrapOnDefault", "createdAt",
                                                       "updatedAt"])),
                    connection("languages(first: 5)", of: Object(typename: "Language", leaves: ["name", "color"]), count: 4),
                    connection("repositoryTopics(first: 5)", of: Object(typename: "RepositoryTopic",
                                                                       leaves: ["url", "resourcePath"]), count: 3),
                ])),
        ])),
    ])

    /// The synthetic query with `count` child objects of the viewer, each in a field of
    /// its own: `viewer { id login f0 { id b } … }`.
    static func singleFields(_ count: Int) -> Query {
        Query(name: "fields-\(count)", roots: [Child(field: "viewer", object: Object(
            typename: "User", leaves: ["login"],
            children: (0..<count).map { Child(field: "f\($0)", object: Object(typename: "Item", leaves: ["b"])) }))])
    }

    /// The synthetic query with the same `count` objects as one list:
    /// `viewer { id login items { id b } }`.
    static func list(_ count: Int) -> Query {
        Query(name: "list-\(count)", roots: [Child(field: "viewer", object: Object(
            typename: "User", leaves: ["login"],
            children: [Child(field: "items", object: Object(typename: "Item", leaves: ["b"]), count: count)]))])
    }

    /// A connection field without a key: `field { totalCount nodes { … } }` with `count` nodes.
    private static func connection(_ field: String, of node: Object, count: Int) -> Child {
        Child(field: field, object: Object(typename: node.typename + "Connection", keyed: false, leaves: ["totalCount"],
                                           children: [Child(field: "nodes", object: node, count: count)]))
    }

    /// `{ leaves children }`, each child as `field { … }`.
    private static func selection(_ leaves: [String], _ children: [Child]) -> String {
        let nested = children.map { "\($0.field) \(selection(($0.object.keyed ? ["id"] : []) + $0.object.leaves, $0.object.children))" }
        return "{ " + (leaves + nested).joined(separator: " ") + " }"
    }

    private static func objectCount(_ child: Child) -> Int {
        (child.count ?? 1) * (1 + child.object.children.reduce(0) { $0 + objectCount($1) })
    }

    /// Writes `"name":` and the child's object or list.
    private static func write(_ child: Child, _ out: inout JSONWriter, _ number: inout Int) {
        out.string(child.responseName)
        out.raw(":")
        guard let count = child.count else {
            write(child.object, &out, &number)
            return
        }
        out.raw("[")
        for index in 0..<count {
            if index > 0 { out.raw(",") }
            write(child.object, &out, &number)
        }
        out.raw("]")
    }

    /// Writes one object: `__typename`, `id` when keyed (the type and a number unique in
    /// the response), the leaves (counts and sizes numbers, `is…`, `has…`, `…Allowed`
    /// and the like booleans, the rest strings), the children.
    private static func write(_ object: Object, _ out: inout JSONWriter, _ number: inout Int) {
        number += 1
        let id = number
        out.raw(#"{"__typename":"#); out.string(object.typename)
        if object.keyed { out.raw(#","id":"#); out.string("\(object.typename)-\(id)") }
        for leaf in object.leaves {
            out.raw(","); out.string(leaf); out.raw(":")
            if ["Count", "Rank", "Files", "Percentage"].contains(where: leaf.hasSuffix)
                || ["number", "additions", "deletions", "diskUsage", "behindBy", "aheadBy"].contains(leaf) {
                out.int(id * 7 + leaf.count)
            } else if ["is", "has", "viewerCan", "viewerDid", "locked", "protected", "featured", "hidden", "maintainer",
                        "pseudo", "wrap"].contains(where: leaf.hasPrefix) || ["Allowed", "OnMerge"].contains(where: leaf.hasSuffix) {
                out.raw((id + leaf.count) % 2 == 0 ? "true" : "false")
            } else {
                out.string("\(leaf) of \(object.typename) \(id)")
            }
        }
        for child in object.children {
            out.raw(",")
            write(child, &out, &number)
        }
        out.raw("}")
    }
}
