"""Sign in with Google asks the person first, in the browser that began the sign-in (issue 38).

Each attack of findings 1 (confused deputy) and 2 (a callback not bound to the browser)
is played end to end over HTTP on 127.0.0.1: the sign-in server under uvicorn on a thread,
Google's OAuth endpoints faked at the wire (``FakeGoogleOAuth``), each browser an
``httpx2.Client`` keeping its own cookies and following no redirect by itself, so that
every hop is seen. The attacker registers clients as anyone may (open registration).

The page is also clicked by a person in a real browser: Debian's chromium driven by
Playwright. Its accounts.google.com is the fake Google's consent served over TLS on
127.0.0.1 (chromium's ``--host-resolver-rules``, the certificate self-signed), not
``page.route``: with Debian's chromium 156, Playwright 1.65 does not route the requests a
redirect makes, and a sign-in is nothing but redirects. The client's redirect lands on its
own loopback listener, as MCP clients' do.
"""

from __future__ import annotations

import base64
import contextlib
import datetime
import hashlib
import html
import logging
import re
import secrets
import shutil
import socket
import ssl
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import anyio
import httpx2
import pytest
from cryptography.fernet import Fernet
from google_signin_fakes import (
    CLIENT_ID,
    CLIENT_SECRET,
    SCOPES,
    FakeGoogleAndMail,
    consent_form,
    on_uvicorn,
)
from installed import missing

from toolspecs.hosting.google.accounts import GoogleSignIn
from toolspecs.hosting.google.signin import GoogleSignInProvider
from toolspecs.loaders.google.testing import FakeGmail
from toolspecs.loaders.google.testing.oauth import AUTHORIZE_URL
from toolspecs.server import build_server
from toolspecs.server.signin_app import sign_in_app
from toolspecs.server.signin_state import RedisSignInState, SignInState
from toolspecs.server.token_vault import TokenVault
from toolspecs.specs.gmail import GmailToolSpec

VICTIM, ATTACKER, PERSON = "victim@example.org", "attacker@example.net", "person@example.org"
EVIL = "https://attacker.example/cb"  # the attacker's own site
LOOPBACK = "http://127.0.0.1:9/callback"  # a client on the person's own computer


class Site(FakeGoogleAndMail):
    """The sign-in server on 127.0.0.1, and the fake Google behind it."""

    def __init__(self, issuer: str) -> None:
        super().__init__((VICTIM, ATTACKER, PERSON))
        self.issuer = issuer
        self.vault = TokenVault(Fernet(Fernet.generate_key()))
        self.provider = GoogleSignInProvider(
            GoogleSignIn(CLIENT_ID, CLIENT_SECRET, SCOPES),
            self.vault,
            issuer,
            issuer + "/mcp",
            transport=self.transport(),
        )

    def sub(self, email: str) -> str:
        return str(self.google.users[email].sub)


@contextlib.contextmanager
def site_on(issuer: str | None = None) -> Iterator[tuple[Site, str]]:
    """A sign-in server (announcing ``issuer``, else its own address) and its address."""
    listening = socket.create_server(("127.0.0.1", 0))
    address = f"http://127.0.0.1:{listening.getsockname()[1]}"
    site = Site(issuer or address)
    tools = GmailToolSpec(transport=FakeGmail()).to_tool_list(prefix="gmail_")
    app = sign_in_app(build_server(tools), site.provider, streamable_http_path="/mcp")
    with on_uvicorn(app, listening):
        yield site, address


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    with site_on() as (started, _):
        yield started


def browser() -> httpx2.Client:
    """A person's browser: its own cookie jar; every redirect seen, none followed."""
    return httpx2.Client(timeout=30, follow_redirects=False)


def register(site: Site, redirect: str, name: str | None) -> str:
    """A client registered as anyone may (the attacker's, or the person's own)."""
    with httpx2.Client(timeout=30) as http:
        answer = http.post(
            f"{site.issuer}/register",
            json={
                "redirect_uris": [redirect],
                "token_endpoint_auth_method": "none",
                **({"client_name": name} if name else {}),
            },
        )
    assert answer.status_code == 201, answer.text
    return str(answer.json()["client_id"])


