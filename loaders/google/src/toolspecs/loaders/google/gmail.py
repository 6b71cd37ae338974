"""``GmailReader``: the Gmail client, and one Document per message for RAG.

Its methods make every Gmail request (drafts through :attr:`GmailReader.drafts`) and
return plain data. The Documents' text carries what a reader needs (llama-index drops
metadata when a Document becomes text): header values and file names on one line, and
nothing the sender wrote can fake a body marker.
"""

from __future__ import annotations

import base64
import datetime as dt
import html
import itertools
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from llama_index.core.schema import Document

from toolspecs.base.times import format_datetime, timezone_named
from toolspecs.loaders.google.auth import GoogleAuth
from toolspecs.loaders.google.errors import GoogleApiError, GoogleResponseError
from toolspecs.loaders.google.mail import (
    MailMessage,
    address_pairs,
    format_size,
    header_text,
    parse_raw,
)
from toolspecs.loaders.google.service import GoogleApiReader

BODY_OPEN = "<<< mail body: quoted content from the mail >>>"
BODY_CLOSE = "<<< end of mail body >>>"


def plain_field(text: str, limit: int = 300) -> str:
    """A header value or file name on one line, short, without fence markers."""
    one = " ".join(str(text).replace("<<<", "< < <").replace(">>>", "> > >").split())
    return one if len(one) <= limit else one[: limit - 1].rstrip() + "…"


def plain_quote(text: str, limit: int = 300) -> str:
    """A one-line value between ``«`` and ``»``, which it can no longer contain."""
    return f"«{plain_field(text.replace('«', '<').replace('»', '>'), limit)}»"


def plain_block(text: str) -> str:
    """A body between markers that say where it starts and ends; they cannot be faked."""
    safe = text.replace("<<<", "< < <").replace(">>>", "> > >")
    return f"{BODY_OPEN}\n{safe or '(empty)'}\n{BODY_CLOSE}"


ADDRESS_LIMIT = 2000  # To and Cc may list many people: the agent needs them all to reply
MAX_ATTACHMENTS_SHOWN = 50


def mail_moment(mail: MailMessage, resource: dict[str, Any]) -> dt.datetime | None:
    """When a mail was sent: its Date header, else Gmail's ``internalDate`` (UTC), else None."""
    moment = mail.date()
    if moment is None and resource.get("internalDate"):
        try:
            moment = dt.datetime.fromtimestamp(
                int(resource["internalDate"]) / 1000, dt.timezone.utc
            )
        except (ValueError, OverflowError, OSError):
            moment = None
    return moment


def mail_date(mail: MailMessage, resource: dict[str, Any], tz: dt.tzinfo | None) -> str:
    """The Date header with weekday and offset (in ``tz`` when given), else Gmail's time."""
    moment = mail_moment(mail, resource)
    if moment is None:
        return "unknown"
    try:
        return format_datetime(moment, tz)
    except (ValueError, OverflowError):  # a year 1 or 9999 Date moved into another zone
        return format_datetime(moment, None)


def sender_address(from_header: str) -> str:
    """The email address of a From header (``ada@example.com``), else the header, short."""
    pairs = [email for _, email in address_pairs(from_header) if email]
    return pairs[0] if pairs else from_header[:200] or "an unknown sender"


def describe_message(
    resource: dict[str, Any], mail: MailMessage, tz: dt.tzinfo | None = None
) -> str:
    """A whole message as plain text: ids, headers, attachments, the body between markers, notes."""
    message_id = resource.get("id", "?")
    lines = [f"Message id: {message_id} (thread {resource.get('threadId', '?')})"]
    for name in ("From", "To", "Cc", "Reply-To"):
        if mail.header(name):
            lines.append(f"{name}: {plain_field(mail.header(name), ADDRESS_LIMIT)}")
    lines.append(f"Date: {mail_date(mail, resource, tz)}")
    subject = plain_field(mail.header("subject"), 300) or "(no subject)"
    lines.append(f"Subject: {subject}")
    labels = [label for label in resource.get("labelIds", []) if label in {"UNREAD", "DRAFT"}]
    if labels:
        lines.append(f"Labels: {', '.join(labels)}")
    if mail.attachments:
        lines.append("Attachments: " + describe_attachments(mail, ids=True))
    body, notes = mail.readable()
    lines.append(plain_block(body))
    lines.extend(f"Note: {note}." for note in notes)
    return "\n".join(lines)


