"""A structure-aware fuzzer of every game's text records (run in a child process).

Every generated record must be either rejected with ``InvalidRecordError`` (with a short message)
or accepted as a state that the kernels can play: it reads back from its own ``to_text``, seeded
compiled random playouts end in valid terminal states, and a checked ``apply`` loop keeps every
invariant at every step (``validate_state``: the state is exactly what its record describes, which
re-runs all of ``from_text``'s checks; legal actions exist iff a player is to act; chance nodes
have outcomes whose probabilities sum to 1; returns are zero-sum at the end).

Records come from seeded random games (every stage, chance nodes and ends included), then get
mutated by the game's structure (fields and values of the record, legal-looking but inconsistent
statuses, movers, phases, hands, boards, clocks) and by hostile text edits (out-of-range, huge and
non-ASCII numbers such as ``²`` or ``①``, empty fields, swapped or repeated fields, stray
characters, a multi-megabyte record).

A memory error in a kernel kills the process, so the tests run this module as a child process
(``python -m tests.games.record_fuzz GAME COUNT SEED``); it prints one JSON line as each case
starts, so the parent can name the record that crashed it, and one JSON line per failure.
"""

from __future__ import annotations

import json
import random
import re
import sys

import numpy as np

from mcts_envs.core.errors import InvalidRecordError
from mcts_envs.core.game import CHANCE, TERMINAL
from mcts_envs.core.registry import make_game

#: Longest accepted error message (records are quoted up to a bounded prefix).
MESSAGE_LIMIT = 2000
#: Separators of the records' structure (fields, ranks, hands, board entries).
_SPLIT = re.compile(r"([ /;:,.@=\-])")
HOSTILE_VALUES = (
    "",
    "0",
    "-1",
    "+1",
    "1_0",
    "0x1",
    " 1",
    "²",
    "①",
    "٣",
    "１",
    "Ⅻ",
    "57",
    "99",
    "-0",
    "7" * 19,
    str(2**63),
    str(-(2**63) - 1),
    "9" * 5000,
    "nan",
    "inf",
    "1e9",
    "\x1b[31m",
    "\u0000",
    "\u2003",
    "é",
)
HOSTILE_CHARS = "xo.wb-/;:,@=0123456789²①٣ \t\n\u2003é\x00"


# -- seeds: records of reachable positions -------------------------------------------------------
def reachable_records(game, rng: random.Random, games: int) -> list[str]:
    """Records of positions met in ``games`` seeded random games (all stages, ends included)."""
    records = []
    for _ in range(games):
        state = game.initial_state()
        history = [state]
        while game.current_player(state) != TERMINAL and len(history) < 400:
            player = game.current_player(state)
            if player == CHANCE:
                outcomes, _ = game.chance_outcomes(state)
                action = int(outcomes[rng.randrange(len(outcomes))])
            else:
                legal = game.legal_actions(state)
                action = int(legal[rng.randrange(len(legal))])
            state = game.apply(state, action)
            history.append(state)
        picks = [*rng.sample(range(len(history)), min(6, len(history))), len(history) - 1]
        records.extend(game.to_text(history[i]) for i in picks)
    return records


# -- mutations -------------------------------------------------------------------------------------
def _tokens(text: str) -> list[str]:
    return _SPLIT.split(text)


def mutate_text(text: str, rng: random.Random, pool: list[str]) -> str:
    """One hostile edit of ``text``'s tokens (values between the separators) or characters."""
    tokens = _tokens(text)
    values = [i for i in range(0, len(tokens), 2)]
    kind = rng.randrange(9)
    if kind == 0:  # a value replaced by a hostile one
        tokens[rng.choice(values)] = rng.choice(HOSTILE_VALUES)
    elif kind == 1:  # a value replaced by a value of another record of the game
        other = _tokens(rng.choice(pool))
        tokens[rng.choice(values)] = other[rng.randrange(0, len(other), 2)]
    elif kind == 2:  # two values swapped
        i, j = rng.choice(values), rng.choice(values)
        tokens[i], tokens[j] = tokens[j], tokens[i]
    elif kind == 3:  # a value duplicated into another place
        i, j = rng.choice(values), rng.choice(values)
        tokens[j] = tokens[i]
    elif kind == 4:  # a value or separator deleted
        del tokens[rng.randrange(len(tokens))]
    elif kind == 5:  # a character inserted
        position = rng.randrange(len(text) + 1)
        return text[:position] + rng.choice(HOSTILE_CHARS) + text[position:]
    elif kind == 6:  # a character deleted or replaced
        position = rng.randrange(max(len(text), 1))
        return text[:position] + rng.choice(("", rng.choice(HOSTILE_CHARS))) + text[position + 1 :]
    elif kind == 7:  # a space-separated field swapped with, or copied over, another
        fields = text.split(" ")
        i, j = rng.randrange(len(fields)), rng.randrange(len(fields))
        if rng.random() < 0.5:
            fields[i], fields[j] = fields[j], fields[i]
        else:
            fields.insert(i, fields[j])
        return " ".join(fields)
    else:  # a value grown by digits or letters
        i = rng.choice(values)
        tokens[i] = tokens[i] + rng.choice(("0", "9" * 30, "x", "o", "1"))
    return "".join(tokens)


