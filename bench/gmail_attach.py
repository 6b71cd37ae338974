"""A draft with a file attached: our create_draft next to the floor, on the same fake.

Ours: ``GmailToolSpec(attachment_dir=...).call_tool("create_draft", attachments=[...])``
(path checks, the MIME built and parsed back for its recipients, the agent's answer).
The floor: the same MIME built with the standard library alone and sent with the same
googleapiclient ``drafts.create`` on a second copy of the fake. Rounds alternate; prints
min/median of each side and the ratio (of the best times, and the median of per-round
ratios). Both sides pay the fake's own work (decoding and storing the draft).

    uv run --frozen python bench/gmail_attach.py [--mb 5] [--rounds 9]
"""

from __future__ import annotations

import argparse
import base64
import statistics
import tempfile
import time
from email.mime.application import MIMEApplication
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from pathlib import Path

from toolspecs.loaders.google.testing import sample_mailbox
from toolspecs.specs.gmail import GmailToolSpec


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--mb", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "report.pdf"
        path.write_bytes(b"%PDF-1.4\n" + bytes(range(256)) * int(args.mb * 4096))
        ours = GmailToolSpec(transport=sample_mailbox(), attachment_dir=folder)
        floor_spec = GmailToolSpec(transport=sample_mailbox())  # its client only
        service = floor_spec.service

        def run_ours() -> None:
            out = ours.call_tool(
                "create_draft", to=["ada@example.com"], message="Here.", attachments=["report.pdf"]
            )
            assert out.is_error is False, out

        def run_floor() -> None:
            mime = MIMEMultipart("mixed")
            mime["To"] = "ada@example.com"
            mime.attach(MIMEText("Here.", "plain", "utf-8"))
            part = MIMEApplication(path.read_bytes(), "pdf")
            part.add_header("Content-Disposition", "attachment", filename="report.pdf")
            mime.attach(part)
            raw = base64.urlsafe_b64encode(mime.as_bytes()).decode()
            body = {"message": {"raw": raw}}
            service.users().drafts().create(userId="me", body=body).execute()

        times: dict[str, list[float]] = {"ours": [], "floor": []}
        for _ in range(args.rounds):
            for name, run in (("ours", run_ours), ("floor", run_floor)):
                start = time.perf_counter()
                run()
                times[name].append(time.perf_counter() - start)
    ratios = [o / f for o, f in zip(times["ours"], times["floor"], strict=True)]
    for name, values in times.items():
        print(
            f"{name:5}  min {min(values) * 1000:7.1f} ms  median "
            f"{statistics.median(values) * 1000:7.1f} ms"
        )
    best = min(times["ours"]) / min(times["floor"])
    print(
        f"ratio ours/floor ({args.mb:g} MB file): {best:.2f} (best), "
        f"{statistics.median(ratios):.2f} (median of rounds)"
    )


if __name__ == "__main__":
    main()
