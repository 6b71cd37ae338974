"""``client_options``: where a Google client sends, checked, every request going there.

googleapiclient's own ``api_endpoint`` moves only the base of the methods: its batch and
upload addresses stay Google's (compat internal 6). Here the requests googleapiclient
builds are read (nothing is sent) to show each one goes to the endpoint.
"""

from __future__ import annotations

import pytest
from google.api_core.client_options import ClientOptions

from toolspecs.core.errors import ConfigurationError
from toolspecs.loaders.google import GmailReader, GoogleCalendarReader, build_service
from toolspecs.loaders.google import compat_googleapiclient as compat
from toolspecs.loaders.google.endpoints import client_options, split_endpoint
from toolspecs.specs.gmail import GmailToolSpec
from toolspecs.specs.google_calendar import GoogleCalendarToolSpec


@pytest.mark.parametrize(
    "endpoint",
    [
        "https://google-proxy.example/",
        "http://127.0.0.1:8080/",
        "http://[::1]:8080/",
        "http://localhost:8080",
    ],
)
def test_https_or_loopback_endpoints_are_taken(endpoint):
    options = client_options({"api_endpoint": endpoint})
    assert isinstance(options, ClientOptions) and options.api_endpoint == endpoint
    given = ClientOptions(api_endpoint=endpoint)
    assert client_options(given) is given
    assert client_options(None) is None


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ({"api_endpoint": "http://google-proxy.example/"}, "use https://"),
        ({"api_endpoint": "http://10.0.0.5:8080/"}, "use https://"),
        ({"api_endpoint": "ftp://127.0.0.1/"}, "use https://"),
        ({"api_endpoint": "google-proxy.example"}, "a scheme and a host"),
        ({"api_endpoint": "https://user:pw@google-proxy.example/"}, "no user"),
        ({"api_endpoint_url": "https://x.example/"}, "does not accept an option"),
        ({"credentials_file": "key.json"}, "say how to sign in"),
        ({"scopes": ["https://www.googleapis.com/auth/gmail.readonly"]}, "say how to sign in"),
        ({"api_key": "AIza"}, "say how to sign in"),
        ("https://google-proxy.example/", "must be a dict"),
    ],
)
def test_refused_options_say_what_to_write(value, said):
    with pytest.raises(ValueError, match=said):
        client_options(value)
    for spec in (GmailToolSpec, GoogleCalendarToolSpec):
        with pytest.raises(ConfigurationError, match=said):
            spec(client_options=value)
    with pytest.raises(ValueError, match=said):
        GmailReader(client_options=value)


@pytest.mark.parametrize(
    ("endpoint", "service_path", "root", "base"),
    [
        ("http://127.0.0.1:9/", "calendar/v3/", "http://127.0.0.1:9/", "http://127.0.0.1:9/calendar/v3/"),
        ("http://127.0.0.1:9", "", "http://127.0.0.1:9/", "http://127.0.0.1:9/"),
        ("https://p.example/calendar/v3/", "calendar/v3/", "https://p.example/", "https://p.example/calendar/v3/"),
        ("https://p.example/google/", "calendar/v3/", "https://p.example/google/", "https://p.example/google/"),
    ],
)  # fmt: skip
def test_an_endpoint_is_a_root_or_the_api_base(endpoint, service_path, root, base):
    assert split_endpoint(endpoint, service_path) == (root, base)


@pytest.mark.parametrize("endpoint", ["http://127.0.0.1:9/", "http://127.0.0.1:9/calendar/v3/"])
def test_every_calendar_request_goes_to_the_endpoint(endpoint):
    service = build_service(
        "calendar", "v3", transport=object(), client_options={"api_endpoint": endpoint}
    )
    listing = service.events().list(calendarId="primary")
    assert listing.uri.startswith("http://127.0.0.1:9/calendar/v3/calendars/primary/events")
    batch = service.new_batch_http_request()
    assert compat.batch_uri(batch) == "http://127.0.0.1:9/batch/calendar/v3"
    # The shared document is not changed: a client without an endpoint is Google's.
    google = build_service("calendar", "v3", transport=object())
    assert (
        google.events()
        .list(calendarId="primary")
        .uri.startswith("https://www.googleapis.com/calendar/v3/")
    )
    assert compat.batch_uri(google.new_batch_http_request()) == (
        "https://www.googleapis.com/batch/calendar/v3"
    )


def test_every_gmail_request_goes_to_the_endpoint():
    options = ClientOptions(api_endpoint="https://google-proxy.example/")
    service = build_service("gmail", "v1", transport=object(), client_options=options)
    get = service.users().messages().get(userId="me", id="abc")
    assert get.uri.startswith("https://google-proxy.example/gmail/v1/users/me/messages/abc")
    assert (
        compat.batch_uri(service.new_batch_http_request()) == "https://google-proxy.example/batch"
    )
    assert options.api_endpoint == "https://google-proxy.example/"  # the caller's, unchanged


