"""toolspecs.hosting.google: ``toolspecs serve`` for many Google users.

``--google-sign-in`` (:mod:`.signin`) or ``--google-delegate`` (:mod:`.delegation`); the
flags are :mod:`.serve`'s. Standard library only at the top, for a quick ``--help``.
"""

from toolspecs.hosting.google.serve import GoogleHosting

__all__ = ["GoogleHosting"]
