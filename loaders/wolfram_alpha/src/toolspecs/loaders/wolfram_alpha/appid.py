"""The AppID: read from the parameters LlamaHub's users pass, and never shown.

The Full Results API takes the AppID in the URL, which httpx logs at INFO: a filter
(:class:`HideAppId`) on every logger that sees request URLs masks it from the moment this
module is imported.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any

_APPID_IN_URL = re.compile(r"appid=[^&\s\"'<>]+", re.IGNORECASE)
# Loggers that see request URLs. httpx logs each request's URL at INFO; httpcore's DEBUG
# traces show none today (its Request repr has only the method), but are masked too; and
# urllib3 in case the ``wolframalpha`` package's or another requests-based client is used
# with the same AppID. A filter on a logger applies only to records made on that logger
# (not to its children's), hence the explicit list.
_URL_LOGGERS = (
    "httpx",
    "httpcore",
    "httpcore.connection",
    "httpcore.http11",
    "httpcore.http2",
    "httpcore.proxy",
    "httpcore.socks",
    "urllib3",
    "urllib3.connectionpool",
    "urllib3.util.retry",
)


def mask_app_id(text: str) -> str:
    """``text`` with every ``appid=...`` URL parameter shown as ``appid=***``."""
    return _APPID_IN_URL.sub("appid=***", text) if "appid=" in text.lower() else text


class HideAppId(logging.Filter):
    """A logging filter that masks ``appid=...`` in a record's message and arguments.

    The Full Results API takes the AppID in the URL, which httpx logs at INFO. The record
    is rewritten only when its formatted message holds an AppID: then the masked message
    replaces ``msg`` and ``args`` (so no handler sees the AppID, formatted or not).
    """

    def filter(self, record: logging.LogRecord) -> bool:
        """Mask the record in place; never drop it."""
        try:
            message = record.getMessage()
        except Exception:  # a record whose arguments do not fit its message: leave it
            return True
        masked = mask_app_id(message)
        if masked != message:
            record.msg, record.args = masked, ()
        return True


_HIDE_APP_ID = HideAppId()
for _name in _URL_LOGGERS:
    logging.getLogger(_name).addFilter(_HIDE_APP_ID)


def split_app_id(params: Mapping[str, Any] | None) -> tuple[str | None, dict[str, Any]]:
    """An ``appid`` among request parameters (any case), and the other parameters.

    LlamaHub's spec sends its ``api_params`` as they are, so ``api_params={"appid": ...}``
    is how some of its users pass the AppID; we take it as the AppID instead.
    """
    rest = dict(params or {})
    found = [key for key in rest if str(key).lower() == "appid"]
    values = [rest.pop(key) for key in found]
    given = next((stripped(str(value)) for value in values if stripped(str(value))), None)
    return given, rest


def stripped(app_id: str | None) -> str | None:
    """An AppID without surrounding whitespace (a key file's last newline); ``None`` if empty."""
    return (app_id.strip() or None) if app_id else None
