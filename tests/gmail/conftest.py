import pytest

from toolspecs.loaders.google.testing import sample_mailbox
from toolspecs.specs.gmail import GmailToolSpec


@pytest.fixture
def gmail():
    return sample_mailbox()


@pytest.fixture
def spec(gmail):
    return GmailToolSpec(transport=gmail)


@pytest.fixture
def tools(spec):
    return {t.metadata.name: t for t in spec.to_tool_list()}


@pytest.fixture
def ids(gmail):
    """Gmail message id of each sample mail, by fixture name (e.g. ids['plain'])."""
    by_message_id = {}
    for message_id in gmail.messages:
        header = gmail.mime(message_id)["Message-ID"]
        by_message_id[header] = message_id
    names = {
        "plain": "<CAplain001@mail.example.com>",
        "html_only": "<newsletter-2026-11@engines.example>",
        "alternative": "<alt-minutes@example.com>",
        "latin1": "<latin1-0001@example.fr>",
        "rfc2047": "<rfc2047-0001@example.jp>",
        "attachments": "<attach-0001@mail.example.com>",
        "thread_1": "<thread-start@example.org>",
        "thread_2": "<thread-reply@example.com>",
        "injection": "<inject-0001@phish.example>",
    }
    return {name: by_message_id[header] for name, header in names.items()}
