#!/usr/bin/env python3
"""rest_feed.py — the REST flow of normcache in Python: "show the articles from the cache
while they are younger than 30 minutes, else call the API and keep its answer".

    python3 examples/rest_feed.py CACHE_PATH BASE_URL [--now SECONDS]
    python3 examples/rest_feed.py /tmp/feed.cache http://127.0.0.1:8080

It asks Cache.execute_document for the document "GET /articles" with the policy
"cache_first": a fresh copy in the cache is the answer; otherwise normcache calls
fetch_articles (below), which sends GET BASE_URL/articles with urllib and hands the body
and the response's headers back. normcache stores the body under the key with a lifetime
of at most 30 minutes (max_age=1800) — earlier if the server's Cache-Control, Age or Date
say so, and not at all if it says no-store — and returns it. The program prints where
the articles came from and their titles:

    articles from the network
    - Caching without tears
    - Fetch policies explained

The API answers JSON of the shape {"articles": [{"title": "..."}, ...]}.

It imports normcache as any program does. With the package installed (pip install
./bindings/python, which builds the library into it):

    python3 examples/rest_feed.py /tmp/feed.cache http://127.0.0.1:8080

or from the root of a checkout, on the library of the CMake build (cmake --build build):

    export NORMCACHE_LIBRARY=build/libnormcache.so
    PYTHONPATH=bindings/python python3 examples/rest_feed.py /tmp/feed.cache http://127.0.0.1:8080

--now SECONDS sets the cache's clock (Cache.set_clock) to that time, in seconds since
1970, instead of the system's. It exists only for tests and demonstrations, to run the
program "31 minutes later" without waiting; a real program leaves the clock alone.

Exit status: 0 with the articles printed; 1 when they could be neither read nor fetched
(the reason on stderr); 2 for a bad command line. examples/rest_feed.c is the same
program in C.
"""

from __future__ import annotations

import argparse
import sys
import urllib.request
from typing import Any

import normcache

#: How long the articles stay fresh when the server allows it: 30 minutes.
ARTICLES_MAX_AGE = 1800
#: The cache key of the document, and the path it is fetched from.
ARTICLES_KEY = "GET /articles"
ARTICLES_PATH = "/articles"


def arguments(argv: list[str] | None) -> argparse.Namespace:
    """The command line: CACHE_PATH, BASE_URL and --now; exits with 2 when it is bad."""
    parser = argparse.ArgumentParser(prog="rest_feed", description="The articles, from the cache or the API.")
    parser.add_argument("cache_path", metavar="CACHE_PATH", help="the cache file (created if absent)")
    parser.add_argument("base_url", metavar="BASE_URL", help="the API, http://host:port")
    parser.add_argument("--now", type=int, metavar="SECONDS", help="the cache's clock (tests and demos only)")
    args = parser.parse_args(argv)
    if not args.base_url.startswith(("http://", "https://")):
        parser.error(f"BASE_URL must be an http:// or https:// URL, not {args.base_url!r}")
    if args.now is not None and args.now < 0:
        parser.error(f"--now takes seconds since 1970, not {args.now}")
    return args


def main(argv: list[str] | None = None) -> int:
    """Print where the articles came from and their titles; the exit status."""
    args = arguments(argv)
    url = args.base_url.rstrip("/") + ARTICLES_PATH

    def fetch_articles(request: normcache.FetchRequest) -> Any:
        """normcache's fetch: GET the articles and answer with the body and its headers.
        urllib raises for a status that is not 2xx and when the API cannot be reached:
        normcache reports that as a failed fetch. request.key is "GET /articles"."""
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.read(), response.headers

    try:
        with normcache.Cache(args.cache_path) as cache:
            if args.now is not None:
                cache.set_clock(lambda: args.now)  # tests and demos only
            # Cache-first: a fresh copy in the cache, else fetch_articles. Stale data is not
            # used (max_stale None). Our own limit, 30 minutes, and the server's headers:
            # the earliest expiry wins.
            result = cache.execute_document(ARTICLES_KEY, fetch=fetch_articles, max_age=ARTICLES_MAX_AGE)
    except normcache.Error as error:
        print(f"rest_feed: no articles: {error}", file=sys.stderr)
        return 1

    articles = result.data.get("articles") if isinstance(result.data, dict) else None
    if not isinstance(articles, list):
        print(f"rest_feed: the answer of {url} has no list 'articles'", file=sys.stderr)
        return 1
    print(f"articles from the {result.source}")
    for article in articles:
        print(f"- {article.get('title') if isinstance(article, dict) else article}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
