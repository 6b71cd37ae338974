"""Peak memory of Gmail's whole-message reads: 25 mails of 4 MB each, through the tool.

Each case runs in a fresh process: the fake mailbox is built, imports and a warm-up call
done, freed memory given back (``malloc_trim``) and the peak reset
(``/proc/self/clear_refs``, Linux); then one tool call, and the growth of peak RSS
(``VmHWM``) over the RSS before it is printed, in MiB, with the size of the messages.

- ``text``: each mail a 4 MB body of words (all of it readable text, then stored);
- ``attachment``: each mail a short body and a 4 MB binary attachment.

Usage: ``uv run --frozen python bench/gmail_memory.py [--count 25] [--mb 4] [--runs 3]``
(to measure the code of another commit, put its ``src`` folders first on PYTHONPATH).
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import random
import re
import statistics
import subprocess
import sys
from email.message import EmailMessage

WORDS = [
    "the",
    "report",
    "figures",
    "quarterly",
    "revenue",
    "budget",
    "meeting",
    "agenda",
    "table",
    "results",
]


def big_mail(index: int, size: int, kind: str) -> bytes:
    mail = EmailMessage()
    mail["From"] = "Ada Lovelace <ada@example.com>"
    mail["To"] = "grace@example.org"
    mail["Subject"] = f"Big {kind} {index}"
    mail["Date"] = f"Tue, {1 + index % 28} Nov 2026 08:01:00 +0000"
    mail["Message-ID"] = f"<big-{kind}-{index}@example.com>"
    rng = random.Random(index)
    if kind == "text":
        words = " ".join(rng.choices(WORDS, k=size // 7))
        mail.set_content(words[:size])
    else:
        mail.set_content("The figures are attached.")
        mail.add_attachment(
            rng.randbytes(size * 3 // 4),
            maintype="application",
            subtype="octet-stream",
            filename=f"data{index}.bin",
        )
    return mail.as_bytes()


def _rss(field: str) -> int:
    with open("/proc/self/status") as status:
        found = re.search(rf"{field}:\s+(\d+) kB", status.read())
    assert found
    return int(found.group(1)) * 1024


def child(kind: str, count: int, size: int) -> None:
    from toolspecs.loaders.google.testing import FakeGmail
    from toolspecs.specs.gmail import GmailToolSpec

    gmail = FakeGmail()
    total = 0
    for i in range(count):
        source = big_mail(i, size, kind)
        total += len(source)
        gmail.add_message(source, labels=["INBOX"])
    spec = GmailToolSpec(transport=gmail, max_results=count)
    tools = {t.metadata.name: t for t in spec.to_tool_list()}
    tools["search_messages"].call(query="subject:nothing-matches")  # warm up
    gc.collect()
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")
    before = _rss("VmRSS")
    out = tools["search_messages"].call(max_results=count, include_body=True)
    extra = _rss("VmHWM") - before
    listed = "listed without their body" in out.content
    print(json.dumps({"extra": extra, "total": total, "listed": listed}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=25)
    parser.add_argument("--mb", type=float, default=4)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    size = int(args.mb * 1_000_000)
    if args.child:
        child(args.child, args.count, size)
        return
    print(
        f"search_messages(include_body=True) over {args.count} mails of {args.mb:g} MB:"
        f" peak RSS growth, min/median of {args.runs} fresh processes"
    )
    for kind in ("text", "attachment"):
        command = [sys.executable, __file__, "--child", kind, "--count", str(args.count)]
        command += ["--mb", str(args.mb)]
        runs = [
            json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
            for _ in range(args.runs)
        ]
        peaks = [r["extra"] / 2**20 for r in runs]
        print(
            f"  {kind:10} {runs[0]['total'] / 2**20:6.1f} MiB of mail: +{min(peaks):.0f}"
            f"/{statistics.median(peaks):.0f} MiB"
            f" ({min(peaks) * 2**20 / runs[0]['total']:.2f}x the mail)"
            f"{'; some listed without body' if runs[0]['listed'] else ''}"
        )


if __name__ == "__main__":
    main()
