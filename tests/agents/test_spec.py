"""Agent spec strings: parsing, type conversion by hints, and the errors users see."""

from __future__ import annotations

from typing import Literal

import pytest

from mcts_envs.agents import spec as spec_module
from mcts_envs.agents.spec import (
    UnknownAgentError,
    describe_agent,
    list_agents,
    make_agent,
    parse_spec,
)
from mcts_envs.core.errors import InvalidOptionError


class DummyAgent:
    """A dummy agent used to test spec parsing.

    More text.
    """

    name = "dummy"

    def __init__(
        self,
        *,
        seed: int | None = None,
        iterations: int = 100,
        seconds: float | None = None,
        c: float = 1.4,
        reuse: bool = False,
        final: Literal["visits", "mean"] = "visits",
        label: str = "x",
    ) -> None:
        if iterations < 1:
            raise ValueError("iterations must be >= 1")
        self.seed = seed
        self.iterations = iterations
        self.seconds = seconds
        self.c = c
        self.reuse = reuse
        self.final = final
        self.label = label


@pytest.fixture(autouse=True)
def dummy_registered():
    spec_module.register_agent("dummy", DummyAgent)
    yield
    spec_module.AGENT_KINDS.pop("dummy", None)
    spec_module._REGISTERED_CLASSES.pop("dummy", None)


def test_parse_spec_splits_name_and_options():
    assert parse_spec("random") == ("random", {})
    assert parse_spec(" MCTS : iterations = 800 , c=0.5 ") == (
        "mcts",
        {"iterations": "800", "c": "0.5"},
    )


def test_options_converted_by_type_hints():
    agent = make_agent(
        "dummy:iterations=2000,seconds=0.5,c=1,reuse=true,final=mean,label=abc", seed=7
    )
    assert agent.seed == 7
    assert agent.iterations == 2000 and type(agent.iterations) is int
    assert agent.seconds == 0.5
    assert agent.c == 1.0 and type(agent.c) is float
    assert agent.reuse is True
    assert agent.final == "mean"
    assert agent.label == "abc"
    assert agent.name == "dummy:iterations=2000,seconds=0.5,c=1.0,reuse=True,final=mean,label=abc"
    assert make_agent("dummy:seconds=none").seconds is None
    assert make_agent("dummy:iterations=1e3").iterations == 1000
    assert make_agent("dummy").name == "dummy"


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("dummy:iterations=many", "expected int"),
        ("dummy:iterations=1.5", "iterations='1.5'"),
        ("dummy:reuse=maybe", "bool"),
        ("dummy:final=best", "'visits', 'mean'"),
        ("dummy:iteration=5", "did you mean 'iterations'"),
        ("dummy:iterations=5,iterations=6", "given twice"),
        ("dummy:iterations", "key=value"),
        ("dummy:seed=3", "not a spec option"),
        ("dummy:iterations=0", "iterations must be >= 1"),
    ],
)
def test_bad_options_raise_clear_errors(spec, fragment):
    with pytest.raises(InvalidOptionError) as caught:
        make_agent(spec)
    assert fragment in str(caught.value)


def test_unknown_option_error_lists_options_with_defaults():
    with pytest.raises(InvalidOptionError) as caught:
        make_agent("dummy:depth=3")
    message = str(caught.value)
    assert "iterations: int = 100" in message
    assert "c: float = 1.4" in message


def test_unknown_agent_names_known_agents():
    with pytest.raises(UnknownAgentError) as caught:
        make_agent("alphabet:depth=2")
    message = str(caught.value)
    assert "did you mean 'alphabeta'" in message
    for name in ("random", "minimax2", "alphabeta", "mcts"):
        assert name in message
    assert isinstance(caught.value, ValueError)


def test_non_string_and_empty_specs_rejected():
    with pytest.raises(InvalidOptionError):
        make_agent(3)  # type: ignore[arg-type]
    with pytest.raises(InvalidOptionError):
        make_agent("")


def test_list_and_describe():
    assert {"random", "minimax2", "alphabeta", "mcts", "dummy"} <= set(list_agents())
    text = describe_agent("dummy")
    assert text.startswith("dummy: A dummy agent used to test spec parsing.")
    assert "seconds: float | None = None" in text
    assert "seed" not in text.split("options:")[1]


def test_mcts_envs_does_not_import_agents_and_kinds_load_lazily():
    import subprocess
    import sys

    code = (
        "import sys, mcts_envs; assert not any(m.startswith('mcts_envs.agents') for m in sys.modules);"
        "from mcts_envs.agents import make_agent; make_agent('random');"
        "assert 'mcts_envs.agents.players.alphabeta' not in sys.modules and 'mcts_envs.agents.mcts' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


HUGE = 10**6


@pytest.mark.parametrize(
    "spec",
    [
        "x" * HUGE,  # unknown kind
        "dummy:" + "a" * HUGE + "=1",  # unknown option
        "dummy:iterations=" + "9" * HUGE + "x",  # bad value
        "dummy:" + "a," * (HUGE // 2),  # not key=value
        "dummy:c=1,c=2" + "x" * HUGE,  # repeated key
        "dummy:seed=" + "1" * HUGE,  # reserved key
        "dummy:label=" + "x" * HUGE + ",iterations=0",  # refused by the constructor
        ["x"] * HUGE,  # not a string
    ],
    ids=["kind", "option", "value", "form", "twice", "seed", "constructor", "type"],
)
def test_spec_errors_quote_a_bounded_prefix_of_a_huge_spec(spec):
    with pytest.raises(InvalidOptionError) as caught:
        make_agent(spec)
    message = str(caught.value)
    assert len(message) < 1000, len(message)
    assert "..." in message  # the spec is cut, and says so
