import json

import pytest
from service_account_keys import key_info


@pytest.fixture(autouse=True)
def _in_utc(server_in_utc):
    """The process runs in UTC; the fake calendar lives in New York."""


@pytest.fixture
def in_empty_dir(tmp_path, monkeypatch):
    """A working directory with no credentials.json or token files in it."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture(scope="session")
def service_account_info() -> dict:
    return key_info("https://oauth2.googleapis.com/token")


@pytest.fixture
def write_json(tmp_path):
    def write(name: str, content) -> str:
        path = tmp_path / name
        path.write_text(content if isinstance(content, str) else json.dumps(content))
        return str(path)

    return write
