"""The league's registry: tokens kept only as hashes, versions and their statuses, a restart
queueing interrupted checks again, bounded logs, the upload rate limit, and a file that is not
a registry refused untouched."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

import pytest
from storehelp import craft

from protocol.errors import RequestError
from tournaments.league.registry import (
    LOG_BYTES,
    TOKEN_PREFIX,
    NotFound,
    Registry,
    Taken,
    token_hash,
)
from tournaments.store.store import Store, StoreError


@pytest.fixture
def registry(tmp_path: Path) -> Registry:
    return Registry(tmp_path / "league.sqlite")


def files_bytes(path: Path) -> bytes:
    """The registry file and its -wal file, as they are on disk."""
    wal = path.with_name(path.name + "-wal")
    return path.read_bytes() + (wal.read_bytes() if wal.exists() else b"")


# ---- tokens -----------------------------------------------------------------------------------


def test_a_token_is_stored_only_as_its_hash(tmp_path: Path) -> None:
    path = tmp_path / "league.sqlite"
    registry = Registry(path)
    token = registry.new_token("alice")
    reissued = registry.new_token("bob", organiser=True)
    assert token.startswith(TOKEN_PREFIX) and len(token) > len(TOKEN_PREFIX) + 40
    for secret in (token, reissued):
        secret_part = secret.removeprefix(TOKEN_PREFIX).encode()
        assert secret_part not in files_bytes(path)  # open: the WAL holds the writes
    assert token_hash(token).encode() in files_bytes(path)  # the search looks where they are
    registry.close()
    for secret in (token, reissued):
        assert secret.removeprefix(TOKEN_PREFIX).encode() not in files_bytes(path)
        assert secret.encode() not in files_bytes(path)


def test_a_token_signs_its_author_in_and_nothing_else_does(registry: Registry) -> None:
    alice = registry.new_token("alice")
    bob = registry.new_token("bob", organiser=True)
    signed = registry.author_for(alice)
    assert signed is not None and signed.name == "alice" and not signed.organiser
    organiser = registry.author_for(bob)
    assert organiser is not None and organiser.name == "bob" and organiser.organiser
    assert registry.author_for("") is None
    assert registry.author_for(alice[:-1]) is None
    assert registry.author_for(alice + "x") is None
    assert registry.author_for(TOKEN_PREFIX) is None
    assert registry.author_for(token_hash(alice)) is None  # the stored hash is no token
    assert registry.author_for("arena_é") is None


def test_a_disabled_author_is_not_signed_in_until_enabled(registry: Registry) -> None:
    alice = registry.new_token("alice")
    bob = registry.new_token("bob")
    sessions = registry.authors()[0].sessions
    registry.set_author_disabled("alice", True)
    assert registry.author_for(alice) is None
    assert registry.author_for(bob) is not None
    assert [a.disabled for a in registry.authors()] == [True, False]
    assert registry.authors()[0].sessions == sessions + 1  # her sessions end
    newer = registry.new_token("alice")  # a new token does not undo an organiser's decision
    assert registry.authors()[0].disabled and registry.author_for(newer) is None
    enabled = registry.set_author_disabled("alice", False)
    assert not enabled.disabled and registry.author_for(newer) is not None
    assert registry.author_for(alice) is None  # the re-issued token is the one that works
    with pytest.raises(NotFound, match="no author named 'carol'"):
        registry.set_author_disabled("carol", True)


def test_reissuing_a_token_replaces_the_old_one(registry: Registry) -> None:
    old = registry.new_token("alice")
    first = registry.author_for(old)
    new = registry.new_token("alice")
    assert new != old
    assert registry.author_for(old) is None
    again = registry.author_for(new)
    assert again is not None and first is not None and again.id == first.id
    assert [a.name for a in registry.authors()] == ["alice"]
    assert again.sessions == first.sessions + 1  # the sessions the old token signed in end


@pytest.mark.parametrize("name", ["", " alice", "alice\n", "x" * 101])
def test_an_unusable_author_name_is_refused(registry: Registry, name: str) -> None:
    with pytest.raises(RequestError, match="not usable"):
        registry.new_token(name)
    assert registry.authors() == []


# ---- versions ---------------------------------------------------------------------------------


def author(registry: Registry, name: str) -> int:
    signed = registry.author_for(registry.new_token(name))
    assert signed is not None
    return signed.id


def test_a_version_flows_from_queued_to_playing(registry: Registry) -> None:
    alice = author(registry, "alice")
    version = registry.add_version(alice, "greedy", "h1", "python3 bot.py", "make")
    assert (version.status, version.bot, version.author, version.build) == (
        "queued",
        "greedy",
        alice,
        "make",
    )
    assert registry.queued() == [version] == registry.waiting()
    assert registry.set_status(version.id, "building").status == "building"
    checking = registry.set_status(version.id, "checking")
    assert checking.status == "checking" and registry.waiting() == [checking]
    assert registry.queued() == [] and registry.playing() == []
    playing = registry.set_status(version.id, "playing")
    assert playing.status == "playing" and playing.reason is None
    assert registry.playing() == [playing] and registry.waiting() == []
    assert registry.owner("greedy") == alice and registry.owner("other") is None


def test_a_rejected_version_says_why_and_does_not_play(registry: Registry) -> None:
    alice = author(registry, "alice")
    version = registry.add_version(alice, "greedy", "h1", "./bot", None)
    registry.set_status(version.id, "checking")
    rejected = registry.set_status(version.id, "rejected", "it answered an illegal move")
    assert (rejected.status, rejected.reason) == ("rejected", "it answered an illegal move")
    assert registry.playing() == []
    with pytest.raises(ValueError, match="rejected: it cannot become playing"):
        registry.set_status(version.id, "playing")
    with pytest.raises(ValueError, match="queued: it cannot become playing"):
        registry.set_status(
            registry.add_version(alice, "greedy", "h2", "./bot", None).id, "playing"
        )
    with pytest.raises(RequestError, match="no version 99"):
        registry.set_status(99, "building")


def test_a_playing_version_supersedes_the_older_one(registry: Registry) -> None:
    alice = author(registry, "alice")
    bob = author(registry, "bob")
    v1 = registry.add_version(alice, "greedy", "h1", "./bot", None)
    theirs = registry.add_version(bob, "search", "h1", "./bot", None)
    for version in (v1, theirs):
        registry.set_status(version.id, "checking")
        registry.set_status(version.id, "playing")
    v2 = registry.add_version(alice, "greedy", "h2", "./bot", None)
    assert [v.id for v in registry.playing()] == [v1.id, theirs.id]  # v2 not checked yet
    registry.set_status(v2.id, "checking")
    registry.set_status(v2.id, "playing")
    assert [v.id for v in registry.playing()] == [v2.id, theirs.id]
    statuses = {v.id: v.status for v in registry.versions()}
    assert statuses == {v1.id: "superseded", theirs.id: "playing", v2.id: "playing"}
    assert [v.id for v in registry.versions("greedy")] == [v1.id, v2.id]


def test_an_older_version_finishing_its_check_late_does_not_replace_the_newer(
    registry: Registry,
) -> None:
    alice = author(registry, "alice")
    v1 = registry.add_version(alice, "greedy", "h1", "./bot", None)
    v2 = registry.add_version(alice, "greedy", "h2", "./bot", None)
    for version in (v1, v2):
        registry.set_status(version.id, "checking")
    registry.set_status(v2.id, "playing")
    late = registry.set_status(v1.id, "playing")
    assert late.status == "superseded"
    assert [v.id for v in registry.playing()] == [v2.id]


def test_the_same_upload_twice_is_one_version(registry: Registry) -> None:
    alice = author(registry, "alice")
    first = registry.add_version(alice, "greedy", "h1", "./bot", None)
    registry.set_status(first.id, "checking")
    again = registry.add_version(alice, "greedy", "h1", "./bot", None)
    assert again.id == first.id and again.status == "checking"
    assert len(registry.versions()) == 1
    other = registry.add_version(alice, "greedy", "h2", "./bot", None)
    assert other.id != first.id and len(registry.versions()) == 2


def test_another_authors_bot_name_is_refused(registry: Registry) -> None:
    alice = author(registry, "alice")
    bob = author(registry, "bob")
    registry.add_version(alice, "greedy", "h1", "./bot", None)
    with pytest.raises(Taken, match="'greedy' belongs to another author") as refused:
        registry.add_version(bob, "greedy", "h2", "./bot", None)
    assert isinstance(refused.value, RequestError)
    with pytest.raises(Taken):  # the same content does not take it either
        registry.add_version(bob, "greedy", "h1", "./bot", None)
    assert [v.author for v in registry.versions()] == [alice]
    assert registry.add_version(bob, "search", "h1", "./bot", None).author == bob
    assert registry.add_version(alice, "greedy2", "h1", "./bot", None).author == alice
    with pytest.raises(RequestError, match="no author 99"):
        registry.add_version(99, "fresh", "h1", "./bot", None)


def test_a_disabled_bot_stays_out_whatever_is_uploaded_until_enabled(
    registry: Registry,
) -> None:
    alice = author(registry, "alice")
    v1 = registry.add_version(alice, "greedy", "h1", "./bot", None)
    registry.set_status(v1.id, "checking")
    registry.set_status(v1.id, "playing")
    v2 = registry.add_version(alice, "greedy", "h2", "./bot", None)
    registry.set_status(v2.id, "checking")
    assert registry.set_bot_disabled("greedy", True).disabled
    assert registry.playing() == [] and registry.queued() == []
    registry.set_status(v2.id, "playing")  # its check ends after the organiser's word
    assert registry.playing() == []
    v3 = registry.add_version(alice, "greedy", "h3", "./bot", None)  # a new upload
    assert registry.queued() == [] and registry.playing() == []
    assert registry.owner("greedy") == alice  # the name stays hers
    assert not registry.set_bot_disabled("greedy", False).disabled
    assert [v.id for v in registry.playing()] == [v2.id]
    assert [v.id for v in registry.queued()] == [v3.id]
    with pytest.raises(NotFound, match="no uploaded bot named 'nobody'"):
        registry.set_bot_disabled("nobody", True)


@pytest.mark.parametrize("alike", ["AliceBot", "alicebot.", "alice_bot", "ALICE-BOT-", "Alicebot"])
def test_a_name_like_another_bots_is_refused_naming_it(registry: Registry, alike: str) -> None:
    alice, bob = author(registry, "alice"), author(registry, "bob")
    registry.add_version(alice, "alicebot", "h1", "./bot", None)
    with pytest.raises(Taken, match=f"{alike!r} is too close to the league's bot 'alicebot'"):
        registry.add_version(bob, alike, "h1", "./bot", None)
    with pytest.raises(Taken):  # its own author cannot make a twin either
        registry.add_version(alice, alike, "h1", "./bot", None)
    assert registry.look_alike(alike) == "alicebot"
    assert [v.bot for v in registry.versions()] == ["alicebot"]


def test_versions_are_numbered_per_bot_and_a_rejected_one_uploaded_again_is_queued(
    registry: Registry,
) -> None:
    alice = author(registry, "alice")
    numbers = [
        registry.add_version(alice, bot, content, "./bot", None).number
        for bot, content in (("a", "h1"), ("b", "h1"), ("a", "h2"), ("a", "h3"))
    ]
    assert numbers == [1, 1, 2, 3]
    (first, *_) = registry.versions("a")
    registry.set_status(first.id, "rejected", "crash during the handshake")
    again = registry.add_version(alice, "a", "h1", "./bot", None)
    assert (again.id, again.number, again.status) == (first.id, 1, "queued")
    assert registry.set_identity(first.id, "abc").identity == "abc"


def test_a_version_1_registry_is_brought_up_with_its_disabled_bots(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.executescript(VERSION_1)
    db.close()
    registry = Registry(path)
    try:
        (alice,) = registry.authors()
        assert (alice.name, alice.sessions) == ("alice", 0)
        bots = {name: registry.bot(name) for name in ("x", "y")}
        assert bots["x"] is not None and bots["x"].disabled and bots["x"].author == alice.id
        assert bots["y"] is not None and not bots["y"].disabled
        versions = registry.versions()
        assert [(v.bot, v.number, v.status) for v in versions] == [
            ("x", 1, "rejected"), ("y", 1, "playing"), ("x", 2, "rejected")
        ]  # fmt: skip
        assert versions[0].reason == "disabled by an organiser"
        assert registry.playing() == [versions[1]]
    finally:
        registry.close()
    assert Registry(path).authors() == [alice]  # opened again: nothing more to do


VERSION_1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta VALUES ('schema', '1');
CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,
    token_hash TEXT NOT NULL UNIQUE, organiser INTEGER NOT NULL CHECK (organiser IN (0, 1)),
    disabled INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)), created TEXT NOT NULL);
CREATE TABLE versions (id INTEGER PRIMARY KEY, author INTEGER NOT NULL REFERENCES authors(id),
    bot TEXT NOT NULL, hash TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('queued',
    'building', 'checking', 'playing', 'rejected', 'superseded', 'disabled')), reason TEXT,
    command TEXT NOT NULL, build TEXT, created TEXT NOT NULL, updated TEXT NOT NULL,
    UNIQUE (author, bot, hash));
CREATE INDEX versions_bot ON versions (bot, status);
CREATE INDEX versions_status ON versions (status);
CREATE TABLE logs (version INTEGER NOT NULL REFERENCES versions(id),
    kind TEXT NOT NULL CHECK (kind IN ('build', 'check')), text TEXT NOT NULL,
    dropped INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (version, kind));
CREATE TABLE uploads (author INTEGER NOT NULL REFERENCES authors(id), at REAL NOT NULL);
CREATE INDEX uploads_author ON uploads (author, at);
INSERT INTO authors VALUES (1, 'alice', 'ab', 0, 0, '2026-01-01');
INSERT INTO versions VALUES (1, 1, 'x', 'h1', 'disabled', 'disabled by an organiser',
    './bot', NULL, '2026-01-01', '2026-01-01');
INSERT INTO versions VALUES (2, 1, 'y', 'h1', 'playing', NULL, './bot', NULL, '2026-01-01',
    '2026-01-01');
INSERT INTO versions VALUES (3, 1, 'x', 'h2', 'disabled', 'disabled by an organiser',
    './bot', NULL, '2026-01-01', '2026-01-01');
"""