def describe_attachments(mail: MailMessage, ids: bool = False) -> str:
    """``Q4 report.pdf (application/pdf, 3 KB); …``; with ``ids``, each ``[attachment_id: 1]``."""
    shown = [
        f"{plain_field(a.filename, 200)} ({plain_field(a.content_type, 100)}, "
        f"{format_size(a.size)})" + (f" [attachment_id: {a.part_id}]" if ids and a.part_id else "")
        for a in mail.attachments[:MAX_ATTACHMENTS_SHOWN]
    ]
    more = len(mail.attachments) - len(shown)
    return "; ".join(shown) + (f"; and {more} more" if more > 0 else "")


def summary_headers(resource: dict[str, Any]) -> dict[str, str]:
    """Decoded headers of a ``format=metadata`` message, by lower-case name."""
    found: dict[str, str] = {}
    for header in resource.get("payload", {}).get("headers", []):
        key = str(header.get("name", "")).lower()
        if key and key not in found:
            found[key] = header_text(key, str(header.get("value", "")))
    return found


def describe_summary(resource: dict[str, Any], tz: dt.tzinfo | None = None) -> str:
    """One search hit in three lines: ids, date, from, subject and Gmail's snippet."""
    headers = summary_headers(resource)
    mail = MailMessage(headers=headers)
    unread = " (unread)" if "UNREAD" in resource.get("labelIds", []) else ""
    snippet = html.unescape(str(resource.get("snippet", ""))[:2000])
    sender = ", ".join(mail.addresses("from")) or headers.get("from", "?")
    subject = plain_field(headers.get("subject", ""), 300) or "(no subject)"
    return (
        f"[id: {resource.get('id', '?')} | thread: {resource.get('threadId', '?')}]{unread} "
        f"{mail_date(mail, resource, tz)}\n"
        f"From: {plain_field(sender, 300)} | Subject: {subject}\n"
        f"Snippet (quoted mail): {plain_quote(snippet, 300)}"
    )


def message_metadata(resource: dict[str, Any], headers: Mapping[str, str]) -> dict[str, Any]:
    """A message Document's metadata: LlamaHub's keys (id, threadId, snippet), the headers."""
    return {
        "id": resource.get("id", ""),
        "threadId": resource.get("threadId", ""),
        "snippet": html.unescape(resource.get("snippet", "")),
        "from": headers.get("from", ""),
        "subject": headers.get("subject", ""),
        "date": headers.get("date", ""),
    }


def mail_document(
    resource: dict[str, Any], headers: Mapping[str, str], text: str, message_id: str = ""
) -> Document:
    """A message's Document: ``text``, its id ``gmail:<id>``, :func:`message_metadata`."""
    return Document(
        text=text,
        id_=f"gmail:{resource.get('id', message_id)}",
        metadata=message_metadata(resource, headers),
    )


GMAIL_SCOPES = [
    "https://www.googleapis.com/auth/gmail.compose",
    "https://www.googleapis.com/auth/gmail.readonly",
]
SUMMARY_HEADERS = ["From", "To", "Cc", "Date", "Subject"]
_PAGE = 500  # Gmail's largest page for messages.list
MODIFY_LIMIT = 1000
"""Message ids Gmail takes in one ``messages.batchModify``."""
BATCH_SIZE = 25
"""Messages fetched per batch request. Google takes 100 calls a batch but advises at most
50 for Gmail; 25 ``messages.get`` cost 125 quota units, half of Gmail's 250 per user and
second, so a load stays under the rate limit."""
MAX_LOAD_BYTES = 32 * 2**20
"""What the whole messages one budgeted load reads may take together, by Gmail's
``sizeEstimate``. A raw message costs about ten times its size while it is fetched (the
batch answer, its base64 and JSON copies, the parsed MIME); 32 MiB keeps a load's peak
near 0.4 GB while 100 ordinary mails (about 100 KB each) still fit whole."""
MAX_MESSAGE_BYTES = 8 * 2**20
"""The largest message a budgeted load reads whole: larger ones (big attachments, mostly)
are listed, to be read alone; one of them cannot crowd out the rest of the load."""
BATCH_BYTES = 8 * 2**20
"""What the messages of one batch request may take together, by ``sizeEstimate``: a batch
answer is held whole while it is parsed."""
# The least wait before messages that met a rate limit or a server error in a batch are
# asked for again (more when Google's Retry-After says so).
AGAIN_AFTER = 1.0
_DATE_WORD = re.compile(r"\b(after|before|older|newer):(\d{4})-(\d{1,2})-(\d{1,2})\b")


def gmail_query(query: str | None) -> str:
    """A search as Gmail reads it: ``after:2026-11-01`` becomes ``after:2026/11/01``."""
    return _DATE_WORD.sub(lambda m: f"{m[1]}:{m[2]}/{m[3]}/{m[4]}", (query or "").strip())


