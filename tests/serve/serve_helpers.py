"""Small campaigns on disk and logged-in clients, shared by the tests of ``humeval serve``."""

from __future__ import annotations

import re
from pathlib import Path

PASSWORD = "correct horse battery"


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
