"""Fetching: what Cache.execute and execute_document (and their asyncio forms aexecute and
aexecute_document) hand to the fetch function and take back from it, and the result
they return.

The library runs the fetch policy: it reads the cache and, when the policy says so, calls
the fetch function with a FetchRequest, writes what it answers, and gives back each
result. A fetch function answers with any of:

- a FetchReply(body, headers=None, max_age=None);
- a tuple (body, headers), headers being None or any mapping as Cache.write takes them
  (urllib's response.headers, a dict, httpx's or requests' headers);
- a body alone, bytes or str (no caching headers);
- a response object of urllib, httpx or requests: one with `headers` and either
  `content` (bytes) or read(); read() is called (and the response then closed). A
  status outside 200-299 (`status_code` or `status`) is a failed fetch,
  "HTTP 503 Service Unavailable".

An exception it raises is a failed fetch too: cached data stands in when the policy
allows it (the result's fetch_error is then "<type>: <text>" of the exception and
fetch_exception the exception itself), and otherwise the call raises FetchError from
the exception. KeyboardInterrupt and SystemExit end the call at once (nothing is written)
and then propagate. An answer of another kind (None, an int, a coroutine from a sync
call) is a bug rather than a network failure: it ends the call with CallbackError, from
a TypeError that says what was wrong, and no cached data stands in. A body that is not
JSON, or not a GraphQL response of the operation, or malformed caching headers, fail
the call with the error Cache.write would raise (JSONError, DataError,
InvalidArgumentError), and nothing is written.

The fetch function runs on the calling thread, outside the library's locks and
transactions: it may use the cache, even call execute itself.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import itertools
import json
import threading
from collections.abc import Awaitable, Coroutine
from ctypes import byref, string_at
from dataclasses import dataclass, field
from typing import Any, Callable, Literal, NoReturn, Optional, Protocol, Union

from ._library import (
    FETCH,
    MISS,
    OK,
    RESULT_CALLBACK,
    STALE,
    CFetchRequest,
    ReplyHandle,
    WriteOptions,
    describe_failure,
    lib,
)
from ._options import Headers, write_options
from .errors import CallbackError, Error, FetchError, GraphQLError
from .freshness import ReadResult, ReadStatus

#: Where a result came from: "cache" (read from the cache) or "network" (the fetch's
#: reply, as written and read back).
Source = Literal["cache", "network"]
#: A response body: JSON text as bytes (or another bytes-like object) or str.
Body = Union[bytes, bytearray, memoryview, str]
#: What the library's status says of a read or a result.
READ_STATUSES: dict[int, ReadStatus] = {OK: "complete", STALE: "stale", MISS: "miss"}


class ContentResponse(Protocol):
    """A response whose body is its `content`: httpx's or requests' Response."""

    @property
    def content(self) -> bytes:
        """The body."""
        ...

    @property
    def headers(self) -> Headers:
        """The response's headers."""
        ...


class ReadableResponse(Protocol):
    """A response whose body is read with read(): urllib's (http.client.HTTPResponse)."""

    def read(self) -> bytes:
        """The body, read to its end."""
        ...

    @property
    def headers(self) -> Headers:
        """The response's headers."""
        ...


@dataclass(frozen=True)
class FetchRequest:
    """What the cache asks the network for, handed to the fetch function.

    For Cache.execute: `document`, the network document to send (the operation with
    `__typename` and the key fields added: send this, not your own text),
    `operation_name` (None for an anonymous operation) and `variables` (a dict, {} when
    none were given); `key` is None. For Cache.execute_document: `key`, the document's
    key (the fetch knows what URL it stands for); the other members are None.
    """

    document: str | None
    operation_name: str | None
    variables: dict[str, Any] | None
    key: str | None

    @classmethod
    def _from_c(cls, request: CFetchRequest) -> FetchRequest:
        """The request the library gives a fetch callback, copied out of its memory."""
        document = request.text("document")
        name = request.text("operation_name")
        variables = request.text("variables_json")
        key = request.text("key")
        return cls(
            document=None if document is None else document.decode("utf-8"),
            operation_name=None if name is None else name.decode("utf-8"),
            variables=None if variables is None else json.loads(variables),
            key=None if key is None else key.decode("utf-8"),
        )

    def payload(self) -> dict[str, Any]:
        """The request as the JSON body of a GraphQL POST: {"query": document,
        "operationName": name (left out for an anonymous operation), "variables": {...}}.
        ValueError for the request of a document, which has no operation."""
        if self.document is None:
            raise ValueError(f"the request of the document {self.key!r} has no GraphQL operation")
        body: dict[str, Any] = {"query": self.document}
        if self.operation_name is not None:
            body["operationName"] = self.operation_name
        body["variables"] = {} if self.variables is None else self.variables
        return body


