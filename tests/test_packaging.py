"""Every distribution is ready to publish: one version, one license, links that work on PyPI.

The built wheels and sdists themselves (LICENSE inside, the root sdist's contents,
``twine check --strict``, a real ``pip install``) are checked by ``.ci/wheels``.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest brings tomli on 3.10
    import tomli as tomllib

ROOT = Path(__file__).parents[1]

_spec = importlib.util.spec_from_file_location("set_version", ROOT / ".ci" / "set_version.py")
assert _spec is not None and _spec.loader is not None
set_version = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(set_version)

PYPROJECTS = set_version.pyprojects()
MEMBERS = [path.parent for path in PYPROJECTS[1:]]


def project(path: Path) -> dict:
    return tomllib.loads(path.read_text(encoding="utf-8"))["project"]


def requirements(meta: dict) -> list[Requirement]:
    found = [Requirement(r) for r in meta.get("dependencies", [])]
    for extra in meta.get("optional-dependencies", {}).values():
        found += [Requirement(r) for r in extra]
    return found


def test_every_member_is_one_distribution_that_uv_and_the_umbrella_know():
    """The workspace's members (read by .ci/set_version.py) are counted nowhere by hand.

    A member folder missing from ``[tool.uv.sources]`` would be fetched from PyPI by uv; one
    missing from the umbrella's dependencies would not come with ``pip install toolspecs``;
    a name used twice would be one distribution built from two folders.
    """
    root = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    members = [project(path)["name"] for path in PYPROJECTS[1:]]
    assert len(set_version.names()) == len(PYPROJECTS) == len(members) + 1
    assert set(root["tool"]["uv"]["sources"]) == set(members)
    assert {Requirement(r).name for r in root["project"]["dependencies"]} == set(members)


def test_the_specs_the_members_register_are_the_installed_ones():
    from toolspecs.core import list_specs

    assert set_version.specs() == list_specs()


def test_one_version_for_all_distributions():
    version = project(ROOT / "pyproject.toml")["version"]
    assert {path.parent.name or ".": project(path)["version"] for path in PYPROJECTS} == {
        path.parent.name or ".": version for path in PYPROJECTS
    }


def test_members_pin_each_other_to_this_release():
    version = project(ROOT / "pyproject.toml")["version"]
    ours = set_version.names()
    expected = SpecifierSet(set_version.pin(version))
    pins = {}
    for path in PYPROJECTS:
        for req in requirements(project(path)):
            if req.name in ours:
                pins[f"{project(path)['name']} -> {req}"] = req.specifier
    # Every spec on core and its loader; core, each loader and Gmail on base; arXiv and Gmail on the PDF loader; the umbrella on every member.
    assert len(pins) >= 30
    assert {where: str(spec) for where, spec in pins.items()} == {
        where: str(expected) for where in pins
    }
    assert Version(version) in expected


def test_pin_follows_the_changelog_policy():
    assert set_version.pin("0.1.0") == ">=0.1,<0.2"
    assert set_version.pin("0.1.3") == ">=0.1.3,<0.2"
    assert set_version.pin("1.2.0") == ">=1.2,<2"
    with pytest.raises(ValueError, match=r"MAJOR\.MINOR\.PATCH"):
        set_version.pin("0.2")


def test_the_changelog_has_a_section_for_this_version():
    version = project(ROOT / "pyproject.toml")["version"]
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## {re.escape(version)}( |$)", changelog, re.M), changelog[:400]


def copy_of_the_workspace(tmp_path: Path) -> Path:
    for path in PYPROJECTS:
        target = tmp_path / path.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
    shutil.copy(ROOT / "CHANGELOG.md", tmp_path / "CHANGELOG.md")
    return tmp_path


def test_set_version_writes_every_copy_and_every_pin(tmp_path):
    root = copy_of_the_workspace(tmp_path)
    with pytest.raises(ValueError, match=r'no "## 0\.2\.0" section'):
        set_version.set_version("0.2.0", root=root)
    for path in PYPROJECTS:  # refused before writing anything
        assert (root / path.relative_to(ROOT)).read_text() == path.read_text(), path

    changelog = root / "CHANGELOG.md"
    changelog.write_text(
        changelog.read_text().replace("\n## ", "\n## 0.2.0 - Unreleased\n\n## ", 1)
    )
    written = set_version.set_version("0.2.0", root=root)
    assert written == [root / path.relative_to(ROOT) for path in PYPROJECTS]
    ours = set_version.names(root)
    for path in written:
        meta = project(path)
        assert meta["version"] == "0.2.0"
        for req in requirements(meta):
            if req.name in ours:
                assert req.specifier == SpecifierSet(">=0.2,<0.3"), (path, str(req))
    # Everything else is left as it was: only version lines and our own pins changed.
    core = (root / "core" / "pyproject.toml").read_text()
    assert core == (ROOT / "core" / "pyproject.toml").read_text().replace(
        'version = "0.1.0"', 'version = "0.2.0"'
    ).replace('"toolspecs-base>=0.1,<0.2"', '"toolspecs-base>=0.2,<0.3"')


def test_set_version_with_one_bad_file_writes_none(tmp_path):
    root = copy_of_the_workspace(tmp_path)
    changelog = root / "CHANGELOG.md"
    changelog.write_text(
        changelog.read_text().replace("\n## ", "\n## 0.2.0 - Unreleased\n\n## ", 1)
    )
    last = set_version.pyprojects(root)[-1]  # checked last: the others come first
    last.write_text(last.read_text().replace('version = "', 'release = "', 1))
    before = {path: path.read_text() for path in set_version.pyprojects(root)}
    with pytest.raises(ValueError, match="no version line"):
        set_version.set_version("0.2.0", root=root)
    assert {path: path.read_text() for path in set_version.pyprojects(root)} == before


def test_set_version_at_the_current_version_changes_nothing(tmp_path):
    root = copy_of_the_workspace(tmp_path)
    version = project(ROOT / "pyproject.toml")["version"]
    set_version.set_version(version, root=root)
    for path in PYPROJECTS:
        assert (root / path.relative_to(ROOT)).read_text() == path.read_text(), path


@pytest.mark.parametrize("where", [p.relative_to(ROOT).as_posix() for p in MEMBERS] + ["."])
def test_every_distribution_ships_the_mit_license_and_says_who_wrote_it(where):
    meta = project(ROOT / where / "pyproject.toml")
    assert meta["license"] == "MIT"
    assert meta["license-files"] == ["LICENSE"]
    license_text = (ROOT / where / "LICENSE").read_text(encoding="utf-8")
    assert license_text == (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert license_text.startswith("MIT License\n\nCopyright (c) ")
    assert meta["authors"] == [{"name": "the toolspecs authors"}]
    assert "Development Status :: 3 - Alpha" in meta["classifiers"]
    assert meta["keywords"][:2] == ["llama-index", "agents"]


# .ci/pythons runs the suite on each Python the root pyproject.toml names in its classifiers.
TESTED_PYTHONS = ["3.10", "3.11", "3.12", "3.13"]


@pytest.mark.parametrize("where", [p.relative_to(ROOT).as_posix() for p in MEMBERS] + ["."])
def test_every_distribution_claims_the_pythons_ci_tests(where):
    meta = project(ROOT / where / "pyproject.toml")
    assert meta["requires-python"] == f">={TESTED_PYTHONS[0]}"
    prefix = "Programming Language :: Python :: 3."
    versions = [c.rsplit(" :: ", 1)[1] for c in meta["classifiers"] if c.startswith(prefix)]
    assert versions == TESTED_PYTHONS


LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.mark.parametrize("member", [p.relative_to(ROOT).as_posix() for p in MEMBERS])
def test_package_readmes_link_only_to_absolute_urls(member):
    """A package's README is its page on PyPI, where a relative link leads nowhere."""
    meta = project(ROOT / member / "pyproject.toml")
    text = (ROOT / member / meta["readme"]).read_text(encoding="utf-8")
    links = LINK.findall(text)
    assert [link for link in links if not link.startswith("https://")] == []
    # A link to a package page names one of ours, spelled as it is published.
    for link in links:
        if link.startswith("https://pypi.org/project/"):
            name = link.removeprefix("https://pypi.org/project/").rstrip("/")
            assert name in set_version.names(), link


def test_the_readme_pip_commands_are_the_ones_ci_runs():
    """Docs are tested: each pip command of "Install with pip" runs in .ci/wheels."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Install with pip\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", section, re.DOTALL)
    commands = [
        "pip install" + line.split("#")[0].split("pip install", 1)[1].rstrip()
        for block in blocks
        for line in block.splitlines()
        if "pip install" in line
    ]
    assert commands == [
        "pip install --find-links dist toolspecs-gmail",
        "pip install ./base ./core ./server ./loaders/* ./specs/* ./evals .",
    ]
    ci = (ROOT / ".ci" / "wheels").read_text(encoding="utf-8")
    ci = ci.replace('"$work/dist"', "dist").replace(" --quiet", "")
    for command in commands:
        assert f"-m {command}\n" in ci, command
