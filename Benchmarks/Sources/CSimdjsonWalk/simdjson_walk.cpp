// The parse ceiling of normcache-bench: simdjson's DOM parser and a walk over every value.
#include "simdjson_walk.h"

#include <new>
#include <simdjson.h>

struct simdjson_walk_parser {
    simdjson::dom::parser parser;
};

size_t simdjson_walk_padding(void) { return simdjson::SIMDJSON_PADDING; }

simdjson_walk_parser *simdjson_walk_parser_new(void)
{
    return new (std::nothrow) simdjson_walk_parser();
}

void simdjson_walk_parser_free(simdjson_walk_parser *parser) { delete parser; }

/// Counts the values below `element` and the bytes of its strings and keys.
static int64_t visit(simdjson::dom::element element)
{
    switch (element.type()) {
    case simdjson::dom::element_type::OBJECT: {
        int64_t total = 1;
        for (auto field : simdjson::dom::object(element)) {
            total += static_cast<int64_t>(field.key.size()) + visit(field.value);
        }
        return total;
    }
    case simdjson::dom::element_type::ARRAY: {
        int64_t total = 1;
        for (auto child : simdjson::dom::array(element)) {
            total += visit(child);
        }
        return total;
    }
    case simdjson::dom::element_type::STRING:
        return 1 + static_cast<int64_t>(std::string_view(element).size());
    default:
        return 1;
    }
}

int64_t simdjson_walk_parse(simdjson_walk_parser *parser, const char *json, size_t length)
{
    simdjson::dom::element root;
    if (parser->parser.parse(json, length, false).get(root) != simdjson::SUCCESS) {
        return -1;
    }
    return visit(root);
}
