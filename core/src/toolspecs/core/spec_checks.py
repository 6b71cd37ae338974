"""The checks a spec class passes when it is defined: declarations checked when made."""

from __future__ import annotations

from typing import Any

from toolspecs.core import schema
from toolspecs.core.declare import declare, function_name, inherited_options, options_of
from toolspecs.core.errors import ConfigurationError
from toolspecs.core.tool import names_used_twice


def check_spec_class(cls: type[Any]) -> None:
    """Check a spec class's declarations (one error naming every fault); set ``all_functions``."""
    errors: list[str] = []
    tool_names: list[str] = []
    stores = False
    default = [function_name(entry) for entry in cls.spec_functions]
    cls.all_functions = [
        *cls.spec_functions,
        *(name for name in cls.more_functions if name not in default),
    ]
    for entry in cls.all_functions:
        name = function_name(entry)
        listed = "spec_functions" if name in default else "more_functions"
        fn = getattr(cls, name, None)
        if not callable(fn):
            errors.append(f"{name} is listed in {listed} but is not a method")
            continue
        if not hasattr(fn, "__toolspecs_options__"):
            inherited = inherited_options(cls, name)
            if inherited is not None:
                # An override without @tool keeps the declaration it overrides:
                # its marks, aliases and large-output reader.
                fn = declare(fn, inherited)
                setattr(cls, name, fn)
            else:
                errors.extend(f"{name}: {e}" for e in schema.declaration_errors(fn, {}))
        errors.extend(f"{name}: {e}" for e in getattr(fn, "__toolspecs_errors__", ()))
        tool_names.append(name)
        stores = stores or options_of(fn).large_output
    if stores:
        tool_names.append(cls.reader_name)
    errors.extend(f"two tools are named {name!r}" for name in names_used_twice(tool_names))
    if errors:
        raise ConfigurationError(f"{cls.__name__}: {'; '.join(errors)}")
