"""httpx transports that cache JSON APIs in normcache (pip install normcache[httpx]).

    client = httpx.Client(transport=CachingTransport(cache))
    client.get(url).json()                        # the network, then the cache while fresh
    async with httpx.AsyncClient(transport=AsyncCachingTransport(cache)) as client: ...

A GET answered 200 with a JSON body (a Content-Type of application/json or ...+json) is
stored as the document "GET <url>" (Cache.put_document) with the lifetime its headers
give: Cache-Control max-age (counting Age and Date), no-cache, no-store, Expires. An
answer whose headers give no lifetime gets `max_age` seconds (0 by default: stale at
once, so that the next request revalidates it). Its ETag is kept with it.

A later GET of the same URL is answered from the cache while the document is fresh,
without a request. Once it is stale, the request goes out with If-None-Match: <its ETag>
(when it has one); a 304 Not Modified renews the stored document's lifetime from the
304's headers without rewriting it (Cache.refresh_document) and the stored body is the
answer; a 200 replaces it. The lifetime is judged by the cache's clock (Cache.set_clock).

Each response says what happened in response.extensions["normcache"]: "hit" (from the
cache, nothing sent), "revalidated" (a 304 renewed the stored document), "stored" (the
network's answer, now stored), "not_stored" (Cache-Control: no-store) or "passed" (not
cached: another method, a status other than 200, a body that is not JSON by its
Content-Type, a request with its own If-None-Match). An answer from the cache is a 200
with Content-Type: application/json and the document's ETag; its body is the text as the
server sent it.

Errors are clear and store nothing: a body declared JSON that is not (JSONError, with the
byte), malformed caching headers or ETag (InvalidArgumentError, naming the header), a 304
to a request the cache did not make conditional (NotModifiedError). The cache is called
on the event loop's thread by the async transport: its calls are short local reads and
writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

try:
    import httpx
except ImportError as error:  # pragma: no cover - only without the extra
    raise ImportError("normcache.adapters.httpx needs httpx: pip install normcache[httpx]") from error

from ..cache import Cache
from ..errors import CacheMiss

#: What a transport did with a request (response.extensions["normcache"]).
Outcome = Literal["hit", "revalidated", "stored", "not_stored", "passed"]
#: The Cache-Control directives that give a lifetime (with Expires).
_LIFETIME_DIRECTIVES = frozenset({"max-age", "no-cache", "no-store"})


class NotModifiedError(httpx.TransportError):
    """A 304 Not Modified that the cache cannot answer: its request was not made
    conditional by the cache (it held no document with an ETag), or the document was
    removed before the 304 came. Nothing is stored."""


def document_key(request: httpx.Request) -> str:
    """The document key of a request: "GET " and its whole URL, query included."""
    return f"{request.method} {request.url}"


@dataclass(frozen=True)
class _Plan:
    """What to do with one request: answer it from the cache (`answer`), or send
    `request`, conditional when `revalidating`; `key` None passes it through."""

    key: str | None
    request: httpx.Request
    revalidating: bool = False
    answer: httpx.Response | None = None


class _Documents:
    """What both transports do around the network: plan a request from the cache, and
    settle the network's response into it."""

    def __init__(self, cache: Cache, max_age: int | None) -> None:
        """Documents in `cache`; `max_age` for answers whose headers give no lifetime."""
        if not isinstance(cache, Cache):
            raise TypeError(f"cache must be a normcache.Cache, not {type(cache).__name__}")
        self.cache = cache
        self.max_age = max_age

    def plan(self, request: httpx.Request) -> _Plan:
        """The plan of `request`: a fresh document answers a GET; a stale one with an
        ETag makes it conditional."""
        if request.method != "GET" or "if-none-match" in request.headers:
            return _Plan(None, request)
        key = document_key(request)
        found = self.cache.get_document(key)
        if found.status == "complete":
            answer = self._stored(request, key, found.etag, "hit")
            if answer is not None:
                return _Plan(key, request, answer=answer)
        if found.etag is None:
            return _Plan(key, request)
        headers = request.headers.copy()
        headers["If-None-Match"] = found.etag
        conditional = httpx.Request(
            request.method, request.url, headers=headers, stream=request.stream, extensions=request.extensions
        )
        return _Plan(key, conditional, revalidating=True)

    def settle(self, plan: _Plan, key: str, response: httpx.Response) -> httpx.Response:
        """The answer to the planned request for the document `key`, once `response`
        (read) came: stored, refreshed or passed through."""
        if response.status_code == 304:
            return self._refreshed(plan, key, response)
        if response.status_code != 200 or not _is_json(response):
            return _marked(response, "passed")
        stored = self.cache.put_document(
            key, response.content, max_age=self._lifetime(response.headers), headers=response.headers
        )
        return _marked(response, "stored" if stored else "not_stored")

    def _refreshed(self, plan: _Plan, key: str, response: httpx.Response) -> httpx.Response:
        """The stored document, once the 304 `response` renewed it."""
        if not plan.revalidating:
            raise NotModifiedError(
                f"the server answered 304 Not Modified to GET {plan.request.url}, which the cache did not make "
                "conditional: it holds no document with an ETag to answer with",
                request=plan.request,
            )
        outcome = self.cache.refresh_document(key, max_age=self._lifetime(response.headers), headers=response.headers)
        answer = None if outcome == "absent" else self._stored(plan.request, key, response.headers.get("etag"), None)
        if answer is None:
            raise NotModifiedError(
                f"the server answered 304 Not Modified to GET {plan.request.url}, but the document "
                f"{key!r} was removed from the cache before it came",
                request=plan.request,
            )
        return _marked(answer, "revalidated")

    def _stored(
        self, request: httpx.Request, key: str, etag: str | None, outcome: Outcome | None
    ) -> httpx.Response | None:
        """A 200 answer with the stored document's text (None: it is gone)."""
        try:
            text = self.cache.get_document_json(key, ignore_freshness=True)
        except CacheMiss:
            return None
        if etag is None:
            etag = self.cache.get_document(key, ignore_freshness=True).etag
        headers = {"Content-Type": "application/json"}
        if etag is not None:
            headers["ETag"] = etag
        answer = httpx.Response(200, headers=headers, content=text.encode("utf-8"), request=request)
        return answer if outcome is None else _marked(answer, outcome)

    def _lifetime(self, headers: httpx.Headers) -> int | None:
        """The max_age to store an answer with: none when its headers give a lifetime,
        else the transport's."""
        listed = headers.get_list("cache-control", split_commas=True)
        directives = {part.split("=", 1)[0].strip().lower() for part in listed}
        gives_lifetime = bool(directives & _LIFETIME_DIRECTIVES) or headers.get("expires") is not None
        return None if gives_lifetime else self.max_age


