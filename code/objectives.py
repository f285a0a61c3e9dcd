"""The five RL objectives of the book, by key and by the name a reader sees.

One table, read by the code that trains (``rl_reasoner``'s objective switch), the code that
reads the recorded runs (``r1_runs``) and the chapters. It imports nothing, so reading a label
never loads the training code.
"""

from __future__ import annotations

#: Key -> display name, in the order the chapters introduce the objectives (chapters 4 to 8).
OBJECTIVE_LABELS: dict[str, str] = {
    "grpo": "GRPO",
    "dr_grpo": "Dr. GRPO",
    "dapo": "DAPO",
    "gspo": "GSPO",
    "cispo": "CISPO",
}

#: The keys alone, in the same order: what a config's ``objective`` field may hold.
OBJECTIVES: tuple[str, ...] = tuple(OBJECTIVE_LABELS)
