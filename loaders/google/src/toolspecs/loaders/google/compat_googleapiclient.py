"""Brittle: what toolspecs relies on in googleapiclient beyond its public API, in one place.

Checked against the pinned google-api-python-client by
``tests/google_base/test_googleapiclient_compat.py``:

1. ``HttpRequest.postproc``, called by ``execute`` on a 2xx answer and by
   ``BatchHttpRequest`` on each part: :func:`read_through` replaces it with our reader
   (the original kept as ``__wrapped__``). If it changes, an HTML page or a cut body is
   handed on as the answer.
2. A bodiless method (``events.delete``) has a ``RawModel``'s bound ``response`` as
   ``postproc`` (:func:`bodiless`). If it changes, a delete that worked reads as unreadable.
3. ``BatchHttpRequest._batch_uri`` (:func:`batch_uri`), named when a batch got no answer.
4. A batched call's ``HttpError.content`` is bytes; :func:`error_content` still takes text.
5. ``discovery_cache.get_static_doc`` and ``build_from_document`` given a parsed document,
   fixed up in place the same way on every build: :func:`build_shared` parses each API's
   document once (about 0.7 MiB a user before) and builds one client at a time.
6. ``client_options.api_endpoint`` replaces only the methods' base; batches and uploads
   go to the document's ``rootUrl``. :func:`build_shared` builds from a copy whose
   ``rootUrl`` is the endpoint's root; if googleapiclient stops reading ``rootUrl``,
   batches leave for Google's host.
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
    """Read ``request``'s answer with ``reader(original postproc)`` (internal 1)."""
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
    """``build(api, version, ...)`` from the shared bundled document (internals 5 and 6)."""
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
