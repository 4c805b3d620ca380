"""The league's pages in a real headless Chromium against `arena serve` on a loopback port: the
web form's upload, the leaderboard, a game in the report's viewer, bot-controlled markup shown
as text, and the organisers' copy check (an author rewrites another's bot), which its authors
never see.

Skipped only where Chromium or its driver is not installed (CI installs them: .ci/run).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browserhelp import BOARD_DRAWN, board, press, step_label, wait_for
from leaguehelp import BOT, LEAGUE, Running, children, reap_orphans, token
from patience import Deadline
from reporthelp import MISSING, chromium, console_errors

from tournaments.league.files import League

pytestmark = [pytest.mark.slow, pytest.mark.skipif(MISSING is not None, reason=str(MISSING))]

DEADLINE = 120.0
"""Seconds to wait for a check or the ladder's games (the machine may be busy)."""

MARKUP = "<img src=x onerror=alert(1)>"
"""Markup that would load an image and run its handler, were it ever markup on a page."""
ESCAPED = "&lt;img src=x onerror=alert(1)&gt;"
"""MARKUP as text in the serialized page (`page_source`)."""

STATUS = "#versions tbody tr:last-child td[class^='status-']"
"""The newest version's status cell on a bot's page."""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    before = children()
    with chromium() as driver:
        yield driver
    reap_orphans(before)  # Chromium's processes outlive its driver, and come to us


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Running, str]]:
    """A league served by `arena serve` and an author's token."""
    file = tmp_path / "cup.toml"
    file.write_text(LEAGUE)
    running = Running(file)
    try:
        yield running, token(file, "alice")
    finally:
        if running.process.poll() is None:
            running.stop()


def eventually(browser: Any, url: str, check: Callable[[], Any], what: str) -> Any:
    """Open `url` again and again until `check()` is truthy (its value), within DEADLINE."""
    deadline = Deadline(DEADLINE)
    while True:
        browser.get(url)
        value = check()
        if value:
            return value
        assert not deadline.passed(), f"timed out waiting for {what} at {url}"
        time.sleep(0.5)


def errors(browser: Any) -> list[str]:
    """The console's errors but a favicon of an earlier test's server, stopped since (Chromium
    may ask for it after the next page opened)."""
    here = browser.current_url.split("/", 3)[:3]
    return [
        line
        for line in console_errors(browser)
        if "/favicon.ico" not in line or line.startswith("/".join(here) + "/")
    ]


def css(browser: Any, selector: str) -> list[Any]:
    from selenium.webdriver.common.by import By

    return list(browser.find_elements(By.CSS_SELECTOR, selector))


def status_is(browser: Any, status: str) -> bool:
    cells = css(browser, STATUS)
    return bool(cells) and cells[0].text == status