def _tantrix_fields(text: str) -> dict[str, str]:
    return dict(token.split("=", 1) for token in text.split())


def mutate_tantrix(text: str, rng: random.Random, pool: list[str]) -> str:
    """A legal-looking but possibly inconsistent Tantrix record (statuses, hands, board)."""
    try:
        fields = _tantrix_fields(text)
        hands = [[] if h == "-" else h.split(".") for h in fields["hands"].split("/")]
        board = [] if fields["board"] == "-" else fields["board"].split(";")
    except ValueError:
        return mutate_text(text, rng, pool)
    used = {t for hand in hands for t in hand} | {
        entry.split(":")[1].split("@")[0] for entry in board
    }
    bag = [str(t) for t in range(1, 57) if str(t) not in used]
    for _ in range(rng.randrange(1, 4)):
        kind = rng.randrange(11)
        if kind == 0:
            fields["status"] = rng.choice(("deal", "draw", "decide", "finished", "deadlock"))
        elif kind == 1:
            fields["mover"] = rng.choice("01")
        elif kind == 2:
            fields["phase"] = rng.choice(("forced", "free", "forced_after"))
        elif kind == 3:
            fields["last"] = rng.choice(("-", f"{rng.randrange(1, 57)}:{rng.randrange(2)}"))
        elif kind == 4 and bag:  # a tile from the bag into a hand (up to 7: too many)
            hand = hands[rng.randrange(2)]
            if len(hand) < 7:
                hand.append(bag.pop(rng.randrange(len(bag))))
        elif kind == 5:  # a tile out of a hand (back into the bag) or moved to the other hand
            player = rng.randrange(2)
            if hands[player]:
                tile = hands[player].pop(rng.randrange(len(hands[player])))
                if rng.random() < 0.5:
                    hands[1 - player].append(tile)
        elif kind == 6 and board:  # the last placement taken back into a hand, or dropped
            entry = board.pop()
            if rng.random() < 0.5:
                hands[rng.randrange(2)].append(entry.split(":")[1].split("@")[0])
        elif kind == 7 and len(board) > 1:  # a middle placement dropped or two swapped
            i = rng.randrange(len(board))
            if rng.random() < 0.5:
                del board[i]
            else:
                j = rng.randrange(len(board))
                board[i], board[j] = board[j], board[i]
        elif kind == 8 and board:  # an orientation changed
            i = rng.randrange(len(board))
            board[i] = board[i][:-1] + str(rng.randrange(6))
        elif kind == 9:  # a tile duplicated (hand to hand or board to hand)
            source = [t for hand in hands for t in hand] + [
                e.split(":")[1].split("@")[0] for e in board
            ]
            if source:
                hands[rng.randrange(2)].append(rng.choice(source))
        elif kind == 10 and board and bag:  # a bag tile placed next to a tile, rules ignored
            q, r = map(int, rng.choice(board).split(":")[0].split(","))
            dq, dr = rng.choice(((1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1)))
            tile = bag.pop(rng.randrange(len(bag)))
            board.append(f"{q + dq},{r + dr}:{tile}@{rng.randrange(6)}")
    for hand in hands:
        hand.sort(key=int)
    fields["hands"] = "/".join(".".join(hand) or "-" for hand in hands)
    fields["board"] = ";".join(board) or "-"
    return " ".join(f"{key}={value}" for key, value in fields.items())


_GRID_CHARS = {
    "tictactoe": ".xo",
    "ultimate_tictactoe": ".xo",
    "pentago_twist": ".wb",
    "ataxx": "xo1234567",
}


def grid_chars(name: str, pool: list[str]) -> str:
    """The characters a board's cells take: :data:`_GRID_CHARS`, else (a game added later) those
    of the boards in ``pool`` (its reachable records)."""
    if name in _GRID_CHARS:
        return _GRID_CHARS[name]
    return "".join(sorted({char for record in pool for char in record.partition(" ")[0]} - {"/"}))