# ---- restart ----------------------------------------------------------------------------------


def test_a_version_left_checking_is_queued_again_after_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "league.sqlite"
    registry = Registry(path)
    alice = author(registry, "alice")
    checking = registry.add_version(alice, "greedy", "h1", "./bot", None)
    building = registry.add_version(alice, "search", "h1", "./bot", "make")
    playing = registry.add_version(alice, "random", "h1", "./bot", None)
    waiting = registry.add_version(alice, "greedy", "h2", "./bot", None)
    registry.set_status(checking.id, "checking")
    registry.set_status(building.id, "building")
    registry.set_status(playing.id, "checking")
    registry.set_status(playing.id, "playing")
    registry.append_log(checking.id, "check", "game 1 of 4\n")
    registry.close()  # as a killed server leaves it

    reopened = Registry(path)
    assert [v.id for v in reopened.queued()] == [checking.id, building.id, waiting.id]
    assert [v.id for v in reopened.playing()] == [playing.id]
    assert reopened.logs(checking.id) == {}  # its check starts afresh
    assert reopened.author_for("nope") is None and len(reopened.authors()) == 1


def test_a_read_only_registry_beside_its_server_writes_nothing_and_refuses_changes(
    tmp_path: Path,
) -> None:
    """What a benchmark or a look at a running league opens: the server's check in progress is
    not queued again, no byte of the file changes, and the server's later writes are seen."""
    path = tmp_path / "league.sqlite"
    with Registry(path) as server:
        alice = author(server, "alice")
        checking = server.add_version(alice, "greedy", "h1", "./bot", None)
        server.set_status(checking.id, "checking")
        server.append_log(checking.id, "check", "game 1 of 4\n")
        changes, before = server.changes(), files_bytes(path)
        with Registry(path, readonly=True) as reader:
            assert [(v.id, v.status) for v in reader.versions()] == [(checking.id, "checking")]
            assert reader.logs(checking.id) == {"check": "game 1 of 4\n"}
            refused = "league registry .* was opened read-only: nothing was changed"
            with pytest.raises(StoreError, match=refused):
                reader.set_status(checking.id, "queued")
            with pytest.raises(StoreError, match=refused):
                reader.new_token("bob")
            assert server.changes() == changes  # PRAGMA data_version: no other commit
            assert files_bytes(path) == before
            server.set_status(checking.id, "playing")
            found = reader.version(checking.id)
            assert found is not None and found.status == "playing"
        assert [a.name for a in server.authors()] == ["alice"]


