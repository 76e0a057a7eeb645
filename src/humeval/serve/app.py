"""The web application (Starlette): server-rendered pages for annotators and the organiser, and a
small JSON API for scripts (and the load and crowd tests).

Pages: ``/login``, ``/task`` (one task at a time; the answer is a form post), ``/organiser``
(progress, leaderboard, quality, agreement, exports; charts at ``/organiser/chart/{key}.png``). API: ``POST /api/login`` → ``{"csrf"}``;
``GET /api/task``; ``POST /api/task/{task}`` with the answer; ``POST /api/task/{task}/skip``;
``GET /api/task/{task}`` (own tasks only); ``GET /api/judgments`` (own answers only);
``GET /api/leaderboard`` (the rankings and the agreement rows of the organiser's page),
``GET /admin/status.json`` (the stopping rule's verdict) and ``GET /organiser/export/{what}.{ext}``
(organisers only).

Every state-changing request needs the session's CSRF token (form field ``csrf`` or header
``X-CSRF-Token``); API posts must be JSON. Templates are autoescaped (a system output containing
markup shows as text), pages send a Content-Security-Policy that allows only the server's own
script (``/static/humeval.js``: the forms work without it), and only accounts listed in the
campaign file can log in.

Answers that invite defaults are refused: a form's score counts only when typed in the number box
or when the slider was moved (hidden field ``touched``, set by the script), and a ranking needs a
rank chosen for every output (the selects start empty); the page says so instead of recording 50
or an all-tie.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
import time
from urllib.parse import urlencode
from pathlib import Path

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

# humeval.serve.dashboard and humeval.serve.export (pandas) are imported by the handlers that use
# them: the server starts without pandas and the ranking stack (tests/serve/test_serve_startup.py)
from humeval.serve.auth import hash_password, new_token, same_token, session_secret, verify_password
from humeval.serve.db import Database
from humeval.serve.hardening import BodyLimit, Throttle, Throttled, parse_json, safe_filename
from humeval.serve.leaderboard import Leaderboard
from humeval.serve.tasks import CATEGORIES, DOCUMENT, Issuer, Refused, marked_spans, public, word_offsets

HEADERS = {"Content-Security-Policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'self'; "
                                      "frame-ancestors 'none'; form-action 'self'",
           "X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin", "Cache-Control": "no-store"}
MEDIA = {"csv": "text/csv", "tsv": "text/tab-separated-values", "jsonl": "application/x-ndjson",
         "parquet": "application/vnd.apache.parquet"}


SESSION_AGE = 14 * 24 * 3600  # seconds a session lasts (the cookie's max_age, checked server-side too)
MAX_FIELDS = 50_000
UNTOUCHED = "move the slider or type a score from 0 to 100 first: an untouched score is not accepted"
NO_RANK = "choose a rank for every translation (1 = best; equal ranks are ties)"


MQM_MARKS = [(f"{c}|{s}", f"{c}: {s}") for c in CATEGORIES for s in ("minor", "major")]


def word_presets(text: str, spans) -> list[tuple[str, str]]:
    """(word, mark) for the per-word selects (the page without script): a word takes the severity
    of a pre-filled span it overlaps (ESA^AI), else no mark."""
    out = []
    for start, end in word_offsets(text):
        mark = next((s["severity"] for s in spans if s["start_i"] < end and start < s["end_i"]), "")
        out.append((text[start:end], mark))
    return out


def form_answer(form, task_type: str, k: int, prefix: str = "") -> dict:
    """The answer a task form posts, or ``Refused`` (400) for a score left untouched or a rank left
    unchosen (see the module docstring)."""
    if task_type == "pairwise":
        return {} if form.get("outcome") is None else {"outcome": form.get("outcome")}
    if task_type == "ranking":
        ranks = [form.get(f"rank{i}", "") for i in range(k)]
        if any(not r for r in ranks):
            raise Refused(400, NO_RANK)
        return {"ranks": ranks}
    if task_type in ("da", "esa"):
        typed = str(form.get(prefix + "typed", "")).strip()
        if typed:
            return {"score": typed}
        if form.get(prefix + "touched") != "1":
            raise Refused(400, UNTOUCHED)
        return {"score": form.get(prefix + "score")}
    return {}


def form_spans(form, text: str, prefix: str = "") -> list:
    """Error spans a form posts: the script's character spans (field ``spans``, JSON), or without
    script the per-word marks (fields ``w0``, ``w1``, …); a contrastive ESA task's output ``n``
    prefixes its fields with ``o{n}-``."""
    raw = form.get(prefix + "spans")
    if raw:
        spans = parse_json(str(raw).encode("utf-8", "surrogatepass"))
        if not isinstance(spans, list):
            raise Refused(400, "spans must be a JSON list of {start_i, end_i, severity}")
        return spans
    return marked_spans(text, [form.get(f"{prefix}w{i}", "") for i in range(len(word_offsets(text)))])


class Server:
    """The state one running campaign needs: database, issuer, leaderboard, templates."""

    def __init__(self, campaign, leaderboard: bool = True, process: bool = False):
        self.campaign = campaign
        self.db = Database(campaign.database, campaign.synchronous)
        self.db.load_campaign(campaign)
        self.secret = session_secret(campaign)
        self.by_account, self.by_address = Throttle(5), Throttle(20)
        self.dummy = hash_password(new_token())
        self.issuer = Issuer(campaign, self.db)
        self.board = Leaderboard(self.db, campaign, campaign.leaderboard_interval, process and leaderboard)
        self.run_board = leaderboard
        self.templates = Environment(loader=PackageLoader("humeval.serve", "templates"),
                                     autoescape=select_autoescape(default=True, default_for_string=True))

    # -- helpers ----------------------------------------------------------------------------------
    def page(self, name: str, request: Request, status: int = 200, headers=None, **context) -> HTMLResponse:
        context.setdefault("user", None)
        html = self.templates.get_template(name).render(campaign=self.campaign, csrf=request.session.get("csrf", ""),
                                                        **context)
        return HTMLResponse(html, status_code=status, headers={**HEADERS, **(headers or {})})

    def account(self, request: Request):
        sid = request.session.get("sid")
        if sid is None:
            return None
        row = self.db.session_account(sid, time.time() - SESSION_AGE)
        return None if row is None or row["password_hash"] == "!" else row

    @staticmethod
    def csrf_ok(request: Request, given) -> bool:
        return same_token(given, request.session.get("csrf"))

    # -- login -------------------------------------------------------------------------------------
    async def login_page(self, request: Request):
        request.session.setdefault("csrf", new_token())
        return self.page("login.html", request)

    async def _check_login(self, request, name, password):
        """The account, or None for a wrong name or password; ``Throttled`` (429) after too many
        failures for the name or from the address (``hardening.Throttle``)."""
        keys = ((self.by_account, name), (self.by_address, request.client.host if request.client else "?"))
        wait = max(throttle.retry_after(key) for throttle, key in keys)
        if wait > 0:
            raise Throttled(wait)
        row = await run_in_threadpool(self.db.one, "SELECT id, role, password_hash FROM accounts WHERE name = ?",
                                      (name,))
        # an unknown name costs one scrypt too, so timing does not tell which names exist
        ok = await run_in_threadpool(verify_password, password or "", row["password_hash"] if row else self.dummy)
        for throttle, key in keys:
            (throttle.reset if row is not None and ok else throttle.failed)(key)
        return row if row is not None and ok else None

    async def _open_session(self, request, row):
        request.session.clear()
        sid = new_token()
        await run_in_threadpool(self.db.open_session, row["id"], sid, time.time())
        request.session.update(sid=sid, csrf=new_token())

    async def login(self, request: Request):
        form = await request.form()
        if not self.csrf_ok(request, form.get("csrf")):
            return self.page("login.html", request, 403, error="The form expired; please try again.")
        try:
            row = await self._check_login(request, form.get("name", ""), form.get("password", ""))
        except Throttled as throttled:
            return self.page("login.html", request, 429, error=f"Too many failed logins: try again in "
                             f"{throttled.retry_after} s.", headers={"Retry-After": str(throttled.retry_after)})
        if row is None:
            return self.page("login.html", request, 401, error="Unknown name or wrong password.")
        await self._open_session(request, row)
        return RedirectResponse("/organiser" if row["role"] == "organiser" else "/task", status_code=303)

    async def api_login(self, request: Request):
        body = await self.json_body(request)
        row = await self._check_login(request, str(body.get("name", "")), str(body.get("password", "")))
        if row is None:
            return JSONResponse({"error": "unknown name or wrong password"}, 401)
        await self._open_session(request, row)
        return JSONResponse({"csrf": request.session["csrf"], "role": row["role"]})

    async def logout(self, request: Request):
        form = await request.form()
        if not self.csrf_ok(request, form.get("csrf")):
            return Response("CSRF token missing or wrong", 403)
        if request.session.get("sid") is not None:  # revoked server-side: a copy of the cookie stops working
            await run_in_threadpool(self.db.close_sessions, request.session["sid"])
        request.session.clear()
        return RedirectResponse("/login", status_code=303)

    async def sign_out_everyone(self, request: Request):
        """``POST /organiser/sessions``: revoke every session but the organiser's own."""
        form = await request.form()
        self.organiser(request)
        if not self.csrf_ok(request, form.get("csrf")):
            raise Refused(403, "CSRF token missing or wrong")
        count = await run_in_threadpool(self.db.close_sessions, None, request.session.get("sid"))
        return self.page("message.html", request, 200, user=self.account(request),
                         message=f"Signed out {count} other session{'s' if count != 1 else ''}.")

    async def home(self, request: Request):
        user = self.account(request)
        if user is None:
            return RedirectResponse("/login", status_code=303)
        return RedirectResponse("/organiser" if user["role"] == "organiser" else "/task", status_code=303)

    # -- annotators -------------------------------------------------------------------------------
    def member(self, request: Request, role: str, refusal: str):
        """The logged-in account if it has ``role``; else ``Refused`` (401 not logged in, 403 ``refusal``)."""
        user = self.account(request)
        if user is None:
            raise Refused(401, "log in first")
        if user["role"] != role:
            raise Refused(403, refusal)
        return user

    def refused_page(self, request: Request, refused: Refused):
        """What a page shows a visitor it refuses: the login page when not logged in, else the reason."""
        if refused.status == 401:
            return RedirectResponse("/login", status_code=303)
        return self.page("message.html", request, refused.status, message=str(refused))

    def annotator(self, request: Request):
        return self.member(request, "annotator", "only annotators get tasks")

    async def task_page(self, request: Request):
        try:
            user = self.annotator(request)
        except Refused as refused:
            return self.refused_page(request, refused)
        task, done, seconds = await run_in_threadpool(self.next_task, user["id"])
        if task is None:
            code = await run_in_threadpool(self.completion_code, user["name"])
            return self.page("message.html", request, user=user, kind="ok", code=code,
                             message=f"You have answered {done:,} of {self.campaign.quota:,} tasks: your part is done. "
                                     "Thank you!")
        shown = public(task, self.db, self.campaign)
        receipt = request.query_params.get("receipt")
        told = await run_in_threadpool(self.told, user["id"], receipt) if receipt else {}
        words = [word_presets(text, shown["prefill"][n] if shown.get("prefill") else [])
                 for n, text in enumerate(shown["outputs"])] if shown["type"] in ("esa", "mqm") and not \
            shown.get("document_score") else []
        return self.page("task.html", request, user=user, task=shown, done=done, seconds=seconds, words=words,
                         categories=CATEGORIES, mqm_marks=MQM_MARKS, instructions=self.campaign.instructions.get(shown["type"], ""),
                         receipt=receipt, error=request.query_params.get("error"), told=told)

    def completion_code(self, name: str) -> str | None:
        """The completion code an annotator who finished the quota is shown (``[completion]``)."""
        if self.campaign.completion is None:
            return None
        from humeval.serve import export
        return export.attention(self.db, self.campaign).loc[name, "completion_code"] or None

    def told(self, annotator_id: int, receipt: str) -> dict:
        """What the page says about the answer with ``receipt`` (a tutorial item's feedback)."""
        row = self.db.one("SELECT t.kind, t.item_id, j.answer FROM judgments j JOIN tasks t ON t.id = j.task_id "
                          "WHERE j.receipt = ? AND j.annotator_id = ?", (receipt, annotator_id))
        return {} if row is None else self.issuer.told(dict(row), row["answer"])

    def next_task(self, annotator_id: int):
        """(task, answered so far, seconds spent on them); the task is None once the campaign's
        ``quota`` of answers is in."""
        done, seconds = self.db.one("SELECT COUNT(*) FILTER (WHERE t.kind <> 'TUTORIAL'), "
                                    "COALESCE(SUM(j.submitted_at - t.issued_at), 0) FROM judgments j "
                                    "JOIN tasks t ON t.id = j.task_id WHERE j.annotator_id = ?", (annotator_id,))
        if self.campaign.quota is not None and done >= self.campaign.quota:
            return None, done, seconds
        return self.issuer.current(annotator_id), done, seconds

    async def task_post(self, request: Request):
        # ESA and MQM forms have one field per word: a 1 MiB body (``hardening.LIMITS``) bounds them
        form = await request.form(max_fields=MAX_FIELDS)
        try:
            user = self.annotator(request)
            if not self.csrf_ok(request, form.get("csrf")):
                raise Refused(403, "CSRF token missing or wrong")
            token = str(form.get("task", ""))
            if form.get("skip"):
                await run_in_threadpool(self.issuer.skip, user["id"], token)
                return RedirectResponse("/task", status_code=303)
            row = self.db.one("SELECT type, kind, shown FROM tasks WHERE token = ?", (token,))
            shown = json.loads(row["shown"]) if row is not None else []
            if row is not None and row["kind"] == DOCUMENT:  # a document-level score: the score alone
                answer = form_answer(form, "da", 1)
            elif row is not None and row["type"] == "esa" and len(shown) > 1:  # contrastive ESA
                answer = {"outputs": [{**form_answer(form, "esa", 1, f"o{n}-"), "spans": form_spans(form, text, f"o{n}-")}
                                      for n, text in enumerate(shown)]}
            else:
                answer = form_answer(form, row["type"] if row is not None else "", self.campaign.k)
            if row is not None and row["type"] in ("esa", "mqm") and len(shown) == 1 and row["kind"] != DOCUMENT:
                answer["spans" if row["type"] == "esa" else "errors"] = form_spans(form, shown[0])
            result = await run_in_threadpool(self.issuer.submit, user["id"], token, answer)
        except Refused as refused:
            if refused.status == 400:  # the same task again, with what to fix
                return RedirectResponse(f"/task?{urlencode({'error': str(refused)})}", status_code=303)
            return self.page("message.html", request, refused.status, message=str(refused))
        return RedirectResponse(f"/task?receipt={result['receipt']}", status_code=303)

    @staticmethod
    async def json_body(request: Request) -> dict:
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            raise Refused(415, "send JSON (Content-Type: application/json)")
        body = parse_json(await request.body())
        if not isinstance(body, dict):
            raise Refused(400, "the body must be a JSON object")
        return body

    def api_annotator(self, request: Request, post: bool = False):
        user = self.annotator(request)
        if post and not self.csrf_ok(request, request.headers.get("x-csrf-token")):
            raise Refused(403, "CSRF token missing or wrong (header X-CSRF-Token)")
        return user

    async def api_task(self, request: Request):
        user = self.api_annotator(request)
        task, done, _ = await run_in_threadpool(self.next_task, user["id"])
        if task is None:
            code = await run_in_threadpool(self.completion_code, user["name"])
            return JSONResponse({"error": f"quota reached: {done} of {self.campaign.quota} tasks answered",
                                 "completion_code": code}, 409, headers=HEADERS)
        return JSONResponse(public(task, self.db, self.campaign))

    async def api_task_get(self, request: Request):
        user = self.api_annotator(request)
        row = self.db.one("SELECT * FROM tasks WHERE token = ?", (request.path_params["task"],))
        if row is None:
            raise Refused(404, "no such task")
        if row["annotator_id"] != user["id"]:
            raise Refused(403, "this task was not issued to you")
        return JSONResponse({**public(dict(row), self.db, self.campaign), "status": row["status"]})

    async def api_submit(self, request: Request):
        user = self.api_annotator(request, post=True)
        answer = await self.json_body(request)
        result = await run_in_threadpool(self.issuer.submit, user["id"], request.path_params["task"], answer)
        return JSONResponse(result)

    async def api_skip(self, request: Request):
        user = self.api_annotator(request, post=True)
        await run_in_threadpool(self.issuer.skip, user["id"], request.path_params["task"])
        return JSONResponse({"skipped": request.path_params["task"]})

    async def api_judgments(self, request: Request):
        user = self.api_annotator(request)
        rows = await run_in_threadpool(self.db.query, "SELECT t.token, t.type, j.answer, j.receipt FROM judgments j "
                                       "JOIN tasks t ON t.id = j.task_id WHERE j.annotator_id = ? ORDER BY j.id",
                                       (user["id"],))
        return JSONResponse([{"task": r["token"], "type": r["type"], "answer": json.loads(r["answer"]),
                              "receipt": r["receipt"]} for r in rows])

    # -- organisers -------------------------------------------------------------------------------
    def organiser(self, request: Request):
        return self.member(request, "organiser", "organisers only")

    async def organiser_page(self, request: Request):
        try:
            user = self.organiser(request)
        except Refused as refused:
            return self.refused_page(request, refused)
        from humeval.serve import dashboard, export
        board = self.board.latest if self.run_board else await run_in_threadpool(self.board.refresh)
        now = time.time()
        context = {"summary": None, "sections": [], "progress": {}, "agreement": None, "timeline": False}
        if board is not None:
            progress = board["progress"]
            context.update(summary=dashboard.summary(board, now),
                           sections=dashboard.sections(board, self.campaign.systems),
                           progress={"Judged per annotator": dashboard.html_table(progress["annotators"], "annotators"),
                                     "System outputs judged": dashboard.html_table(progress["systems"], "systems")},
                           agreement=dashboard.agreement_table(board["agreement"]) if len(board["agreement"]) else None,
                           timeline=board["judgments"] > 0)
        c = self.campaign
        if c.tutorial or c.checks or c.bad_reference or c.completion:
            table = await run_in_threadpool(export.attention, self.db, c)
            context["progress"]["Tutorial and attention checks per annotator"] = dashboard.html_table(table,
                                                                                                     "attention")
        exports = await run_in_threadpool(dashboard.available_exports, self.db)
        return self.page("organiser.html", request, user=user, board=board, error=self.board.error, exports=exports,
                         sqlite=not self.db.postgres, **context)

    async def chart(self, request: Request):
        """``GET /organiser/chart/{key}.png``: a ranking with its intervals, or (``progress``) the
        answers over time, drawn on the server."""
        self.organiser(request)
        from humeval.serve import dashboard
        key = request.path_params["key"]
        board = self.board.latest if self.run_board else await run_in_threadpool(self.board.refresh)
        if key == "progress" and board is not None and board["judgments"]:
            png = await run_in_threadpool(dashboard.progress_chart, board["timeline"]["type"],
                                          board["timeline"]["annotator"])
            return Response(png, media_type="image/png", headers=HEADERS)
        if key not in dict((k, t) for k, t, _ in dashboard.RANKINGS) or board is None or key not in board:
            raise Refused(404, "no such ranking yet")
        png = await run_in_threadpool(dashboard.chart, board[key], key)
        return Response(png, media_type="image/png", headers=HEADERS)

    async def script(self, request: Request):
        return FileResponse(Path(__file__).parent / "static" / "humeval.js", media_type="text/javascript",
                            headers={**HEADERS, "Cache-Control": "no-cache"})

    async def api_leaderboard(self, request: Request):
        self.organiser(request)
        board = self.board.latest if self.run_board else await run_in_threadpool(self.board.refresh)
        if board is None:
            return JSONResponse({"judgments": 0, "pairwise": [], "da": [], "esa": [], "mqm": [], "agreement": []})
        out = {"judgments": board["judgments"], "computed_at": board["computed_at"],
               "comparisons": board["comparisons"], "ratings": board["ratings"]}
        for key in ("pairwise", "da", "esa", "mqm"):
            out[key] = json.loads(board[key].reset_index().to_json(orient="records")) if key in board else []
        # the organiser page's agreement table, same numbers; a rate or value the measure lacks is null
        agreement = board["agreement"].reset_index()
        agreement.columns = [c.replace(" ", "_") for c in agreement.columns]
        out["agreement"] = json.loads(agreement.to_json(orient="records"))
        return JSONResponse(out)

    async def status(self, request: Request):
        """``GET /admin/status.json``: counts and the stopping rule's verdict, for scripts that stop a
        campaign (``"stop": true`` once the ``[stop]`` targets are met)."""
        self.organiser(request)
        board = self.board.latest if self.run_board else await run_in_threadpool(self.board.refresh)
        judgments = await run_in_threadpool(self.db.one, "SELECT COUNT(*) FROM judgments")
        out = {"campaign": self.campaign.name, "judgments": judgments[0],
               "leaderboard_judgments": board["judgments"] if board else 0,
               "computed_at": board["computed_at"] if board else None}
        if self.campaign.stop is None:
            out.update(verdict="no stopping rule", stop=False, message="the campaign file has no [stop] table")
        elif board is None or "stop" not in board:
            out.update(verdict="continue", stop=False, message="no verdict yet")
        else:
            out.update(board["stop"])
        return JSONResponse(out, headers=HEADERS)

    async def export_file(self, request: Request):
        self.organiser(request)
        from humeval.serve import export
        what, ext = request.path_params["what"], request.path_params["ext"]
        fixed = {"appraise": "csv", "mqm": "tsv"}
        if what not in export.EXPORTS or ext not in MEDIA or fixed.get(what, ext) != ext:
            raise Refused(404, f"exports: {', '.join(export.EXPORTS)} as .{', .'.join(MEDIA)} (appraise: .csv, "
                               "mqm: .tsv)")
        folder = tempfile.mkdtemp(prefix="humeval-export-")
        path = Path(folder) / f"{safe_filename(self.campaign.name)}-{what}.{ext}"
        await run_in_threadpool(export.export, self.db, self.campaign, what, path)
        return FileResponse(path, media_type=MEDIA[ext], filename=path.name, headers=HEADERS,
                            background=BackgroundTask(shutil.rmtree, folder, ignore_errors=True))

    async def backup(self, request: Request):
        self.organiser(request)
        if self.db.postgres:
            raise Refused(501, "this campaign's database is PostgreSQL: back it up with pg_dump")
        folder = tempfile.mkdtemp(prefix="humeval-backup-")
        path = Path(folder) / f"{safe_filename(self.campaign.name)}-backup.sqlite"
        await run_in_threadpool(self.db.backup, path)
        return FileResponse(path, media_type="application/vnd.sqlite3", filename=path.name, headers=HEADERS,
                            background=BackgroundTask(shutil.rmtree, folder, ignore_errors=True))


