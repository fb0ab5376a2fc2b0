"""Terminal play: a person against any agent spec (``mcts-envs play GAME --opponent SPEC``).

The person types moves in the game's notation (``game.notation``, documented in each game card:
``b2`` for Tic-Tac-Toe, UAI strings such as ``a7c5`` for Ataxx), or one of the commands:

* ``hint [N]``: the top ``N`` moves (default 5) of a search from this position with their
  visit shares and the search's value for the person (a separate agent built from ``--hint``,
  by default the opponent's spec, so the opponent's own search is not disturbed);
* ``moves``: every legal move; ``undo``: take back the person's last move (and the replies to it);
* ``resign``; ``quit`` (or end of input): stop without a result; ``help``.

Chance events (Tantrix draws) are sampled from ``--seed`` and their place in the game, so
``undo`` cannot fish for better draws. The game is appended to ``--out`` as
one JSON line in the record format of :mod:`mcts_envs.records`, which ``mcts-envs replay`` reads;
a resignation is recorded with ``returns`` +1/-1 and ``result`` ``"player_N resigned"``, a game
left unfinished with ``returns`` ``null``.
"""

from __future__ import annotations

import time
from typing import Any, NamedTuple, TextIO

import numpy as np

from mcts_envs.agents.frontends import CommandIO
from mcts_envs.core.constants import CHANCE, TERMINAL
from mcts_envs.core.errors import MctsEnvsError
from mcts_envs.records import check_appendable, dumps, make_record, open_for_append, printable

#: Who the person is in the record's ``players``.
HUMAN = "human"
#: Moves listed by ``hint`` without an argument.
DEFAULT_HINT_MOVES = 5
COMMANDS = "hint [N], moves, undo, resign, quit, help"


class PlayOptions(NamedTuple):
    """What ``mcts-envs play`` was asked for.

    Attributes:
        game: game name.
        opponent: the agent's spec.
        seat: the person's seat, 0 (``player_0``, who moves first, except in Tantrix where the
            highest tile starts) or 1.
        seed: seeds the agent, the hint agent and the chance events.
        out: JSON-lines file the finished (or abandoned) game is appended to, or ``None``.
        hint: spec of the agent that answers ``hint``; ``None`` for the opponent's spec.
    """

    game: str
    opponent: str
    seat: int = 0
    seed: int = 0
    out: str | None = None
    hint: str | None = None


class HintLine(NamedTuple):
    """One move of a hint: its notation, its share of the search's visits (probability)."""

    move: str
    share: float


class PlaySession:
    """One game between a person at ``seat`` and ``agent``: the moves so far, undo, hints, record.

    Args:
        game: the game.
        agent: the opponent (Agent protocol); followed with ``restart`` / ``inform``.
        hint_agent: answers :meth:`hint` through ``policy(game, state)``.
        seat: the person's seat (0 or 1).
        seed: seeds the chance events (Tantrix draws).
        players: names of ``player_0`` and ``player_1`` for the record.
    """

    def __init__(
        self, game: Any, agent: Any, hint_agent: Any, seat: int, seed: int, players: list[str]
    ) -> None:
        self.game = game
        self.agent = agent
        self.hint_agent = hint_agent
        self.seat = seat
        self.seed = seed
        self.players = players
        self.states: list[np.ndarray] = [game.initial_state()]
        self.actions: list[int] = []
        self.chance: list[int] = []
        self.agent.restart(self.states[0])

    @property
    def state(self) -> np.ndarray:
        """The current state."""
        return self.states[-1]

    def to_move(self) -> int:
        """0 or 1 for the player to move, ``CHANCE`` or ``TERMINAL``."""
        return self.game.current_player(self.state)

    def _push(self, action: int, chance: bool) -> None:
        if chance:
            self.chance.append(len(self.actions))
        self.actions.append(int(action))
        self.states.append(self.game.apply(self.state, int(action)))
        self.agent.inform(int(action))

    def play_text(self, text: str) -> int:
        """Play the person's move written ``text``; returns the action.

        Raises:
            IllegalActionError: (or another ``ValueError``) if ``text`` names no legal move.
        """
        action = self.game.string_to_action(self.state, text)
        self._push(action, chance=False)
        return action

    def play_agent(self) -> int:
        """Let the agent move; returns its action."""
        action = int(self.agent.act_state(self.game, self.state))
        self._push(action, chance=False)
        return action

    def play_chance(self) -> int:
        """Sample and play a chance outcome (a function of the seed and the number of actions
        so far, so an undo cannot fish for better draws); returns it."""
        outcomes, probabilities = self.game.chance_outcomes(self.state)
        # seeded by the draw's place in the game: an undo and replay meets the same draw
        generator = np.random.default_rng([self.seed, len(self.actions)])
        outcome = int(generator.choice(outcomes, p=probabilities))
        self._push(outcome, chance=True)
        return outcome

    def undo(self) -> int:
        """Go back to before the person's last move; returns how many actions were taken back
        (0 if the person has not moved yet)."""
        for index in range(len(self.states) - 2, -1, -1):
            if self.game.current_player(self.states[index]) == self.seat:
                taken = len(self.actions) - index
                del self.states[index + 1 :]
                del self.actions[index:]
                self.chance = [i for i in self.chance if i < index]
                self.agent.restart(self.state)
                return taken
        return 0

    def hint(self, count: int) -> tuple[list[HintLine], float]:
        """The ``count`` moves with the largest shares of a search here, and its value in [-1, 1]
        for the player to move."""
        probs, value = self.hint_agent.policy(self.game, self.state)
        legal = self.game.legal_actions(self.state)
        order = sorted(legal, key=lambda a: -float(probs[a]))[:count]
        lines = [
            HintLine(self.game.action_to_string(self.state, int(a)), float(probs[a])) for a in order
        ]
        return lines, float(value)

    def record(self, returns: list[float] | None, result: str) -> dict[str, Any]:
        """The game in the record format (``returns`` ``None`` for an unfinished game)."""
        return make_record(
            self.game.info.name,
            self.game.to_text(self.states[0]),
            self.actions,
            self.chance,
            self.players,
            returns,
            self.game.to_text(self.state),
            seed=self.seed,
            result=result,
            moves=len(self.actions) - len(self.chance),
        )


