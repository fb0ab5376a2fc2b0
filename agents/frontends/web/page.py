"""The HTML of ``mcts-envs serve``: one page with a form, and the game panel it swaps in.

Everything dynamic is escaped here (``html.escape``) or by the SVG writer; the page loads no
files and no third-party scripts: its JavaScript (below) posts JSON to the app and replaces
the game panel with the ``html`` of the answer, and shows error messages as plain text.
"""

from __future__ import annotations

from html import escape

from mcts_envs.agents.frontends.web.session import PlaySession

#: Opponents offered in the form's suggestions (any allowed spec can be typed).
SUGGESTED_OPPONENTS = (
    "mcts:iterations=2000",
    "mcts:seconds=1",
    "alphabeta:seconds=1",
    "minimax2",
    "random",
)
#: Moves shown in the move list (the latest ones).
HISTORY_LINES = 16

_STYLE = """
body{font-family:sans-serif;margin:1.2em;background:#faf8f2;color:#222}
form{display:flex;gap:.8em;align-items:end;flex-wrap:wrap;margin-bottom:1em}
label{display:flex;flex-direction:column;font-size:.85em;gap:.2em}
input,select,button{font-size:1em;padding:.3em .5em}
#play{display:flex;gap:1.5em;align-items:flex-start;flex-wrap:wrap}
#side{min-width:18em;max-width:26em}
#error{color:#a00;min-height:1.3em;margin:.3em 0}
.status{font-size:1.15em;font-weight:bold;margin:.2em 0 .6em}
.result{font-size:1.5em;font-weight:bold;color:#1e6b2e}
table{border-collapse:collapse;font-size:.9em}td,th{padding:.1em .6em;text-align:left}
ol{font-size:.85em;padding-left:2.2em;margin:.3em 0}
.note{font-size:.8em;color:#555}
"""

_SCRIPT = """
const play = document.getElementById('play');
const errorBox = document.getElementById('error');
let busy = false;
function sessionId() { const g = document.getElementById('game'); return g ? g.dataset.session : null; }
async function send(path, body) {
  if (busy) return;
  busy = true; errorBox.textContent = '';
  try {
    const response = await fetch(path, {method: 'POST',
      headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)});
    const answer = await response.json().catch(() => ({error: 'bad answer from the server'}));
    if (!response.ok) { errorBox.textContent = answer.error || ('error ' + response.status); return; }
    play.innerHTML = answer.html;
  } catch (problem) { errorBox.textContent = 'cannot reach the server: ' + problem; return; }
  finally { busy = false; }
  const game = document.getElementById('game');
  if (game && game.dataset.agentTurn === '1') send('/api/agent', {session: sessionId()});
}
document.getElementById('setup').addEventListener('submit', (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  send('/api/new', {game: form.get('game'), opponent: form.get('opponent'),
                    seat: form.get('seat'), previous: sessionId()});
});
play.addEventListener('click', (event) => {
  const command = event.target.closest('button[data-command]');
  if (command) { send('/api/' + command.dataset.command, {session: sessionId()}); return; }
  const target = event.target.closest('[data-target]');
  if (target) send('/api/click', {session: sessionId(), target: target.getAttribute('data-target')});
});
"""


def index_page(games: list[str], default_opponent: str) -> str:
    """The whole page: the new-game form and an empty game panel."""
    options = "".join(f'<option value="{escape(name)}">{escape(name)}</option>' for name in games)
    suggestions = "".join(f'<option value="{escape(spec)}">' for spec in SUGGESTED_OPPONENTS)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>mcts-envs: play against an agent</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>{_STYLE}</style></head>
<body>
<h1>mcts-envs: play against an agent</h1>
<form id="setup">
<label>game<select name="game" id="game-choice">{options}</select></label>
<label>opponent<input name="opponent" id="opponent" list="opponents" size="26"
  value="{escape(default_opponent)}"><datalist id="opponents">{suggestions}</datalist></label>
<label>you play<select name="seat" id="seat"><option value="player_0">first (player_0)</option>
<option value="player_1">second (player_1)</option></select></label>
<button type="submit" id="new-game">New game</button>
</form>
<div id="error" role="alert"></div>
<div id="play"><p>Choose a game and an opponent, then press <b>New game</b>.</p></div>
<script>{_SCRIPT}</script>
</body></html>"""


def _estimate_html(session: PlaySession) -> str:
    estimate = session.estimate
    if estimate is None:
        return ""
    parts = ['<div id="estimate"><h3>Agent\'s estimate</h3>']
    if estimate.win_probability is not None:
        parts.append(
            f'<p>its winning chances: <b id="win-probability">{estimate.win_probability:.0%}</b>'
            f" (value {estimate.value:+.2f}; a draw counts one half)</p>"
        )
    if estimate.top_moves:
        rows = []
        for move, share, value in estimate.top_moves:
            share_text = "" if share is None else f"{share:.0%}"
            value_text = "" if value is None else f"{value:+.2f}"
            rows.append(
                f"<tr><td>{escape(move)}</td><td>{share_text}</td><td>{value_text}</td></tr>"
            )
        parts.append(
            "<table><tr><th>top moves</th><th>search share</th><th>value</th></tr>"
            + "".join(rows)
            + "</table>"
        )
    parts.append(f'<p class="note">{escape(estimate.note)}</p></div>')
    return "".join(parts)


def _status_html(session: PlaySession) -> str:
    result = session.result()
    if result is not None:
        returns = session.game.returns(session.state)
        return (
            f'<div class="result" id="result" data-returns="{returns[0]:g},{returns[1]:g}">'
            f"{escape(result)}</div>"
        )
    seat = f"player_{session.human_seat}"
    if session.agent_turn:
        return f'<div class="status" id="status">The agent is thinking… (you are {seat})</div>'
    hint = "click a highlighted target" + (
        " (or the last one to take it back)" if session.selection else ""
    )
    return f'<div class="status" id="status">Your move ({seat}): {hint}</div>'


def game_panel(key: str, session: PlaySession) -> str:
    """The game panel: the board, status or result, the agent's estimate, moves, commands."""
    history = session.history()
    shown = history[-HISTORY_LINES:]
    start = len(history) - len(shown) + 1
    moves = "".join(f"<li>{escape(line)}</li>" for line in shown)
    notes = "".join(f"<li>{escape(note)}</li>" for note in session.notes)
    agent_turn = "1" if session.agent_turn else "0"
    return (
        f'<div id="game" data-session="{escape(key)}" data-version="{session.version}" '
        f'data-agent-turn="{agent_turn}" data-over="{"1" if session.over else "0"}">'
        f'<div id="board">{session.board_svg()}</div></div>'
        f'<div id="side">{_status_html(session)}'
        f"<p>{escape(session.game_name)} against <code>{escape(session.opponent)}</code></p>"
        + (f'<ul class="note">{notes}</ul>' if notes else "")
        + _estimate_html(session)
        + '<p><button type="button" data-command="undo" id="undo">Undo</button> '
        '<button type="button" data-command="clear" id="clear">Clear selection</button> '
        f'<a id="record" href="/api/record?session={escape(key)}" target="_blank">record</a></p>'
        f'<h3>Moves</h3><ol start="{start}" id="moves">{moves}</ol></div>'
    )
