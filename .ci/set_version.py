"""Set the one version of all the distributions, and the pins between them.

The version source is the root pyproject.toml's ``[project] version``. The members keep a
static copy of it and pin each other to it. hatchling could read a dynamic version from one
shared file (a member's sdist keeps the value in PKG-INFO, so it still builds alone), but
the pins between members would still be written by hand, and uv, which reads static
metadata without building anything, would need ``cache-keys`` on that file in every member
to notice a new version. So this script writes every copy and every pin in one go, and
``tests/test_packaging.py`` fails when any of them disagrees with the root.

Usage, from the repository root::

    uv run python .ci/set_version.py 0.2.0    # then `uv lock`, and commit

It refuses a version that CHANGELOG.md has no section for: write the changelog first.

The workspace is read here, once, from the root pyproject.toml's members
(:func:`pyprojects`, :func:`names`, :func:`specs`): ``tests/test_packaging.py`` and
``.ci/wheels`` count the distributions and the specs with these, never by hand.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest brings tomli on 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
VERSION = re.compile(r"^(?P<major>0|[1-9]\d*)\.(?P<minor>0|[1-9]\d*)\.(?P<patch>0|[1-9]\d*)$")


def pyprojects(root: Path = ROOT) -> list[Path]:
    """The root pyproject.toml, then each workspace member's, in the workspace's order."""
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    members = config["tool"]["uv"]["workspace"]["members"]
    found = [root / "pyproject.toml"]
    for pattern in members:
        found += sorted(root.glob(f"{pattern}/pyproject.toml"))
    return found


def names(root: Path = ROOT) -> set[str]:
    """The distribution names of all the pyproject.toml files."""
    return {
        tomllib.loads(path.read_text(encoding="utf-8"))["project"]["name"]
        for path in pyprojects(root)
    }


def specs(root: Path = ROOT) -> list[str]:
    """The specs the members register (their ``toolspecs.specs`` entry points), sorted."""
    found: list[str] = []
    for path in pyprojects(root):
        meta = tomllib.loads(path.read_text(encoding="utf-8"))["project"]
        found += meta.get("entry-points", {}).get("toolspecs.specs", {})
    return sorted(found)


def pin(version: str) -> str:
    """The specifier a member puts on another member released as ``version``.

    All members are released together, so the lower bound is this release (``0.1`` for
    0.1.0, ``0.1.3`` for 0.1.3). The upper bound is the next version that may break: the
    next minor before 1.0, the next major from 1.0 on (see CHANGELOG.md).
    """
    match = VERSION.match(version)
    if match is None:
        raise ValueError(f"{version!r} is not MAJOR.MINOR.PATCH (for example 0.2.0)")
    major, minor, patch = (int(match[part]) for part in ("major", "minor", "patch"))
    lower = f"{major}.{minor}" if patch == 0 else version
    upper = f"0.{minor + 1}" if major == 0 else f"{major + 1}"
    return f">={lower},<{upper}"


def set_version(version: str, root: Path = ROOT) -> list[Path]:
    """Write ``version`` into every pyproject.toml and re-pin every member on every other.

    Returns the files written. Raises ``ValueError`` (before writing anything) when the
    version is malformed or CHANGELOG.md has no ``## <version>`` section.
    """
    specifier = pin(version)
    changelog = (root / "CHANGELOG.md").read_text(encoding="utf-8")
    if not re.search(rf"^## {re.escape(version)}( |$)", changelog, re.M):
        raise ValueError(f'CHANGELOG.md has no "## {version}" section: write it first')
    ours = names(root)
    requirement = re.compile(r'"(?P<name>[a-z0-9-]+)(?P<extras>\[[a-z0-9,-]+\])?>=[^",]+,<[^",]+"')

    def repin(match: re.Match[str]) -> str:
        if match["name"] not in ours:
            return match[0]
        return f'"{match["name"]}{match["extras"] or ""}{specifier}"'

    planned: list[tuple[Path, str]] = []
    for path in pyprojects(root):
        text = path.read_text(encoding="utf-8")
        # The first `version = "..."` line is [project]'s: it comes right after the name.
        text, count = re.subn(
            r'^version = "[^"]*"$', f'version = "{version}"', text, count=1, flags=re.M
        )
        if count != 1:
            raise ValueError(f"{path}: no version line")
        text = requirement.sub(repin, text)
        if tomllib.loads(text)["project"]["version"] != version:
            raise ValueError(f"{path}: the version line is not [project]'s")
        planned.append((path, text))
    # Every file checked first, then all written: a bad file leaves the release untouched.
    written = []
    for path, text in planned:
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def main(argv: list[str]) -> int:
    """Command line: ``set_version.py VERSION``."""
    if len(argv) != 1:
        print("usage: uv run python .ci/set_version.py VERSION  (for example 0.2.0)")
        return 2
    try:
        written = set_version(argv[0])
    except ValueError as exc:
        print(f"set_version: {exc}", file=sys.stderr)
        return 2
    print(f"{len(written)} pyproject.toml files at {argv[0]}, pinned {pin(argv[0])}.")
    print("Now run `uv lock`, then `.ci/run`, and commit.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