@dataclass(frozen=True)
class FetchReply:
    """A fetch function's answer: the response `body` (JSON text, bytes or str), the
    response's caching `headers` (Cache-Control, Age, Date and Expires are read, as
    Cache.write reads them) and a lifetime of the host's, `max_age` seconds (for
    execute_document, None takes the call's max_age). The expiry of what is written is
    the earliest of now + max_age and what the headers say; Cache-Control: no-store
    writes nothing (the result is still returned). With `strict_keys` an object of a
    keyed type that lacks its key fields fails the call with DataError, as in
    Cache.write, and nothing is written."""

    body: Body
    headers: Headers | None = None
    max_age: int | None = None
    strict_keys: bool = False


#: What a fetch function may answer (see the module's text).
FetchAnswer = Union[FetchReply, Body, tuple[Body, Optional[Headers]], ContentResponse, ReadableResponse]
#: A fetch function of Cache.execute: fetch(request) -> FetchAnswer.
Fetch = Callable[[FetchRequest], FetchAnswer]
#: A fetch function of Cache.aexecute: an async function (or any function returning an
#: awaitable) giving a FetchAnswer.
AsyncFetch = Callable[[FetchRequest], Awaitable[FetchAnswer]]


@dataclass(frozen=True)
class ExecutionResult(ReadResult):
    """One result of Cache.execute or execute_document: a ReadResult (status, data,
    missing, stale, oldest_written_at, earliest_expiry, as a read gives them) with where
    it came from and what the network said.

    `source` is "cache" or "network"; a network result is exactly the operation's
    selection, read back from what was written, and its `stale` is empty. `errors` is
    the response's GraphQL "errors" list under the error policy "all" (else None).
    `fetch_error` is the failed fetch's message when cached data stands in for the
    network's (network_first, or a revalidation that failed), and `fetch_exception` the
    exception the fetch raised, if it raised one (not compared, not in the repr). `etag`
    is, for execute_document, the entity-tag of the document (the stored one, or the
    network reply's ETag header).
    """

    source: Source = "cache"
    errors: list[dict[str, Any]] | None = None
    fetch_error: str | None = None
    fetch_exception: BaseException | None = field(default=None, compare=False, repr=False)


#: What on_result may be: a function of one ExecutionResult (its return value is ignored;
#: for aexecute it may be an async function, awaited on the event loop).
OnResult = Callable[[ExecutionResult], Any]


def _encode_body(body: object) -> bytes:
    """A reply's body as bytes; TypeError for anything but bytes-like objects and str."""
    if isinstance(body, bytes):
        return body
    if isinstance(body, (bytearray, memoryview)):
        return bytes(body)
    if isinstance(body, str):
        return body.encode("utf-8")
    if inspect.isawaitable(body):
        _close(body)
        raise TypeError("the reply's body is a coroutine: await it in the fetch function")
    raise TypeError(f"the reply's body must be bytes or str (JSON text), not {type(body).__name__}")


def _close(awaitable: object) -> None:
    """Close a coroutine that will never be awaited, so that Python does not warn of it."""
    close = getattr(awaitable, "close", None)
    if inspect.iscoroutine(awaitable) and callable(close):
        close()


def _http_failure(response: object) -> str | None:
    """The failed fetch's message ("HTTP 503 Service Unavailable") for a response whose
    status is outside 200-299; None for a success, or an object without a status."""
    status = getattr(response, "status_code", None)
    if status is None:
        status = getattr(response, "status", None)
    if not isinstance(status, int) or 200 <= status < 300:
        return None
    reason = getattr(response, "reason_phrase", None) or getattr(response, "reason", None)
    return f"HTTP {status} {reason}" if isinstance(reason, str) and reason else f"HTTP {status}"


