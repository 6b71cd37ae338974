"""Wolfram|Alpha's common task as a prompt a person picks in a client."""

from __future__ import annotations

from toolspecs.core.prompts import PromptArgument, TaskPrompt

COMPUTE = TaskPrompt(
    name="compute",
    title="Compute with Wolfram|Alpha",
    description="An exact answer to a question of maths, science, units or data.",
    template=(
        "Answer with {wolfram_alpha_query}, not from memory: {question}. Send it as a short "
        "query in English. Give the answer with its units, and say how Wolfram|Alpha "
        "read the question."
    ),
    uses=("wolfram_alpha_query",),
    arguments=(PromptArgument("question", "e.g. 'distance from Earth to Mars today'."),),
)

PROMPTS = (COMPUTE,)
