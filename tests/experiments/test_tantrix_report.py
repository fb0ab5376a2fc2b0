"""experiments/tantrix_report.py --quick writes its records, points, table and figures."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_quick_run_writes_every_output(tmp_path):
    script = ROOT / "experiments" / "tantrix_report.py"
    done = subprocess.run(
        [sys.executable, str(script), "--quick", "--out-dir", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={**__import__("os").environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    points = [json.loads(line) for line in (tmp_path / "points.jsonl").read_text().splitlines()]
    # c in {0.5, 1.0} at the fixed time 0.03 s, and c = 0.5 at 0.05 s: three points
    assert sorted((p["seconds"], p["c"]) for p in points) == [(0.03, 0.5), (0.03, 1.0), (0.05, 0.5)]
    for p in points:
        assert p["games"] == 2 and p["wins"] + p["draws"] + p["losses"] == 2
        assert 0.0 <= p["wilson_low"] <= p["score"] <= p["wilson_high"] <= 1.0
    records = (tmp_path / "games_T0.03.jsonl").read_text().splitlines()
    assert len(records) == 4 and all(json.loads(r)["game"] == "tantrix" for r in records)
    table = (tmp_path / "table.md").read_text()
    assert "| 0.5 | 0.03 | 2 |" in table
    for figure in ("fig15_by_c.png", "fig16_by_time.png"):
        assert (tmp_path / figure).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