def board_printer(game_name: str):
    """A function ``state -> str`` drawing the board with the env's ``ansi`` renderer (its
    coordinates are those of the move notation)."""
    import mcts_envs

    env = mcts_envs.make(game_name, raw=True, render_mode="ansi")
    env.reset(seed=0)
    unwrapped = env.unwrapped

    def render(state: np.ndarray) -> str:
        unwrapped.set_game_state(state)
        return str(env.render())

    return render


def result_text(game: Any, state: np.ndarray, seat: int) -> tuple[list[float], str]:
    """The returns at a terminal ``state`` and a sentence for the person at ``seat``."""
    returns = [float(r) for r in game.returns(state)]
    if returns[seat] > 0:
        return returns, f"player_{seat} won (you win)"
    if returns[seat] < 0:
        return returns, f"player_{1 - seat} won (you lose)"
    return returns, "draw"


def _read_command(keys: TextIO, out: TextIO, prompt: str) -> str | None:
    print(prompt, end="", file=out, flush=True)
    line = keys.readline()
    if line == "":
        print("", file=out)
        return None
    return line.strip()


def _print_hint(session: PlaySession, argument: str, out: TextIO) -> None:
    count = DEFAULT_HINT_MOVES
    if argument:
        if not argument.isdigit() or int(argument) < 1:
            print(f"hint takes a number of moves >= 1, got {argument!r}", file=out)
            return
        count = int(argument)
    start = time.perf_counter()
    lines, value = session.hint(count)
    seconds = time.perf_counter() - start
    print(
        f"hint ({session.hint_agent.name}, {seconds:.2f} s): value {value:+.2f} for you "
        f"(win probability about {(value + 1) / 2:.0%})",
        file=out,
    )
    for line in lines:
        print(f"  {line.move:<18} {line.share:6.1%}", file=out)


def _save(record: dict[str, Any], path: str | None, out: TextIO) -> None:
    """Append ``record`` to ``path`` (:func:`~mcts_envs.records.open_for_append`); if the file
    cannot take it, say why and print the record, so the game is not lost."""
    if path is None:
        print("not saved (pass --out FILE to keep the game)", file=out)
        return
    line = dumps(record)
    try:
        stream, _ = open_for_append(path)
        with stream:
            stream.write(line + "\n")
    except (MctsEnvsError, OSError) as error:
        print(f"not saved: {error}\nthe game's record:\n{line}", file=out)
        return
    print(f"game appended to {path} (mcts-envs replay {path} --game N)", file=out)


