"""Every chapter prints the same thing on any CPU and with any number of torch threads.

A result that hinges on the last bit of a float (a ratio sitting exactly on a clip wall, a vote
tie between float scores, a sum printed to full precision) can differ between machines: ATen
picks its vector kernels by CPU capability (AVX-512, AVX2 or plain C++, each with its own exp,
log and random-normal code), and a parallel reduction rounds differently with more threads.
Chapter 9 once failed on one AMD EPYC and passed on another machine for exactly this reason.

Each chapter is run twice more besides its ordinary run (``executed(stem)``, this process's
environment: the CPU's best capability and torch's default thread count, usually all cores),
one axis changed at a time, so two extra runs cover both axes and a failure names its cause:

    ordinary run           best capability   default threads T (2 on a 2-core CI box)
    variant "threads"      best capability   1 thread (2 if T is already 1)
    variant "capability"   ATEN_CPU_CAPABILITY=default (no SIMD kernels), same threads as above

"threads" is compared with the ordinary run and "capability" with "threads". Compared exactly:
every python cell's printed output and every inline value, what the reader reads. The
``ojs_define`` payloads are compared value by value: ints, strings, keys and lengths exactly,
floats to ``PAYLOAD_RTOL`` (the widgets draw them; float32 last-bit noise is not a change).
Chapters that pin their own thread count (``torch.set_num_threads``) are not moved by the
thread axis; that pin is itself what makes them independent of it. BLAS (MKL) and numpy pick
their kernels by other switches; they are not varied here.

Cost: two extra executions of each chapter, run side by side (one thread each), so about one
more execution of the book in wall time on a 2-core machine.
"""

from __future__ import annotations

import difflib
import math
import os
from concurrent.futures import ThreadPoolExecutor

import pytest

from booktools.harness.kernel import ChapterRun, run_chapter
from conftest import book_chapters, chapter_path, executed

pytestmark = pytest.mark.slow


def _default_threads() -> int:
    """The intra-op thread count a kernel started from this process gets from torch."""
    if os.environ.get("OMP_NUM_THREADS", "").isdigit():
        return int(os.environ["OMP_NUM_THREADS"])
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


FEW_THREADS = "1" if _default_threads() != 1 else "2"
VARIANTS = {
    "threads": {"ATEN_CPU_CAPABILITY": None, "OMP_NUM_THREADS": FEW_THREADS},
    "capability": {"ATEN_CPU_CAPABILITY": "default", "OMP_NUM_THREADS": FEW_THREADS},
}
# which run each variant is compared with: the two differ in exactly one axis
COMPARED_WITH = {"threads": None, "capability": "threads"}  # None: the ordinary run

_runs: dict[str, dict[str, ChapterRun | Exception]] = {}


def variant_run(stem: str, variant: str) -> ChapterRun:
    """The chapter executed under one variant's environment (once per session).

    Both variants of a chapter run at once, one kernel each: each uses one thread (on most
    machines), so together they keep two cores busy and the check costs half the wall time.
    """
    if stem not in _runs:
        with ThreadPoolExecutor(max_workers=len(VARIANTS)) as pool:
            futures = {
                v: pool.submit(run_chapter, chapter_path(stem), env=env)
                for v, env in VARIANTS.items()
            }
            _runs[stem] = {v: f.exception() or f.result() for v, f in futures.items()}
    run = _runs[stem][variant]
    if isinstance(run, Exception):
        raise run
    return run


def describe(variant: str | None) -> str:
    """How a run was made, for failure messages."""
    if variant is None:
        return f"the ordinary run (best CPU capability, {_default_threads()} torch threads)"
    env = VARIANTS[variant]
    cap = env["ATEN_CPU_CAPABILITY"] or "best"
    return f"the {variant!r} variant (ATEN_CPU_CAPABILITY={cap}, OMP_NUM_THREADS={FEW_THREADS})"


def _python_cell_lines(run: ChapterRun) -> list[int | None]:
    cells = [c for c in run.cells if c.kind == "python" and c.options.get("eval") is not False]
    return [c.line for c in cells] if len(cells) == len(run.outputs) else [None] * len(run.outputs)


