"""toolspecs.loaders.wolfram_alpha: Wolfram|Alpha's two APIs in one client, and a reader."""

from toolspecs.loaders.wolfram_alpha.appid import HideAppId, mask_app_id, split_app_id
from toolspecs.loaders.wolfram_alpha.client import (
    APP_ID_ENV,
    APP_ID_ENV_FALLBACK,
    FULL_RESULTS_URL,
    LLM_API_URL,
    WolframAlphaClient,
)
from toolspecs.loaders.wolfram_alpha.errors import (
    AppIdError,
    AppIdMalformed,
    AppIdMissing,
    AppIdRejected,
    MalformedReply,
    QueryNotUnderstood,
    WolframAlphaBadRequest,
    WolframAlphaLoaderError,
    WolframAlphaTimeout,
    WolframAlphaUnavailable,
    WolframAlphaUnreachable,
)
from toolspecs.loaders.wolfram_alpha.params import (
    MAX_LOCATION_CHARS,
    PLACE_KEYS,
    UNITS,
    location_params,
    units_param,
)
from toolspecs.loaders.wolfram_alpha.reader import WolframAlphaReader

__all__ = [
    "APP_ID_ENV",
    "APP_ID_ENV_FALLBACK",
    "FULL_RESULTS_URL",
    "LLM_API_URL",
    "MAX_LOCATION_CHARS",
    "PLACE_KEYS",
    "UNITS",
    "AppIdError",
    "AppIdMalformed",
    "AppIdMissing",
    "AppIdRejected",
    "HideAppId",
    "MalformedReply",
    "QueryNotUnderstood",
    "WolframAlphaBadRequest",
    "WolframAlphaClient",
    "WolframAlphaLoaderError",
    "WolframAlphaReader",
    "WolframAlphaTimeout",
    "WolframAlphaUnavailable",
    "WolframAlphaUnreachable",
    "location_params",
    "mask_app_id",
    "split_app_id",
    "units_param",
]
