"""The five RL objectives of the book, by key and by the name a reader sees.

One table, read by the code that trains (``rl_reasoner``'s objective switch), the code that
reads the recorded runs (``r1_runs``) and the chapters. It imports nothing, so reading a label
never loads the training code.
"""

from __future__ import annotations

#: Key -> display name, in the order the chapters introduce the objectives (chapters 5 to 9).
OBJECTIVE_LABELS: dict[str, str] = {
    "grpo": "GRPO",
    "dr_grpo": "Dr. GRPO",
    "dapo": "DAPO",
    "gspo": "GSPO",
    "cispo": "CISPO",
}

#: The keys alone, in the same order: what a config's ``objective`` field may hold.
OBJECTIVES: tuple[str, ...] = tuple(OBJECTIVE_LABELS)

#: What a trainer accepts (``rl_reasoner.RLConfig``, the browser trainer
#: ``widgets/rl_trainer_math.js``): the five and REINFORCE with a group-mean baseline
#: (``policy_gradient.py``). REINFORCE has no recorded run, so it stays out of ``OBJECTIVES``,
#: which ``r1_runs``, ``r1_experiments``, the chapters and their tests iterate expecting one.
TRAINER_OBJECTIVE_LABELS: dict[str, str] = {**OBJECTIVE_LABELS, "reinforce": "REINFORCE"}
TRAINER_OBJECTIVES: tuple[str, ...] = tuple(TRAINER_OBJECTIVE_LABELS)
