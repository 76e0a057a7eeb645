"""Small campaigns on disk and logged-in clients, shared by the tests of ``humeval serve``."""

from __future__ import annotations

import functools
import glob
import http.client
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PASSWORD = "correct horse battery"
SRC = Path(__file__).resolve().parents[2] / "src"
CHEAP_N = 2 ** 10  # a cheap scrypt setting for test accounts: hundreds of logins a run, not a deployment


@functools.cache
def cheap_hash(password: str = PASSWORD) -> str:
    """``password``'s scrypt hash at N = 2^10 (the deployment default is 2^14: each login costs
    about 16 times less). The login path is the same: the server reads N from the hash."""
    from humeval.serve.auth import hash_password
    return hash_password(password, n=CHEAP_N)


@functools.cache
def loopback_ssl():
    """One SSL context for every httpx client of the tests: each new client otherwise loads the
    system's certificates (tens of milliseconds of CPU), though every URL here is plain HTTP."""
    import ssl
    return ssl.create_default_context()


def write_campaign(folder, tasks=("pairwise",), strategy="uniform", n_systems=4, n_items=12, bad_reference=0.0,
                   repeat=0.0, annotators=("alice", "bob"), organisers=("olga",), outputs=None, extra="",
                   plain_passwords=False) -> Path:
    """A campaign of ``n_systems`` systems (outputs ``sysN saysX segmentX hereX nowX``, or ``outputs``) on
    ``n_items`` segments; every account's password is ``PASSWORD``, given as ``password_hash`` (a
    ``cheap_hash``), or as ``password = "…"`` in plain text with ``plain_passwords`` (the server
    hashes it at the deployment setting when it loads the file)."""
    folder = Path(folder)
    (folder / "systems").mkdir(parents=True, exist_ok=True)
    (folder / "source.txt").write_text("".join(f"source {i}\n" for i in range(n_items)), encoding="utf-8")
    (folder / "reference.txt").write_text("".join(f"reference {i}\n" for i in range(n_items)), encoding="utf-8")
    systems = []
    for s in range(n_systems):
        name = f"sys{s}"
        lines = outputs[name] if outputs and name in outputs else [f"{name} says{i} segment{i} here{i} now{i}" for i in range(n_items)]
        (folder / "systems" / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        systems.append(f'{name} = "systems/{name}.txt"')
    task_list = ", ".join(f'"{t}"' for t in tasks)
    text = [f'name = "test"\ntrack = "deu-eng"\ntasks = [{task_list}]\nstrategy = "{strategy}"\nseed = 3\n'
            f'bootstrap = 20\nleaderboard_interval = 0.2\n{extra}',
            '[data]\nsource = "source.txt"\nreference = "reference.txt"\n[data.systems]', *systems,
            f"[quality]\nbad_reference = {bad_reference}\nrepeat = {repeat}"]
    secret = f'password = "{PASSWORD}"' if plain_passwords else f'password_hash = "{cheap_hash()}"'
    for name in annotators:
        text.append(f'[[accounts]]\nname = "{name}"\nrole = "annotator"\n{secret}')
    for name in organisers:
        text.append(f'[[accounts]]\nname = "{name}"\nrole = "organiser"\n{secret}')
    path = folder / "campaign.toml"
    path.write_text("\n".join(text) + "\n", encoding="utf-8")
    return path


def api_login(client, name, password=PASSWORD) -> dict:
    """Log ``client`` in through the API; returns the headers its posts need."""
    response = client.post("/api/login", json={"name": name, "password": password})
    assert response.status_code == 200, response.text
    return {"X-CSRF-Token": response.json()["csrf"]}


def form_csrf(html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


def form_login(client, name, password=PASSWORD):
    """Log ``client`` in through the login page's form (what a browser posts)."""
    page = client.get("/login")
    client.post("/login", data={"name": name, "password": password, "csrf": form_csrf(page.text)})
    return client


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``humeval serve PATH`` in a subprocess on a free loopback port (uvicorn), up when built."""

    def __init__(self, path: Path, database: str | None = None):
        self.port = free_port()
        env = {**os.environ, "PYTHONPATH": str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", "")}
        self.process = subprocess.Popen([sys.executable, "-c", "from humeval.cli import main; main()", "serve",
                                         str(path), "--port", str(self.port), *(["--db", database] if database else [])], env=env,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.url = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(self.process.stderr.read().decode())
            if self._answers("/login"):
                return
            time.sleep(0.1)
        raise AssertionError("the server did not start")

    def _answers(self, path: str) -> bool:
        """Whether GET ``path`` gets a 200 (plain ``http.client``: the polling costs nothing)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=1)
        try:
            connection.request("GET", path)
            return connection.getresponse().status == 200
        except OSError:
            return False
        finally:
            connection.close()

    def stop(self, sig=signal.SIGTERM):
        if self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(timeout=30)


def postgres_cluster():
    """A throwaway PostgreSQL cluster (Debian's server binaries, initdb in a temporary folder, a Unix
    socket only): yields its URL, then stops and deletes it. As root (CI) the cluster runs as the
    ``postgres`` user that ``apt-get install postgresql`` creates (initdb refuses root). Skips
    without the binaries or psycopg, unless HUMEVAL_REQUIRE_POSTGRES is set (CI): then it fails."""
    import pytest

    def unavailable(why):
        if os.environ.get("HUMEVAL_REQUIRE_POSTGRES"):
            pytest.fail(f"HUMEVAL_REQUIRE_POSTGRES is set (CI) but {why}")
        pytest.skip(why)

    try:
        import psycopg  # noqa: F401
    except ImportError:
        unavailable("psycopg is not installed (pip install 'humeval[test]')")
    binaries = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    if not binaries:
        unavailable("the PostgreSQL server binaries are not installed (apt-get install postgresql)")
    bin_dir = Path(binaries[-1]).parent
    folder = Path(tempfile.mkdtemp(prefix="humeval-pg-"))  # pytest's own temp folders are private to root
    run_as = []
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            unavailable("running as root without a postgres user")
        shutil.chown(folder, "postgres")
        run_as = ["runuser", "-u", "postgres", "--"]
    port = free_port()
    data, log = folder / "data", folder / "log"
    for command in ([f"{bin_dir}/initdb", "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync"],
                    [f"{bin_dir}/pg_ctl", "-D", str(data), "-l", str(log), "-w", "-o",
                     f"-p {port} -k {folder} -c listen_addresses=''", "start"]):
        done = subprocess.run([*run_as, *command], capture_output=True, text=True, cwd=folder)
        if done.returncode:
            shutil.rmtree(folder, ignore_errors=True)
            raise AssertionError(f"{' '.join(command[:1])} failed: {done.stderr or done.stdout}")
    try:
        yield f"postgresql:///postgres?host={folder}&port={port}&user=postgres"
    finally:
        subprocess.run([*run_as, f"{bin_dir}/pg_ctl", "-D", str(data), "-m", "immediate", "stop"],
                       capture_output=True, cwd=folder)
        shutil.rmtree(folder, ignore_errors=True)