def test_a_read_only_registry_is_neither_made_nor_brought_up(tmp_path: Path) -> None:
    missing = tmp_path / "none.sqlite"
    with pytest.raises(StoreError, match=r"no league registry at .*none\.sqlite \(opening"):
        Registry(missing, readonly=True)
    assert not missing.exists()
    old = tmp_path / "old.sqlite"
    db = sqlite3.connect(old)
    db.executescript(VERSION_1)
    db.close()
    before = old.read_bytes()
    with pytest.raises(StoreError, match="older schema: open it for writing once"):
        Registry(old, readonly=True)
    assert old.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.sqlite"]


# ---- logs -------------------------------------------------------------------------------------


def test_logs_are_kept_by_kind(registry: Registry) -> None:
    version = registry.add_version(author(registry, "alice"), "greedy", "h1", "./bot", "make")
    assert registry.logs(version.id) == {}
    registry.append_log(version.id, "build", "cc -O2 bot.c\n")
    registry.append_log(version.id, "build", "done\n")
    registry.append_log(version.id, "check", "game 1: ok\n")
    assert registry.logs(version.id) == {"build": "cc -O2 bot.c\ndone\n", "check": "game 1: ok\n"}
    with pytest.raises(ValueError, match="not a log's kind"):
        registry.append_log(version.id, "run", "x")  # type: ignore[arg-type]
    with pytest.raises(RequestError, match="no version 99"):
        registry.append_log(99, "build", "x")