def authorize_link(site: Site, client_id: str, redirect: str) -> tuple[str, str]:
    """The client's /authorize link (PKCE S256), and the verifier the client keeps."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
    query = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": redirect,
        "code_challenge": challenge.rstrip(b"=").decode(),
        "code_challenge_method": "S256",
        "state": "client-state",
        "resource": site.issuer + "/mcp",
    }
    return f"{site.issuer}/authorize?{urlencode(query)}", verifier


def redeem(site: Site, client_id: str, redirect: str, code: str, verifier: str) -> httpx2.Response:
    """The client exchanges a code at our token endpoint."""
    with httpx2.Client(timeout=30) as http:
        return http.post(
            f"{site.issuer}/token",
            data={
                "grant_type": "authorization_code",
                "code": code,
                "redirect_uri": redirect,
                "client_id": client_id,
                "code_verifier": verifier,
                "resource": site.issuer + "/mcp",
            },
        )


def query_of(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


def tokens_asked_of_google(site: Site) -> int:
    return sum(1 for method, url in site.google.requests if url == site.google.token_url)


def test_an_attackers_client_is_named_on_our_page_and_goes_nowhere_unless_the_person_approves(
    site, caplog
):
    caplog.set_level(logging.DEBUG)
    asked = tokens_asked_of_google(site)  # Google's token endpoint: only after an approval
    # The attacker registers a client sending people back to their own site, under a
    # name that tries to be markup, and sends the victim its /authorize link.
    client = register(site, EVIL, "Mail Helper <script>alert(1)</script>")
    link, verifier = authorize_link(site, client, EVIL)
    with browser() as victim:
        landed = victim.get(link)
        assert landed.status_code == 302
        consent_url = landed.headers["location"]
        # Our page, never Google's: nothing reaches Google until the person approves.
        assert consent_url.startswith(f"{site.issuer}/oauth/consent?")
        page = victim.get(consent_url)
        assert page.status_code == 200, page.text
        shown = page.text
        assert "Mail Helper &lt;script&gt;alert(1)&lt;/script&gt;" in shown
        assert "<script" not in shown and "accounts.google.com" not in shown
        assert "<strong>attacker.example</strong>" in shown and EVIL in shown
        assert "Read your Gmail messages and settings" in shown  # the scopes, in words
        assert "See your Google account's email address" in html.unescape(shown)
        # Plain HTML that nothing can frame, cache, script or send a referrer from.
        policy = page.headers["content-security-policy"]
        for directive in (
            "default-src 'none'",
            "frame-ancestors 'none'",
            "base-uri 'none'",
            "form-action 'self' https://accounts.google.com https://attacker.example",
        ):
            assert directive in policy, policy
        assert "script-src" not in policy and "unsafe" not in policy
        assert page.headers["x-frame-options"] == "DENY"
        assert page.headers["cache-control"] == "no-store"
        assert page.headers["referrer-policy"] == "no-referrer"
        cookie = page.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=lax" in cookie and "path=/" in cookie
        assert "max-age=" in cookie and "secure" not in cookie  # http on loopback
        action, form = consent_form(page, "approve")
        trip, token = form["trip"], form["csrf"]
        (binding,) = victim.cookies.values()

        # A forged approval from another browser: the trip and even the form token known,
        # but not the victim's cookie. Then one with the cookie but a wrong token (a
        # same-site page posting into the victim's browser). Both refused, nothing sent on.
        with browser() as attacker:
            forged = attacker.post(action, data=form)
            assert forged.status_code == 400 and "location" not in forged.headers
            assert "nothing was approved" in forged.text
            attacker.cookies.set(next(iter(victim.cookies.keys())), "a-guess", "127.0.0.1")
            guessed = attacker.post(action, data=form)
            assert guessed.status_code == 400 and "location" not in guessed.headers
        wrong = victim.post(action, data={**form, "csrf": "x" * 43})
        assert wrong.status_code == 400 and "location" not in wrong.headers
        no_token = victim.post(action, data={"trip": trip, "decision": "approve"})
        assert no_token.status_code == 400
        # Google's callback with a state skipping our page (the attacker built Google's
        # URL himself): this browser never approved, so no code.
        skipped = victim.get(f"{site.issuer}/oauth/google/callback?state={trip}&code=4/x")
        assert skipped.status_code == 400 and "location" not in skipped.headers
        assert tokens_asked_of_google(site) == asked

    # The trip that was skipped is over; a new one, and the victim chooses Deny: the
    # client hears access_denied with its own state, and nothing else.
    with browser() as victim:
        page = victim.get(victim.get(link).headers["location"])
        action, form = consent_form(page, "deny")
        denied = victim.post(action, data=form)
        assert denied.status_code == 303
        back = denied.headers["location"]
        assert back.startswith(EVIL + "?")
        assert query_of(back)["error"] == "access_denied"
        assert query_of(back)["state"] == "client-state" and "code" not in query_of(back)
        # The trip is over: approving it now is refused.
        again = victim.post(action, data={**form, "decision": "approve"})
        assert again.status_code == 400 and "expired" in again.text
        assert tokens_asked_of_google(site) == asked and site.vault.get(site.sub(VICTIM)) is None

        # Approving is the only way on: the person's own choice, having read the page.
        page = victim.get(victim.get(link).headers["location"])
        action, form = consent_form(page, "approve")
        to_google = victim.post(action, data=form)
        assert to_google.status_code == 303
        google = to_google.headers["location"]
        assert google.startswith("https://accounts.google.com/o/oauth2/v2/auth?")
        back = victim.get(site.google.consent(google, VICTIM))
        assert back.status_code == 302 and back.headers["location"].startswith(EVIL + "?")
        code = query_of(back.headers["location"])["code"]
    issued = redeem(site, client, EVIL, code, verifier)
    assert issued.status_code == 200, issued.text
    token = anyio.run(site.provider.load_access_token, issued.json()["access_token"])
    assert token is not None and token.subject == site.sub(VICTIM)
    # No cookie, form token, trip state or code in anything the server logged.
    logged = "\n".join(
        record.getMessage()
        for record in caplog.records
        if not record.name.startswith(("httpx2", "httpcore2"))
    )
    assert "consent answer without this trip's cookie" in logged
    for secret in (binding, token.token, trip, code, form["csrf"]):
        assert secret not in logged


def test_a_forwarded_google_link_does_not_finish_the_attackers_sign_in_as_the_victim(site):
    # The attacker starts a sign-in for his own client, approves on our page in his own
    # browser, and forwards Google's link to the victim.
    client = register(site, LOOPBACK, "Attacker's laptop")
    link, verifier = authorize_link(site, client, LOOPBACK)
    with browser() as attacker:
        page = attacker.get(attacker.get(link).headers["location"])
        action, form = consent_form(page, "approve")
        google = attacker.post(action, data=form).headers["location"]
        assert google.startswith("https://accounts.google.com/")
        asked_before = tokens_asked_of_google(site)
        kept_before = site.vault.get(site.sub(VICTIM))
        # The victim consents at Google; Google sends the victim's browser to our
        # callback, without the attacker's binding cookie: refused, no code anywhere.
        callback = site.google.consent(google, VICTIM)
        with browser() as victim:
            refused = victim.get(callback)
        assert refused.status_code == 400, refused.text
        assert "location" not in refused.headers and "code=" not in refused.text
        assert "not approved in this browser" in refused.text
        assert refused.headers["referrer-policy"] == "no-referrer"
        # Our server never redeemed the victim's Google code, nor kept new tokens of theirs.
        assert tokens_asked_of_google(site) == asked_before
        assert site.vault.get(site.sub(VICTIM)) == kept_before
        # The refused trip is over: even the attacker's own browser, with its cookie and
        # the victim's callback link, gets no code.
        late = attacker.get(callback)
        assert late.status_code == 400 and "location" not in late.headers
    # And his client has nothing to redeem: any code it tries is refused.
    guessed = redeem(site, client, LOOPBACK, query_of(callback)["code"], verifier)
    assert guessed.status_code == 400 and guessed.json()["error"] == "invalid_grant"


def test_a_sign_ins_page_opened_in_a_second_browser_is_refused(site):
    client = register(site, LOOPBACK, None)
    link, verifier = authorize_link(site, client, LOOPBACK)
    with browser() as person, browser() as other:
        consent_url = person.get(link).headers["location"]
        page = person.get(consent_url)
        assert "An unnamed client" in page.text
        assert "127.0.0.1:9 (a program on this computer)" in page.text
        # Someone else opening the same page (a forwarded link) binds nothing.
        elsewhere = other.get(consent_url)
        assert elsewhere.status_code == 400
        assert "started in another browser: start again from your client" in elsewhere.text
        assert "set-cookie" not in elsewhere.headers and "<form" not in elsewhere.text
        # The person's own reload shows the same form, and approving goes on.
        again = person.get(consent_url)
        assert again.status_code == 200 and consent_form(again) == consent_form(page)
        action, form = consent_form(again)
        google = person.post(action, data=form).headers["location"]
        back = person.get(site.google.consent(google, PERSON)).headers["location"]
    assert back.startswith(LOOPBACK + "?")
    issued = redeem(site, client, LOOPBACK, query_of(back)["code"], verifier)
    assert issued.status_code == 200, issued.text


def test_an_https_issuer_binds_with_a_host_only_secure_cookie():
    # The server behind a TLS proxy announces https: its binding cookie is __Host-.
    with site_on("https://signin.example") as (site, address):
        client = register_at(address, LOOPBACK)
        link, _ = authorize_link(site, client, LOOPBACK)
        with browser() as person:
            consent_url = person.get(link.replace(site.issuer, address)).headers["location"]
            assert consent_url.startswith("https://signin.example/oauth/consent?")
            page = person.get(consent_url.replace(site.issuer, address))
        cookie = page.headers["set-cookie"]
        assert re.match(r"__Host-toolspecs-signin-[0-9a-f]{16}=", cookie), cookie
        assert "Secure" in cookie and "Path=/" in cookie and "Domain" not in cookie
        assert 'action="https://signin.example/oauth/consent"' in page.text


def register_at(address: str, redirect: str) -> str:
    with httpx2.Client(timeout=30) as http:
        answer = http.post(
            f"{address}/register",
            json={"redirect_uris": [redirect], "token_endpoint_auth_method": "none"},
        )
    assert answer.status_code == 201, answer.text
    return str(answer.json()["client_id"])


@pytest.mark.serving
def test_binding_a_trip_is_atomic_in_one_process_and_across_replicas(redis_url):
    # Eight browsers opening one trip's page at once, on one server or on eight replicas
    # sharing Redis: one binds it, the others are refused.
    for states in ([SignInState()] * 8, [RedisSignInState(redis_url) for _ in range(8)]):
        for round_ in range(5):
            key = f"trip{round_}-{secrets.token_hex(4)}"
            won: list[bool] = []

            def add(state: Any, key: str = key, won: list[bool] = won, n: int = round_) -> None:
                won.append(state.add("consent", key, {"binding": n}, 60))

            threads = [threading.Thread(target=add, args=(state,)) for state in states]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert sorted(won) == [False] * 7 + [True]
            assert states[0].get("consent", key) == {"binding": round_}


def chromium_driven() -> Any:
    """Playwright's sync API and Debian's chromium (never a browser Playwright downloads)."""
    chromium = shutil.which("chromium")
    if chromium is None:
        missing("Debian's chromium is not installed (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("playwright is not installed (uv sync: the dev group)")
    return sync_playwright, chromium


@contextlib.contextmanager
def listening(answer: Callable[[str], tuple[int, dict[str, str], bytes]], tls: Any = None):
    """An HTTP(S) server on 127.0.0.1 answering each GET with ``answer(path)``: its port."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status, headers, body = answer(self.path)
            self.send_response(status)
            for name, value in {**headers, "Content-Length": str(len(body))}.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    web = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    if tls is not None:
        web.socket = tls.wrap_socket(web.socket, server_side=True)
    thread = threading.Thread(target=web.serve_forever, daemon=True)
    thread.start()
    try:
        yield web.server_address[1]
    finally:
        web.shutdown()
        thread.join(timeout=30)
        web.server_close()


