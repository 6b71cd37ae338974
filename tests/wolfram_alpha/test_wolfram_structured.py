"""Issue 25: every Wolfram|Alpha tool's structured result holds the facts its text shows.

(a) each tool on the sandbox's fake Wolfram|Alpha, text and data side by side, from the
service and from the cache; (b) one whole task (ask, choose another meaning, take the
answer) through mcp's own client, whose every next argument comes from
``structured_content``, never from the text.
"""

from __future__ import annotations

import pytest
from mcp import Client

from toolspecs.core.registry import sandbox_spec
from toolspecs.loaders.wolfram_alpha.testing import FakeWolframAlpha
from toolspecs.server import build_server
from toolspecs.specs.wolfram_alpha import WolframAlphaToolSpec


@pytest.fixture
def spec():
    return sandbox_spec("wolfram_alpha")


def call(spec, name, **arguments):
    out = spec.call_tool(name, **arguments)
    assert out.is_error is False, out.content
    return out.content, out.structured


def quoted(value) -> str:
    """The text of a Quoted value, checking that it is marked as third-party text."""
    assert value["third_party"] is True, value
    return value["text"]


def shown(pod) -> str:
    """A section as the text shows it: its title line, then its text."""
    return f"{quoted(pod['title'])}:\n{quoted(pod['text'])}"


# -- (a) wolfram_alpha_query --------------------------------------------------------------


def test_an_answer_holds_the_interpretation_the_result_each_section_and_the_link(spec):
    text, data = call(spec, "wolfram_alpha_query", query="boiling point of water in K")
    assert data["query"] == "boiling point of water in K"
    assert f"Input interpretation:\n{quoted(data['input_interpretation'])}\n" in text
    assert quoted(data["answer"]) == "373.12 K (kelvins)\n(at 760 mmHg)"
    assert [quoted(p["title"]) for p in data["sections"]] == ["Result", "Unit conversions"]
    for pod in data["sections"]:
        assert shown(pod) in text
    assert data["sections"][0]["primary"] is True  # the answer is the Result section
    assert "99.97 °C" in quoted(data["sections"][1]["text"])  # the units it converts to
    assert data["url"] == "https://www.wolframalpha.com/input?i=boiling+point+of+water+in+K"
    assert f"\n{data['url']}\n" in text
    assert "assumption" not in data and "other_assumptions" not in data


def test_without_a_result_section_the_answer_is_the_first_one(spec):
    text, data = call(spec, "wolfram_alpha_query", query="(7 * 12 ^ 10) / 321")
    assert quoted(data["answer"]) == "144473849856/107"
    assert quoted(data["sections"][0]["title"]) == "Exact result"
    assert quoted(data["input_interpretation"]) == "(7\N{MULTIPLICATION SIGN}12^10)/321"  # "Input:"
    assert [shown(p) in text for p in data["sections"]] == [True, True, True]


def test_an_answer_holds_the_meaning_used_and_the_others_with_their_values(spec):
    text, data = call(spec, "wolfram_alpha_query", query="pi")
    assert quoted(data["assumption"]) == '"pi" is referring to a mathematical constant.'
    assert quoted(data["assumption"]) in text
    others = {quoted(c["description"]): quoted(c["assumption"]) for c in data["other_assumptions"]}
    assert others == {'"pi" as a movie': "*C.pi-_*Movie-", '"pi" as a word': "*C.pi-_*Word-"}
    for description, value in others.items():
        assert f"{description} (assumption={value})" in text
    assert quoted(data["answer"]).startswith("3.14159265358979")
    assert quoted(data["input_interpretation"]) == "π (pi)"


def test_a_cached_answer_carries_the_same_data(spec):
    first = spec.call_tool("wolfram_alpha_query", query="speed of light")
    again = spec.call_tool("wolfram_alpha_query", query=" speed of light ")
    assert again.content == first.content
    assert again.structured == first.structured
    assert quoted(again.structured["answer"]) == "299792458 m/s (meters per second)"


def test_your_own_answer_without_sections_titled_as_wolfram_s(spec):
    fake = FakeWolframAlpha(answers={"france population": "Result:\n68 million people"})
    own = WolframAlphaToolSpec(app_id="offline", transport=fake.transport())
    text, data = call(own, "wolfram_alpha_query", query="france population")
    assert quoted(data["answer"]) == "68 million people" and shown(data["sections"][0]) in text
    assert "url" not in data and "input_interpretation" not in data


# -- (a) wolfram_alpha_pods ---------------------------------------------------------------