def test_a_log_keeps_its_last_64_kib_and_says_what_it_dropped(registry: Registry) -> None:
    version = registry.add_version(author(registry, "alice"), "greedy", "h1", "./bot", None)
    line = "line {:05d} é€ of the check's output\n"  # multi-byte characters at any cut
    written = [line.format(i) for i in range(3000)]  # about 110 KiB
    for start in range(0, 3000, 250):
        registry.append_log(version.id, "check", "".join(written[start : start + 250]))
    log = registry.logs(version.id)["check"]
    assert len(log.encode()) <= LOG_BYTES
    note, _, kept = log.partition("\n")
    assert "earlier bytes dropped" in note
    dropped = int(note.split()[1])
    whole = "".join(written).encode()
    assert dropped + len(kept.encode()) == len(whole)
    assert whole.endswith(kept.encode())
    assert kept.startswith("line ") and kept.endswith(written[-1])  # whole lines kept
    assert len(kept.encode()) > LOG_BYTES - 2048  # nearly all the room is used

    registry.append_log(version.id, "check", "the last word\n")
    again = registry.logs(version.id)["check"]
    assert again.endswith("the last word\n") and len(again.encode()) <= LOG_BYTES
    assert int(again.split()[1]) > dropped
    assert "build" not in registry.logs(version.id)


