"""scripts/setup.sh and scripts/test.sh, run with `python3 -m pip`, `npm` and the rest replaced
by shims that log their arguments: which index torch comes from, what happens when PyTorch's
index or Quarto's release cannot be reached, and when test.sh skips the set-up."""

from __future__ import annotations

import http.server
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TORCH_PIN = next(line for line in (ROOT / "requirements.txt").read_text().splitlines()
                 if line.startswith("torch=="))

SHIM = """#!{python}
import os, subprocess, sys
args = sys.argv[1:]
if os.path.basename(sys.argv[0]) == "npm":
    os.makedirs("node_modules", exist_ok=True)  # what `npm ci` leaves behind
elif args[:1] != ["-m"] and args[:1] != ["-c"] and args[:1] != ["-"]:
    sys.exit(subprocess.call([{python!r}] + args))
elif args[:1] != ["-m"]:  # python3 -c / python3 - (the set-up's own probes) really run
    sys.exit(subprocess.call([{python!r}] + args, stdin=sys.stdin))
with open(os.environ["SHIM_LOG"], "a") as log:
    log.write(os.path.basename(sys.argv[0]) + " " + " ".join(args) + "\\n")
"""


def _checkout(tmp: Path) -> Path:
    """The files the two scripts read, in a throwaway directory (nothing here is touched)."""
    repo = tmp / "repo"
    for name in ("requirements.txt", "package-lock.json", "pyproject.toml",
                 "scripts/setup.sh", "scripts/test.sh"):
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, repo / name)
    return repo


def _run(repo: Path, script: str, *args: str, **env: str) -> tuple[str, list[str]]:
    shims = repo.parent / "bin"
    shims.mkdir(exist_ok=True)
    for name in ("python3", "npm"):
        (shims / name).write_text(SHIM.format(python=sys.executable))
        (shims / name).chmod(0o755)
    log = repo.parent / "log"
    log.write_text("")
    # No `quarto` on this PATH, so the set-up always tries to install it.
    path = f"{shims}:/usr/bin:/bin"
    run = subprocess.run(["bash", f"scripts/{script}", *args], cwd=repo, capture_output=True,
                         text=True, timeout=120,
                         env={**os.environ, "PATH": path, "SHIM_LOG": str(log), **env})
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout + run.stderr, log.read_text().splitlines()


@pytest.fixture()
def torch_index(tmp_path):
    """A stand-in for PyTorch's wheel index on 127.0.0.1 (it only has to answer)."""
    (tmp_path / "index" / "torch").mkdir(parents=True)
    handler = lambda *a: http.server.SimpleHTTPRequestHandler(  # noqa: E731
        *a, directory=str(tmp_path / "index"))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/"
    server.shutdown()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_torch_comes_from_the_cpu_index_first(tmp_path, torch_index):
    out, calls = _run(_checkout(tmp_path), "setup.sh", TORCH_INDEX=torch_index)
    pips = [c for c in calls if c.startswith("python3 -m pip install")]
    assert pips[0].endswith(f"--index-url {torch_index} {TORCH_PIN}"), calls
    assert pips[1] == "python3 -m pip install -q -r requirements.txt", calls
    assert "npm ci --no-audit --no-fund --loglevel=error" in calls


def test_the_default_torch_index_is_pytorchs_cpu_one():
    text = (ROOT / "scripts/setup.sh").read_text()
    assert 'TORCH_INDEX="${TORCH_INDEX-https://download.pytorch.org/whl/cpu}"' in text


def test_unreachable_torch_index_falls_back_fast_in_one_line(tmp_path):
    index = f"http://127.0.0.1:{_closed_port()}/whl/cpu"
    start = time.monotonic()
    out, calls = _run(_checkout(tmp_path), "setup.sh", TORCH_INDEX=index)
    assert time.monotonic() - start < 60
    assert [line for line in out.splitlines() if index in line] == [
        f"!! {index} unreachable: {TORCH_PIN} comes from pip's configured index "
        "(check it is the CPU build you want)"]
    assert not any("--index-url" in c for c in calls), calls
    assert "python3 -m pip install -q -r requirements.txt" in calls


def test_empty_torch_index_means_the_configured_index(tmp_path):
    out, calls = _run(_checkout(tmp_path), "setup.sh", TORCH_INDEX="")
    assert not any("--index-url" in c for c in calls), calls
    assert "unreachable: torch" not in out, out


def test_quarto_is_installed_or_reported_in_one_line(tmp_path):
    out, calls = _run(_checkout(tmp_path), "setup.sh", TORCH_INDEX="")
    quarto = [line for line in out.splitlines() if "Quarto 1.7.34" in line]
    assert len(quarto) == 1, out
    installed = any("quarto-cli==1.7.34" in c for c in calls)
    # Here GitHub is unreachable: one "!!" line, no pip call; with internet pip installs it.
    assert quarto[0].startswith("==> ") if installed else quarto[0].startswith("!! "), out


def test_test_sh_skips_the_set_up_when_nothing_changed(tmp_path):
    repo = _checkout(tmp_path)
    env = {"TORCH_INDEX": ""}
    _, calls = _run(repo, "test.sh", "-m", "not browser", **env)
    assert "python3 -m pip install -q -r requirements.txt" in calls  # a clean clone sets up
    assert calls[-1] == "python3 -m pytest -q -p no:cacheprovider -m not browser", calls
    out, calls = _run(repo, "test.sh", **env)
    assert not any("pip" in c for c in calls) and "set-up skipped" in out, calls
    (repo / "requirements.txt").write_text((repo / "requirements.txt").read_text() + "# x\n")
    _, calls = _run(repo, "test.sh", **env)
    assert any("pip install -q -r" in c for c in calls), "a changed requirements.txt sets up"
    _, calls = _run(repo, "test.sh", **env)
    assert not any("pip" in c for c in calls)
    shutil.rmtree(repo / "node_modules")
    _, calls = _run(repo, "test.sh", **env)
    assert any("pip install -q -r" in c for c in calls), "a wiped node_modules sets up"
    _, calls = _run(repo, "test.sh", FORCE_SETUP="1", **env)
    assert any("pip install -q -r" in c for c in calls)


def test_the_commands_are_executable_in_git():
    """`.ci/run` is executed directly, and the README's commands may be: the mode bit must be
    in the repository, not only in one checkout (it has been dropped by mistake twice)."""
    names = [".ci/run", *(f"scripts/{p.name}" for p in (ROOT / "scripts").glob("*.sh"))]
    out = subprocess.run(["git", "ls-files", "-s", *names], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.splitlines()
    modes = {line.split("\t")[1]: line.split()[0] for line in out}
    assert set(modes) == set(names), modes
    assert all(mode == "100755" for mode in modes.values()), modes