def send(browser: Any, form: str) -> None:
    """Press the submit button of the page's `form` (a CSS selector); back once the answer
    replaced the page."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    sent = css(browser, form)[0]

    def replaced(_: Any) -> bool:
        """Whether the form left the document: selenium's `staleness_of`, but chromedriver
        sometimes reports the node that left as an inspector error ("Node with given id does
        not belong to the document"), not as a stale element (the base class of both)."""
        try:
            sent.is_enabled()
        except WebDriverException:
            return True
        return False

    css(browser, form + " button[type=submit]")[0].click()
    WebDriverWait(browser, DEADLINE).until(replaced)
    wait_for(browser, "document.readyState === 'complete'", timeout=DEADLINE)


def sign_in(browser: Any, url: str, secret: str) -> None:
    """Sign in with `secret` through the sign-in form, as a person does."""
    browser.get(url + "/signin")
    wait_for(browser, "document.readyState === 'complete'", timeout=DEADLINE)
    css(browser, "input[name=token]")[0].send_keys(secret)
    send(browser, "form[action='/signin']")


def submit_form(
    browser: Any, url: str, secret: str, name: str, bot: Path, validate: bool = True
) -> None:
    """Fill /submit's form as a person does and send it; back once the next page loaded."""
    sign_in(browser, url, secret)  # the form uploads as the signed-in author
    browser.get(url + "/submit")
    wait_for(browser, "document.readyState === 'complete'", timeout=DEADLINE)
    assert errors(browser) == []
    assert "Signed in as alice" in css(browser, "#signed-in")[0].text
    field = css(browser, "input[name=name]")[0]
    if not validate:  # the test's driver, not the page, drops the form's own check
        browser.execute_script("arguments[0].removeAttribute('pattern');", field)
    field.send_keys(name)
    css(browser, "input[type=file][name=file]")[0].send_keys(str(bot))
    send(browser, "form[action='/submit']")


def write_bot(tmp_path: Path, name: str) -> Path:
    bot = tmp_path / "bot.py"
    bot.write_text(BOT.format(pick=0, name=name))
    return bot


def test_a_bot_submitted_through_the_form_goes_on_to_play(
    browser: Any, served: tuple[Running, str], tmp_path: Path
) -> None:
    running, secret = served
    submit_form(browser, running.url, secret, "former", write_bot(tmp_path, "former"))
    assert browser.current_url == running.url + "/bots/former"  # redirected to its page
    assert css(browser, "h1")[0].text == "former"
    assert css(browser, STATUS)[0].text in ("queued", "checking", "playing")
    assert errors(browser) == []
    eventually(browser, running.url + "/bots/former", lambda: status_is(browser, "playing"), "play")
    assert css(browser, "#versions tbody tr")[-1].text.split()[0] == "1"  # its one version
    assert errors(browser) == []


def test_the_leaderboard_links_to_a_bot_once_its_games_are_stored(
    browser: Any, served: tuple[Running, str]
) -> None:
    running, secret = served
    code, answer = running.upload(secret, "ranked", "bot.py", BOT.format(pick=0, name="r").encode())
    assert code == 201, answer
    selector = "#leaderboard a[href='/bots/ranked']"
    link = eventually(browser, running.url + "/", lambda: css(browser, selector), "a standing")
    assert link[0].text.startswith("ranked")
    assert {a.text.split("@")[0] for a in css(browser, "#leaderboard tbody a")} >= {
        "ranked",
        "random",
    }
    assert errors(browser) == []
    link[0].click()
    wait_for(browser, "document.readyState === 'complete'", timeout=DEADLINE)
    assert browser.current_url == running.url + "/bots/ranked"
    assert status_is(browser, "playing")
    assert errors(browser) == []


def test_a_game_on_a_bots_page_opens_in_the_viewer(
    browser: Any, served: tuple[Running, str]
) -> None:
    from selenium.webdriver.common.keys import Keys

    running, secret = served
    code, answer = running.upload(secret, "viewed", "bot.py", BOT.format(pick=0, name="v").encode())
    assert code == 201, answer
    page = running.url + "/bots/viewed"
    links = eventually(
        browser, page, lambda: css(browser, "#games a[href^='/seasons/1/games/']"), "a game"
    )
    assert errors(browser) == []
    game = links[0].get_attribute("href")
    links[0].click()
    wait_for(browser, BOARD_DRAWN, timeout=DEADLINE)
    assert browser.current_url.split("#")[0] == game  # the viewer adds #step-N
    assert step_label(browser).startswith("step 0 /")
    start = board(browser)
    press(browser, Keys.ARROW_RIGHT)
    assert step_label(browser).startswith("step 1 /")
    assert board(browser) != start
    assert errors(browser) == []


def test_markup_in_a_bot_name_or_its_stderr_stays_text(
    browser: Any, served: tuple[Running, str], tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    running, secret = served
    bot = write_bot(tmp_path, "n")
    submit_form(browser, running.url, secret, MARKUP, bot, validate=False)
    assert browser.current_url == running.url + "/submit"  # refused: the form again, its reason
    assert MARKUP in browser.find_element(By.ID, "error").text
    assert ESCAPED in browser.page_source
    assert browser.find_elements(By.TAG_NAME, "img") == []
    assert errors(browser) == [  # only the refusal's status: no image, no handler
        f"{running.url}/submit - Failed to load resource: the server responded with a status of "
        "400 ()"
    ]

    crash = tmp_path / "crash.py"
    crash.write_text(f"import sys\nsys.stderr.write({MARKUP!r})\nsys.exit(3)\n")
    submit_form(browser, running.url, secret, "injector", crash)
    page = running.url + "/bots/injector"
    assert browser.current_url == page
    eventually(browser, page, lambda: status_is(browser, "rejected"), "the check's rejection")
    reason = css(browser, "#versions tbody tr:last-child td")[3].text
    assert MARKUP not in reason and "crash during the handshake" in reason  # public: no output
    log = css(browser, "pre.log")[0].text  # its author, signed in, sees its output as text
    assert MARKUP in log and "exit" in log
    assert ESCAPED in browser.page_source
    assert browser.find_elements(By.TAG_NAME, "img") == []
    assert errors(browser) == []


COPY = "from bots.sdk import run as go\n\ndef first(seen, moves, ctx):\n    return 0\n\ngo(first)"
"""`BOT` with `pick=0`, rewritten by another author: other names, other layout, same play."""


def test_the_organiser_sees_a_copied_bot_and_an_author_does_not(
    browser: Any, tmp_path: Path
) -> None:
    file = tmp_path / "cup.toml"
    file.write_text(LEAGUE + "fingerprints = true\n")
    alice, bob, carol = (token(file, name) for name in ("alice", "bob", "carol"))
    with League(file) as league:
        boss = league.registry.new_token("boss", organiser=True)
    running = Running(file)
    try:
        for secret, bot, code in (
            (alice, "alice-first", BOT.format(pick=0, name="a")),
            (bob, "bob-last", BOT.format(pick="len(legal) - 1", name="b")),
            (carol, "carol-copy", COPY),
        ):
            assert running.upload(secret, bot, "bot.py", code.encode())[0] == 201
        sign_in(browser, running.url, boss)
        page = running.url + "/organiser/clones"

        def compared() -> list[Any]:
            """The flagged pairs, once all three bots are compared (three pairs in all)."""
            pairs = css(browser, "section.pair")
            return pairs if len(pairs) + len(css(browser, "#pairs tbody tr")) == 3 else []

        pairs = eventually(browser, page, compared, "the three bots compared")
        assert len(pairs) == 1 and errors(browser) == []
        links = pairs[0].find_elements("css selector", "h3 a")
        assert {a.text for a in links} == {"alice-first", "carol-copy"}
        assert pairs[0].find_element("css selector", "strong").text.startswith("copy")
        assert pairs[0].find_elements("css selector", "table.evidence tbody tr")  # its positions
        others = [row.text for row in css(browser, "#pairs tbody tr")]
        assert all("bob-last" in row and "copy:" not in row for row in others)
        links[[a.text for a in links].index("carol-copy")].click()  # side by side: its page
        wait_for(browser, "document.readyState === 'complete'", timeout=DEADLINE)
        assert browser.current_url == running.url + "/bots/carol-copy"
        assert errors(browser) == []

        sign_in(browser, running.url, carol)  # the copy's own author sees none of it
        browser.get(page)
        assert "carol-copy" not in browser.page_source and not css(browser, "section.pair")
        assert errors(browser) == [
            f"{page} - Failed to load resource: the server responded with a status of 403 ()"
        ]
        browser.get(running.url + "/bots/carol-copy")
        text = css(browser, "body")[0].text.replace("carol-copy", "")
        assert "copy" not in text and "fingerprint" not in text.lower()
    finally:
        running.stop()