def _is_json(response: httpx.Response) -> bool:
    """Whether the response's Content-Type is JSON (application/json, or ...+json)."""
    kind = str(response.headers.get("content-type", "")).split(";", 1)[0].strip().lower()
    return kind == "application/json" or (kind.startswith("application/") and kind.endswith("+json"))


def _marked(response: httpx.Response, outcome: Outcome) -> httpx.Response:
    """`response`, its extensions saying `outcome`."""
    response.extensions["normcache"] = outcome
    return response


class CachingTransport(httpx.BaseTransport):
    """An httpx transport that answers GETs of JSON from `cache` while they are fresh and
    revalidates them with ETag (see the module's text), sending through `transport`
    (default httpx.HTTPTransport()). `max_age`: the lifetime of an answer whose headers
    give none (0: stale at once; None: it never expires)."""

    def __init__(self, cache: Cache, transport: httpx.BaseTransport | None = None, *, max_age: int | None = 0) -> None:
        """A transport caching in `cache`, in front of `transport`."""
        self._documents = _Documents(cache, max_age)
        self._transport = transport if transport is not None else httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """The answer to `request`: from the cache, or from the network and stored."""
        plan = self._documents.plan(request)
        if plan.answer is not None:
            return plan.answer
        response = self._transport.handle_request(plan.request)
        if plan.key is None:
            return _marked(response, "passed")
        response.read()
        return self._documents.settle(plan, plan.key, response)

    def close(self) -> None:
        """Close the transport it sends through."""
        self._transport.close()


class AsyncCachingTransport(httpx.AsyncBaseTransport):
    """CachingTransport for httpx.AsyncClient, sending through `transport` (default
    httpx.AsyncHTTPTransport())."""

    def __init__(
        self, cache: Cache, transport: httpx.AsyncBaseTransport | None = None, *, max_age: int | None = 0
    ) -> None:
        """A transport caching in `cache`, in front of `transport`."""
        self._documents = _Documents(cache, max_age)
        self._transport = transport if transport is not None else httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """The answer to `request`: from the cache, or from the network and stored."""
        plan = self._documents.plan(request)
        if plan.answer is not None:
            return plan.answer
        response = await self._transport.handle_async_request(plan.request)
        if plan.key is None:
            return _marked(response, "passed")
        await response.aread()
        return self._documents.settle(plan, plan.key, response)

    async def aclose(self) -> None:
        """Close the transport it sends through."""
        await self._transport.aclose()
