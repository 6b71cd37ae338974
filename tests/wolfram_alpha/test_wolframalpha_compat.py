"""The wolframalpha internals compat_wolframalpha leans on, checked against the pinned wolframalpha.

Each test names the internal (its number in the compat module's banner). When an upgrade of
wolframalpha fails one, read the banner and its changes before touching anything else:
every Full Results call is read through these.
"""

from __future__ import annotations

import inspect

import pytest
import wolframalpha

from toolspecs.loaders.wolfram_alpha import compat_wolframalpha as compat

REPLY = b"""<?xml version='1.0' encoding='UTF-8'?>
<queryresult success='true' error='false' numpods='2'>
 <pod title='Input' id='Input' position='100' numsubpods='1' primary='false'>
  <subpod title=''><plaintext>2 + 2</plaintext></subpod>
 </pod>
 <pod title='Result' id='Result' position='200' numsubpods='2' primary='true'>
  <subpod title=''><plaintext>4</plaintext></subpod>
  <subpod title=''><plaintext>four</plaintext></subpod>
 </pod>
 <assumptions count='1'>
  <assumption type='Clash' word='pi' count='2'>
   <value name='NamedConstant' desc='a mathematical constant' input='*C.pi-_*NamedConstant-'/>
   <value name='Movie' desc='a movie' input='*C.pi-_*Movie-'/>
  </assumption>
 </assumptions>
</queryresult>"""


def test_1_client_parses_with_document_make_as_xmltodict_postprocessor():
    assert "postprocessor=Document.make" in inspect.getsource(wolframalpha.Client.aquery)
    assert list(inspect.signature(wolframalpha.Document.make).parameters) == [
        "path",
        "key",
        "value",
    ]


def test_1_make_wraps_elements_in_the_classes_named_by_their_tags():
    doc = compat.parse(REPLY)
    result = doc["queryresult"]
    assert compat.is_result(result) and type(result) is wolframalpha.Result
    pods = list(result.pods)
    assert [pod["@title"] for pod in pods] == ["Input", "Result"]
    assert all(compat.is_pod(pod) for pod in pods)
    assert pods[1]["@numsubpods"] == 2 and pods[1]["@primary"] is True  # converted
    assert [s.get("plaintext") for s in pods[1].subpods] == ["4", "four"]
    (assumption,) = result.assumptions
    assert [v["@desc"] for v in assumption["value"]] == ["a mathematical constant", "a movie"]
    assert not compat.is_result({"pods": []}) and not compat.is_pod({"@title": "x"})


def test_1_entity_declarations_are_refused():
    bomb = b"<!DOCTYPE q [<!ENTITY a 'aaaa'>]><queryresult>&a;</queryresult>"
    with pytest.raises(ValueError, match="entities"):
        compat.parse(bomb)


@pytest.mark.parametrize("tag", ["queryresult", "pod"])
def test_2_result_and_pod_raise_the_error_element_as_a_worded_value_error(tag):
    inner = "<error><code>1</code><msg>Invalid appid</msg></error>"
    body = f"<{tag} success='false' error='true'>{inner}</{tag}>".encode()
    if tag == "pod":
        body = b"<queryresult success='true'>" + body + b"</queryresult>"
    with pytest.raises(ValueError, match=r"^Error 1: Invalid appid$") as raised:
        compat.parse(body)
    assert compat.ERROR_ELEMENT.match(str(raised.value))


def test_3_a_bare_error_is_worded_as_the_client_words_it():
    source = inspect.getsource(wolframalpha.Client.aquery)
    assert "if 'error' in doc:" in source
    assert "Error {error['@status']}: {error['@message']}" in source
    doc = compat.parse(b"<error status='1' message='Invalid appid'/>")
    assert compat.bare_error(doc["error"]) == "Error 1: Invalid appid"
    assert compat.ERROR_ELEMENT.match(compat.bare_error(doc["error"]))