class GmailReader(GoogleApiReader):
    """Read Gmail: one Document per message, for agents and for RAG.

    Args:
        query: The default Gmail search, e.g. ``"from:ada@example.com is:unread"``.
        max_results: The default number of messages.
        auth: How to get credentials; default: :class:`GoogleAuth` with the Gmail scopes
            and ``auth_kwargs`` (the LlamaHub keywords: ``creds``, ``token_path``, ...).
        transport: As :class:`~.service.GoogleApiReader`'s (tests pass a ``FakeGmail``).
        service: A ready Gmail v1 client (used as it is).
        timezone: Show dates in this IANA zone; default: each message's own offset.
        time_left: As :class:`~.service.GoogleApiReader`'s.
        client_options: As :class:`~.service.GoogleApiReader`'s.
    """

    api = "gmail"
    version = "v1"

    def __init__(
        self,
        query: str = "",
        max_results: int = 10,
        auth: GoogleAuth | None = None,
        transport: Any = None,
        service: Any = None,
        timezone: str | None = None,
        time_left: Callable[[], float | None] | None = None,
        client_options: Any = None,
        **auth_kwargs: Any,
    ) -> None:
        for llamahub_only in ("use_iterative_parser", "results_per_page"):
            auth_kwargs.pop(llamahub_only, None)  # LlamaHub options: one parser, our own paging
        super().__init__(
            auth or GoogleAuth(scopes=GMAIL_SCOPES, **auth_kwargs),
            transport,
            service,
            time_left=time_left,
            client_options=client_options,
        )
        self.query = query
        self.max_results = max_results
        self.tz = timezone_named(timezone) if timezone else None  # ValueError: not a zone

    @property
    def messages(self) -> Any:
        """The ``users().messages()`` resource, made once per client."""
        service = self.service
        if getattr(self, "_messages_of", None) is not service:
            self._messages = service.users().messages()
            self._messages_of = service
        return self._messages

    @property
    def drafts(self) -> GmailDrafts:
        """The mailbox's drafts: list, get, create, update and send them."""
        return GmailDrafts(self)

    def message_ids(self, query: str = "", max_results: int = 10) -> list[dict[str, str]]:
        """``{"id", "threadId"}`` of the newest messages matching ``query``, page by page."""
        found: list[dict[str, str]] = []
        token = None
        while len(found) < max_results:
            params: dict[str, Any] = {
                "userId": "me",
                "maxResults": min(_PAGE, max_results - len(found)),
            }
            if query:
                params["q"] = gmail_query(query)
            if token:
                params["pageToken"] = token
            page = self.execute(self.messages.list(**params))
            found.extend(page.get("messages", []))
            token = page.get("nextPageToken")
            if not token:
                break
        return found[:max_results]

    def _get(self, message_id: str, fmt: str) -> Any:
        if fmt == "metadata":
            return self.messages.get(
                userId="me", id=message_id, format="metadata", metadataHeaders=SUMMARY_HEADERS
            )
        return self.messages.get(userId="me", id=message_id, format=fmt)

    def get_raw(self, message_id: str) -> dict[str, Any]:
        """The message resource with ``raw`` (the RFC 822 bytes, base64url)."""
        return self.execute(self._get(message_id, "raw"))

    def read(self, message_id: str) -> tuple[dict[str, Any], MailMessage]:
        """The message resource and its decoded content."""
        resource = self.get_raw(message_id)
        return resource, parse_raw(resource.get("raw", ""))

    def get_summary(self, message_id: str) -> dict[str, Any]:
        """The message resource with only the summary headers (``format=metadata``)."""
        return self.execute(self._get(message_id, "metadata"))

    def fetch(self, message_ids: list[str], fmt: str = "raw") -> Iterator[dict[str, Any]]:
        """The resources of ``message_ids`` in ``fmt``, in order, :data:`BATCH_SIZE` a request."""
        for start in range(0, len(message_ids), BATCH_SIZE):
            chunk = message_ids[start : start + BATCH_SIZE]
            if len(chunk) == 1:  # one call: no batch needed
                yield self.execute(self._get(chunk[0], fmt))
                continue
            answers = self.execute_batch([self._get(mid, fmt) for mid in chunk])
            again = [
                i
                for i, answer in enumerate(answers)
                if isinstance(answer, GoogleApiError) and answer.passing
            ]
            if again:
                self._fetch_again(chunk, answers, again, fmt)
            for answer in answers:
                if isinstance(answer, Exception):
                    raise answer
                yield answer

    def _fetch_again(
        self, chunk: list[str], answers: list[Any], again: list[int], fmt: str
    ) -> None:
        asked = max(float(answers[i].retry_after or 0.0) for i in again)
        wait = max(asked, AGAIN_AFTER)
        left = self.time_left() if self.time_left is not None else None
        if left is not None and wait + AGAIN_AFTER > left:
            return  # no time to wait and ask again: the failures stand (retry later)
        time.sleep(wait)
        requests = [self._get(chunk[i], fmt) for i in again]
        if len(requests) == 1:
            try:
                retried: list[Any] = [self.execute(requests[0])]
            except (GoogleApiError, GoogleResponseError) as exc:
                retried = [exc]
        else:
            retried = self.execute_batch(requests)
        for i, answer in zip(again, retried, strict=True):
            answers[i] = answer

    def message_document(self, message_id: str) -> Document:
        """One message as a Document whose text is :func:`describe_message`."""
        resource, mail = self.read(message_id)
        return self._document(resource, mail, message_id)

    def thread(self, thread_id: str) -> dict[str, Any]:
        """A thread: its id and its messages' ids and labels, oldest first (``minimal``)."""
        request = self.service.users().threads().get(userId="me", id=thread_id, format="minimal")
        return self.execute(request)

    def messages_read(self, message_ids: list[str]) -> Iterator[tuple[dict[str, Any], MailMessage]]:
        """The messages in full (resource without ``raw``, decoded content), fetched in batches."""
        for resource in self.fetch(message_ids):
            mail = parse_raw(resource.pop("raw", ""))
            yield resource, mail
            del resource, mail  # not held while the next one is fetched and parsed

    def _documents(
        self,
        pairs: Iterator[tuple[dict[str, Any], MailMessage]],
        ids: Iterable[str] = itertools.repeat(""),
    ) -> Iterator[Document]:
        for message_id, (resource, mail) in zip(ids, pairs, strict=False):
            document = self._document(resource, mail, message_id)
            del resource, mail  # one whole message held at a time
            yield document

    def payload(self, message_id: str) -> dict[str, Any]:
        """The message resource with its MIME tree (``format=full``): parts, sizes, ids."""
        return self.execute(self._get(message_id, "full"))

    def attachment_data(self, message_id: str, attachment_id: str) -> str:
        """An attachment's content as Gmail sends it (base64url)."""
        request = self.messages.attachments().get(
            userId="me", messageId=message_id, id=attachment_id
        )
        answer = self.execute(request)
        data = answer.get("data")
        if not isinstance(data, str):
            raise GoogleResponseError("Google's answer about the attachment holds no data")
        return data

    def labels(self) -> list[dict[str, Any]]:
        """The mailbox's labels, system and user: ``id``, ``name``, ``type`` each."""
        answer = self.execute(self.service.users().labels().list(userId="me"))
        return list(answer.get("labels", []))

    def modify_labels(self, message_ids: list[str], add: list[str], remove: list[str]) -> None:
        """Add and remove label ids on up to :data:`MODIFY_LIMIT` messages in one request."""
        body: dict[str, Any] = {"ids": message_ids}
        if add:
            body["addLabelIds"] = add
        if remove:
            body["removeLabelIds"] = remove
        self.execute(self.messages.batchModify(userId="me", body=body))

    def _document(self, resource: dict[str, Any], mail: MailMessage, message_id: str) -> Document:
        text = describe_message(resource, mail, self.tz)
        return mail_document(resource, mail.headers, text, message_id)

    def summaries(self, query: str = "", max_results: int = 10) -> list[dict[str, Any]]:
        """The newest messages matching ``query``, as ``format=metadata`` resources."""
        ids = [stub["id"] for stub in self.message_ids(query, max_results)]
        return list(self.fetch(ids, "metadata"))

    def summary_documents(self, query: str = "", max_results: int = 10) -> list[Document]:
        """Compact Documents for a search: ids, date, from, subject and snippet each."""
        return [
            mail_document(r, summary_headers(r), describe_summary(r, self.tz))
            for r in self.summaries(query, max_results)
        ]

    def iter_documents(self, query: str = "", max_results: int = 10) -> Iterator[Document]:
        """Full-message Documents, fetched :data:`BATCH_SIZE` messages a request."""
        ids = [stub["id"] for stub in self.message_ids(query, max_results)]
        yield from self._documents(self.messages_read(ids), ids)

    def budgeted(
        self,
        query: str = "",
        max_results: int = 10,
        max_bytes: int = MAX_LOAD_BYTES,
        max_message_bytes: int = MAX_MESSAGE_BYTES,
    ) -> tuple[Iterator[tuple[dict[str, Any], MailMessage]], list[tuple[dict[str, Any], int]]]:
        """Messages in full within a byte budget, and the summaries of the ones left out.

        Sizes come first (``format=minimal``); a message over ``max_message_bytes``, or one that
        would take the load over ``max_bytes``, is left out (its ``format=metadata`` resource,
        with its size, is returned). The others are fetched as the iterator is read, in batches
        of at most :data:`BATCH_BYTES`.
        """
        ids = [stub["id"] for stub in self.message_ids(query, max_results)]
        chosen: list[tuple[str, int]] = []
        skipped: list[tuple[str, int]] = []
        total = 0
        for message_id, resource in zip(ids, self.fetch(ids, "minimal"), strict=False):
            size = size_estimate(resource)
            if size > max_message_bytes or total + size > max_bytes:
                skipped.append((message_id, size))
                continue
            chosen.append((message_id, size))
            total += size
        metadata = self.fetch([i for i, _ in skipped], "metadata")
        left_out = [(r, size) for (_, size), r in zip(skipped, metadata, strict=False)]
        return self._in_groups(chosen), left_out

    def _in_groups(
        self, chosen: list[tuple[str, int]]
    ) -> Iterator[tuple[dict[str, Any], MailMessage]]:
        group: list[str] = []
        group_bytes = 0
        for message_id, size in chosen:
            if group and (len(group) == BATCH_SIZE or group_bytes + size > BATCH_BYTES):
                yield from self.messages_read(group)
                group, group_bytes = [], 0
            group.append(message_id)
            group_bytes += size
        if group:
            yield from self.messages_read(group)

    def load_data(self, query: str | None = None, max_results: int | None = None) -> list[Document]:
        """Messages matching ``query`` (default: the reader's), newest first, as Documents.

        Args:
            query: Gmail search, e.g. ``"from:ada@example.com after:2026/11/01"``.
            max_results: At most this many messages (default: the reader's, 10).

        Returns:
            One Document per message: ids, headers, attachments and the readable body.
        """
        chosen = self.query if query is None else query
        return list(self.iter_documents(chosen, max_results or self.max_results))


