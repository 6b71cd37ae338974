"""Brittle: everything toolspecs relies on in googleapiclient beyond its public API, in one place.

Google requests are ``googleapiclient`` requests (``service.events().list(...)``), run by
:mod:`.service` with our own retries, deadline and check that each answer is a JSON object.
To read every answer through that check, alone or batched, we lean on these internals,
checked against the pinned google-api-python-client by
``tests/google_base/test_googleapiclient_compat.py``:

1. ``HttpRequest.postproc``, the callable (a constructor argument kept as an attribute)
   that ``HttpRequest.execute`` calls on a 2xx answer's ``(resp, content)`` and whose
   result it returns, and that ``BatchHttpRequest`` calls on each batched call's part
   before its callback. :func:`read_through` replaces it with our reader (keeping the
   original as ``__wrapped__``, so a request run twice is wrapped once). If it changes,
   an HTML page or a cut body is handed on as if it were the answer, or nothing is read.
2. For a method without a response body (``events.delete``), ``discovery`` passes a
   ``RawModel``'s bound ``response`` as ``postproc`` (:func:`bodiless`), which hands on the
   raw body: an empty one is then the success Google sends. If it changes, a delete that
   worked reads as an unreadable answer.
3. ``BatchHttpRequest._batch_uri``, the batch's address (:func:`batch_uri`), named in the
   error when a batch got no answer; without it the error says "Google".
4. A batched call's ``HttpError.content`` is bytes, as a lone call's: ``BatchHttpRequest``
   encodes each part's body again, and ``HttpError`` refuses text. :func:`error_content`
   still takes text, which older googleapiclient handed on (the part decoded).
5. ``discovery_cache.get_static_doc`` (the discovery documents bundled with the client) and
   ``build_from_document`` given a parsed document, which it keeps and fixes up in place
   (``_fix_up_parameters`` adds the same parameters on every build): :func:`build_shared`
   parses each API's document once and builds every client from it, one build at a time,
   so a server's users share one copy (about 0.7 MiB a user before). If the fix-ups stop
   being the same on every build, clients built later see another's parameters.
6. ``client_options.api_endpoint`` replaces only the base of the API's methods: a batch
   goes to the document's ``rootUrl`` + ``batchPath`` and an upload to ``rootUrl`` +
   ``upload/`` + ``servicePath`` (``Resource._add_basic_methods``,
   ``_media_path_url_from_info``), Google's hosts whatever the endpoint. With an
   endpoint, :func:`build_shared` builds from a shallow copy of the shared document whose
   ``rootUrl`` is the endpoint's root (:func:`~.endpoints.split_endpoint`), so every
   request goes there. If googleapiclient starts reading the endpoint for those itself,
   nothing changes; if it stops reading ``rootUrl``, batches leave for Google's host.
"""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Callable
from typing import Any

from toolspecs.loaders.google.endpoints import split_endpoint

Reader = Callable[[Any, bytes], Any]
"""A ``postproc``: ``(resp, content)`` -> the answer."""


def read_through(request: Any, reader: Callable[[Reader], Reader]) -> None:
    """Read ``request``'s answer with ``reader(original)``, its ``postproc`` (internal 1).

    ``reader`` gets googleapiclient's own ``postproc`` (never one of ours, when the request
    was read through before) and returns the one to use.
    """
    original = request.postproc
    original = getattr(original, "__wrapped__", original)
    replacement = reader(original)
    replacement.__wrapped__ = original  # type: ignore[attr-defined]
    request.postproc = replacement


def bodiless(postproc: Reader) -> bool:
    """Whether ``postproc`` reads a method without a response body (internal 2)."""
    from googleapiclient.model import RawModel

    return isinstance(getattr(postproc, "__self__", None), RawModel)


def batch_uri(batch: Any) -> str:
    """The address of a ``BatchHttpRequest``, or ``""`` (internal 3)."""
    return str(getattr(batch, "_batch_uri", ""))


def error_content(exc: Any) -> Any:
    """An ``HttpError``'s body as bytes, even were it text (internal 4)."""
    content = exc.content
    if isinstance(content, str):  # a batched call's body, decoded by older googleapiclient
        return content.encode("utf-8")
    return content


_documents: dict[tuple[str, str], dict[str, Any]] = {}
_building = threading.Lock()


def build_shared(api: str, version: str, client_options: Any = None, **options: Any) -> Any:
    """``build(api, version, static_discovery=True, **options)``, the document shared (internal 5).

    ``client_options`` (checked: :func:`~.endpoints.client_options`) with an
    ``api_endpoint``: every request, batches and uploads too, goes there (internal 6).

    Raises:
        UnknownApiNameOrVersion: When the client bundles no document for ``api``/``version``.
    """
    from googleapiclient import discovery, discovery_cache

    with _building:  # one build at a time: each fixes up the shared document in place
        document = _documents.get((api, version))
        if document is None:
            content = discovery_cache.get_static_doc(api, version)
            if content is None:
                raise discovery.UnknownApiNameOrVersion(f"name: {api}  version: {version}")
            document = _documents[(api, version)] = json.loads(content)
        if client_options is not None and client_options.api_endpoint:
            root, base = split_endpoint(
                str(client_options.api_endpoint), str(document.get("servicePath", ""))
            )
            document = {**document, "rootUrl": root}  # nested parts still shared
            client_options = copy.copy(client_options)
            client_options.api_endpoint = base
        return discovery.build_from_document(
            document, base=discovery.DISCOVERY_URI, client_options=client_options, **options
        )