def differences(a: ChapterRun, b: ChapterRun) -> list[str]:
    """What differs between two runs of one chapter, one message per differing item."""
    name, found = a.path.name, []
    lines = _python_cell_lines(a)
    if len(a.outputs) != len(b.outputs):
        found.append(f"{name}: {len(a.outputs)} cell outputs vs {len(b.outputs)}")
    for k, (x, y) in enumerate(zip(a.outputs, b.outputs, strict=False)):
        if x != y:
            diff = difflib.unified_diff(x.splitlines(), y.splitlines(), lineterm="", n=1)
            where = f"line {lines[k]}" if k < len(lines) and lines[k] else f"python cell #{k + 1}"
            found.append(f"{name}:{where} prints differently:\n" + "\n".join(list(diff)[2:12]))
    inline_a = [(c.line, c.source, t) for c, t in a.inline]
    inline_b = [(c.line, c.source, t) for c, t in b.inline]
    for (line, src, x), (_, _, y) in zip(inline_a, inline_b, strict=False):
        if x != y:
            found.append(f"{name}:{line}: `{{python}} {src}` renders {x} vs {y}")
    if len(inline_a) != len(inline_b):
        found.append(f"{name}: {len(inline_a)} inline values vs {len(inline_b)}")
    for key in sorted({*a.defines, *b.defines}):
        where = _payload_difference(a.defines.get(key), b.defines.get(key), key)
        if where:
            found.append(f"{name}: ojs_define payload differs at {where}")
    return found


# Payloads are data the widgets draw, not text: a float may move in its last float32 bits (about
# 1e-7 relative; the learning curves of chapters 5 and 7 do between kernels) without changing the
# drawing. Anything larger, and every int, string, bool, key and length, must match exactly.
PAYLOAD_RTOL = 1e-5


def _payload_difference(x: object, y: object, path: str) -> str | None:
    """The first place two JSON values differ (floats to ``PAYLOAD_RTOL``), or None."""
    if isinstance(x, float) and isinstance(y, float):
        close = math.isclose(x, y, rel_tol=PAYLOAD_RTOL, abs_tol=1e-12)
        return None if close else f"{path}: {x!r} vs {y!r}"
    if type(x) is not type(y):
        return f"{path}: {x!r} vs {y!r}"
    if isinstance(x, dict):
        if list(x) != list(y):
            return f"{path}: keys {list(x)} vs {list(y)}"
        pairs = [(x[k], y[k], f"{path}.{k}") for k in x]
    elif isinstance(x, list):
        if len(x) != len(y):
            return f"{path}: {len(x)} items vs {len(y)}"
        pairs = [(u, v, f"{path}[{i}]") for i, (u, v) in enumerate(zip(x, y, strict=True))]
    else:
        return None if x == y else f"{path}: {x!r} vs {y!r}"
    for u, v, where in pairs:
        if found := _payload_difference(u, v, where):
            return found
    return None


def check_same(stem: str, variant: str) -> None:
    """Fail, naming the axis, if ``variant`` changes anything the chapter shows."""
    base_variant = COMPARED_WITH[variant]
    base = executed(stem) if base_variant is None else variant_run(stem, base_variant)
    try:
        other = variant_run(stem, variant)
    except Exception as exc:  # the chapter itself breaks: say under which environment
        pytest.fail(
            f"{stem} fails under {describe(variant)} but not under "
            f"{describe(base_variant)}:\n{str(exc)[-2000:]}"
        )
    found = differences(base, other)
    assert not found, (
        f"{stem}: {describe(variant)} differs from {describe(base_variant)}; a result hinges on "
        "the last bits of a float (a value on a threshold, a tie, or too many digits printed):\n"
        + "\n".join(found)
    )


CHAPTERS = [p.stem for p in book_chapters()]


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("stem", CHAPTERS)
def test_chapter_output_is_machine_independent(stem: str, variant: str) -> None:
    check_same(stem, variant)


# ------------------------------------------------------------------ the check can fail


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_check_catches_each_axis(variant: str) -> None:
    import torch

    if variant == "capability" and torch.backends.cpu.get_cpu_capability() == "DEFAULT":
        pytest.skip("this CPU's best capability is the plain one: nothing to compare")
    # The fixture prints a million-term sum to the last bit (rounds differently with 1 and 2
    # threads) and a 64-draw randn sum to 7 decimals (differs between SIMD and plain kernels).
    stem = "fixtures/harness-machine-sensitive"
    with pytest.raises(AssertionError, match=variant) as caught:
        check_same(stem, variant)
    expected = "sum of a million uniforms" if variant == "threads" else "capability_sum"
    assert expected in str(caught.value)


def test_payload_comparison_tolerates_only_last_bit_noise() -> None:
    curve = [{"step": 1, "p": 0.7375766038894653, "label": "GRPO"}]
    noisy = [{"step": 1, "p": 0.7375767230987549, "label": "GRPO"}]  # float32 last bits (ch04)
    assert _payload_difference(curve, noisy, "curve") is None
    assert "curve[0].p" in _payload_difference(curve, [{**curve[0], "p": 0.7376}], "curve")
    assert "step" in _payload_difference(curve, [{**curve[0], "step": 2}], "curve")
    assert "kept" in _payload_difference({"kept": 3}, {"kept": 2}, "d")  # a count that flipped
    assert "items" in _payload_difference([1, 2], [1], "xs")
    assert "keys" in _payload_difference({"a": 1}, {"b": 1}, "d")
    assert _payload_difference(1, 1.0, "x")  # an int that became a float is a change too