def test_readers_and_specs_take_client_options():
    options = {"api_endpoint": "http://127.0.0.1:9/"}
    for reader in (
        GmailReader(client_options=options),
        GoogleCalendarReader(client_options=options),
    ):
        assert reader.client_options.api_endpoint == "http://127.0.0.1:9/"
    spec = GmailToolSpec(client_options=options)
    assert spec.reader.client_options.api_endpoint == "http://127.0.0.1:9/"
    assert GoogleCalendarToolSpec().reader.client_options is None  # off by default


def test_the_command_line_reads_client_options_as_json():
    from toolspecs.cli.assemble import ServeSettings, build_specs

    option = 'gmail.client_options={"api_endpoint": "http://127.0.0.1:9/"}'
    (spec,) = build_specs(ServeSettings(names=["gmail"], options=[option])).values()
    assert spec.reader.client_options.api_endpoint == "http://127.0.0.1:9/"
    refused = 'gmail.client_options={"api_endpoint": "http://google-proxy.example/"}'
    with pytest.raises(ConfigurationError, match="use https://"):
        build_specs(ServeSettings(names=["gmail"], options=[refused]))


# -- token_uri: where the credentials read here renew their tokens ------------------------


def test_token_uri_is_checked_as_an_endpoint_is():
    from toolspecs.loaders.google import GoogleAuth

    with pytest.raises(ValueError, match=r"token_uri 'http://oauth\.example/token' is refused"):
        GoogleAuth(scopes=["s"], token_uri="http://oauth.example/token")
    with pytest.raises(ValueError, match="token_uri"):
        GmailToolSpec(token_uri="http://oauth.example/token")
    assert GoogleAuth(scopes=["s"], token_uri="http://127.0.0.1:9/token").token_uri


def test_a_token_file_is_renewed_at_token_uri_its_expiry_kept(tmp_path):
    import json

    from toolspecs.loaders.google import GoogleAuth
    from toolspecs.loaders.google.scopes import GMAIL_READONLY

    info = {
        "token": "ya29.old",
        "refresh_token": "1//r",
        "client_id": "c",
        "client_secret": "s",
        "token_uri": "http://127.0.0.1:9/ignored-by-google-auth",
        "scopes": [GMAIL_READONLY],
        "expiry": "2000-01-01T00:00:00Z",
    }
    path = tmp_path / "token.json"
    path.write_text(json.dumps(info))
    plain = GoogleAuth(scopes=[GMAIL_READONLY], token_path=str(path))._from_file(str(path))
    assert plain.token_uri == "https://oauth2.googleapis.com/token"  # google-auth's choice
    auth = GoogleAuth(
        scopes=[GMAIL_READONLY], token_path=str(path), token_uri="http://127.0.0.1:9/token"
    )
    creds = auth._from_file(str(path))
    assert creds.token_uri == "http://127.0.0.1:9/token"
    assert creds.expired and not creds.valid  # an old token is not taken for a good one


def test_authorized_user_info_asks_a_refresh_only_for_what_it_was_granted():
    from toolspecs.loaders.google import GoogleAuth
    from toolspecs.loaders.google.scopes import CALENDAR, CALENDAR_READONLY

    info = {"refresh_token": "1//r", "client_id": "c", "client_secret": "s", "scopes": [CALENDAR]}
    creds = GoogleAuth(scopes=[CALENDAR_READONLY], authorized_user_info=info)._from_info()
    assert creds.scopes == [CALENDAR]  # not calendar.readonly, which Google would refuse
    unsaid = {k: v for k, v in info.items() if k != "scopes"}
    creds = GoogleAuth(scopes=[CALENDAR_READONLY], authorized_user_info=unsaid)._from_info()
    assert creds.scopes == [CALENDAR_READONLY]


@pytest.mark.parametrize("proxy", ["HTTP_PROXY", "http_proxy"])
def test_an_endpoint_on_this_machine_is_reached_without_the_environments_proxy(monkeypatch, proxy):
    # httplib2 refuses every plain-http connection once a proxy is set and PySocks is
    # missing, NO_PROXY or not: a fake Google on 127.0.0.1 is reached directly.
    from toolspecs.loaders.google.scopes import GMAIL_READONLY
    from toolspecs.loaders.google.testing import FakeGoogleServer, sample_mailbox

    monkeypatch.setenv(proxy, "http://127.0.0.1:9")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    with FakeGoogleServer(gmail=sample_mailbox()) as google:
        creds = google.user_credentials(google.gmail.address, [GMAIL_READONLY])
        spec = GmailToolSpec(creds=creds, client_options=google.client_options)
        out = spec.call_tool("search_messages", query="lunch", max_results=1)
        assert not out.is_error, out.content
        assert google.gmail.requests


def test_only_an_endpoint_on_this_machine_goes_without_a_proxy():
    from toolspecs.loaders.google.endpoints import on_this_machine

    assert on_this_machine(client_options({"api_endpoint": "http://127.0.0.1:8080/"}))
    assert on_this_machine(client_options({"api_endpoint": "http://[::1]:8080/"}))
    assert not on_this_machine(client_options({"api_endpoint": "https://google-proxy.example/"}))
    assert not on_this_machine(None)
