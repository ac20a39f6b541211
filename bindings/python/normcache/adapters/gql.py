"""gql transports that run GraphQL through normcache (pip install normcache[gql]).

    transport = CachingTransport(HTTPXTransport(url), cache)
    client = gql.Client(transport=transport)
    client.execute(gql.gql("query Feed { feed { title } }"))     # the network, then the cache
    client.execute(query, policy="network_only")                  # a policy per request

Every query goes through the cache's fetch policies (Cache.execute): its document is
prepared once (parsed, checked against the cache's schema when one is loaded, compiled;
kept until the transport is closed), the network document (with __typename and key fields
added) is what the wrapped transport sends, the answer is written, and the result is read
back as exactly the query's selection. The policy is the transport's (`policy`,
"cache_first" by default) or the request's (`policy=` passed to Client.execute, which
hands it on); every other keyword goes to the wrapped transport. A mutation always goes to
the network and its result is written; a subscription passes through unchanged
(AsyncCachingTransport.subscribe). The freshness of what is written comes from the
wrapped transport's `response_headers` (gql's HTTP transports keep the last response's:
Cache-Control, Age, Date, Expires), read right after its call: requests running at once on
one async transport may read each other's, so give each its own transport when the
server's lifetimes differ between queries.

A query the cache cannot answer under "cache_only" is a result whose error says what is
missing ("normcache: the cache cannot answer: feed (absent)"; gql's Client raises it as
TransportQueryError). GraphQL errors follow `error_policy` (see Cache.execute): with "none" (default) nothing
is written and the result carries the errors, so gql's Client raises TransportQueryError
as it would without the cache; with "all" the data is written and returned with the
errors. A failure of the wrapped transport (TransportServerError, a connection error)
is raised as it was, unless cached data stands in (network_first, or a policy that read
the cache first). A reply that cannot be written (not JSON, not the query's shape,
malformed caching headers) raises the cache's error (DataError, JSONError,
InvalidArgumentError) and nothing is written.
"""

from __future__ import annotations

import json
import threading
from collections.abc import AsyncGenerator
from typing import Any, Generic, NoReturn, TypeVar

try:
    from gql import GraphQLRequest
    from gql.transport.async_transport import AsyncTransport
    from gql.transport.transport import Transport
    from graphql import ExecutionResult, OperationType, get_operation_ast, print_ast
except ImportError as error:  # pragma: no cover - only without the extra
    raise ImportError("normcache.adapters.gql needs gql: pip install normcache[gql]") from error

from .._options import ErrorPolicy, Headers, Policy
from ..cache import Cache
from ..errors import FetchError, GraphQLError
from ..fetching import ExecutionResult as CacheResult
from ..fetching import FetchReply, FetchRequest
from ..operation import Operation


class _Operations:
    """What both transports share: the cache, the policies, and the operations prepared
    so far by document text and operation name."""

    def __init__(self, cache: Cache, policy: Policy, max_stale: int | None, error_policy: ErrorPolicy) -> None:
        """Operations of `cache`, run with these policies by default."""
        if not isinstance(cache, Cache):
            raise TypeError(f"cache must be a normcache.Cache, not {type(cache).__name__}")
        self.cache = cache
        self.policy: Policy = policy
        self.max_stale = max_stale
        self.error_policy: ErrorPolicy = error_policy
        self._prepared: dict[tuple[str, str | None], Operation] = {}
        self._lock = threading.Lock()

    def operation(self, request: GraphQLRequest) -> Operation | None:
        """The prepared operation of `request` (prepared on first use); None for a
        subscription, which is not cached."""
        found = get_operation_ast(request.document, request.operation_name)
        if found is not None and found.operation == OperationType.SUBSCRIPTION:
            return None
        key = (print_ast(request.document), request.operation_name)
        with self._lock:
            prepared = self._prepared.get(key)
            if prepared is None:
                prepared = self._prepared[key] = self.cache.prepare(key[0], key[1])
            return prepared

    def close(self) -> None:
        """Close the prepared operations."""
        with self._lock:
            prepared, self._prepared = list(self._prepared.values()), {}
        for operation in prepared:
            operation.close()

    def options(self, request: GraphQLRequest, policy: Policy) -> dict[str, Any]:
        """The arguments of Cache.execute (and aexecute) for `request` under `policy`,
        but the operation and the fetch."""
        return {
            "variables": request.variable_values,
            "policy": policy,
            "max_stale": self.max_stale,
            "error_policy": self.error_policy,
        }

    @staticmethod
    def sent(request: FetchRequest, original: GraphQLRequest) -> GraphQLRequest:
        """The request the wrapped transport sends for the cache's `request`: the network
        document, with the original's variables, operation name and extensions."""
        return GraphQLRequest(
            request.document or "",
            variable_values=original.variable_values,
            operation_name=request.operation_name,
            extensions=original.extensions,
        )

    @staticmethod
    def reply(result: ExecutionResult, headers: Headers | None) -> FetchReply:
        """The cache's reply of the wrapped transport's `result` and response `headers`."""
        body: dict[str, Any] = {"data": result.data}
        if result.errors is not None:
            body["errors"] = [error if isinstance(error, dict) else error.formatted for error in result.errors]
        return FetchReply(json.dumps(body), headers)

    @staticmethod
    def result(found: CacheResult) -> ExecutionResult:
        """gql's result of the cache's; a miss (cache_only) is an error saying what is
        missing, which gql's Client raises as TransportQueryError."""
        if found.status == "miss":
            missing = ", ".join(str(entry) for entry in found.missing)
            miss = {"message": f"normcache: the cache cannot answer: {missing}", "extensions": {"normcache": "miss"}}
            return ExecutionResult(data=None, errors=[miss])  # type: ignore[list-item]  # gql keeps dicts
        return ExecutionResult(data=found.data, errors=found.errors)  # type: ignore[arg-type]  # gql keeps dicts

    @staticmethod
    def failed(error: GraphQLError | FetchError) -> ExecutionResult:
        """The result of a call that failed with GraphQL errors; a failed fetch's own
        exception raised again."""
        if isinstance(error, GraphQLError):
            return ExecutionResult(data=None, errors=error.errors)  # type: ignore[arg-type]  # gql keeps dicts
        _raise_cause(error)