def play(options: PlayOptions, out: TextIO, keys: TextIO) -> int:
    """Play one game in the terminal: ``keys`` gives the person's lines, ``out`` shows the game.

    Returns:
        0 (the game ended, was resigned or abandoned).

    Raises:
        MctsEnvsError: for an unknown game or agent spec, a seat other than 0 or 1, or an
            ``out`` file whose last line is cut by a crash, before anything is played.
    """
    import mcts_envs
    from mcts_envs.agents.evaluation.games import prepare_agents
    from mcts_envs.agents.spec import make_agent
    from mcts_envs.core.compiling import compile_notice
    from mcts_envs.core.errors import InvalidOptionError

    game = mcts_envs.make_game(options.game)
    if options.seat not in (0, 1):
        raise InvalidOptionError(f"--seat must be 0 (player_0) or 1 (player_1), got {options.seat}")
    if options.out is not None:
        check_appendable(options.out)  # before the game: a cut last line is refused now
    agent = make_agent(options.opponent, seed=options.seed)
    hint_agent = make_agent(options.hint or options.opponent, seed=options.seed + 1)
    players = [HUMAN, HUMAN]
    players[1 - options.seat] = agent.name
    render = board_printer(game.info.name)
    first = " (you move first)" if options.seat == 0 else " (the agent moves first)"
    print(
        f"{game.info.name}: you are player_{options.seat}"
        f"{'' if game.info.has_chance else first}, against {agent.name}",
        file=out,
    )
    print(f"moves: {game.notation}", file=out)
    print(f"commands: {COMMANDS}", file=out)
    specs = [options.opponent] + ([options.hint] if options.hint else [])

    def announce(text: str) -> None:  # only when numba really compiles
        print(text, file=out, flush=True)

    # as the arena does: compiled before the first move
    prepare_agents(game.info.name, specs, announce=announce)
    with compile_notice(f"the agents for {game.info.name}", announce):
        agent.prepare(game)
        hint_agent.prepare(game)
    session = PlaySession(game, agent, hint_agent, options.seat, options.seed, players)
    shown = None  # the state last drawn
    while True:
        player = session.to_move()
        if player in (options.seat, TERMINAL) and shown is not session.state:
            shown = session.state
            print(render(shown), file=out)
        if player == TERMINAL:
            returns, sentence = result_text(game, session.state, options.seat)
            print(f"game over: {sentence}", file=out)
            _save(session.record(returns, sentence), options.out, out)
            return 0
        before = session.state
        if player == CHANCE:
            outcome = session.play_chance()
            print(f"chance: {game.action_to_string(before, outcome)}", file=out)
            continue
        if player != options.seat:
            start = time.perf_counter()
            action = session.play_agent()
            seconds = time.perf_counter() - start
            move = game.action_to_string(before, action)
            print(f"{agent.name} plays {move} ({seconds:.2f} s)", file=out)
            continue
        line = _read_command(keys, out, f"your move (player_{player}) > ")
        if line is None or line.lower() == "quit":
            sentence = "unfinished (the person quit)"
            print(f"game abandoned: {sentence}", file=out)
            _save(session.record(None, sentence), options.out, out)
            return 0
        word, _, argument = line.partition(" ")
        word = word.lower()
        if not line:
            continue
        if word == "help":
            print(f"moves: {game.notation}\ncommands: {COMMANDS}", file=out)
        elif word == "moves":
            names = [game.action_to_string(before, int(a)) for a in game.legal_actions(before)]
            print(f"{len(names)} legal moves: " + ", ".join(names), file=out)
        elif word == "hint":
            _print_hint(session, argument.strip(), out)
        elif word == "undo":
            taken = session.undo()
            if taken:
                print(f"took back {taken} action(s)", file=out)
            else:
                print("nothing to undo: you have not moved yet", file=out)
        elif word == "resign":
            returns = [0.0, 0.0]
            returns[options.seat], returns[1 - options.seat] = -1.0, 1.0
            sentence = f"player_{options.seat} resigned"
            print(f"game over: {sentence} (you lose)", file=out)
            _save(session.record(returns, sentence), options.out, out)
            return 0
        else:
            try:
                action = session.play_text(line)
            except (MctsEnvsError, ValueError, TypeError) as error:
                print(printable(str(error)), file=out)
                continue
            print(f"you play {game.action_to_string(before, action)}", file=out)


def add_parser(commands: Any) -> None:
    """Add the ``play`` subcommand."""
    parser = commands.add_parser(
        "play",
        help="play a game against an agent in the terminal",
        description="Play GAME against the agent of --opponent, typing moves in the game's "
        f"notation (see 'help' once playing). Commands: {COMMANDS}.",
    )
    parser.add_argument("game", help="game name (see 'mcts-envs list')")
    parser.add_argument(
        "--opponent",
        default="mcts:iterations=2000",
        help="agent spec (default mcts:iterations=2000)",
    )
    parser.add_argument(
        "--seat", type=int, default=0, help="your seat: 0 (player_0, first to move; default) or 1"
    )
    parser.add_argument("--seed", type=int, default=0, help="seeds agents and chance (default 0)")
    parser.add_argument("--out", help="append the game to this JSON-lines file (replay format)")
    parser.add_argument("--hint", help="agent spec answering 'hint' (default: the opponent's)")


def run(args: Any, io: CommandIO) -> int:
    """``mcts-envs play``: :func:`play` with the parsed arguments."""
    options = PlayOptions(args.game, args.opponent, args.seat, args.seed, args.out, args.hint)
    return play(options, io.out, io.keys)
