"""Real HTTP servers for the fetching tests, on 127.0.0.1 at a port the system picks, each
serving on a thread of the test: a GraphQL API (http.server and graphql-core, answering
POST /graphql by executing the query against a small schema) and a REST API (GET
/articles). Each counts the requests it served; the test sets what it answers (caching
headers, an ETag that If-None-Match is answered with 304, a status, GraphQL errors).
Nothing leaves 127.0.0.1."""

from __future__ import annotations

import http.server
import json
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable

from graphql import GraphQLError, build_schema, graphql_sync

import normcache

#: The schema the GraphQL server executes; the cache's adds the key rule of Article.
SERVER_SDL = """
type Query { feed(first: Int): [Article] article(id: ID!): Article }
type Mutation { like(id: ID!): Article }
type Subscription { updates: Article }
type Article { id: ID! title: String likes: Int }
"""
CACHE_SDL = SERVER_SDL + 'extend type Article @typePolicy(keyFields: "id")\n'
_SCHEMA = build_schema(SERVER_SDL)
#: The operation most tests run, its variables, and the data the server's articles give.
FEED = "query Feed($n: Int) { feed(first: $n) { title } }"
VARIABLES = {"n": 2}
DATA = {"feed": [{"title": "One"}, {"title": "Two"}]}


@dataclass
class API:
    """What a server answers, set by the test, and what it served.

    `status` other than 200 answers that status with a text body (304: with none);
    `cache_control`, `age` and `etag` (None: no such header) go with every 200 and 304
    answer; a GET whose If-None-Match is `etag` is answered 304 Not Modified, without a
    body; `body`, when set, replaces the answer's body (a REST server's document, or a
    broken GraphQL answer)."""

    status: int = 200
    cache_control: str | None = "max-age=1800"
    body: bytes | None = None
    age: str | None = None
    etag: str | None = None
    #: The GraphQL server's articles: id -> (title, likes); a title None is private (a
    #: GraphQL error "title is private" and null).
    articles: dict[str, tuple[str | None, int]] = field(
        default_factory=lambda: {"1": ("One", 0), "2": ("Two", 0), "3": ("Three", 0)}
    )
    #: The requests served: (method, path, body).
    requests: list[tuple[str, str, bytes]] = field(default_factory=list)
    #: The If-None-Match header of each request served (None: it had none).
    if_none_match: list[str | None] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def served(self) -> int:
        """How many requests were served."""
        with self.lock:
            return len(self.requests)

    def _article(self, article_id: str) -> dict[str, Any] | None:
        """An article as graphql-core resolves it (a private title raises)."""
        if article_id not in self.articles:
            return None
        title, likes = self.articles[article_id]

        def resolve_title(info: Any) -> str:
            if title is None:
                raise GraphQLError("title is private")
            return title

        return {"id": article_id, "title": resolve_title, "likes": likes}

    def graphql(self, payload: dict[str, Any]) -> bytes:
        """The response to a GraphQL request, executed by graphql-core."""

        def feed(info: Any, first: int | None = None) -> list[dict[str, Any] | None]:
            return [self._article(key) for key in list(self.articles)[:first]]

        def like(info: Any, id: str) -> dict[str, Any] | None:
            title, likes = self.articles[id]
            self.articles[id] = (title, likes + 1)
            return self._article(id)

        root = {"feed": feed, "article": lambda info, id: self._article(id), "like": like}
        result = graphql_sync(
            _SCHEMA,
            payload["query"],
            root_value=root,
            variable_values=payload.get("variables"),
            operation_name=payload.get("operationName"),
        )
        return json.dumps(result.formatted).encode("utf-8")


class _Handler(http.server.BaseHTTPRequestHandler):
    """Answers as the server's API says."""

    server: _Server

    def _answer(self, method: str) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        api = self.server.api
        condition = self.headers.get("If-None-Match")
        with api.lock:
            api.requests.append((method, self.path, body))
            api.if_none_match.append(condition)
        not_modified = method == "GET" and api.etag is not None and condition == api.etag
        if api.status == 304 or (api.status == 200 and not_modified):
            self.send_response(304)
            self._caching_headers(api)
            self.end_headers()
            return
        if api.status != 200:
            self.send_response(api.status)
            text = b"unavailable"
            self.send_header("Content-Length", str(len(text)))
            self.end_headers()
            self.wfile.write(text)
            return
        answer = api.body if api.body is not None else api.graphql(json.loads(body))
        self.send_response(200)  # with Date: the real time
        self.send_header("Content-Type", "application/json")
        self._caching_headers(api)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def _caching_headers(self, api: API) -> None:
        """Cache-Control, Age and ETag, as the API says."""
        for name, value in (("Cache-Control", api.cache_control), ("Age", api.age), ("ETag", api.etag)):
            if value is not None:
                self.send_header(name, value)

    def do_POST(self) -> None:
        self._answer("POST")

    def do_GET(self) -> None:
        self._answer("GET")

    def log_message(self, format: str, *arguments: Any) -> None:
        """Quiet."""


class _Server(http.server.ThreadingHTTPServer):
    """The server, with its API."""

    daemon_threads = True
    api: API


@contextmanager
def serving(api: API) -> Iterator[str]:
    """Serve `api` on 127.0.0.1 on a thread while the block runs; gives its base URL."""
    server = _Server(("127.0.0.1", 0), _Handler)
    server.api = api
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def post(url: str, request: normcache.FetchRequest) -> urllib.request.Request:
    """The urllib request that POSTs a FetchRequest to a GraphQL endpoint."""
    body = json.dumps(request.payload()).encode("utf-8")
    return urllib.request.Request(url, body, {"Content-Type": "application/json"})


def urllib_fetch(url: str) -> Callable[[normcache.FetchRequest], tuple[bytes, Any]]:
    """A fetch function that POSTs the request to `url` with urllib and answers (body, headers)."""

    def fetch(request: normcache.FetchRequest) -> tuple[bytes, Any]:
        with urllib.request.urlopen(post(url, request), timeout=30) as response:
            return response.read(), response.headers

    return fetch


def urllib_get(url: str) -> Callable[[normcache.FetchRequest], tuple[bytes, Any]]:
    """A fetch function for documents: GETs `url` with urllib and answers (body, headers)."""

    def fetch(request: normcache.FetchRequest) -> tuple[bytes, Any]:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.read(), response.headers

    return fetch
