"""Gmail: ``search_messages`` with bodies, toolspecs vs LlamaHub's GmailToolSpec, same fake.

    uv run --frozen python bench/gmail.py [--messages 50] [--rounds 15] [--json]

Both specs run in this process against their own copy of the same fake mailbox
(``toolspecs.loaders.google.testing.FakeGmail``, served through googleapiclient as Gmail
serves it): LlamaHub's ``search_messages(query, max_results)`` and ours with
``include_body=True``, each returning one Document per message. Rounds alternate the two
sides; the ratio is ours / LlamaHub's: of the two best times ("min") and the median of
the per-round ratios (the machine is shared and noisy). Requests are counted at the fake:
HTTP requests, and API calls (a batch request holds several).

LlamaHub's package (``llama-index-tools-google==0.8.0``) is imported from
bench/.venv-llamahub (made by bench/schema_tokens.py), appended to ``sys.path`` after this
env: its own module, with the workspace's googleapiclient, httplib2 and llama-index-core,
which are the versions that venv holds too (checked below). Its ``service`` attribute is
given a client built on the fake's http, which it uses as it is (``_cache_service``).
Its parser reads a whole raw mail as UTF-8 and fails on a Latin-1 one, so the mailbox is
the shipped sample mails but ``latin1``, and long plain-text reports, alternating.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
SITE = BENCH / ".venv-llamahub" / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
SHARED = ("google-api-python-client", "httplib2", "llama-index-core")


def fail(message: str) -> None:
    print(f"gmail bench: error: {message}", file=sys.stderr)
    sys.exit(1)


def llamahub_spec_class() -> Any:
    site = SITE / "site-packages"
    if not site.is_dir():
        fail("no bench/.venv-llamahub: run `uv run --frozen python bench/schema_tokens.py` once")
    theirs = {d.metadata["Name"].lower(): d.version for d in metadata.distributions(path=[site])}
    for name in SHARED:
        if theirs.get(name) != metadata.version(name):
            fail(f"{name} differs: {metadata.version(name)} here, {theirs.get(name)} in the venv")
    sys.path.append(str(site))
    from llama_index.tools.google import GmailToolSpec

    return GmailToolSpec


def mailbox(count: int) -> Any:
    from toolspecs.loaders.google.testing import FIXTURES, fixture, long_message
    from toolspecs.loaders.google.testing.gmail import FakeGmail

    samples = [fixture(name) for name in FIXTURES if name != "latin1"]
    gmail = FakeGmail()
    for index in range(count):
        if index % 2:
            gmail.add_message(long_message(index))
        else:
            gmail.add_message(samples[(index // 2) % len(samples)], labels=["INBOX", "UNREAD"])
    return gmail


def api_calls(gmail: Any) -> int:
    # Before issue 14 the fake had no batches: one call a request.
    return len(gmail.calls()) if hasattr(gmail, "calls") else len(gmail.requests)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from toolspecs.loaders.google.service import build_service
    from toolspecs.specs.gmail import GmailToolSpec

    theirs_class = llamahub_spec_class()
    ours_fake, theirs_fake = mailbox(args.messages), mailbox(args.messages)
    ours = GmailToolSpec(transport=ours_fake)
    theirs = theirs_class()
    theirs.service = build_service("gmail", "v1", transport=theirs_fake)

    def run_ours() -> list[Any]:
        docs: list[Any] = ours.search_messages(
            query="", max_results=args.messages, include_body=True
        )
        return docs

    def run_theirs() -> list[Any]:
        docs: list[Any] = theirs.search_messages(query="", max_results=args.messages)
        return docs

    counts = {}
    sides = (("toolspecs", run_ours, ours_fake), ("llamahub", run_theirs, theirs_fake))
    for name, run, fake in sides:
        fake.requests.clear()
        docs = run()
        if len(docs) != args.messages:
            fail(f"{name} returned {len(docs)} documents, not {args.messages}")
        counts[name] = {"http_requests": len(fake.requests), "api_calls": api_calls(fake)}
        fake.requests.clear()

    times: dict[str, list[float]] = {"toolspecs": [], "llamahub": []}
    for index in range(args.rounds):
        order = [("toolspecs", run_ours), ("llamahub", run_theirs)]
        for name, run in order if index % 2 == 0 else order[::-1]:
            gc.collect()
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
        ours_fake.requests.clear()
        theirs_fake.requests.clear()
    ratios = [a / b for a, b in zip(times["toolspecs"], times["llamahub"], strict=True)]
    result = {
        "messages": args.messages,
        "rounds": args.rounds,
        "seconds": {k: {"min": min(v), "median": statistics.median(v)} for k, v in times.items()},
        # min: of the best times (least disturbed); median: of the per-round ratios.
        "ratio": {
            "min": min(times["toolspecs"]) / min(times["llamahub"]),
            "median": statistics.median(ratios),
        },
        "requests": counts,
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    sec = result["seconds"]
    print(
        f"search_messages with bodies, {args.messages} messages, {args.rounds} rounds "
        "(ms min/median):"
    )
    for name in ("toolspecs", "llamahub"):
        c = counts[name]
        print(
            f"  {name:<10} {sec[name]['min'] * 1000:7.1f} / {sec[name]['median'] * 1000:7.1f}"
            f"   {c['http_requests']:3d} HTTP requests, {c['api_calls']} API calls"
        )
    print(
        f"  ratio toolspecs / llamahub: min x{result['ratio']['min']:.2f}, "
        f"median x{result['ratio']['median']:.2f}  (target <= x1.3)"
    )


if __name__ == "__main__":
    main()
