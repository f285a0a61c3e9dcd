"""Every script in scripts/ parses its arguments: `--help` prints its usage and changes nothing,
and an unknown option is refused (exit 2) before any work. Each runs in a subprocess inside a
copy of the checkout, whose every file is compared before and after."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "scripts"
PY_SCRIPTS = sorted(p.name for p in SCRIPTS.glob("*.py") if "__main__" in p.read_text())
HELPERS = sorted(p.name for p in SCRIPTS.glob("*.py") if p.name not in PY_SCRIPTS)
SH_SCRIPTS = sorted(p.name for p in SCRIPTS.glob("*.sh"))


def _tracked() -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    return [p for p in out.stdout.decode().split("\0") if p and (ROOT / p).is_file()]


def _snapshot(root: Path) -> dict[str, tuple[int, str]]:
    """Every file under root (node_modules aside): its mtime and content hash."""
    files = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in ("node_modules", "__pycache__")]
        for name in filenames:
            path = Path(dirpath, name)
            files[str(path.relative_to(root))] = (
                path.stat().st_mtime_ns, hashlib.sha256(path.read_bytes()).hexdigest())
    return files


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    copy = tmp_path_factory.mktemp("checkout")
    for rel in _tracked():
        (copy / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, copy / rel)
    (copy / "node_modules").symlink_to(ROOT / "node_modules")
    return copy


def _command(script: str, *args: str) -> list[str]:
    if script.endswith(".sh"):
        return ["bash", f"scripts/{script}", *args]
    return [sys.executable, f"scripts/{script}", *args]


def _run_all(checkout: Path, scripts: list[str], *args: str) -> dict:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}

    def run(script: str) -> subprocess.CompletedProcess:
        try:
            return subprocess.run(_command(script, *args), cwd=checkout, capture_output=True,
                                  text=True, timeout=90, env=env)
        except subprocess.TimeoutExpired:
            return subprocess.CompletedProcess(script, -1, "", "still running after 90 s")

    with ThreadPoolExecutor(max_workers=3) as pool:
        return dict(zip(scripts, pool.map(run, scripts), strict=True))


def test_the_helpers_are_imported_not_run():
    """A .py in scripts/ without a __main__ block is a helper the scripts import."""
    for helper in HELPERS:
        stem = helper.removesuffix(".py")
        assert any(f"from {stem} import" in (SCRIPTS / s).read_text() for s in PY_SCRIPTS), (
            f"scripts/{helper} has no `if __name__ == '__main__':` and no script imports it")


@pytest.mark.slow  # 20 interpreters, most importing torch: about 30 s on an idle machine
def test_help_prints_usage_and_changes_nothing(checkout):
    before = _snapshot(checkout)
    runs = _run_all(checkout, PY_SCRIPTS + SH_SCRIPTS, "--help")
    changed = sorted(k for k, v in _snapshot(checkout).items() if before.get(k) != v)
    assert not changed, f"`--help` wrote or touched {changed}"
    for script, run in runs.items():
        assert run.returncode == 0, f"{script} --help: exit {run.returncode}\n{run.stderr[-2000:]}"
        if script.endswith(".py"):
            assert run.stdout.startswith("usage:"), f"{script} --help printed no argparse usage"
        else:
            assert f"bash scripts/{script}" in run.stdout, f"{script} --help printed no usage"


@pytest.mark.slow
def test_unknown_options_are_refused_before_any_work(checkout):
    before = _snapshot(checkout)
    # Not test.sh: its arguments go to pytest, after the set-up (npm ci) has run.
    scripts = [s for s in PY_SCRIPTS + SH_SCRIPTS if s != "test.sh"]
    runs = _run_all(checkout, scripts, "--no-such-option")
    changed = sorted(k for k, v in _snapshot(checkout).items() if before.get(k) != v)
    assert not changed, f"an unknown option wrote or touched {changed}"
    for script, run in runs.items():
        assert run.returncode == 2, f"{script} --no-such-option: exit {run.returncode}"
