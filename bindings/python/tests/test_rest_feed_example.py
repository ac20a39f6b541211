"""The example program examples/rest_feed.py, run as a real process against a real HTTP
server (http.server on a thread of this test, on 127.0.0.1 at a port the system picks,
serving GET /articles with Cache-Control: max-age=1800 and counting the requests it
served). The program imports normcache as a user's program does: this package's folder
on PYTHONPATH and the library in NORMCACHE_LIBRARY, as the run_python fixture sets them.

  1. a new cache: "articles from the network", one request;
  2. the same cache: "articles from the cache", no request;
  3. --now 31 minutes later: "articles from the network", one more request;
  4. the server answering 503, later still: exit 1 and the reason;
  5. a bad command line: exit 2, no request;
  6. the server gone: exit 1, "Connection refused".

Exact output each time, as tests/c/test_rest_feed_example.c checks the C example.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from local_servers import API, serving

import normcache

#: The example, in the checkout holding this package.
EXAMPLE = Path(normcache.__file__).resolve().parents[3] / "examples" / "rest_feed.py"
ARTICLES = {
    "articles": [
        {"id": 1, "title": "Caching without tears"},
        {"id": 2, "title": "Fetch policies explained"},
    ]
}
TITLES = "- Caching without tears\n- Fetch policies explained\n"

pytestmark = pytest.mark.skipif(not EXAMPLE.is_file(), reason="not running from a source checkout")


def example(*arguments: str) -> subprocess.CompletedProcess[str]:
    """Run the example with `arguments`, as a user's shell would, finding this normcache."""
    environment = dict(os.environ)
    environment["PYTHONPATH"] = str(Path(normcache.__file__).resolve().parent.parent)
    environment["NORMCACHE_LIBRARY"] = normcache._library.path
    return subprocess.run(
        [sys.executable, str(EXAMPLE), *arguments], env=environment, capture_output=True, text=True, timeout=120
    )


def test_the_articles_come_from_the_network_then_the_cache_for_30_minutes(tmp_path: Path) -> None:
    cache_path = str(tmp_path / "feed.cache")
    api = API(body=json.dumps(ARTICLES).encode("utf-8"), cache_control="max-age=1800")
    with serving(api) as base:
        first = example(cache_path, base)
        assert (first.returncode, first.stdout, first.stderr) == (0, "articles from the network\n" + TITLES, "")
        assert [(method, path) for method, path, _ in api.requests] == [("GET", "/articles")]

        second = example(cache_path, base)
        assert (second.returncode, second.stdout, second.stderr) == (0, "articles from the cache\n" + TITLES, "")
        assert api.served == 1

        later = int(time.time()) + 31 * 60
        third = example(cache_path, base, "--now", str(later))
        assert (third.returncode, third.stdout, third.stderr) == (0, "articles from the network\n" + TITLES, "")
        assert api.served == 2

        api.status = 503
        failed = example(cache_path, base, "--now", str(later + 31 * 60))
        message = "rest_feed: no articles: HTTPError: HTTP Error 503: Service Unavailable\n"
        assert (failed.returncode, failed.stdout, failed.stderr) == (1, "", message)
        assert api.served == 3

        for arguments in [(), (cache_path,), (cache_path, base, "--now", "soon"), (cache_path, "ftp://127.0.0.1")]:
            bad = example(*arguments)
            assert (bad.returncode, bad.stdout) == (2, ""), arguments
            assert bad.stderr.startswith("usage: rest_feed [-h] [--now SECONDS] CACHE_PATH BASE_URL\n"), bad.stderr
        negative = example(cache_path, base, "--now", "-5")
        assert negative.returncode == 2
        assert negative.stderr.endswith("rest_feed: error: --now takes seconds since 1970, not -5\n")
        assert api.served == 3

    gone = example(cache_path, base, "--now", str(later + 62 * 60))
    assert (gone.returncode, gone.stdout) == (1, "")
    assert gone.stderr.startswith("rest_feed: no articles: URLError: <urlopen error [Errno 111] Connection refused>")