def create_app(campaign, leaderboard: bool = True, process: bool = False) -> Starlette:
    """The ASGI app of ``campaign``. The leaderboard is recomputed by a background thread, in a
    child process with ``process=True`` (what ``humeval serve`` runs), or on request with
    ``leaderboard=False`` (tests)."""
    server = Server(campaign, leaderboard, process)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        if server.run_board:
            server.board.start()
        yield
        server.board.stop()
        server.issuer.close()

    async def refused(request: Request, error: Refused):
        headers = {**HEADERS, **({"Retry-After": str(error.retry_after)} if isinstance(error, Throttled) else {})}
        if request.url.path.startswith(("/api/", "/organiser/", "/admin/", "/static/")):
            return JSONResponse({"error": str(error)}, error.status, headers=headers)
        return server.page("message.html", request, error.status, headers=headers, message=str(error))

    async def unreadable(request: Request, error: Exception):  # a safety net: never a 500 for bad input
        problem = "nests too deeply" if isinstance(error, RecursionError) else "is not valid Unicode"
        return await refused(request, Refused(400, f"the request {problem}"))

    s = server
    routes = [Route("/", s.home), Route("/login", s.login_page), Route("/login", s.login, methods=["POST"]),
              Route("/logout", s.logout, methods=["POST"]), Route("/task", s.task_page),
              Route("/task", s.task_post, methods=["POST"]), Route("/organiser", s.organiser_page),
              Route("/organiser/export/{what}.{ext}", s.export_file), Route("/organiser/backup", s.backup),
              Route("/organiser/sessions", s.sign_out_everyone, methods=["POST"]),
              Route("/organiser/chart/{key}.png", s.chart),
              Route("/admin/status.json", s.status), Route("/static/humeval.js", s.script),
              Route("/api/login", s.api_login, methods=["POST"]), Route("/api/task", s.api_task),
              Route("/api/task/{task}", s.api_task_get), Route("/api/task/{task}", s.api_submit, methods=["POST"]),
              Route("/api/task/{task}/skip", s.api_skip, methods=["POST"]),
              Route("/api/judgments", s.api_judgments), Route("/api/leaderboard", s.api_leaderboard)]
    middleware = [Middleware(BodyLimit, body_timeout=campaign.body_timeout),
                  Middleware(SessionMiddleware, secret_key=server.secret, session_cookie="humeval_session",
                             same_site="strict", max_age=SESSION_AGE)]
    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan,
                    exception_handlers={Refused: refused, RecursionError: unreadable, UnicodeError: unreadable})
    app.state.server = server
    return app
