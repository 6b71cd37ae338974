"""toolspecs.hosting.google: ``toolspecs serve`` for many Google users.

``pip install "toolspecs-google-base[server]"`` (``toolspecs`` has it) adds two ways to
``toolspecs serve``, found through the entry point ``toolspecs.hosting``
(:mod:`toolspecs.cli.hosting`):

- ``--google-sign-in``: the server is its clients' authorization server and signs each
  person in with Google (:mod:`.signin`; Google's side: :mod:`.accounts`);
- ``--google-delegate KEY.json``: behind the organisation's authorization server, a
  service account with domain-wide delegation acts as each user (:mod:`.delegation`).

Either way each user's Google specs act as them
(:meth:`toolspecs.specs.google_base.GoogleToolSpec.act_as`); the flags, their checks and
each user's tools are :mod:`.serve`'s. This package imports the standard library only at
the top: ``toolspecs serve --help`` lists its flags before llama-index is imported.
"""

from toolspecs.hosting.google.serve import GoogleHosting

__all__ = ["GoogleHosting"]