def _response_parts(response: Any) -> tuple[object, Headers | None] | str:
    """The body and headers of a response object, or the failed fetch's message for a
    status outside 200-299. A response read with read() is closed afterwards."""
    try:
        failure = _http_failure(response)
        if failure is not None:
            return failure
        if hasattr(response, "content"):
            return response.content, response.headers
        body = response.read()
        if inspect.isawaitable(body):
            _close(body)
            raise TypeError(
                f"{type(response).__name__}.read() returned a coroutine: await it in the fetch function and "
                "return (body, response.headers)"
            )
        return body, response.headers
    finally:
        close = getattr(response, "close", None)
        if not hasattr(response, "content") and callable(close):
            close()


def _is_response(answer: object) -> bool:
    """Whether `answer` looks like a response object: headers, and content or read()."""
    return hasattr(answer, "headers") and (hasattr(answer, "content") or callable(getattr(answer, "read", None)))


#: What an answer becomes: the body and write options to answer with, or the message of
#: a failed fetch.
_Reply = Union[tuple[bytes, Optional[WriteOptions]], str]


def reply_of(answer: object, default_max_age: int | None) -> _Reply:
    """What the fetch's `answer` says: (body, write options), or the message of a failed
    fetch (a response with a status outside 200-299). TypeError (or the error of
    write_options) for an answer that cannot be used."""
    max_age: int | None = None
    headers: Headers | None = None
    strict_keys = False
    if isinstance(answer, FetchReply):
        body: object = answer.body
        headers, max_age, strict_keys = answer.headers, answer.max_age, answer.strict_keys
    elif isinstance(answer, tuple):
        if len(answer) != 2:
            raise TypeError(f"the fetch returned a tuple of {len(answer)} items, not (body, headers)")
        body, headers = answer
    elif isinstance(answer, (bytes, bytearray, memoryview, str)):
        body = answer
    elif inspect.isawaitable(answer):
        _close(answer)
        raise TypeError("the fetch returned a coroutine: an async fetch function goes with aexecute")
    elif _is_response(answer):
        parts = _response_parts(answer)
        if isinstance(parts, str):
            return parts
        body, headers = parts
    else:
        raise TypeError(
            f"the fetch returned {type(answer).__name__}: it must return a FetchReply, (body, headers), "
            "a body (bytes or str) or a response object"
        )
    encoded = _encode_body(body)
    return encoded, write_options(default_max_age if max_age is None else max_age, headers, strict_keys)


def _graphql_errors(body: bytes | None) -> list[dict[str, Any]] | None:
    """The "errors" list of a response body, or None when it has none that can be read."""
    try:
        errors = json.loads(body) if body is not None else None
    except ValueError:
        return None
    found = errors.get("errors") if isinstance(errors, dict) else None
    return found if isinstance(found, list) else None


