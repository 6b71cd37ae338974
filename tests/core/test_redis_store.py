"""Issue 24: stored results in a real Redis, read by another process, scoped, bounded, expiring.

Every test runs against the redis-server of ``tests/core/conftest.py``. "Another replica"
is a second ``RedisStore`` with its own client and cache, as another process has.
"""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
import threading
from typing import ClassVar

import pytest

from toolspecs.core import FixArguments, OutputBudget, RetryLater, ToolSpec, tool
from toolspecs.core.large_output import read_passages
from toolspecs.core.memory_store import MemoryStore
from toolspecs.core.owners import results_owner
from toolspecs.core.redis_store import RedisStore, open_store

WORDS = ["meeting", "agenda", "revenue", "budget", "report", "invoice", "contract", "team"]


def mail(n: int, seed: int = 3) -> str:
    rng = random.Random(seed)
    return "\n\n".join(
        f"From: ada@example.com\nSubject: note {i}\n\n"
        + " ".join(rng.choices(WORDS, k=40))
        + f". Reference code K{i:05d}."
        for i in range(n)
    )


def wait(seconds: float) -> None:
    """Sleep for real (the suite's fixtures make time.sleep a no-op for googleapiclient)."""
    threading.Event().wait(seconds)


class Owner:
    """A user's session: anything that can be weakly referenced."""


@pytest.mark.serving
def test_a_result_stored_through_one_store_is_searched_through_another(redis_url):
    ada = Owner()
    first, second = RedisStore(redis_url), RedisStore(redis_url)
    text = mail(60) + " The quokka ablation is in here."
    stored = first.results(ada, "papers", OutputBudget()).add("load", text)
    read = second.results(ada, "papers", OutputBudget()).get("load", stored.result_id)
    assert read is not stored and list(read.passages) == list(stored.passages)
    assert (read.tokens, read.size, read.full_size) == (
        stored.tokens,
        stored.size,
        stored.full_size,
    )
    assert "quokka ablation" in read_passages(read, "quokka ablation").reply()
    # The second read of that process is served from its cache, still checked as kept.
    assert second.results(ada, "papers", OutputBudget()).get("load") is read


