"""Record Views from real Craftax-Classic episodes into rlgpt_tui/assets/views (for dry runs).

Usage: python scripts/record_views.py
"""

import json

import numpy as np

from rlgpt_tui.envs.craftax_world import CraftaxWorld
from rlgpt_tui.skills.runtime import RECORDED_VIEWS


def main() -> None:
    world = CraftaxWorld(num_envs=8, seed=7)
    world.reset(7)
    rng = np.random.default_rng(7)
    views = []
    for step in range(400):
        world.step(rng.integers(0, 5, world.num_envs))
        if step % 100 == 0:
            views.extend(world.views([0, 1, 2, 3]))
    # one view with a full inventory, so recipes and placements get exercised too
    rich = views[-1].to_dict()
    rich["inventory"] = {k: 3 for k in rich["inventory"]}
    RECORDED_VIEWS.parent.mkdir(parents=True, exist_ok=True)
    RECORDED_VIEWS.write_text(json.dumps([v.to_dict() for v in views] + [rich]))
    print(f"wrote {len(views) + 1} views to {RECORDED_VIEWS}")


if __name__ == "__main__":
    main()
