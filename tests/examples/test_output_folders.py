"""The examples never replace another run's results unasked: an ``--out`` folder (or model file,
or checkpoint folder) that already holds something stops the script with one usage error (exit
2) before it trains, and the files stay as they were; each example writes to a folder of its own
by default."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

#: Script -> (its option naming where it writes, whether that is a folder, the default it shows).
WRITERS = {
    "train_maskable_ppo": ("--out", True, "runs/maskable_ppo"),
    "selfplay_ppo_vector": ("--out", True, "runs/selfplay_ppo"),
    "behaviour_cloning": ("--model", False, "runs/behaviour_cloning/network.pt"),
    "alphazero": ("--checkpoint-dir", True, None),
}


def run_example(name: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(EXAMPLES / f"{name}.py"), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("name", list(WRITERS))
def test_an_example_refuses_to_write_over_a_previous_run(name, tmp_path):
    pytest.importorskip("torch")
    option, is_folder, _ = WRITERS[name]
    target = tmp_path / "earlier"
    if is_folder:
        target.mkdir()
        kept = target / "results.json"
    else:
        kept = target
    kept.write_text('{"earlier": "run"}\n')
    finished = run_example(name, option, str(target), cwd=tmp_path)
    assert finished.returncode == 2, finished.stderr
    message = finished.stderr.strip().splitlines()[-1]
    assert f"{option} {target}" in message and "--overwrite" in message
    assert kept.read_text() == '{"earlier": "run"}\n'
    assert sorted(path.name for path in tmp_path.iterdir()) == ["earlier"]


@pytest.mark.parametrize("name", [name for name, (_, _, default) in WRITERS.items() if default])
def test_each_example_has_a_default_folder_of_its_own(name):
    pytest.importorskip("torch")
    finished = run_example(name, "--help", cwd=EXAMPLES)
    assert finished.returncode == 0 and "--overwrite" in finished.stdout
    default = WRITERS[name][2]
    assert default in " ".join(finished.stdout.split())
    others = [other[2] for key, other in WRITERS.items() if key != name and other[2]]
    assert all(not default.startswith(other) for other in others)
