"""The steps of one iteration, each a function of a :class:`~.context.StepContext` and its
inputs that returns its results: the plan step (``plan``), the code step with its inner
code loop (``code``), the RL step with its inner RL loop (``rl``), the evaluation
(``evaluation``), the critic (``critic``) and a person's edits where they apply
(``edits``)."""
