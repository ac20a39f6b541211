"""The version of this package: NORMCACHE_VERSION of the include/normcache.h it mirrors.

One literal, read by pyproject.toml (setuptools' dynamic version) without importing the
package, by normcache.__version__ and by _library.HEADER_VERSION; tests/test_library.py
checks it against the header and the loaded library.
"""

__version__ = "0.1.0"
