"""The Lagent internals compat_lagent leans on, checked against the pinned lagent.

Each test names the internal (its number in the compat module's banner). When an upgrade of
lagent fails one, read the banner and its changes before touching anything else: every
call of our tools in a Lagent agent goes through these.
"""

from __future__ import annotations

import inspect
import json

from lagent.actions import BaseAction, tool_api
from lagent.actions.parser import BaseParser, JsonParser
from lagent.schema import ActionStatusCode

from toolspecs.adapters import compat_lagent as compat

DESCRIBED = {"name": "Probe", "description": "A probe.", "api_list": []}


class Single(BaseAction):
    def run(self, text: str) -> str:
        """Echo.

        Args:
            text (str): The text.
        """
        return text


class Toolkit(BaseAction):
    @tool_api
    def echo(self, text: str) -> str:
        """Echo.

        Args:
            text (str): The text.
        """
        return text


class Bare(BaseAction):
    """A class with no APIs of its own: they come per instance."""


def test_1_the_metaclass_decides_is_toolkit_per_class_and_is_toolkit_reads_it():
    assert Single()._is_toolkit is False and Toolkit()._is_toolkit is True
    assert Single().is_toolkit is False and Toolkit().is_toolkit is True
    bare = Bare(DESCRIBED)
    assert bare.is_toolkit is False
    compat.mark_toolkit(bare)
    assert bare.is_toolkit is True and Bare(DESCRIBED).is_toolkit is False


def test_2_call_finds_an_api_set_on_the_instance():
    assert "getattr(self, name)" in inspect.getsource(BaseAction.__call__)
    bare = Bare(DESCRIBED, parser=Passing)
    compat.mark_toolkit(bare)
    compat.add_api(bare, "shout", lambda **kw: kw["text"].upper())
    answer = bare('{"text": "hi"}', "shout")
    assert answer.state == ActionStatusCode.SUCCESS
    assert answer.result == [{"type": "text", "content": "HI"}]
    missing = bare("{}", "whisper")
    assert missing.state == ActionStatusCode.API_ERROR and "invalid API" in missing.errmsg


class Passing(JsonParser):
    def parse_inputs(self, inputs, name="run"):
        assert compat.action_of(self).name == "Probe"
        return json.loads(compat.unfenced(inputs))


def test_3_a_parser_keeps_its_action_in_action():
    assert "self.action = action" in inspect.getsource(BaseParser.__init__)
    action = Toolkit()
    assert compat.action_of(JsonParser(action)) is action


def test_4_our_fence_pattern_is_json_parsers_and_reads_as_it_does():
    assert f"r'{compat.JSON_FENCE.pattern}'" in inspect.getsource(JsonParser.parse_inputs)
    parser = JsonParser(Toolkit())
    for sent in ('{"text": "a"}', '```json\n{"text": "a"}\n```', '  ```json\n{"text": "a"}\n```  '):
        assert parser.parse_inputs(sent, "echo") == {"text": "a"}
        assert compat.unfenced(sent) == '{"text": "a"}'
