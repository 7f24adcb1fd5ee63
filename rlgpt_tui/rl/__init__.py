"""PPO with coded actions: the action space of the world's primitives and the coded actions
(``episodes.py``, its research levers in ``hooks.py``, SB3's side in ``vec_env.py``), PPO
on each env's own clock (``rollout.py``) as a tool (``train.py``, configured by
``config.py``), RL that starts from the code (``prior.py``), an action head that grows with
the coded actions (``growth.py``), and trained policies as data for the skill library
(``policyfile.py``, ``weights.py``)."""
