"""Shared fixtures: each chapter executed once per session, one local server, one Chromium."""

from __future__ import annotations

import itertools
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # `from booktools import ...`, the tooling shared with scripts/
# Test this checkout's modules, whatever `pip install -e` last pointed at: in this process and in
# the Jupyter kernels it starts (they inherit the environment).
sys.path.insert(0, str(ROOT / "code"))
os.environ["PYTHONPATH"] = os.pathsep.join(
    [str(ROOT / "code"), *filter(None, [os.environ.get("PYTHONPATH")])]
)

from booktools.harness.kernel import ChapterRun, run_chapter  # noqa: E402
from booktools.qmd import book_chapters  # noqa: E402, F401  (the tests take it from here)

_runs: dict[str, ChapterRun] = {}


def chapter_path(stem: str) -> Path:
    """A chapter by stem ("02-self-consistency"), or a harness fixture ("fixtures/harness-ok")."""
    if stem.startswith("fixtures/"):
        return ROOT / "tests" / f"{stem}.qmd"
    return ROOT / "chapters" / f"{stem}.qmd"


def executed(stem: str) -> ChapterRun:
    """Execute a chapter in a fresh Jupyter kernel (once per session) and return the run."""
    if stem not in _runs:
        _runs[stem] = run_chapter(chapter_path(stem))
    return _runs[stem]


@pytest.fixture(scope="session")
def server():
    from booktools.harness.server import BookServer

    srv = BookServer()
    yield srv
    srv.close()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    from booktools.harness.browser import CHROMIUM_ARGS, build_runner, chromium_path

    build_runner()
    pw = sync_playwright().start()
    chromium = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
    yield chromium
    chromium.close()
    pw.stop()


@pytest.fixture(scope="session")
def open_chapter(browser, server):
    """open_chapter(stem) -> ChapterPage with the chapter's OJS running on its Python payload.

    open_chapter(stem, width=400, full=True) opens the whole page (booktools.harness.page: prose,
    KaTeX, printed outputs, Quarto's layout) in a viewport of that width instead.
    """
    from booktools.harness.browser import ChapterPage

    pages = {}

    def _open(
        stem: str, fresh: bool = False, width: int = 900, full: bool | None = None
    ) -> ChapterPage:
        if full is None:  # HARNESS_FULL_PAGE=1 runs every widget test on the full page
            full = os.environ.get("HARNESS_FULL_PAGE") == "1"
        key = (stem, width, full)
        if fresh or key not in pages:
            context = browser.new_context(viewport={"width": width, "height": 1200})
            pages[key] = ChapterPage(context.new_page(), executed(stem), server, full=full)
        return pages[key]

    return _open


class JsModules:
    """Call widget modules' exports in Chromium, many argument tuples per round trip."""

    def __init__(self, page, origin: str):
        self.page, self.origin = page, origin

    def call_many(self, module: str, export: str, arg_lists: list[list]) -> list:
        return self.page.evaluate(
            """async ([url, name, argLists]) => {
                 const fn = (await import(url))[name];
                 if (typeof fn !== 'function') throw new Error(`${url} exports no function ${name}`);
                 return argLists.map(args => {
                   try { return fn(...args); } catch (e) { return {error: String(e.message)}; }
                 });
               }""",
            [f"{self.origin}/widgets/{module}", export, arg_lists],
        )

    def call(self, module: str, export: str, *args):
        return self.call_many(module, export, [list(args)])[0]


@pytest.fixture(scope="session")
def js(browser, server):
    """A blank page on the book's server, for testing widget maths against Python."""
    server.pages["/chapters/blank.html"] = (
        "<!doctype html><html><head><link rel='icon' href='data:,'></head><body></body></html>"
    )
    page = browser.new_context().new_page()
    page.goto(server.origin + "/chapters/blank.html")
    return JsModules(page, server.origin)


# --- chapter 2's tiny reasoner (data/tiny_reasoner.json) ---------------------------------------


@pytest.fixture(scope="session")
def tiny_reasoner_checkpoint():
    """The shipped tiny reasoner, loaded once per session (its SHA-256 checked): ``(model, meta)``.

    Every test that reads the checkpoint shares this one object, so none may change it: a test
    that trains takes a copy from `tiny_reasoner_copy`, and `tiny_reasoner` checks after each test
    that the weights are still the file's.
    """
    from data_paths import TINY_REASONER_PATH
    from tiny_gpt import load_checkpoint

    return load_checkpoint(TINY_REASONER_PATH)


@pytest.fixture
def tiny_reasoner(tiny_reasoner_checkpoint):
    """The shared tiny reasoner (a TinyGPT); fails the test that changed its weights."""
    import torch

    model = tiny_reasoner_checkpoint[0]
    before = {name: t.detach().clone() for name, t in model.state_dict().items()}
    yield model
    changed = [n for n, t in model.state_dict().items() if not torch.equal(t, before[n])]
    if changed:
        model.load_state_dict(before)  # the tests after this one still get the file's weights
    assert not changed, f"a test changed the shared tiny reasoner's {changed}; train a copy"


@pytest.fixture
def tiny_reasoner_copy(tiny_reasoner_checkpoint):
    """A factory of fresh copies of the tiny reasoner, for tests that train one."""
    import copy

    return lambda: copy.deepcopy(tiny_reasoner_checkpoint[0])


@pytest.fixture(scope="module")
def one_thread():
    """Decode on one torch thread for the module (opt in with
    ``pytestmark = pytest.mark.usefixtures("one_thread")``): small batches are latency-bound, and
    on a shared 2-core machine two threads spend their time waiting for each other."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


# Every Game-of-24 puzzle: four numbers from 1..13, order ignored (1,820), for game24's tests and
# the search's.
GAME24_UNIVERSE = [list(c) for c in itertools.combinations_with_replacement(range(1, 14), 4)]


def game24_level_one_states() -> list[tuple]:
    """Every state one thought away from some puzzle, each once, in first-seen order."""
    from game24 import propose_steps

    seen = {}
    for numbers in GAME24_UNIVERSE:
        for step in propose_steps(numbers):
            seen[step.state] = None
    return list(seen)