def test_pods_hold_each_section_the_primary_one_and_the_assumptions(spec):
    text, data = call(spec, "wolfram_alpha_pods", query="pi")
    assert data["query"] == "pi"
    assert [quoted(p["title"]) for p in data["pods"]] == [
        "Input",
        "Decimal approximation",
        "Property",
    ]
    for pod in data["pods"]:
        assert shown(pod) in text
    assert quoted(data["input_interpretation"]) == "π"
    assert data["pods"][1]["primary"] is True
    assert data["answer"] == data["pods"][1]["text"]
    (assumption,) = data["assumptions"]
    assert quoted(assumption["word"]) == "pi"
    choices = [
        f"{quoted(c['description'])} (assumption=«{quoted(c['assumption'])}»)"
        for c in assumption["choices"]
    ]
    assert f"- pi: {'; '.join(choices)}" in text  # the first is the one used
    assert "images" not in data and "steps_offered" not in data


def test_pods_hold_images_and_the_offer_of_steps(spec):
    text, data = call(spec, "wolfram_alpha_pods", query="integrate x^2 sin x")
    (image,) = data["images"]
    assert quoted(image["pod"]) == quoted(image["alt"]) == "Plots of the integral"
    assert image["url"].startswith("https://www6b3.wolframalpha.com/")
    line = f"- {quoted(image['pod'])}: «{quoted(image['alt'])}» {image['url']} (405 x 184 px)"
    assert line in text and (image["width"], image["height"]) == (405, 184)
    assert data["steps_offered"] is True
    assert text.endswith(data["next_step"]) and "steps=true" in data["next_step"]
    text, data = call(spec, "wolfram_alpha_pods", query="integrate x^2 sin x", steps=True)
    assert "Possible intermediate steps:" in quoted(data["answer"])
    assert "next_step" not in data
    for pod in data["pods"]:
        assert shown(pod) in text


def test_steps_an_app_id_is_not_entitled_to_are_said_in_the_next_step():
    fake = FakeWolframAlpha(step_by_step=False)
    spec = WolframAlphaToolSpec(app_id="offline", transport=fake.transport())
    text, data = call(spec, "wolfram_alpha_pods", query="integrate x^2 sin x", steps=True)
    assert "not entitled" in data["next_step"] and text.endswith(data["next_step"])


def test_one_pod_asked_for_and_cached_pods_carry_their_data(spec):
    text, data = call(spec, "wolfram_alpha_pods", query="pi", pod="Decimal approximation")
    (pod,) = data["pods"]
    assert shown(pod) in text and quoted(data["answer"]).startswith("3.14159")
    again = spec.call_tool("wolfram_alpha_pods", query="pi", pod="Decimal approximation")
    assert (again.content, again.structured) == (text, data)


def test_guidance_carries_no_structured_result(spec):
    out = spec.call_tool("wolfram_alpha_pods", query="francee populaton")
    assert out.is_error is True
    assert getattr(out, "structured", None) is None


# -- (b) a task from structured content alone, through mcp's client ----------------------


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_an_agent_reading_only_structured_content_asks_and_takes_the_answer(mode):
    async with Client(build_server(sandbox_spec("wolfram_alpha")), mode=mode) as client:
        listed = {t.name: t.output_schema for t in (await client.list_tools()).tools}
        assert all(listed.values()), "every tool has an outputSchema"

        async def ask(name: str, **arguments):
            # mcp's client validates structuredContent against the tool's outputSchema
            # and raises when it does not match (ClientSession.validate_tool_result).
            result = await client.call_tool(name, arguments)
            assert result.is_error is False
            return result.structured_content

        first = await ask("wolfram_alpha_query", query="pi")
        # The user meant the film: pick that meaning from the data, and ask again.
        movie = next(c for c in first["other_assumptions"] if "movie" in c["description"]["text"])
        answer = await ask(
            "wolfram_alpha_query", query=first["query"], assumption=movie["assumption"]["text"]
        )
        # And the constant's main section alone, by the title the sections list gives.
        pods = await ask("wolfram_alpha_pods", query=first["query"])
        main = next(p for p in pods["pods"] if p.get("primary"))
        alone = await ask("wolfram_alpha_pods", query=pods["query"], pod=main["title"]["text"])

    assert answer["input_interpretation"] == {"third_party": True, "text": "Pi (movie)"}
    assert "Darren Aronofsky" in answer["answer"]["text"]
    assert answer["answer"]["third_party"] is True
    assert [p["title"]["text"] for p in alone["pods"]] == ["Decimal approximation"]
    assert alone["answer"]["text"].startswith("3.14159265358979")
