// binding_cpp_second.cpp — the second translation unit of binding_cpp.cpp: it uses
// the binding's inline functions too, so the link fails if any of them is not inline.

#include "normcache.hpp"

/// The library version, through the binding and its parser.
std::string version_from_second_unit()
{
    return NormCache::detail::parse_string_array("[\"" + NormCache::Cache::version() + "\"]")
        .at(0);
}
