/*
 * star_wars_schema.h — the schema the C and C++ operation tests share: characters,
 * droids and humans keyed by id, and a field policy that finds a droid by its id.
 *
 * It is deliberately not testdata/starwars/schema.graphql: that one is the Relay-style
 * corpus (Node, connections, a union) of the oracle, Python and bench, without key
 * policies; this one is the few types and the two policies whose record keys and
 * field-policy reads the C and C++ tests assert, compiled into the test binaries so
 * that they read no file.
 */
#ifndef NORMCACHE_TEST_STAR_WARS_SCHEMA_H
#define NORMCACHE_TEST_STAR_WARS_SCHEMA_H

static const char *const star_wars_schema =
    "type Query { hero(episode: Episode): Character droid(id: ID!): Droid }\n"
    "enum Episode { NEWHOPE EMPIRE JEDI }\n"
    "interface Character { id: ID! name: String! friends: [Character] }\n"
    "type Droid implements Character { id: ID! name: String! friends: [Character] primaryFunction: String }\n"
    "type Human implements Character { id: ID! name: String! friends: [Character] }\n"
    "extend type Droid @typePolicy(keyFields: \"id\")\n"
    "extend type Human @typePolicy(keyFields: \"id\")\n"
    "extend type Query @fieldPolicy(forField: \"droid\", keyArgs: \"id\")\n";

#endif
