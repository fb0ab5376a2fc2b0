"""Language models as agents: the ``llm:`` spec, for any OpenAI-compatible chat endpoint.

``llm:model=NAME,base_url=URL,temperature=0,retries=2,timeout=30`` asks the chat-completions
endpoint ``POST {base_url}/chat/completions`` (llama.cpp's ``llama-server``, vLLM, Ollama and
hosted APIs all serve it) for each decision. The prompt is the text env's
(:class:`mcts_envs.text.TextEnv`: rules on the first move of a game, the position with coordinates,
the opponent's last move, the legal moves, how to answer), in the game the agent follows through
``restart`` and ``inform`` (as the game loop calls them: every action, the agent's own moves
included; a position the informed actions do not reach is shown as set up, earlier moves unknown);
the answer is read by the text env's parser and invalid-answer policy (``invalid="retry"`` with
``retries``): an invalid answer is asked again with the error in the next prompt, and the answer
after the last retry forfeits. An endpoint that times out, refuses the connection or answers an
HTTP error (other than 401, 403 and 404, which end the run: the key, the model or the URL is wrong)
uses up a retry the same way. The forfeit is a :class:`ForfeitError`: the game loop records the
game as lost (``termination: "forfeit"``) and the match or tournament goes on. A forfeit for
failed requests is an infrastructure fault (``forfeit["fault"] == "infrastructure"``), one for
invalid answers the model's own (``"agent"``): a run stops once an agent's infrastructure has
failed several games in a row (:mod:`mcts_envs.agents.evaluation.faults`).

The key comes from the environment variable ``OPENAI_API_KEY`` (or the one named by
``key_env=``), never from the spec; without one no ``Authorization`` header is sent (local
servers need none). Every prompt/answer pair of the current game is kept in
:attr:`LLMAgent.transcript`; ``log=PATH`` also appends each one to a JSON-lines file.

Only the standard library speaks HTTP here (``urllib``).
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np

from mcts_envs.agents.base import (
    INFRASTRUCTURE_FAULT,
    ForfeitError,
    ForwardModelAgent,
    check_number,
)
from mcts_envs.core.errors import InvalidOptionError, MctsEnvsError
from mcts_envs.core.game import Game
from mcts_envs.core.seeding import check_seed
from mcts_envs.records import bounded, dumps

__all__ = ["DEFAULT_KEY_ENV", "ForfeitError", "LLMAgent", "LLMEndpointError"]

#: Environment variable holding the API key unless ``key_env=`` names another.
DEFAULT_KEY_ENV = "OPENAI_API_KEY"
#: Largest response body read (bytes); a longer one is a failed request.
MAX_RESPONSE_BYTES = 1 << 22
#: Bytes read at a time (the deadline is checked between reads).
READ_CHUNK = 1 << 14
#: HTTP statuses that end the run instead of a game: the key, the model or the URL is wrong.
FATAL_STATUSES = (401, 403, 404)
#: Characters of an endpoint's error body quoted in a message.
BODY_QUOTE = 300


class LLMEndpointError(MctsEnvsError, RuntimeError):
    """The endpoint refused the request for a reason no retry can fix (401, 403, 404)."""


class _RequestError(Exception):
    """One request failed in a way a retry may fix (timeout, connection, HTTP error)."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