def test_one_huge_append_is_cut_too(registry: Registry) -> None:
    version = registry.add_version(author(registry, "alice"), "greedy", "h1", "./bot", None)
    registry.append_log(version.id, "build", "x" * (LOG_BYTES + 1))
    log = registry.logs(version.id)["build"]
    assert len(log.encode()) <= LOG_BYTES and "earlier bytes dropped" in log
    registry.append_log(version.id, "check", "y" * LOG_BYTES)  # exactly the bound: all kept
    assert registry.logs(version.id)["check"] == "y" * LOG_BYTES


# ---- rate limit -------------------------------------------------------------------------------


def test_uploads_are_limited_per_hour(registry: Registry) -> None:
    alice = author(registry, "alice")
    bob = author(registry, "bob")
    start = 1_700_000_000.0
    assert [registry.allow_upload(alice, start + i, 3) for i in range(3)] == [True] * 3
    assert not registry.allow_upload(alice, start + 10, 3)
    assert registry.allow_upload(bob, start + 10, 3)  # each author has their own hour
    assert not registry.allow_upload(alice, start + 3599, 3)  # a refusal is not recorded...
    assert registry.allow_upload(alice, start + 3600, 3)  # ...and the first upload has aged
    assert not registry.allow_upload(alice, start + 3600.5, 3)
    assert registry.allow_upload(alice, start + 3601, 3)
    assert not registry.allow_upload(alice, start + 3601, 0)
    with pytest.raises(RequestError, match="no author 99"):
        registry.allow_upload(99, start, 3)


