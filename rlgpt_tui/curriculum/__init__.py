"""Lifelong learning of a world: a curriculum agent proposes the next task from the world's
prerequisites, the library's measured records and how recent episodes ended; the learn loop
runs an ordinary session for each choice and records it (``rlgpt-tui learn``)."""

from rlgpt_tui.curriculum.agents import (
    BuiltinCurriculum,
    CurriculumAgent,
    CurriculumAnswer,
    LLMCurriculum,
    Proposal,
)
from rlgpt_tui.curriculum.frontier import (
    FAILED,
    NOT_TRIED,
    REACHED,
    TRYING,
    CurriculumState,
    FrontierRow,
    curriculum_tasks,
    frontier_rows,
)

__all__ = [
    "FAILED",
    "NOT_TRIED",
    "REACHED",
    "TRYING",
    "BuiltinCurriculum",
    "CurriculumAgent",
    "CurriculumAnswer",
    "CurriculumState",
    "FrontierRow",
    "LLMCurriculum",
    "Proposal",
    "curriculum_tasks",
    "frontier_rows",
]