@pytest.mark.serving
def test_a_result_stored_by_another_process_is_read_here(redis_url):
    script = textwrap.dedent(
        f"""
        from toolspecs.core.owners import results_owner
        from toolspecs.core.redis_store import RedisStore
        from toolspecs.core.store import OutputBudget

        class Session:
            pass

        session = Session()
        store = RedisStore({redis_url!r})
        with results_owner(session, key="ada:session-1"):
            pass
        stored = store.results(session, "papers", OutputBudget()).add(
            "load", "Lorem ipsum dolor sit amet. " * 800 + "The quokka ablation."
        )
        print(stored.result_id)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "1"
    here = Owner()
    with results_owner(here, key="ada:session-1"):
        pass
    stored = RedisStore(redis_url).results(here, "papers", OutputBudget()).get("load", 1)
    assert "quokka" in read_passages(stored, "quokka").reply()


@pytest.mark.serving
def test_a_result_of_many_documents_and_sources_reads_back_whole(redis_url):
    from llama_index.core.schema import Document

    documents = [Document(text=f"Message {i}: lunch with Ada at noon.") for i in range(5000)]
    documents.insert(5, Document(text=""))  # an empty one holds no passage
    documents.append(Document(text="Grüße aus Köln, 日本語 🙂. The quokka ablation."))
    owner, budget = Owner(), OutputBudget(passage_tokens=40)
    stored = (
        RedisStore(redis_url)
        .results(owner, "s", budget)
        .add("load", documents, source=lambda d: f"msg {d.text.split(':')[0][8:]}")
    )
    read = RedisStore(redis_url).results(owner, "s", budget).get("load")
    assert list(read.passages) == list(stored.passages) and read.sources == stored.sources
    position, passage, source = read.hits("quokka ablation")[0]
    assert passage.startswith("Grüße") and source == stored.sources[position]


@pytest.mark.serving
def test_another_owner_reads_nothing_by_search_or_by_id(redis_url):
    ada, grace = Owner(), Owner()
    store = RedisStore(redis_url)
    store.results(ada, "papers", OutputBudget()).add("load", mail(40))
    theirs = RedisStore(redis_url).results(grace, "papers", OutputBudget())
    for attempt in (None, 1):
        with pytest.raises(FixArguments, match="There is no stored result of load"):
            theirs.get("load", attempt)
    assert theirs.dropped(1) is None and theirs.held() == 0
    # Named owners: the key is what scopes them, in any process.
    named = Owner()
    with results_owner(named, key="grace:1"):
        pass
    with pytest.raises(FixArguments):
        store.results(named, "papers", OutputBudget()).get("load", 1)


@pytest.mark.serving
def test_results_expire_after_the_ttl(redis_url):
    ada = Owner()
    store = RedisStore(redis_url, ttl=1.0)
    store.results(Owner(), "papers", OutputBudget()).add("load", mail(20))  # imports, tables
    results = store.results(ada, "papers", OutputBudget())
    results.add("load", mail(20))
    assert results.get("load").result_id == 1
    wait(0.6)
    results.add("load", mail(20))
    wait(0.6)
    # Result 1 is over a second old: gone, however the cache of this process still has it.
    with pytest.raises(FixArguments, match=r"Result 1 of load is gone: it expired"):
        results.get("load", 1)
    assert results.get("load").result_id == 2
    wait(0.6)
    with pytest.raises(FixArguments, match=r"they expired \(a stored result is kept for 1 s"):
        RedisStore(redis_url, ttl=1.0).results(ada, "papers", OutputBudget()).get("load")
    assert results.held() == 0
    wait(1.1)  # and the keys themselves go: nothing is left of any owner
    assert store.client.keys("*") == []


def test_the_memory_store_expires_results_too():
    now = [0.0]
    ada = Owner()
    results = MemoryStore(ttl=60).results(ada, "papers", OutputBudget())
    results._clock = lambda: now[0]
    results.add("load", mail(20))
    now[0] = 59
    assert results.get("load").result_id == 1
    now[0] = 61
    with pytest.raises(FixArguments, match=r"expired \(a stored result is kept for 60 s"):
        results.get("load", 1)
    assert results.held() == 0


@pytest.mark.serving
def test_the_bounds_hold_per_owner_in_redis(redis_url):
    text = mail(40)
    one = RedisStore(redis_url).results(Owner(), "s", OutputBudget()).add("load", text).held
    budget = OutputBudget(max_stored_bytes=int(one * 2.5), keep=8)
    ada, grace = Owner(), Owner()
    store = RedisStore(redis_url)
    for _ in range(4):
        store.results(ada, "s", budget).add("load", text)
    store.results(grace, "s", budget).add("load", text)
    assert one <= store.results(ada, "s", budget).held() <= budget.max_stored_bytes
    assert store.results(ada, "s", budget).dropped(2) == "load"
    assert store.results(grace, "s", budget).held() == one  # another owner's bound
    keep = OutputBudget(keep=2)
    for _ in range(3):
        store.results(ada, "k", keep).add("load", mail(5))
    with pytest.raises(FixArguments, match="dropped to make room"):
        store.results(ada, "k", keep).get("load", 1)


@pytest.mark.serving
def test_two_processes_storing_at_once_do_not_overshoot_the_bound(redis_url):
    text = mail(30)
    one = RedisStore(redis_url).results(Owner(), "s", OutputBudget()).add("load", text).held
    budget = OutputBudget(max_stored_bytes=one * 3, keep=100)
    ada = Owner()
    stores = [RedisStore(redis_url) for _ in range(4)]
    seen: list[int] = []

    def store_some(store: RedisStore) -> None:
        for _ in range(5):
            store.results(ada, "s", budget).add("load", text)
            seen.append(store.results(ada, "s", budget).held())

    threads = [threading.Thread(target=store_some, args=(s,)) for s in stores]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert max(seen) <= budget.max_stored_bytes
    live, gone = stores[0].results(ada, "s", budget)._view()
    assert len(live) == 3 and len(gone) == 17
    assert sorted(i for i, _, _ in live) == [18, 19, 20]


class Papers(ToolSpec):
    """A spec whose one function returns long text."""

    spec_functions: ClassVar = ["load_paper"]
    output_budget: ClassVar[OutputBudget] = OutputBudget(max_tokens=300)

    @tool(large_output=True, read_only=True)
    def load_paper(self, seed: int = 1) -> str:
        """Load a paper.

        Args:
            seed: Which paper.
        """
        return mail(30, seed=seed) + f" Needle{seed}here."


@pytest.mark.serving
def test_two_replicas_of_a_spec_share_a_session_s_results_through_redis(redis_url):
    one, two = Papers(), Papers()
    one.result_store, two.result_store = RedisStore(redis_url), RedisStore(redis_url)
    tools_one = {t.metadata.name: t for t in one.to_tool_list()}
    tools_two = {t.metadata.name: t for t in two.to_tool_list()}
    assert tools_two["read_stored_result"].guard.options.blocking is True  # reads wait on Redis
    session, stranger = Owner(), Owner()
    with results_owner(session, key="ada:s1"):
        assert "stored as result 1" in tools_one["load_paper"].call(seed=7).content
    with results_owner(Owner(), key="ada:s1"):  # the same session, on the other replica
        read = tools_two["read_stored_result"].call(query="Needle7here")
    assert read.is_error is False and "Needle7here" in read.content
    with results_owner(stranger):
        other = tools_two["read_stored_result"].call(query="Needle7here", result_id=1)
    assert other.is_error is True and "Needle7here" not in other.content


@pytest.mark.serving
def test_an_unreachable_redis_is_guidance_to_retry_later(redis_url):
    store = RedisStore("redis://127.0.0.1:1/0")
    results = store.results(Owner(), "s", OutputBudget())
    with pytest.raises(RetryLater, match="cannot be reached"):
        results.get("load")
    with pytest.raises(RetryLater):
        results.add("load", mail(5))


def test_a_read_through_the_tool_while_redis_is_down_is_retry_later_guidance():
    spec = Papers()
    spec.result_store = RedisStore("redis://127.0.0.1:1/0")
    tools = {t.metadata.name: t for t in spec.to_tool_list()}
    read = tools["read_stored_result"].call(query="Needle1here")
    assert read.is_error is True
    assert read.content.startswith("The store of long results (Redis) cannot be reached")


@pytest.mark.serving
def test_open_store_says_what_is_wrong_in_one_line(redis_url):
    assert open_store("memory") is None
    assert isinstance(open_store(redis_url), RedisStore)
    for url, said in [
        ("http://localhost:6379", "is neither memory nor a Redis URL"),
        ("redis://localhost:port/0", "is not a Redis URL"),
        ("redis://ada:s3cret@127.0.0.1:1/0", "cannot reach Redis at 127.0.0.1:1"),
    ]:
        with pytest.raises(Exception, match=said) as found:
            open_store(url)
        assert "\n" not in str(found.value) and "s3cret" not in str(found.value)


@pytest.mark.serving
def test_serve_store_sets_one_redis_store_on_every_spec(redis_url):
    from toolspecs.cli.assemble import ServeSettings, build_specs

    specs = build_specs(
        ServeSettings(names=["arxiv", "wolfram_alpha"], sandbox=True, store=redis_url)
    )
    stores = {id(spec.result_store) for spec in specs.values()}
    assert len(stores) == 1 and isinstance(specs["arxiv"].result_store, RedisStore)
    plain = build_specs(ServeSettings(names=["arxiv"], sandbox=True, store="memory"))
    assert plain["arxiv"].result_store is None


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("http://localhost:6379", "is neither memory nor a Redis URL"),
        ("redis://ada:s3cret@127.0.0.1:1/0", "cannot reach Redis at 127.0.0.1:1"),
    ],
)
def test_serve_refuses_a_bad_store_in_one_line(url, said, capsys):
    from toolspecs.cli import main

    assert main(["serve", "arxiv", "--sandbox", "--store", url]) == 2
    err = capsys.readouterr().err
    assert err.startswith("toolspecs: ") and said in err
    assert err.count("\n") == 1 and "s3cret" not in err
