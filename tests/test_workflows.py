"""The GitHub Actions workflows: valid against GitHub's workflow schema (SchemaStore's
github-workflow.json, vendored by check-jsonschema, so no network), and the book's workflow
tests, renders with the pinned Quarto and checks every page before anything is published."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted((ROOT / ".github/workflows").glob("*.yml"))
QUARTO = "1.7.34"

pytest.importorskip("check_jsonschema")


def schema_errors(*paths: Path) -> str:
    """check-jsonschema's report on the files against its vendored copy of the schema, or ''."""
    run = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows",
         *map(str, paths)], capture_output=True, text=True, timeout=120)
    return "" if run.returncode == 0 else run.stdout + run.stderr


def _load(path: Path) -> dict:
    data = yaml.safe_load(path.read_text())
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads the key `on` as True
    return data


def _steps(job: dict) -> list[dict]:
    return job.get("steps", [])


def _runs(job: dict) -> str:
    return "\n".join(step.get("run", "") for step in _steps(job))


def _uses(job: dict, action: str) -> list[dict]:
    return [s for s in _steps(job) if s.get("uses", "").startswith(action + "@")]


def test_every_workflow_matches_githubs_schema():
    assert WORKFLOWS
    errors = schema_errors(*WORKFLOWS)
    assert not errors, errors


def test_the_schema_check_fails_on_a_broken_workflow(tmp_path):
    broken = tmp_path / "broken.yml"
    text = (ROOT / ".github/workflows/book.yml").read_text()
    broken.write_text(text.replace("runs-on: ubuntu-latest", "runs_on: ubuntu-latest", 1))
    assert "runs-on" in schema_errors(broken)
    broken.write_text(text.replace("  pull_request:\n", "  pull_requests:\n", 1))
    assert schema_errors(broken)


def book_jobs_problems(workflow: dict) -> list[str]:
    """What the book's workflow must do, beyond the schema."""
    problems = []
    on = workflow["on"] or {}
    for event in ("pull_request", "push"):
        if event not in on:
            problems.append(f"not run on {event}")
    jobs = workflow["jobs"]
    tests = [n for n, j in jobs.items() if re.search(r"(^|\s)\.ci/run\b", _runs(j))]
    renders = [n for n, j in jobs.items() if re.search(r"\bquarto render\b", _runs(j))]
    if not tests:
        problems.append("no job runs .ci/run")
    for name in renders:
        job = jobs[name]
        setup = _uses(job, "quarto-dev/quarto-actions/setup")
        version = str((setup[0].get("with") or {}).get("version", "")) if setup else ""
        if "env." in version:  # ${{ env.QUARTO_VERSION }}
            version = workflow.get("env", {}).get("QUARTO_VERSION", "")
        if version != QUARTO:
            problems.append(f"{name}: Quarto not pinned to {QUARTO} (got {version!r})")
        runs = _runs(job)
        if not re.search(r"scripts/check_site\.py _book\b", runs):
            problems.append(f"{name}: renders but never opens the pages (scripts/check_site.py)")
        elif runs.index("quarto render") > runs.index("scripts/check_site.py"):
            problems.append(f"{name}: checks the pages before rendering them")
        if not any((s.get("with") or {}).get("cache") == "pip"
                   for s in _uses(job, "actions/setup-python")):
            problems.append(f"{name}: no pip cache")
    if not renders:
        problems.append("no job runs quarto render")
    for name, job in jobs.items():
        nodes = _uses(job, "actions/setup-node")
        cached = nodes and all((s.get("with") or {}).get("cache") == "npm" for s in nodes)
        if not cached and ("npm ci" in _runs(job) or ".ci/run" in _runs(job)):
            problems.append(f"{name}: installs npm packages without an npm cache")
    deploys = [n for n, j in jobs.items() if _uses(j, "actions/deploy-pages")]
    if not deploys:
        problems.append("nothing deploys the site")
    for name in deploys:
        needs = jobs[name].get("needs", [])
        needs = [needs] if isinstance(needs, str) else needs
        for required in tests + renders:
            if required not in needs:
                problems.append(f"{name}: deploys without waiting for {required}")
        if "refs/heads/main" not in str(jobs[name].get("if", "")):
            problems.append(f"{name}: deploys from any branch or pull request")
    for name, job in jobs.items():
        needs = job.get("needs", [])
        for need in [needs] if isinstance(needs, str) else needs:
            if need not in jobs:
                problems.append(f"{name}: needs {need!r}, which is no job")
    return problems


def test_the_book_workflow_tests_renders_and_checks_before_it_deploys():
    problems = book_jobs_problems(_load(ROOT / ".github/workflows/book.yml"))
    assert not problems, problems


def test_the_workflow_check_fails_on_a_workflow_that_deploys_untested():
    workflow = _load(ROOT / ".github/workflows/book.yml")
    workflow["jobs"]["deploy"]["needs"] = ["site"]
    assert book_jobs_problems(workflow) == ["deploy: deploys without waiting for test"]
    workflow = _load(ROOT / ".github/workflows/book.yml")
    for step in workflow["jobs"]["site"]["steps"]:
        step.get("with", {}).pop("version", None)
    assert any("Quarto not pinned" in p for p in book_jobs_problems(workflow))


def test_the_old_publish_only_workflow_fails_the_check():
    """The workflow this one replaced rendered and deployed, never testing anything."""
    old = subprocess.run(["git", "show", "e031283:.github/workflows/publish.yml"], cwd=ROOT,
                         capture_output=True, text=True)
    if old.returncode:
        pytest.skip("history not available (shallow clone)")
    data = yaml.safe_load(old.stdout)
    data["on"] = data.pop(True)
    problems = book_jobs_problems(data)
    assert "not run on pull_request" in problems and "no job runs .ci/run" in problems
