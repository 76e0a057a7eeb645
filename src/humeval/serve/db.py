"""The campaign database: an SQLite file in WAL mode, or PostgreSQL given a
``postgresql://`` URL (through psycopg 3).

WAL lets the leaderboard thread and the request threads read while one writer commits. Every
write is one ``BEGIN IMMEDIATE`` transaction, committed before the server answers, so an
acknowledged judgment is in the database. ``synchronous = FULL`` (the default) fsyncs the WAL on
every answer's commit: the judgment survives a power cut too. ``NORMAL`` fsyncs only at
checkpoints: a commit still survives the server process being killed (the WAL is in the OS's page
cache), but the last commits may be lost on a power cut (SQLite's documentation, "Write-Ahead
Logging" and "PRAGMA synchronous"). Issuing a task always commits at NORMAL: a task lost to a
power cut is simply issued again, and skipping its fsync doubles the answers a second. A copy can be taken while serving with ``backup`` (SQLite's online
backup API), which reads a consistent snapshot.

Schema changes are numbered scripts in ``MIGRATIONS``; ``schema_version`` records how many ran
(no Alembic: one embedded database and a few tables do not need it, and it would pull in
SQLAlchemy). On PostgreSQL the same SQL runs through a thin adapter (``?`` placeholders become
``%s``, rows answer by index and by name like ``sqlite3.Row``, identity columns for SQLite's
integer keys, double precision for REAL); an answer commits with ``synchronous_commit = on``, a
task issued with it off. The server is one process, so one in-process lock orders the writers on
either database. Back it up with ``pg_dump``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
import threading
from pathlib import Path

from humeval.errors import InputError
from humeval.serve.auth import verify_password

MIGRATIONS = [
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE accounts (id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, role TEXT NOT NULL,
                           password_hash TEXT NOT NULL);
    CREATE TABLE systems (id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL);
    CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, source TEXT NOT NULL, reference TEXT);
    CREATE TABLE outputs (item_id INTEGER NOT NULL, system_id INTEGER NOT NULL, text TEXT NOT NULL,
                          PRIMARY KEY (item_id, system_id));
    CREATE TABLE tasks (id INTEGER PRIMARY KEY, token TEXT UNIQUE NOT NULL, annotator_id INTEGER NOT NULL,
                        type TEXT NOT NULL, kind TEXT NOT NULL, item_id INTEGER NOT NULL, systems TEXT NOT NULL,
                        shown TEXT NOT NULL, control_of INTEGER, issued_at REAL NOT NULL, status TEXT NOT NULL);
    CREATE INDEX tasks_by_annotator ON tasks (annotator_id, status);
    CREATE TABLE judgments (id INTEGER PRIMARY KEY, task_id INTEGER UNIQUE NOT NULL, annotator_id INTEGER NOT NULL,
                            answer TEXT NOT NULL, receipt TEXT NOT NULL, submitted_at REAL NOT NULL);
    """,
    # server-side sessions (the cookie carries a random id; only its SHA-256 is stored), and the
    # session-signing secret out of the database (``auth.session_secret`` keeps it in a file)
    """
    CREATE TABLE sessions (digest TEXT PRIMARY KEY, account_id INTEGER NOT NULL, created_at REAL NOT NULL);
    CREATE INDEX sessions_by_account ON sessions (account_id);
    DELETE FROM meta WHERE key = 'secret';
    """,
    # ESA^AI: the automatic error spans a task showed pre-filled (JSON: one list per output shown)
    """
    ALTER TABLE tasks ADD COLUMN prefill TEXT;
    """,
]


def is_url(database) -> bool:
    return str(database).startswith(("postgresql://", "postgres://"))


class Row(tuple):
    """A PostgreSQL row that answers by index and by column name, and converts with ``dict``."""

    def __getitem__(self, key):
        return super().__getitem__(self._index[key] if isinstance(key, str) else key)

    def keys(self):
        return list(self._index)


def _rows(cursor):
    index = {c.name: i for i, c in enumerate(cursor.description or ())}

    def make(values):
        row = Row(values)
        row._index = index
        return row
    return make


