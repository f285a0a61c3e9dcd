"""Write data/recorded_calls.json: the slow calls the chapters show, run once.

    python scripts/record_calls.py           # writes data/recorded_calls.json
    python scripts/record_calls.py --check   # exit 1 if the file is stale

A chapter wraps each of these calls in ``recorded(fn, **kwargs)`` (code/recorded.py), which
looks the call up here instead of training or sweeping on every render. Every call below is the
one its chapter makes, argument for argument; a chapter whose call is missing fails with the
call's name, and tests/test_recorded.py reruns them all against the file.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "code"))

from dr_grpo import length_drift_simulation  # noqa: E402
from grpo import grpo_learning_curves  # noqa: E402
from gspo import demonstrate_gspo, demonstrate_length_variance, demonstrate_token_grpo  # noqa: E402
from prm import demonstrate_prm  # noqa: E402
from recorded import RECORD_PATH, call_arguments, call_name  # noqa: E402

# Chapter 5: when to stop, trained under GRPO and Dr. GRPO (Dr. GRPO's rate is scaled by
# 2 * cap / start so that a token of a start-length chain takes GRPO's step).
_DRIFT = {"steps": 200, "group_size": 16, "start_length": 20.0, "max_len": 1000}

CALLS = [
    # Chapter 4: GRPO's learning curves over group size and KL weight (the widget's grid).
    (grpo_learning_curves, {"group_sizes": (4, 16, 64), "betas": (0.0, 0.04, 1.0), "steps": 40}),
    (length_drift_simulation, {"method": "grpo", **_DRIFT, "lr": 0.5}),
    (length_drift_simulation, {"method": "dr_grpo", **_DRIFT, "lr": 0.5 * 2 * 1000 / 20.0}),
    # Chapter 6: the variance law's Monte-Carlo dots, one sweep over lengths per variance v.
    *(
        (demonstrate_length_variance, {"v": round(0.02 * k, 2), "num_samples": 4000, "seed": 0})
        for k in range(1, 6)
    ),
    # Chapter 6: how much of the training each trust region clips, three 40-step runs.
    (demonstrate_gspo, {"steps": 40, "verbose": False, "clip_low": 0.2, "clip_high": 0.2}),
    (demonstrate_gspo, {"steps": 40, "verbose": False, "clip_low": 3e-4, "clip_high": 4e-4}),
    (demonstrate_token_grpo, {"steps": 40, "verbose": False, "clip_eps": 0.2}),
    # Chapter 10: the reranking experiment on three more draws (seed 0 runs in the chapter).
    *((demonstrate_prm, {"seed": s}) for s in (1, 2, 3)),
]


def record(fn, kwargs: dict) -> dict:
    """Run one call; its entry in the file."""
    return {
        "function": call_name(fn),
        "arguments": call_arguments(fn, **kwargs),
        "result": json.loads(json.dumps(fn(**kwargs))),
    }


def build() -> dict:
    """Every call of ``CALLS``, run in order."""
    return {"generated_by": "scripts/record_calls.py", "calls": [record(f, kw) for f, kw in CALLS]}


if __name__ == "__main__":
    from data_file import write_or_check  # scripts/, on the path when run as a script

    write_or_check(RECORD_PATH, build, __doc__.splitlines()[0])
