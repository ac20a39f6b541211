"""The Operation class: a GraphQL operation prepared by Cache.prepare."""

from __future__ import annotations

from ._library import OperationHandle, call_with_buffer, lib
from .managed import ManagedHandle, raises_closed_error


class Operation(ManagedHandle[OperationHandle]):
    """A parsed, validated and compiled GraphQL operation, from Cache.prepare.

    It keeps the schema, key rules and key resolver its cache had when it was prepared,
    stays valid after that cache is closed, and may be used with any cache
    (Cache.normalize, write, read) from many threads. Release it with close() or a `with`
    block; a forgotten one is freed when it is garbage collected.
    """

    kind = "operation"

    def __init__(self, handle: OperationHandle) -> None:
        """Wrap a normcache_op handle; Cache.prepare makes them, this class frees them."""
        super().__init__(handle, lib.normcache_op_free)

    @property
    @raises_closed_error
    def document(self) -> str:
        """The document to send to the server: the operation and the fragments it uses, with
        `__typename` added to every selection set but the root and the key fields the type
        policies need."""
        _, buffer = call_with_buffer(lib.normcache_op_document, self._live_handle())
        return buffer.decode("utf-8")

    def __repr__(self) -> str:
        """<normcache.Operation handle=0x…>, or <normcache.Operation closed>."""
        handle = self._handle
        state = "closed" if handle is None else f"handle=0x{handle.value or 0:x}"
        return f"<normcache.Operation {state}>"