class Execution:
    """One call of execute or execute_document: the fetch and on_result functions, and what
    happened in them, kept until the call returns. The library calls them through the C
    trampolines below, which never let an exception unwind into it."""

    def __init__(
        self, fetch: Callable[[FetchRequest], Any] | None, on_result: OnResult | None, max_age: int | None
    ) -> None:
        """A call with `fetch` (None: the library fails a call that must fetch),
        `on_result` (None: results are not delivered) and the default lifetime of a reply,
        `max_age` (for documents)."""
        if fetch is not None and not callable(fetch):
            raise TypeError(f"fetch must be a function of a FetchRequest, not {type(fetch).__name__}")
        if on_result is not None and not callable(on_result):
            raise TypeError(f"on_result must be a function of an ExecutionResult, not {type(on_result).__name__}")
        self.fetch = fetch
        self.on_result = on_result
        self.max_age = max_age
        #: The exception the fetch raised (the fetch then failed).
        self.fetch_exception: BaseException | None = None
        #: Why the fetch's answer could not be used (the call then failed with ECALLBACK).
        self.bad_answer: BaseException | None = None
        #: The first exception of on_result, raised when the call returns.
        self.result_failure: BaseException | None = None
        #: A KeyboardInterrupt or SystemExit of a callback, raised when the call returns.
        self.interrupt: BaseException | None = None
        #: The last body handed to the library, for the errors of a GraphQLError.
        self.body: bytes | None = None
        #: The last result handed to on_result: the call's result, when it returns.
        self.last: ExecutionResult | None = None

    # --- what the trampolines call --------------------------------------------------------

    def ask(self, request: FetchRequest) -> object:
        """The fetch function's answer to `request`."""
        assert self.fetch is not None  # the library is given no fetch callback otherwise
        return self.fetch(request)

    def deliver(self, result: ExecutionResult) -> None:
        """Hand `result` to on_result."""
        assert self.on_result is not None  # the library is given no result callback otherwise
        self.on_result(result)

    def answer(self, request: FetchRequest, reply: ReplyHandle) -> None:
        """Ask the fetch function and answer `reply` with what it says; a fetch that raised
        answers with its failure. Returns without answering (the library then fails the
        call with ECALLBACK) after an interruption or an answer that cannot be used."""
        if self.interrupt is not None:
            return
        try:
            answer = self.ask(request)
        except (KeyboardInterrupt, SystemExit) as error:
            self.interrupt = error
            return
        except BaseException as error:  # noqa: BLE001 - a failed fetch, reported to the library
            self.fetch_exception = error
            _fail(reply, describe_failure(error))
            return
        found = reply_of(answer, self.max_age)
        if isinstance(found, str):
            _fail(reply, found)
            return
        body, options = found
        self.body = body
        lib.normcache_fetch_reply_set(reply, body, len(body), None if options is None else byref(options))

    def receive(self, status: int, text: bytes) -> None:
        """Hand the result `text` with `status` to on_result, unless an earlier one raised."""
        if self.result_failure is not None or self.interrupt is not None:
            return
        self.last = self.result(status, text)
        self.deliver(self.last)

    def keep(self, error: BaseException, in_fetch: bool) -> None:
        """Keep an exception a trampoline caught: an interruption for the end of the call, a
        failure of the fetch's answer or the first failure of on_result."""
        if isinstance(error, (KeyboardInterrupt, SystemExit)):
            self.interrupt = self.interrupt or error
        elif in_fetch:
            self.bad_answer = error
        elif self.result_failure is None:
            self.result_failure = error

    # --- the call -----------------------------------------------------------------------------

    def result(self, status: int, text: bytes) -> ExecutionResult:
        """The ExecutionResult of the library's result object `text` with `status`."""
        answer = json.loads(text)
        fetch_error = answer["fetchError"]
        return ExecutionResult._from_json(
            READ_STATUSES[status],
            answer,
            source=answer["source"],
            errors=answer["errors"],
            fetch_error=fetch_error,
            fetch_exception=None if fetch_error is None else self.fetch_exception,
        )

    def run(self, call: Callable[[Any, int, Any, int], tuple[int, bytes]]) -> ExecutionResult:
        """Run `call` (fetch, fetch_context, on_result, result_context) -> (status, result),
        the library's execute function with everything but its callbacks bound, with this
        call's trampolines; return its last result, or raise what went wrong."""
        number = next(_numbers)
        _executions[number] = self
        try:
            fetch = _FETCH if self.fetch is not None else FETCH()
            deliver = _DELIVER if self.on_result is not None else RESULT_CALLBACK()
            status, text = call(fetch, number, deliver, number)
        except Error as error:
            self._raise_failure(error)
        finally:
            del _executions[number]
        if self.interrupt is not None:
            raise self.interrupt
        if self.result_failure is not None:
            raise self.result_failure
        return self.last if self.last is not None else self.result(status, text)

    def _raise_failure(self, error: Error) -> NoReturn:
        """Raise what a call that failed with `error` raises: an interruption first; for a
        fetch that raised, FetchError from its exception; for an answer that could not be
        used, CallbackError from the TypeError that says why; for GraphQL errors,
        GraphQLError with the response's errors."""
        if self.interrupt is not None:
            raise self.interrupt from None
        if isinstance(error, CallbackError) and self.bad_answer is not None:
            message = f"the fetch's answer cannot be used: {describe_failure(self.bad_answer)}"
            raise CallbackError(error.code, message) from self.bad_answer
        if isinstance(error, FetchError) and self.fetch_exception is not None:
            raise error from self.fetch_exception
        if isinstance(error, GraphQLError):
            error.errors = _graphql_errors(self.body)
        raise error


def _fail(reply: ReplyHandle, message: str) -> None:
    """Answer `reply` with a failed fetch and its message."""
    encoded = message.encode("utf-8", "replace")
    lib.normcache_fetch_reply_error(reply, encoded, len(encoded))


