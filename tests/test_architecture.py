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
