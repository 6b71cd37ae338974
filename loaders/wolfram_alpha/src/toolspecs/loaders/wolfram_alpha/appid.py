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
# Loggers that see request URLs: httpx (INFO), httpcore (DEBUG), and urllib3 for another
# requests-based client with the same AppID. A filter on a logger applies only to records
# made on that logger (not to its children's), hence the explicit list.
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

    A record whose formatted message holds an AppID gets the masked message as ``msg``
    and no ``args``, so no handler sees the AppID, formatted or not.
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

    LlamaHub's users may pass the AppID as ``api_params={"appid": ...}``.
    """
    rest = dict(params or {})
    found = [key for key in rest if str(key).lower() == "appid"]
    values = [rest.pop(key) for key in found]
    given = next((stripped(str(value)) for value in values if stripped(str(value))), None)
    return given, rest


def stripped(app_id: str | None) -> str | None:
    """An AppID without surrounding whitespace (a key file's last newline); ``None`` if empty."""
    return (app_id.strip() or None) if app_id else None