#: The calls under way, by the context number the library hands back to the trampolines.
_executions: dict[int, Execution] = {}
#: Context numbers, never 0 (which the library would pass back as NULL).
_numbers = itertools.count(1)


def _fetch(context: int | None, request: Any, reply: ReplyHandle) -> int:
    """The C fetch callback of every call: asks the Execution `context` names. Nothing
    unwinds into the library; it always returns NORMCACHE_OK, answered or not."""
    execution = _executions.get(context or 0)
    if execution is None:
        return OK  # unanswered: NORMCACHE_ECALLBACK (never: the call holds its entry)
    try:
        execution.answer(FetchRequest._from_c(request.contents), reply)
    except BaseException as error:  # noqa: BLE001 - nothing may unwind into the library
        execution.keep(error, in_fetch=True)
    return OK


def _deliver(context: int | None, status: int, text: int | None, length: int) -> None:
    """The C result callback of every call: hands the result to the Execution `context`
    names. Nothing unwinds into the library."""
    execution = _executions.get(context or 0)
    if execution is None or text is None:
        return
    try:
        execution.receive(status, string_at(text, length))
    except BaseException as error:  # noqa: BLE001 - nothing may unwind into the library
        execution.keep(error, in_fetch=False)


#: The C callbacks, alive as long as this module.
_FETCH = FETCH(_fetch)
_DELIVER = RESULT_CALLBACK(_deliver)


async def _awaited(function: Callable[[Any], Any], argument: object) -> Any:
    """`function(argument)`, awaited when it returns an awaitable."""
    value = function(argument)
    if inspect.isawaitable(value):
        value = await value
    return value


class AsyncExecution(Execution):
    """A call of aexecute or aexecute_document: the library runs in a worker thread, and the
    fetch and on_result functions run on the caller's event loop, the worker waiting for
    them. Cancelling the awaiting task cancels the fetch under way (the call then ends
    with a failed fetch, its result dropped) and delivers no more results."""

    def __init__(
        self,
        fetch: Callable[[FetchRequest], Any] | None,
        on_result: OnResult | None,
        max_age: int | None,
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        """A call whose callbacks run on `loop`."""
        super().__init__(fetch, on_result, max_age)
        self.loop = loop
        self.cancelled = False
        self._pending: concurrent.futures.Future[Any] | None = None
        self._lock = threading.Lock()

    def _on_loop(self, coroutine: Coroutine[Any, Any, Any]) -> Any:
        """Run `coroutine` on the loop and wait for its value in this (worker) thread;
        CancelledError once the awaiting task was cancelled."""
        with self._lock:
            if self.cancelled:
                coroutine.close()
                raise asyncio.CancelledError("the task awaiting the call was cancelled")
            pending = self._pending = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        try:
            return pending.result()
        finally:
            with self._lock:
                self._pending = None

    def ask(self, request: FetchRequest) -> object:
        """The fetch function's answer, awaited on the loop."""
        assert self.fetch is not None  # the library is given no fetch callback otherwise
        return self._on_loop(_awaited(self.fetch, request))

    def deliver(self, result: ExecutionResult) -> None:
        """Hand `result` to on_result on the loop (awaited when it is async)."""
        assert self.on_result is not None  # the library is given no result callback otherwise
        if not self.cancelled:
            self._on_loop(_awaited(self.on_result, result))

    def cancel(self) -> None:
        """The awaiting task was cancelled: cancel the fetch or on_result under way, and
        start no other."""
        with self._lock:
            self.cancelled = True
            if self._pending is not None:
                self._pending.cancel()

    async def run_in_worker(self, call: Callable[[], ExecutionResult]) -> ExecutionResult:
        """Run `call` (which runs this Execution) in a worker thread of the loop and await
        its result. On cancellation, the call is ended and waited for before the
        cancellation goes on, so that nothing of it runs afterwards."""
        worker = asyncio.ensure_future(asyncio.to_thread(call))
        worker.add_done_callback(_retrieve)
        try:
            return await asyncio.shield(worker)
        except asyncio.CancelledError:
            self.cancel()
            await asyncio.wait({worker})
            raise


def _retrieve(worker: asyncio.Future[Any]) -> None:
    """Mark a worker's exception as seen: a cancelled call's outcome is dropped."""
    if not worker.cancelled():
        worker.exception()
