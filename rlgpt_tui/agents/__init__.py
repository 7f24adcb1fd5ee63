"""The agents: RL-GPT's four roles, one folder each, each with its interface (``base.py``),
its builtin implementation (``builtin.py``, no LLM) and its LLM one (``llm.py``):

- ``slow/``: the slow agent, which plans sub-actions, code or RL, and revises the plan;
- ``fast/``: the fast agent, which writes the code and the RL configurations;
- ``critic/``: the critic, which judges each sub-action from its runs;
- ``planner/``: the task planner, which orders sub-tasks for long-horizon goals.

What the roles share sits here: the team the engine drives (``team.py``; assembled by
``builtin_team.py`` and ``llm_team.py``), what they exchange (``schemas.py``), what runs
of coded actions show (``runs.py``), checks every LLM answer passes (``grounding.py``),
and the LLM roles' common base and prompts (``llm_role.py``, ``prompts.py``).
"""