def google_tls(folder: Any) -> ssl.SSLContext:
    """TLS for a server named accounts.google.com (self-signed: the browser is told so)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "accounts.google.com")])
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(datetime.datetime(2020, 1, 1))
        .not_valid_after(datetime.datetime(2100, 1, 1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("accounts.google.com")]), False)
        .sign(key, hashes.SHA256())
    )
    (folder / "google.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (folder / "google.key").write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(folder / "google.pem", folder / "google.key")
    return context


def clicked_in_chromium(site: Site, link: str, decision: str, google_port: int) -> None:
    """A person opens ``link`` in chromium, reads our page and clicks ``decision``.

    The browser reaches accounts.google.com at ``google_port`` on 127.0.0.1, the fake
    Google's consent (chromium's host resolver rules; its certificate is self-signed), and
    ends at the client's redirect, its own server on 127.0.0.1.
    """
    sync_playwright, chromium = chromium_driven()
    said: list[str] = []
    with sync_playwright() as driver:
        try:
            browser = driver.chromium.launch(
                executable_path=chromium,
                args=[f"--host-resolver-rules=MAP accounts.google.com 127.0.0.1:{google_port}"],
            )
        except Exception as exc:  # playwright's driver or the browser did not start
            missing(f"chromium did not start under playwright: {str(exc)[:200]}")
        try:
            page = browser.new_context(ignore_https_errors=True).new_page()
            page.on("console", lambda message: said.append(message.text))
            page.goto(link)  # the link the person's client showed
            assert page.url.startswith(f"{site.issuer}/oauth/consent?")
            shown = page.inner_text("main")
            assert "Notes Desktop wants to use this server's tools" in shown
            assert "(a program on this computer)" in shown
            assert "Read your Gmail messages and settings" in shown
            assert "See your Google account's email address" in shown
            approve = page.get_by_role("button", name="Approve")
            # The page's one style is allowed by its hash: the button is painted blue.
            color = approve.evaluate("button => getComputedStyle(button).backgroundColor")
            assert color == "rgb(26, 115, 232)", color
            page.get_by_role("button", name=decision).click()
            page.wait_for_url("http://127.0.0.1:*/callback?**", timeout=30_000)
            assert page.inner_text("body") == "Signed in: you may close this window."
        finally:
            browser.close()
    assert not [m for m in said if "Content Security Policy" in m], said


@pytest.mark.serving
def test_a_person_approves_or_denies_on_the_consent_page_in_chromium(site, tmp_path):
    arrived: list[str] = []

    def google(path: str) -> tuple[int, dict[str, str], bytes]:  # the person agrees
        query = path.partition("?")[2]
        return 302, {"Location": site.google.consent(f"{AUTHORIZE_URL}?{query}", PERSON)}, b""

    def client_app(path: str) -> tuple[int, dict[str, str], bytes]:  # its loopback listener
        if path.startswith("/callback?"):  # not the browser's /favicon.ico
            arrived.append(path)
        page = b"Signed in: you may close this window."
        return 200, {"Content-Type": "text/plain; charset=utf-8"}, page

    with (
        listening(google, google_tls(tmp_path)) as google_port,
        listening(client_app) as app_port,
    ):
        redirect = f"http://127.0.0.1:{app_port}/callback"
        client = register(site, redirect, "Notes Desktop")
        link, verifier = authorize_link(site, client, redirect)
        clicked_in_chromium(site, link, "Approve", google_port)
        # Another sign-in, and the person clicks Deny.
        clicked_in_chromium(site, authorize_link(site, client, redirect)[0], "Deny", google_port)
    approved, denied = (query_of(path) for path in arrived)
    assert approved["state"] == "client-state"
    issued = redeem(site, client, redirect, approved["code"], verifier)
    assert issued.status_code == 200, issued.text
    token = anyio.run(site.provider.load_access_token, issued.json()["access_token"])
    assert token is not None and token.subject == site.sub(PERSON)
    assert denied == {
        "error": "access_denied",
        "error_description": "the person denied this client at the consent page",
        "state": "client-state",
    }