class LLMAgent(ForwardModelAgent):
    """A chat model behind an OpenAI-compatible endpoint, prompted with the text env's prompt.

    Args:
        model: the model name sent to the endpoint (``"model"`` of the request).
        base_url: the API root, e.g. ``http://127.0.0.1:8080/v1`` (requests go to
            ``{base_url}/chat/completions``).
        temperature: sampling temperature sent to the endpoint, in [0, 2].
        retries: invalid answers (or failed requests) retried per decision; the next one forfeits.
        timeout: seconds a request may take (connecting, then the whole response).
        max_tokens: longest answer asked for (``max_tokens`` of the request).
        key_env: environment variable holding the API key (default ``OPENAI_API_KEY``; a missing
            default variable sends no key, a missing named one is an error).
        show_legal_moves: list the legal moves in the prompt.
        log: a JSON-lines file to which every exchange is appended, or ``None``.
        seed: sent to the endpoint as ``seed`` (servers that support it sample reproducibly).

    Raises:
        InvalidOptionError: for a bad URL, a number out of range or a missing key variable.
    """

    name = "llm"
    #: Nothing to compile: matches and tournaments skip the two warm-up decisions (requests).
    needs_warm_up = False

    def __init__(
        self,
        model: str,
        base_url: str,
        temperature: float = 0.0,
        retries: int = 2,
        timeout: float = 30.0,
        max_tokens: int = 512,
        key_env: str = DEFAULT_KEY_ENV,
        show_legal_moves: bool = True,
        log: str | None = None,
        *,
        seed: int | None = None,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise InvalidOptionError("llm: model must name the model, e.g. model=qwen2.5-7b")
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise InvalidOptionError(
                f"llm: base_url must start with http:// or https://, got {base_url!r} "
                "(e.g. base_url=http://127.0.0.1:8080/v1)"
            )
        self.model = model.strip()
        self.base_url = base_url.rstrip("/")
        self.temperature = check_number("llm", "temperature", temperature, 0.0, 2.0, integer=False)
        self.retries = check_number("llm", "retries", retries, 0, 100, integer=True)
        self.timeout = check_number("llm", "timeout", timeout, 1e-3, 3600.0, integer=False)
        self.max_tokens = check_number("llm", "max_tokens", max_tokens, 1, 1 << 15, integer=True)
        self.key_env = key_env
        self._key = os.environ.get(key_env) or None
        if self._key is None and key_env != DEFAULT_KEY_ENV:
            raise InvalidOptionError(
                f"llm: key_env={key_env}: the environment variable {key_env} is not set "
                "(export it, or leave key_env out to send no key)"
            )
        self.show_legal_moves = bool(show_legal_moves)
        self.log = None if log in (None, "") else Path(log)
        if self.log is not None and not self.log.parent.is_dir():
            raise InvalidOptionError(
                f"llm: log={log}: the directory {self.log.parent} does not exist"
            )
        self.seed = check_seed(seed)
        #: Every exchange of the current game: ``{"seat", "move_number", "prompt", "answer",
        #: "move", "error", "seconds"}`` (``answer`` ``None`` when the request failed).
        self.transcript: list[dict[str, Any]] = []
        self._env: Any = None
        self._fresh = True
        self._start: np.ndarray | None = None
        self._history: Any = None  # a mcts_envs.text.MoveHistory once the game is followed
        self._informed: list[int] = []  # actions informed before the history (the game) is known

    # -- the game -----------------------------------------------------------------------------
    def restart(self, state: np.ndarray) -> None:
        """A new game (or a jump) starts at ``state``: forget the transcript; the moves before
        ``state`` are unknown to the prompts."""
        self.transcript = []
        self._fresh = True
        self._start = None if np.asarray(state).size == 0 else np.array(state, copy=True)
        self._history = None
        self._informed = []

    def inform(self, action: int) -> None:
        """Follow the game: ``action`` (a move, the agent's own included, or a chance outcome)
        was played from the state last decided or informed; the prompts report it."""
        if self._history is None:
            self._informed.append(int(action))
        else:
            self._history.inform(int(action))

    def reset(self) -> None:
        """Same as :meth:`restart` (the next decision starts a new conversation)."""
        self.restart(np.empty(0))

    def _text_env(self, game: Game, state: np.ndarray) -> Any:
        """The text env in position ``state``, following the actions informed since the last
        :meth:`restart` (so the prompt names the opponent's moves and the chance outcomes, and
        gives the rules once per game). A ``state`` they do not reach (a caller that does not
        inform the agent) is a jump: the prompt shows it as set up, earlier moves unknown."""
        from mcts_envs.text import MoveHistory, TextEnv

        env = self._env
        if env is None or env.game.info.name != game.info.name:
            env = self._env = TextEnv(
                game.info.name,
                invalid="retry" if self.retries else "lose",
                retries=self.retries,
                show_legal_moves=self.show_legal_moves,
                seed=0,
            )
        if self._fresh:
            env.reset(seed=0)
            self._fresh = False
        history = self._history
        if history is None or history.game.info.name != game.info.name:
            start = self._start if self._start is not None else game.initial_state()
            history = self._history = MoveHistory(env.game, start)
            for action in self._informed:
                history.inform(action)
            self._informed = []
        if not np.array_equal(history.state, state):
            history.restart(state)
        env.follow(history)
        return env

    def act_state(self, game: Game, state: np.ndarray) -> int:
        """Ask the model for a move at ``state`` (retrying invalid answers per the policy).

        Raises:
            ForfeitError: after ``retries`` retries, for an invalid answer (``reason``
                ``"invalid move"``, ``line`` the answer) or a failed request (``"timeout"``,
                ``"connection"``, ``"http error"``, ``"bad response"``).
            LLMEndpointError: if the endpoint answers 401, 403 or 404.
        """
        env = self._text_env(game, state)
        agent = env.agent_selection
        seat = env.possible_agents.index(agent)
        failures = 0
        while True:
            prompt = str(env.observe(agent))
            start = time.monotonic()
            entry: dict[str, Any] = {"seat": seat, "move_number": None, "prompt": prompt}
            try:
                answer = self._ask(prompt)
            except _RequestError as failure:
                self._keep(entry | {"answer": None, "move": None, "error": str(failure)}, start)
                failures += 1
                if failures > self.retries:  # the server failed, not the model's play
                    raise ForfeitError(
                        f"{self.name}: {failure} (after {failures} attempt(s))",
                        failure.reason,
                        fault=INFRASTRUCTURE_FAULT,
                    ) from None
                continue
            env.step(answer)
            last = env.record()["answers"][-1]
            self._keep(
                entry
                | {
                    "move_number": last["move_number"],
                    "answer": answer,
                    "move": last["move"],
                    "error": last["error"],
                },
                start,
            )
            if last["move"] is not None:
                return int(game.string_to_action(state, last["move"]))
            failures += 1
            if env.outcome() is not None or failures > self.retries:
                self._fresh = True
                raise ForfeitError(
                    f"{self.name}: invalid answer: {last['error']}", "invalid move", answer
                )

    def _keep(self, entry: dict[str, Any], start: float) -> None:
        entry["seconds"] = round(time.monotonic() - start, 3)
        self.transcript.append(entry)
        if self.log is not None:
            with open(self.log, "a", encoding="utf-8") as stream:
                stream.write(dumps({"agent": self.name, "seed": self.seed, **entry}) + "\n")

    # -- HTTP ---------------------------------------------------------------------------------
    def request_body(self, prompt: str) -> dict[str, Any]:
        """The JSON body sent for ``prompt``: one user message, the model and sampling options."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": "user", "content": prompt}],
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if self.seed is not None:
            body["seed"] = self.seed
        return body

    def _ask(self, prompt: str) -> str:
        """The model's answer to ``prompt`` (the first choice's message content)."""
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._key is not None:
            headers["Authorization"] = f"Bearer {self._key}"
        where = f"{self.base_url}/chat/completions"
        request = urllib.request.Request(
            where,
            data=json.dumps(self.request_body(prompt)).encode("utf-8"),
            headers=headers,
            method="POST",
        )
        deadline = time.monotonic() + self.timeout
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                body = _read_until(response, deadline, self.timeout)
        except urllib.error.HTTPError as error:
            detail = bounded(_error_body(error), BODY_QUOTE)
            message = f"{where} answered HTTP {error.code} {error.reason}: {detail}"
            if error.code in FATAL_STATUSES:
                raise LLMEndpointError(
                    f"llm: {message} (check base_url, model= and the key in ${self.key_env})"
                ) from None
            raise _RequestError(message, "http error") from None
        except OSError as error:  # a URLError (its reason), a timeout, a refused connection
            reason = error.reason if isinstance(error, urllib.error.URLError) else error
            if isinstance(reason, TimeoutError):
                raise _RequestError(
                    f"no answer from {where} within timeout={self.timeout:g} s", "timeout"
                ) from None
            raise _RequestError(f"cannot reach {where}: {reason}", "connection") from None
        try:
            content = json.loads(body.decode("utf-8"))["choices"][0]["message"]["content"]
        except (UnicodeDecodeError, json.JSONDecodeError, KeyError, IndexError, TypeError):
            raise _RequestError(
                f"{where} sent no chat completion: {bounded(body.decode('utf-8', 'replace'))}",
                "bad response",
            ) from None
        if content is None:
            return ""
        if not isinstance(content, str):
            raise _RequestError(
                f"{where} sent a message content that is not text: {bounded(repr(content))}",
                "bad response",
            )
        return content


def _read_until(response: Any, deadline: float, timeout: float) -> bytes:
    """The response body, read in chunks until ``deadline`` (then a timeout failure)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        if time.monotonic() > deadline:
            raise TimeoutError(f"the answer took longer than {timeout:g} s")
        chunk = response.read(READ_CHUNK)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > MAX_RESPONSE_BYTES:
            raise _RequestError(
                f"the answer is longer than {MAX_RESPONSE_BYTES} bytes", "bad response"
            )
        chunks.append(chunk)


def _error_body(error: urllib.error.HTTPError) -> str:
    try:
        return error.read(4096).decode("utf-8", "replace").strip() or "(no body)"
    except OSError:
        return "(no body)"