def mutate_board(name: str, text: str, rng: random.Random, pool: list[str]) -> str:
    """Cells flipped, side to move or the last fields changed (a board game's record)."""
    board, _, rest = text.partition(" ")
    chars = list(board)
    cells = [i for i, c in enumerate(chars) if c != "/"]
    for _ in range(rng.randrange(1, 4)):
        kind = rng.randrange(3)
        if kind == 0 and cells:
            chars[rng.choice(cells)] = rng.choice(grid_chars(name, pool))
        elif kind == 1:
            rest = " ".join(
                rng.choice(("x", "o", "w", "b")) if i == 0 else part
                for i, part in enumerate(rest.split(" "))
            )
        else:
            parts = rest.split(" ")
            if len(parts) > 1:
                i = rng.randrange(1, len(parts))
                parts[i] = rng.choice(
                    ("-", "0", "1", "8", "9", "99", "100", "101", str(10**9), str(10**9 + 1))
                )
                rest = " ".join(parts)
    return "".join(chars) + " " + rest


def mutants(name: str, records: list[str], rng: random.Random, count: int):
    """``count`` mutated records (structure-aware edits, hostile edits, a few huge ones)."""
    for index in range(count):
        base = rng.choice(records)
        roll = rng.random()
        if index == 0:
            yield base + " " + "9" * 10_000_000  # a 10 MB record
        elif index == 1:
            yield base.replace(" ", "  " + "x" * 1_000_000 + " ", 1)
        elif roll < 0.5:
            if name == "tantrix":
                yield mutate_tantrix(base, rng, records)
            else:
                yield mutate_board(name, base, rng, records)
        elif roll < 0.9:
            text = base
            for _ in range(rng.randrange(1, 3)):
                text = mutate_text(text, rng, records)
            yield text
        else:
            yield base  # unchanged: must be accepted


# -- the checks ------------------------------------------------------------------------------------
def check_game_from(game, state: np.ndarray, rng: random.Random, step_checks: bool) -> None:
    """Play ``state`` to the end by checked ``apply``, validating invariants (raises on a breach)."""
    limit = 10 * max(game.info.max_game_length, 100) + 5000
    for _ in range(limit):
        if step_checks:
            game.validate_state(state)
        player = game.current_player(state)
        legal = game.legal_actions(state)
        if player == TERMINAL:
            assert len(legal) == 0, "legal actions at a terminal state"
            returns = game.returns(state)
            assert returns.sum() == 0 and set(returns.tolist()) <= {-1.0, 0.0, 1.0}, returns
            game.validate_state(state)
            return
        if player == CHANCE:
            outcomes, probabilities = game.chance_outcomes(state)
            assert len(outcomes) > 0, "a chance node without outcomes"
            assert abs(probabilities.sum() - 1.0) < 1e-9
            action = int(outcomes[rng.randrange(len(outcomes))])
        else:
            assert player in (0, 1) and len(legal) > 0, "a decision without legal actions"
            action = int(legal[rng.randrange(len(legal))])
        state = game.apply(state, action)
    raise AssertionError(f"no end after {limit} steps")


def check_record(game, text: str, rng: random.Random, step_checks: bool) -> bool:
    """Whether ``text`` was accepted; raises AssertionError on any broken contract."""
    try:
        state = game.from_text(text)
    except InvalidRecordError as error:
        assert len(str(error)) <= MESSAGE_LIMIT, f"a {len(str(error))}-character message"
        return False
    again = game.from_text(game.to_text(state))
    assert np.array_equal(again, state), "from_text(to_text(s)) differs from s"
    game.validate_state(state)
    for seed in (1, 2, 3):
        final = game.random_playout(state, seed)
        assert game.current_player(final) == TERMINAL, "a random playout stopped early"
        game.validate_state(final)
        assert game.returns(final).sum() == 0
    check_game_from(game, state, rng, step_checks)
    return True


def run(name: str, count: int, seed: int, step_checked: int, out=sys.stdout) -> None:
    """Fuzz ``count`` records of game ``name``; JSON lines on ``out`` (see the module docstring).

    The checked ``apply`` loop validates every step for the first ``step_checked`` accepted
    records and only the end for the others (validation re-parses the record: slow for Tantrix).
    """
    game = make_game(name)
    rng = random.Random(seed)
    records = reachable_records(game, rng, games=12)
    accepted = 0
    for index, text in enumerate(mutants(name, records, rng, count)):
        print(json.dumps({"start": index, "record": text[:300]}), file=out, flush=True)
        try:
            if check_record(game, text, random.Random(index), accepted < step_checked):
                accepted += 1
        except Exception as error:
            report = {"fail": index, "record": text[:300], "error": f"{type(error).__name__}"}
            report["message"] = str(error)[:500]
            print(json.dumps(report), file=out, flush=True)
    print(json.dumps({"done": count, "accepted": accepted}), file=out, flush=True)


if __name__ == "__main__":
    game_name, case_count, case_seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    checked = int(sys.argv[4]) if len(sys.argv) > 4 else 30
    run(game_name, case_count, case_seed, checked)
