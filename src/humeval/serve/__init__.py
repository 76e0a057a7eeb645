"""``humeval serve``: collect judgments in the browser with active selection and a live leaderboard.

campaign.py (the TOML campaign file), db.py (SQLite in WAL mode), auth.py (scrypt passwords, CSRF
tokens), tasks.py (issuing tasks with ``humeval.active`` strategies and WMT's quality controls),
leaderboard.py (the organiser's live view), export.py (humeval's own formats and WMT's CSV),
app.py (the Starlette application), demo.py (a demo campaign from the simulator).
"""

from humeval.serve.campaign import Campaign, load_campaign

__all__ = ["Campaign", "load_campaign"]