# ---- the file ---------------------------------------------------------------------------------


def test_the_registry_is_private(tmp_path: Path) -> None:
    path = tmp_path / "league.sqlite"
    with Registry(path) as registry:
        registry.new_token("alice")
        for file in (path, path.with_name(path.name + "-wal")):
            assert stat.S_IMODE(file.stat().st_mode) == 0o600, file
    path.chmod(0o644)  # made private again at the next opening
    Registry(path).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_foreign_database_is_refused_untouched(tmp_path: Path) -> None:
    theirs = tmp_path / "theirs.db"
    craft(
        theirs,
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)",
        "INSERT INTO notes (text) VALUES ('keep me')",
    )
    theirs.chmod(0o644)
    before = theirs.read_bytes()
    with pytest.raises(StoreError, match=r"not a league registry \(another SQLite database\); "):
        Registry(theirs)
    assert theirs.read_bytes() == before
    assert stat.S_IMODE(theirs.stat().st_mode) == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["theirs.db"]


def test_a_tournament_store_is_refused_untouched_and_refuses_a_registry(tmp_path: Path) -> None:
    store = tmp_path / "cup.sqlite"
    Store(store).close()
    before = store.read_bytes()
    with pytest.raises(StoreError, match=r"not a league registry \(a tournament store\)"):
        Registry(store)
    assert store.read_bytes() == before
    league = tmp_path / "league.sqlite"
    Registry(league).close()
    with pytest.raises(StoreError, match="is damaged"):
        Store(league)


def test_a_registry_changed_by_hand_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "league.sqlite"
    Registry(path).close()
    craft(path, "CREATE VIEW spin AS SELECT 1")
    with pytest.raises(StoreError, match="has a view 'spin' that a registry never has"):
        Registry(path)


def test_a_value_changed_by_hand_is_the_files_damage(tmp_path: Path) -> None:
    path = tmp_path / "league.sqlite"
    with Registry(path) as registry:
        registry.add_version(author(registry, "alice"), "greedy", "h1", "./bot", None)
    craft(path, "UPDATE versions SET author = 'alice'")  # text where an author's id goes
    with Registry(path) as registry, pytest.raises(StoreError, match=r"is damaged .* malformed"):
        registry.versions()
    craft(path, "PRAGMA ignore_check_constraints=ON", "UPDATE versions SET status = 'winning'")
    with pytest.raises(StoreError, match=r"is damaged .*CHECK constraint failed"):
        Registry(path)
