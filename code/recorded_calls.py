"""The slow calls the chapters show and read back with ``recorded(fn, **kwargs)``, listed.

This is the producer's side of ``code/recorded.py``: the data graph's ``recorded_calls`` job runs
each call of :func:`recorded_calls` and stores it in ``data/recorded_calls.json``, which
``recorded`` (the reader, which imports none of these modules) looks calls up in. To show a new
slow call in a chapter, add it here, argument for argument as the chapter makes it, and record it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["recorded_calls"]


def recorded_calls() -> list[tuple[Callable, dict[str, Any]]]:
    """Every call the data graph's ``recorded_calls`` job runs and stores, in the file's order.

    Returns:
        ``(fn, kwargs)`` pairs. Each is the call its chapter makes, argument for argument, so the
        chapter's ``recorded(fn, **kwargs)`` finds it; ``tests/test_recorded.py`` checks the
        file holds exactly these and reruns them.
    """
    # Imported here, not at the top: importing this list costs nothing until it is run.
    from dr_grpo import length_drift_simulation
    from grpo import grpo_learning_curves
    from gspo import demonstrate_gspo, demonstrate_length_variance, demonstrate_token_grpo
    from prm import demonstrate_prm

    # Chapter 6: when to stop, trained under GRPO and Dr. GRPO (Dr. GRPO's rate is scaled by
    # 2 * cap / start so that a token of a start-length chain takes GRPO's step).
    drift = {"steps": 200, "group_size": 16, "start_length": 20.0, "max_len": 1000}
    return [
        # Chapter 5: GRPO's learning curves over group size and KL weight (the widget's grid).
        (
            grpo_learning_curves,
            {"group_sizes": (4, 16, 64), "betas": (0.0, 0.04, 1.0), "steps": 40},
        ),
        (length_drift_simulation, {"method": "grpo", **drift, "lr": 0.5}),
        (length_drift_simulation, {"method": "dr_grpo", **drift, "lr": 0.5 * 2 * 1000 / 20.0}),
        # Chapter 7: the variance law's Monte-Carlo dots, one sweep over lengths per variance v.
        *(
            (demonstrate_length_variance, {"v": round(0.02 * k, 2), "num_samples": 4000, "seed": 0})
            for k in range(1, 6)
        ),
        # Chapter 7: how much of the training each trust region clips, three 40-step runs.
        (demonstrate_gspo, {"steps": 40, "verbose": False, "eps_low": 0.2, "eps_high": 0.2}),
        (demonstrate_gspo, {"steps": 40, "verbose": False, "eps_low": 3e-4, "eps_high": 4e-4}),
        (demonstrate_token_grpo, {"steps": 40, "verbose": False, "eps_low": 0.2, "eps_high": 0.2}),
        # Chapter 11: the reranking experiment on three more draws (seed 0 runs in the chapter).
        *((demonstrate_prm, {"seed": s}) for s in (1, 2, 3)),
    ]
