"""Where toolspecs.core leans on another library's internals: one module per library.

Each module opens with a banner listing the internals it uses, and has a test in
``tests/core`` that checks them against the pinned version (``uv.lock``): when an upgrade
changes one, that test fails and names it, instead of a wrong ranking or a crash at a
user's. Everywhere else, core uses the libraries' public API only.

- :mod:`toolspecs.core.compat.bm25s`: the BM25 index of stored results.

The other packages keep theirs next to the code that needs them, in the lowest package
that uses each library (loaders never import core), each with the same banner and a
``tests/<area>/test_<library>_compat.py``:

- ``toolspecs.base.net.compat_requests``: requests (``_content``, ``iter_content``'s
  errors, urllib3's ``read1``).
- ``toolspecs.loaders.google.compat_googleapiclient``: google-api-python-client
  (``postproc``, ``RawModel``, ``_batch_uri``); ``compat_httplib2``: httplib2's wording.
- ``toolspecs.loaders.wolfram_alpha.compat_wolframalpha``: wolframalpha (``Document.make``,
  its worded ``<error>``).
- ``toolspecs.loaders.arxiv.compat_arxiv``: arxiv.py (``_session``, ``_format_url``,
  ``_parse_feed``, ``_feed.parse``).
- ``toolspecs.adapters.compat_langchain``, ``compat_smolagents``, ``compat_lagent``: the
  host libraries' tool classes.
- ``toolspecs.agents.compat_llama_index``: llama-index's OpenAI LLM (``_client``).
- ``toolspecs.server.compat_mcp``: the mcp SDK (``ServerSession._connection``).

``tests/test_compat_modules.py`` checks that every one has its banner and its test, and
that no other source module touches the internals they list.
"""
