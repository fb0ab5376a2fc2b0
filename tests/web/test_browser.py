"""End to end: ``mcts-envs serve`` in a subprocess, whole games played by clicks in headless
Chromium (Debian's ``chromium`` + ``chromium-driver`` driven by Selenium).

The person's clicks are chosen at random among the highlighted targets (seeded); the result shown
on the page is checked against the game record the server hands out, replayed through the
game's own rules (:func:`mcts_envs.records.replay_states`). Screenshots of every finished game
go to ``$MCTS_ENVS_SCREENSHOTS`` (if set) or the test's temporary directory.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from mcts_envs.records import replay_states

selenium = pytest.importorskip("selenium", reason="selenium is in the 'dev' extra")
pytest.importorskip("starlette", reason="starlette is in the 'web' extra")
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.options import Options  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
BROWSERS = ("chromium", "chromium-browser", "google-chrome")
OPPONENT = "mcts:iterations=40"


def _find_chromium() -> tuple[str, str]:
    browser = next((path for name in BROWSERS if (path := shutil.which(name))), None)
    driver = shutil.which("chromedriver")
    if browser is None or driver is None:
        pytest.skip(
            "headless Chromium not found (need 'chromium' and 'chromedriver' on PATH: "
            "apt-get install -y chromium chromium-driver, as .ci/run does)"
        )
    return browser, driver


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    port = _free_port()
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mcts_envs.agents.frontends.cli",
            "serve",
            "--port",
            str(port),
            "--seed",
            "5",
        ],
        cwd=ROOT,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(url + "/", timeout=2) as answer:
                assert answer.status == 200
                break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                pytest.fail(f"the server did not start: {process.stdout.read()}")
            time.sleep(0.2)
    yield url
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()


@pytest.fixture(scope="module")
def browser():
    binary, driver_path = _find_chromium()
    options = Options()
    options.binary_location = binary
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1300,900"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    yield driver
    driver.quit()


def _screenshot_dir(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("MCTS_ENVS_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _panel(driver) -> tuple[str, str, str]:
    return driver.execute_script(
        "const g = document.getElementById('game');"
        "return g ? [g.dataset.version, g.dataset.agentTurn, g.dataset.session] : ['', '', ''];"
    )


def _wait_for_person(driver, old_version: str | None) -> None:
    """Wait until the panel changed (if ``old_version``) and the agent is not to move."""

    def ready(_):
        error, version, agent_turn = driver.execute_script(
            "const g = document.getElementById('game');"
            "return [document.getElementById('error').textContent,"
            " g ? g.dataset.version : '', g ? g.dataset.agentTurn : ''];"
        )
        if error:
            raise AssertionError(f"the page shows an error: {error}")
        return version != "" and version != old_version and agent_turn == "0"

    WebDriverWait(driver, 30, poll_frequency=0.02).until(
        ready, message=f"the page did not settle; panel (version, agent turn): {_panel(driver)[:2]}"
    )


def _new_game(driver, url: str, game: str, seat: str) -> None:
    driver.get(url + "/")
    Select(driver.find_element(By.ID, "game-choice")).select_by_value(game)
    opponent = driver.find_element(By.ID, "opponent")
    opponent.clear()
    opponent.send_keys(OPPONENT)
    Select(driver.find_element(By.ID, "seat")).select_by_value(seat)
    driver.find_element(By.ID, "new-game").click()
    _wait_for_person(driver, None)


@pytest.mark.parametrize(
    ("game", "seat"),
    [("tictactoe", "player_0"), ("ultimate_tictactoe", "player_1"), ("ataxx", "player_0")],
)
def test_whole_game_by_clicks(server, browser, tmp_path, game, seat):
    rng = random.Random(f"{game}/{seat}")
    _new_game(browser, server, game, seat)
    clicks = 0
    shots = _screenshot_dir(tmp_path)
    while not browser.find_elements(By.ID, "result"):
        targets = browser.find_elements(By.CSS_SELECTOR, "#board [data-target].target")
        assert targets, "no highlighted target although the game is not over"
        if game == "ataxx":  # prefer copies (one click on an empty square): shorter games
            empty = [t for t in targets if t.tag_name == "rect"]
            targets = empty or targets
        choice = rng.choice(targets)
        version = _panel(browser)[0]
        ActionChains(browser).move_to_element(choice).click().perform()
        clicks += 1
        if clicks == 3:
            browser.save_screenshot(str(shots / f"{game}_playing.png"))
        _wait_for_person(browser, version)
        assert clicks < 400, "the game did not end"
    browser.save_screenshot(str(shots / f"{game}_result.png"))
    result = browser.find_element(By.ID, "result")
    shown_returns = [float(x) for x in result.get_attribute("data-returns").split(",")]
    session = _panel(browser)[2]
    with urllib.request.urlopen(f"{server}/api/record?session={session}", timeout=5) as answer:
        record = json.load(answer)
    _, states = replay_states(record)
    final = states[-1]
    from mcts_envs import make_game

    rules = make_game(game)
    assert rules.is_terminal(final)
    returns = rules.returns(final).tolist()
    assert returns == shown_returns == record["returns"]
    human = int(seat[-1])
    expected = {1.0: "You won", -1.0: "The agent won", 0.0: "Draw"}[returns[human]]
    assert result.text == expected
    assert record["players"][human] == "human"
    assert record["players"][1 - human].startswith("mcts:iterations=40")
    if len(record["actions"]) > 1:  # the agent answered at least once, with an estimate
        assert browser.find_elements(By.ID, "estimate")
