// header_cpp.cpp — include/normcache.h compiles as C++17 (-Wall -Wextra -Werror
// -pedantic), can be included twice, and links: its declarations have C linkage.

#include "normcache.h"
#include "normcache.h"

#include <cstring>

/// Passes when the library is the version of the header.
int main()
{
    return std::strcmp(normcache_version(), NORMCACHE_VERSION) == 0 ? 0 : 1;
}
