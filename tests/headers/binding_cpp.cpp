// binding_cpp.cpp — bindings/cpp/normcache.hpp compiles as C++17 with strict warnings
// (-Wall -Wextra -Werror -pedantic, plus shadowing, conversion and old-style casts),
// can be included twice and beside the C header, and links into a program of two
// translation units (binding_cpp_second.cpp is the other): nothing in it is defined
// twice.

#include "normcache.hpp"
#include "normcache.hpp"
#include "normcache.h"

/// The library version, as seen from the other translation unit.
std::string version_from_second_unit();

/// Passes when both translation units see the library version of the header.
int main()
{
    return NormCache::Cache::version() == NORMCACHE_VERSION &&
                   version_from_second_unit() == NORMCACHE_VERSION
               ? 0
               : 1;
}
