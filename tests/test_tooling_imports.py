"""The book's tooling never imports its tests: no file in scripts/ or booktools/ imports tests/.

`booktools/` (the chapter reader, the notebook builder, the harness that imitates Quarto) is what
the scripts and the tests share; the tests import it, never the other way round. A script that
puts tests/ on `sys.path` and imports `harness` or `conftest` from there makes the book's command
lines depend on its test suite, which is what moving the harness into `booktools/` undid.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOLING = sorted(p for folder in ("scripts", "booktools") for p in (ROOT / folder).rglob("*.py"))


def _test_module_names() -> set[str]:
    """What a file could import from tests/ once tests/ is on sys.path (and the folder itself)."""
    names = {"tests", "conftest", "harness"}  # harness: the old tests/harness package
    for p in (ROOT / "tests").iterdir():
        if p.suffix == ".py" or (p.is_dir() and (p / "__init__.py").exists()):
            names.add(p.stem)
    return names


def _tests_on_path(node: ast.Call, source: str) -> bool:
    """`sys.path.insert(0, str(ROOT / "tests"))` or `.append(...)` naming the tests folder."""
    f = node.func
    if not (isinstance(f, ast.Attribute) and f.attr in ("insert", "append")
            and ast.unparse(f.value) == "sys.path"):
        return False
    return any(isinstance(c, ast.Constant) and isinstance(c.value, str)
               and c.value.strip("/").split("/")[-1] == "tests"
               for arg in node.args for c in ast.walk(arg))


def offences(path: Path) -> list[str]:
    """Each line of `path` that imports from tests/ or puts tests/ on sys.path."""
    source = path.read_text(encoding="utf-8")
    names = _test_module_names()
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source, filename=str(path))):
        if isinstance(node, ast.Import):
            mods = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            mods = [node.module]
        elif isinstance(node, ast.Call) and _tests_on_path(node, source):
            found.append((node.lineno, "puts tests/ on sys.path"))
            continue
        else:
            continue
        for mod in mods:
            if mod.split(".")[0] in names:
                found.append((node.lineno, f"imports {mod} (a test module)"))
    return [f"line {n}: {what}" for n, what in sorted(found)]


def test_tooling_files_are_found():
    assert any(p.parent.name == "scripts" for p in TOOLING)
    assert any(p.parts[-2] == "booktools" for p in TOOLING)


@pytest.mark.parametrize("path", TOOLING, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_tooling_file_imports_tests(path: Path):
    bad = offences(path)
    assert not bad, (
        f"{path.relative_to(ROOT)} depends on the test suite: {'; '.join(bad)}. Import the "
        "harness as booktools.harness (put the project root on sys.path, not tests/)."
    )


def _module_names(folder: str) -> set[str]:
    return {p.stem for p in (ROOT / folder).glob("*.py")}


@pytest.mark.parametrize("path", sorted((ROOT / "booktools").rglob("*.py")),
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_booktools_imports_neither_the_book_nor_its_scripts(path: Path):
    """CONTRIBUTING: booktools imports nothing from code/ (the book's subject) or scripts/."""
    banned = _module_names("code") | _module_names("scripts")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bad = sorted(
        f"line {node.lineno}: imports {mod}"
        for node in ast.walk(tree)
        for mod in ([a.name for a in node.names] if isinstance(node, ast.Import) else
                    [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0
                    and node.module else [])
        if mod.split(".")[0] in banned
    )
    assert not bad, f"{path.relative_to(ROOT)} imports the book or a script: {'; '.join(bad)}"


def test_the_check_catches_a_script_that_imports_the_harness(tmp_path):
    bad = tmp_path / "script.py"
    bad.write_text(
        "import sys\nsys.path.insert(0, str(ROOT / 'tests'))\n"
        "from harness.kernel import run_chapter\nimport conftest\n"
        "from booktools.harness.kernel import run_chapter\n"
    )
    assert [o.split(":")[0] for o in offences(bad)] == ["line 2", "line 3", "line 4"]
