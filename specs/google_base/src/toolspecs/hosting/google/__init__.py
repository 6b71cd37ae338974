"""toolspecs.hosting.google: ``toolspecs serve`` for many Google users.

``--google-sign-in`` makes the server its clients' authorization server, signing each
person in with Google (:mod:`.signin`, :mod:`.accounts`); ``--google-delegate KEY.json``
acts as each user of the organisation's authorization server with domain-wide delegation
(:mod:`.delegation`). The flags and each user's tools are :mod:`.serve`'s. This package
imports the standard library only at the top, so ``--help`` answers before llama-index.
"""

from toolspecs.hosting.google.serve import GoogleHosting

__all__ = ["GoogleHosting"]