def size_estimate(resource: Mapping[str, Any]) -> int:
    """A message's ``sizeEstimate`` (bytes), 0 when Gmail left it out or sent no number."""
    try:
        return max(int(resource.get("sizeEstimate") or 0), 0)
    except (TypeError, ValueError):
        return 0


class GmailDrafts:
    """The drafts of the signed-in mailbox, through ``client`` (its deadline and retries)."""

    def __init__(self, client: GoogleApiReader) -> None:
        self.client = client

    def _drafts(self) -> Any:
        return self.client.service.users().drafts()

    def list(self, max_results: int = 10) -> list[dict[str, Any]]:
        """``{"id", "message": {"id", "threadId"}}`` of the newest ``max_results`` drafts."""
        answer = self.client.execute(self._drafts().list(userId="me", maxResults=max_results))
        return list(answer.get("drafts", []))

    def get(self, draft_id: str) -> dict[str, Any]:
        """A draft with its message in ``format=raw``."""
        request = self._drafts().get(userId="me", id=draft_id, format="raw")
        resource = self.client.execute(request)
        if not resource.get("id"):
            raise GoogleResponseError("Google's answer about the draft names no draft id")
        return resource

    def create(self, mime: bytes, thread_id: str | None = None) -> dict[str, Any]:
        """A new draft of ``mime`` (in ``thread_id`` when it replies): Gmail's ``Draft``."""
        body = _draft_body(mime, thread_id)
        return self.client.execute(self._drafts().create(userId="me", body=body))

    def update(self, draft_id: str, mime: bytes, thread_id: str | None = None) -> dict[str, Any]:
        """Draft ``draft_id`` replaced by ``mime`` (in ``thread_id``): Gmail's ``Draft``."""
        body = {"id": draft_id, **_draft_body(mime, thread_id)}
        return self.client.execute(self._drafts().update(userId="me", id=draft_id, body=body))

    def send(self, draft_id: str) -> dict[str, Any]:
        """Send draft ``draft_id``: the sent ``Message`` (``id``, ``threadId``, ``labelIds``)."""
        return self.client.execute(self._drafts().send(userId="me", body={"id": draft_id}))


def _draft_body(mime: bytes, thread_id: str | None) -> dict[str, Any]:
    message: dict[str, Any] = {"raw": base64.urlsafe_b64encode(mime).decode("ascii")}
    if thread_id:
        message["threadId"] = thread_id
    return {"message": message}