def _raise_cause(error: FetchError) -> NoReturn:
    """Raise the wrapped transport's exception behind a failed fetch (or `error` itself)."""
    cause = error.__cause__
    if isinstance(cause, Exception):
        error.__cause__ = None
        raise cause
    raise error


def _request_options(kwargs: dict[str, Any], operations: _Operations) -> tuple[Policy, dict[str, Any]]:
    """The policy of one call (its `policy` keyword, else the transport's) and the
    keywords left for the wrapped transport."""
    rest = dict(kwargs)
    policy: Policy = rest.pop("policy", operations.policy)
    return policy, rest


#: The transport a caching transport wraps.
_Wrapped = TypeVar("_Wrapped", Transport, AsyncTransport)


class _Wrapping(Generic[_Wrapped]):
    """What both transports hold: the transport they wrap and the operations."""

    def __init__(
        self,
        transport: _Wrapped,
        cache: Cache,
        *,
        policy: Policy = "cache_first",
        max_stale: int | None = None,
        error_policy: ErrorPolicy = "none",
    ) -> None:
        """A transport caching in `cache`, in front of `transport`."""
        self.transport: _Wrapped = transport
        self._operations = _Operations(cache, policy, max_stale, error_policy)


class CachingTransport(_Wrapping[Transport], Transport):
    """A gql Transport that runs queries through `cache` in front of `transport` (see the
    module's text): `policy` (default "cache_first"), `max_stale` and `error_policy` as
    Cache.execute takes them."""

    def connect(self) -> None:
        """Connect the wrapped transport."""
        self.transport.connect()  # type: ignore[no-untyped-call]  # gql's is untyped

    def close(self) -> None:
        """Close the wrapped transport and the prepared operations."""
        self.transport.close()  # type: ignore[no-untyped-call]  # gql's is untyped
        self._operations.close()

    def execute(self, request: GraphQLRequest, *args: Any, **kwargs: Any) -> ExecutionResult:
        """The result of `request`, from the cache or the network as the policy says."""
        operations = self._operations
        policy, rest = _request_options(kwargs, operations)
        operation = operations.operation(request)
        if operation is None:
            return self.transport.execute(request, *args, **rest)

        def fetch(sent: FetchRequest) -> FetchReply:
            result = self.transport.execute(operations.sent(sent, request), *args, **rest)
            return operations.reply(result, getattr(self.transport, "response_headers", None))

        try:
            found = operations.cache.execute(operation, fetch=fetch, **operations.options(request, policy))
        except (GraphQLError, FetchError) as error:
            return operations.failed(error)
        return operations.result(found)


class AsyncCachingTransport(_Wrapping[AsyncTransport], AsyncTransport):
    """CachingTransport for gql's async Client, in front of an AsyncTransport (httpx's
    HTTPXAsyncTransport, aiohttp's): the cache runs in a worker thread and the wrapped
    transport on the event loop (Cache.aexecute); subscriptions pass through."""

    async def connect(self) -> None:
        """Connect the wrapped transport."""
        await self.transport.connect()  # type: ignore[no-untyped-call]  # gql's is untyped

    async def close(self) -> None:
        """Close the wrapped transport and the prepared operations."""
        await self.transport.close()  # type: ignore[no-untyped-call]  # gql's is untyped
        self._operations.close()

    async def execute(self, request: GraphQLRequest, *args: Any, **kwargs: Any) -> ExecutionResult:
        """The result of `request`, from the cache or the network as the policy says."""
        operations = self._operations
        policy, rest = _request_options(kwargs, operations)
        operation = operations.operation(request)
        if operation is None:
            return await self.transport.execute(request, *args, **rest)

        async def fetch(sent: FetchRequest) -> FetchReply:
            result = await self.transport.execute(operations.sent(sent, request), *args, **rest)
            return operations.reply(result, getattr(self.transport, "response_headers", None))

        try:
            found = await operations.cache.aexecute(operation, fetch=fetch, **operations.options(request, policy))
        except (GraphQLError, FetchError) as error:
            return operations.failed(error)
        return operations.result(found)

    def subscribe(self, request: GraphQLRequest) -> AsyncGenerator[ExecutionResult, None]:
        """The wrapped transport's subscription, not cached."""
        generator: AsyncGenerator[ExecutionResult, None] = self.transport.subscribe(request)
        return generator