class _PostgreSQL:
    """The part of ``sqlite3.Connection`` the server uses, on a psycopg connection."""

    def __init__(self, url: str):
        try:
            import psycopg
        except ImportError:
            raise InputError(url, None, "a PostgreSQL database needs psycopg", "pip install 'psycopg[binary]'") from None
        self.raw = psycopg.connect(url, autocommit=True, row_factory=_rows)

    def execute(self, sql: str, params=()):
        return self.raw.execute(sql.replace("?", "%s"), params)

    def executemany(self, sql: str, rows):
        with self.raw.cursor() as cursor:
            cursor.executemany(sql.replace("?", "%s"), list(rows))

    def close(self):
        self.raw.close()


class Database:
    """One SQLite file or PostgreSQL database; a connection per thread (``conn``); ``write()`` is a
    transaction."""

    def __init__(self, path, synchronous: str = "full"):
        self.postgres = is_url(path)
        self.url = str(path)
        self.path = None if self.postgres else Path(path)
        self.synchronous = synchronous.upper()
        self._local = threading.local()
        # one writer at a time in this process: waiting on a lock is fair and immediate, where
        # SQLite's busy handler sleeps and retries (up to 100 ms a turn), which made p99 latency seconds
        self._write_lock = threading.Lock()
        self.migrate()

    @property
    def conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None and self.postgres:
            conn = self._local.conn = _PostgreSQL(self.url)
        if conn is None:
            conn = sqlite3.connect(self.path, isolation_level=None, timeout=30, check_same_thread=False)
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(f"PRAGMA synchronous={self.synchronous}")
            conn.execute("PRAGMA foreign_keys=ON")
            self._local.conn = conn
        return conn

    def write(self, durable: bool = True):
        """A write transaction; ``durable=False`` (issuing a task: a task lost to a power cut is
        simply issued again) commits without the fsync that ``synchronous = full`` gives answers."""
        if self.postgres:
            begin = ("BEGIN", f"SET LOCAL synchronous_commit = {'on' if durable else 'off'}")
        else:  # PRAGMA synchronous cannot change inside a transaction
            begin = (f"PRAGMA synchronous={self.synchronous if durable else 'NORMAL'}", "BEGIN IMMEDIATE")
        return _Transaction(self.conn, self._write_lock, begin)

    @contextlib.contextmanager
    def snapshot(self):
        """Reads that all see one state of the database (a read transaction), so counts agree."""
        conn = self.conn
        conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ" if self.postgres else "BEGIN")
        try:
            yield conn
        finally:
            conn.execute("COMMIT")

    def query(self, sql: str, params=()) -> list[sqlite3.Row]:
        return self.conn.execute(sql, params).fetchall()

    def one(self, sql: str, params=()):
        return self.conn.execute(sql, params).fetchone()

    def migrate(self):
        conn = self.conn
        if self.postgres:
            known = conn.execute("SELECT to_regclass('schema_version')").fetchone()[0]
        else:
            known = conn.execute("SELECT name FROM sqlite_master WHERE name = 'schema_version'").fetchone()
        if known and conn.execute("SELECT version FROM schema_version").fetchone() == (len(MIGRATIONS),):
            return  # up to date: opening writes nothing (the leaderboard's process only reads)
        with self.write():
            conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = conn.execute("SELECT version FROM schema_version").fetchone()
            version = row[0] if row else 0
            if version > len(MIGRATIONS):
                raise InputError(self.url, None, f"the database has schema version {version}, newer than this "
                                 f"humeval's {len(MIGRATIONS)}", "upgrade humeval")
            for script in MIGRATIONS[version:]:
                if self.postgres:
                    script = script.replace("INTEGER PRIMARY KEY", "INTEGER GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY")
                    script = script.replace(" REAL ", " DOUBLE PRECISION ")
                for statement in filter(str.strip, script.split(";")):
                    conn.execute(statement)
            conn.execute("DELETE FROM schema_version")
            conn.execute("INSERT INTO schema_version VALUES (?)", (len(MIGRATIONS),))

    def load_campaign(self, campaign):
        """Put the campaign's systems, items, outputs and accounts in; refuse a database that holds
        another campaign's texts (its fingerprint differs). An account whose password changed, or
        that was taken out of the campaign file, loses its sessions."""
        texts = [campaign.track, campaign.source, campaign.reference, campaign.outputs]
        if campaign.documents is not None:  # (a campaign without documents keeps its older fingerprint)
            texts.append(campaign.documents)
        fingerprint = hashlib.sha256(json.dumps(texts, ensure_ascii=False).encode()).hexdigest()
        conn = self.conn
        with self.write():
            rows = dict(conn.execute("SELECT key, value FROM meta").fetchall())
            if "fingerprint" in rows and rows["fingerprint"] != fingerprint:
                raise InputError(self.url, None, "the database holds another campaign's texts",
                                 "give a new database with --db, or the campaign file it was made from")
            if "fingerprint" not in rows:
                conn.execute("INSERT INTO meta VALUES ('fingerprint', ?)", (fingerprint,))
                conn.executemany("INSERT INTO systems (id, name) VALUES (?, ?)", enumerate(campaign.systems))
                refs = campaign.reference or [None] * len(campaign.items)
                conn.executemany("INSERT INTO items (id, name, source, reference) VALUES (?, ?, ?, ?)",
                                 [(i, n, s, r) for i, (n, s, r) in enumerate(zip(campaign.items, campaign.source,
                                                                                   refs))])
                conn.executemany("INSERT INTO outputs VALUES (?, ?, ?)",
                                 [(i, s, text) for s, lines in enumerate(campaign.outputs.values())
                                  for i, text in enumerate(lines)])
            old = dict(conn.execute("SELECT name, password_hash FROM accounts").fetchall())
            for account in campaign.accounts:  # a password in clear, unchanged: keep its stored hash
                if account.password is not None and account.name in old and \
                        verify_password(account.password, old[account.name]):
                    account.password_hash = old[account.name]
            changed = [a.name for a in campaign.accounts if old.get(a.name, a.password_hash) != a.password_hash]
            listed = [a.name for a in campaign.accounts]
            changed += [name for name in old if name not in listed]
            if changed:
                conn.execute(f"DELETE FROM sessions WHERE account_id IN (SELECT id FROM accounts WHERE name IN "
                             f"({','.join('?' * len(changed))}))", changed)
            for account in campaign.accounts:
                conn.execute("INSERT INTO accounts (name, role, password_hash) VALUES (?, ?, ?) ON CONFLICT(name) "
                             "DO UPDATE SET role = excluded.role, password_hash = excluded.password_hash",
                             (account.name, account.role, account.password_hash))
            # an account taken out of the campaign file can no longer log in; its judgments stay
            conn.execute(f"UPDATE accounts SET password_hash = '!' WHERE name NOT IN ({','.join('?' * len(listed))})",
                         listed)

    # -- sessions ----------------------------------------------------------------------------------
    @staticmethod
    def _digest(session_id: str) -> str:
        return hashlib.sha256(session_id.encode()).hexdigest()

    def open_session(self, account_id: int, session_id: str, now: float):
        with self.write() as conn:
            conn.execute("INSERT INTO sessions (digest, account_id, created_at) VALUES (?, ?, ?)",
                         (self._digest(session_id), account_id, now))

    def session_account(self, session_id, since: float):
        """The account of a live session opened after ``since``, or None."""
        if not isinstance(session_id, str):
            return None
        return self.one("SELECT a.id, a.name, a.role, a.password_hash FROM sessions s JOIN accounts a "
                        "ON a.id = s.account_id WHERE s.digest = ? AND s.created_at > ?",
                        (self._digest(session_id), since))

    def close_sessions(self, session_id=None, keep=None) -> int:
        """Revoke one session (``session_id``), or every session but ``keep``; how many were revoked."""
        with self.write() as conn:
            if session_id is not None:
                cursor = conn.execute("DELETE FROM sessions WHERE digest = ?", (self._digest(session_id),))
            else:
                cursor = conn.execute("DELETE FROM sessions WHERE digest <> ?", (self._digest(keep or ""),))
            return cursor.rowcount

    def backup(self, target) -> Path:
        """A consistent copy of the database, taken while serving (SQLite's online backup)."""
        if self.postgres:
            raise InputError(self.url, None, "the server backs up SQLite databases only", "use pg_dump")
        target = Path(target)
        dest = sqlite3.connect(target)
        try:
            self.conn.backup(dest)
        finally:
            dest.close()
        return target

    def close(self):
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None


class _Transaction:
    def __init__(self, conn, lock, begin):
        self.conn, self.lock, self.begin = conn, lock, begin

    def __enter__(self):
        self.lock.acquire()
        try:
            for statement in self.begin:
                self.conn.execute(statement)
        except BaseException:
            self.lock.release()
            raise
        return self.conn

    def __exit__(self, kind, value, tb):
        try:
            self.conn.execute("COMMIT" if kind is None else "ROLLBACK")
        finally:
            self.lock.release()
        return False
