"""Small campaigns on disk and logged-in clients, shared by the tests of ``humeval serve``."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

PASSWORD = "correct horse battery"
SRC = Path(__file__).resolve().parents[2] / "src"


def write_campaign(folder, tasks=("pairwise",), strategy="uniform", n_systems=4, n_items=12, bad_reference=0.0,
                   repeat=0.0, annotators=("alice", "bob"), organisers=("olga",), outputs=None, extra="") -> Path:
    """A campaign of ``n_systems`` systems (outputs ``sysN saysX segmentX hereX nowX``, or ``outputs``) on
    ``n_items`` segments; every account's password is ``PASSWORD``."""
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
    for name in annotators:
        text.append(f'[[accounts]]\nname = "{name}"\nrole = "annotator"\npassword = "{PASSWORD}"')
    for name in organisers:
        text.append(f'[[accounts]]\nname = "{name}"\nrole = "organiser"\npassword = "{PASSWORD}"')
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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``humeval serve PATH`` in a subprocess on a free loopback port (uvicorn), up when built."""

    def __init__(self, path: Path):
        import httpx
        self.port = free_port()
        env = {**os.environ, "PYTHONPATH": str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", "")}
        self.process = subprocess.Popen([sys.executable, "-c", "from humeval.cli import main; main()", "serve",
                                         str(path), "--port", str(self.port)], env=env,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.url = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(self.process.stderr.read().decode())
            try:
                if httpx.get(self.url + "/login", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        raise AssertionError("the server did not start")

    def stop(self, sig=signal.SIGTERM):
        if self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(timeout=30)
