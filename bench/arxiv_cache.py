"""A paper read again by a new spec (another call, another process): with the paper cache
and without it (the floor LlamaHub's spec has: every read downloads the PDF).

Both sides run on the shipped FakeArxiv in one process, rounds alternating; each round
makes a new spec on the same cache directory (cache side) or with none (floor side) and
reads one section of 1706.03762 (30 pages, ~30 KB PDF here; arXiv's are ~1-10 MB). The
fake answers at once: on arXiv every request also waits arXiv's pace (one request every
3 s) and the download, which the request counts show.

    uv run --frozen python bench/arxiv_cache.py [--rounds 7]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

from toolspecs.loaders.arxiv.testing import FakeArxiv
from toolspecs.specs.arxiv import ArxivToolSpec


def read_once(arxiv: FakeArxiv, cache: object) -> float:
    spec = ArxivToolSpec(transport=arxiv.transport(), paper_cache=cache)  # type: ignore[arg-type]
    started = time.perf_counter()
    output = spec.call_tool("arxiv_paper_section", paper_id="1706.03762", section="3")
    took = time.perf_counter() - started
    assert output.is_error is False, output.content
    return took


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory() as directory:
        cached, floor = FakeArxiv(), FakeArxiv()
        read_once(cached, directory)  # fills the cache: the first read downloads
        warm = len(cached.requests), cached.bytes_sent
        times: dict[str, list[float]] = {"cache": [], "no cache": []}
        for _ in range(rounds):
            times["cache"].append(read_once(cached, directory))
            times["no cache"].append(read_once(floor, False))
        sides = {
            "cache": (len(cached.requests) - warm[0], cached.bytes_sent - warm[1]),
            "no cache": (len(floor.requests), floor.bytes_sent),
        }
    print(f"{'side':<10} {'min s':>7} {'median s':>9} {'requests':>9} {'bytes read':>11}")
    for side, took in times.items():
        requests, sent = sides[side]
        print(
            f"{side:<10} {min(took):7.3f} {statistics.median(took):9.3f} "
            f"{requests / rounds:9.1f} {sent // rounds:11,}"
        )
    ratios = [a / b for a, b in zip(times["cache"], times["no cache"], strict=True)]
    print(
        f"ratio cache/no cache: {min(times['cache']) / min(times['no cache']):.2f} (min), "
        f"{statistics.median(ratios):.2f} (median of rounds); requests per read "
        f"{sides['cache'][0] / rounds:.0f} vs {sides['no cache'][0] / rounds:.0f}: on arXiv "
        "each one saved is 3 s of its pace plus the PDF's download"
    )


if __name__ == "__main__":
    main()
