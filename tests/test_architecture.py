"""The layering of docs/architecture.md (its ```layers block) holds for every import in src/humeval."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).parent.parent
SRC = ROOT / "src" / "humeval"


def allowed() -> dict[str, set[str]]:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = re.search(r"```layers\n(.*?)```", text, re.S).group(1)
    table = {}
    for line in block.strip().splitlines():
        package, _, targets = line.partition(":")
        table[package.strip()] = set(targets.split())
    return table


def imports(src: Path = SRC) -> dict[tuple[str, str], list[str]]:
    """(importing package, imported package) → the files that import across that edge."""
    edges: dict[tuple[str, str], list[str]] = {}
    for path in src.rglob("*.py"):
        parts = path.relative_to(src).with_suffix("").parts
        if len(parts) < 1 or parts[0] in ("__init__", "__main__"):
            continue
        package = parts[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else [])
            for name in names:
                target = name.split(".")[1] if name.startswith("humeval.") else None
                if target and target != package:
                    edges.setdefault((package, target), []).append(str(path.relative_to(src)))
    return edges


def test_every_import_is_allowed_by_the_layering():
    table = allowed()
    packages = {p.name if p.is_dir() else p.stem for p in SRC.iterdir()
                if (p.is_dir() and (p / "__init__.py").exists()) or (p.suffix == ".py" and p.stem not in
                                                                      ("__init__", "__main__"))}
    assert packages <= set(table), f"packages missing from the layering table: {sorted(packages - set(table))}"
    wrong = {edge: files for edge, files in imports().items() if edge[1] not in table.get(edge[0], set())}
    assert not wrong, "imports the layering does not allow:\n" + "\n".join(
        f"  {a} → {b}: {', '.join(sorted(set(files))[:3])}" for (a, b), files in sorted(wrong.items()))


def test_the_layering_has_no_cycle():
    table = allowed()
    state: dict[str, int] = {}

    def visit(node, path):
        state[node] = 1
        for nxt in table.get(node, ()):
            assert state.get(nxt) != 1, f"cycle: {' → '.join(path + [nxt])}"
            if nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2
    for package in table:
        if package not in state:
            visit(package, [package])


def test_the_check_catches_a_forbidden_import(tmp_path):
    """The test can fail: an import inside a function of ranking from experiments (the cycle once
    there) is found and is not allowed."""
    (tmp_path / "ranking").mkdir()
    (tmp_path / "ranking" / "analytic.py").write_text("def f():\n    from humeval.experiments.bootstrap import x\n")
    edges = imports(tmp_path)
    assert edges == {("ranking", "experiments"): ["ranking/analytic.py"]}
    assert "experiments" not in allowed()["ranking"]


def cli_imports(cli: Path = SRC / "cli") -> dict[str, set[str]]:
    """Module of humeval.cli → the humeval.cli modules it imports (inside functions too)."""
    found: dict[str, set[str]] = {}
    for path in cli.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module] + ([f"humeval.cli.{a.name}" for a in node.names] if node.module == "humeval.cli"
                                         else [])
            elif isinstance(node, ast.ImportFrom) and node.level:  # from . import x / from .x import y
                names = [f"humeval.cli.{node.module}" if node.module else f"humeval.cli.{a.name}" for a in node.names]
            else:
                continue
            found.setdefault(path.stem, set()).update(
                n.split(".")[2] for n in names if n.startswith("humeval.cli.") and len(n.split(".")) > 2)
    return found


def command_modules() -> set[str]:
    from humeval.cli._group import COMMANDS
    return {module for module, _, _ in COMMANDS.values()}


def test_no_cli_module_imports_another_command_module():
    """Each command module (a module of humeval.cli._group.COMMANDS) depends on shared helpers
    (common, campaign, ratings, …), never on another command's module."""
    commands = command_modules()
    wrong = {module: sorted(targets & commands - {module}) for module, targets in cli_imports().items()
             if targets & commands - {module}}
    assert not wrong, f"cli modules importing another command's module: {wrong}"


