"""Gmail's issue-15 reads, next to their floors, in one process, rounds alternating.

- ``read_attachment`` on the sample 1-page PDF (the whole tool call: format=full, the
  download from the fake, pypdf in a bounded child process, fencing) next to the floor:
  pypdf reading the same bytes in this process, unbounded. The ratio is the price of the
  bound (a child Python started per PDF).
- ``get_thread`` on a thread of ``--thread`` messages: the HTTP requests it sends
  (threads.get, then the messages in batches of 25) next to one messages.get per message.

Usage: ``uv run --frozen python bench/gmail_depth.py [--rounds 7] [--thread 20] [--json]``
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import time

from pypdf import PdfReader

from toolspecs.loaders.google.testing import long_message, sample_mailbox
from toolspecs.specs.gmail import GmailToolSpec


def _pdf_bytes(gmail, message_id: str) -> bytes:
    part = next(p for p in gmail.mime(message_id).iter_attachments())
    return part.get_payload(decode=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--thread", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    gmail = sample_mailbox()
    spec = GmailToolSpec(transport=gmail)
    message_id = next(
        m for m in gmail.messages if "Report and diagram" in str(gmail.mime(m)["Subject"])
    )
    pdf = _pdf_bytes(gmail, message_id)

    ours: list[float] = []
    floor: list[float] = []
    for _ in range(args.rounds):
        start = time.perf_counter()
        out = spec.call_tool("read_attachment", message_id=message_id, attachment_id="1")
        ours.append(time.perf_counter() - start)
        assert "Revenue" in out.content, out.content
        start = time.perf_counter()
        text = "".join(page.extract_text() or "" for page in PdfReader(io.BytesIO(pdf)).pages)
        floor.append(time.perf_counter() - start)
        assert "Revenue" in text

    first = gmail.add_message(long_message(0, words=200))
    for index in range(1, args.thread):
        gmail.add_message(long_message(index, words=200), thread_id=first["threadId"])
    before = len(gmail.requests)
    spec.call_tool("get_thread", thread_id=first["threadId"])
    requests = len(gmail.requests) - before

    ratios = [a / b for a, b in zip(ours, floor, strict=True)]
    result = {
        "read_attachment_pdf_s": {"min": min(ours), "median": statistics.median(ours)},
        "pypdf_in_process_s": {"min": min(floor), "median": statistics.median(floor)},
        "ratio_of_min": min(ours) / min(floor),
        "ratio_median": statistics.median(ratios),
        "get_thread_http_requests": requests,
        "one_get_per_message_requests": 1 + args.thread,
    }
    if args.json:
        print(json.dumps(result, indent=1))
        return
    mid = statistics.median
    print(f"read_attachment (PDF, whole call): min {min(ours):.3f} s, median {mid(ours):.3f} s")
    print(f"pypdf in process (floor):          min {min(floor):.4f} s, median {mid(floor):.4f} s")
    print(
        f"ratio: {result['ratio_of_min']:.0f}x of the best times, "
        f"{result['ratio_median']:.0f}x median per round"
    )
    print(
        f"get_thread, {args.thread} messages: {requests} HTTP requests "
        f"(one messages.get each would be {1 + args.thread})"
    )


if __name__ == "__main__":
    main()
