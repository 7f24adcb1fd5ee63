"""The two loops of RL-GPT (``engine.py``): the outer loop plans and revises, the inner
loops write, run, judge and repair each sub-action, one function per step in ``steps/``;
beside them the task planner's chain (``chain.py``), the control plane of a run's pauses
and human edits (``control.py``), the typed events it emits (``events.py``) and the final
choice of a solution (``choice.py``)."""