def test_the_cli_check_catches_a_command_import(tmp_path):
    """The check can fail: a command module importing a helper from another command's module."""
    (tmp_path / "data.py").write_text("def convert():\n    from humeval.cli.ranking import apply_both_bad\n")
    (tmp_path / "report.py").write_text("from humeval.cli import ranking\nfrom humeval.cli.common import load\n")
    assert cli_imports(tmp_path) == {"data": {"ranking"}, "report": {"ranking", "common"}}
    assert {"ranking", "data", "report"} <= command_modules()


# -- module-level import cycles ------------------------------------------------------------------

def _module(path: Path, src: Path) -> str:
    parts = ("humeval",) + path.relative_to(src).with_suffix("").parts
    return ".".join(parts[:-1]) if parts[-1] == "__init__" else ".".join(parts)


def _load_time_imports(body):
    """The import statements that run when a module is imported: at module level, in class bodies
    and in if/try/with blocks, not inside functions nor under ``if TYPE_CHECKING:``."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
            continue
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from _load_time_imports(node.orelse)
            continue
        for field in ("body", "orelse", "finalbody", "handlers"):
            inner = getattr(node, field, None)
            if isinstance(inner, list):
                yield from _load_time_imports(inner)


def module_imports(src: Path = SRC) -> dict[str, set[str]]:
    """Module → the humeval modules it imports at load time. ``from p import x`` counts as an
    import of the module p.x when x is one, else of p (its ``__init__``); relative imports are
    resolved. A package's own ``__init__``, which Python runs before any of its modules, is not
    counted as imported by them (every submodule would then be in a cycle with its package)."""
    modules = {_module(p, src): p for p in src.rglob("*.py")}
    edges: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        out = edges.setdefault(name, set())
        for node in _load_time_imports(ast.parse(path.read_text(encoding="utf-8")).body):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                base = ".".join(package[:len(package) - node.level + 1] + ([node.module] if node.module else [])) \
                    if node.level else node.module
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            out.update(t for t in targets if t in modules and t != name)
    return edges


def import_cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts with more than one module (Tarjan 1972), each a cycle or several."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def strong(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while not part or part[-1] != v:
                part.append(stack.pop())
            if len(part) > 1:
                found.append(sorted(part))
    for v in sorted(edges):
        if v not in index:
            strong(v)
    return found


def test_no_module_level_import_cycle():
    edges = module_imports()
    assert len(edges) > 100 and sum(map(len, edges.values())) > 300  # the parse found the modules and their imports
    cycles = import_cycles(edges)
    assert not cycles, "module-level import cycles (move one import into the function that needs it, or move " \
        "the shared piece down a layer):\n" + "\n".join(
            "  " + "; ".join(f"{m} → {', '.join(sorted(edges[m] & set(part)))}" for m in part) for part in cycles)


def test_the_cycle_check_finds_a_cycle_and_ignores_imports_in_functions(tmp_path):
    """The check can fail: a → b → a at module level (one import relative, one in a try block) is
    a cycle; the same import inside a function, or under TYPE_CHECKING, is not."""
    (tmp_path / "ranking").mkdir()
    (tmp_path / "ranking" / "__init__.py").write_text("")
    (tmp_path / "ranking" / "a.py").write_text("from . import b\n")
    (tmp_path / "ranking" / "b.py").write_text("try:\n    from humeval.ranking.a import f\nexcept ImportError:\n    pass\n")
    assert import_cycles(module_imports(tmp_path)) == [["humeval.ranking.a", "humeval.ranking.b"]]
    (tmp_path / "ranking" / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                               "    from humeval.ranking.a import f\n\n\n"
                                               "def g():\n    from humeval.ranking.a import f\n")
    assert module_imports(tmp_path)["humeval.ranking.a"] == {"humeval.ranking.b"}
    assert import_cycles(module_imports(tmp_path)) == []
