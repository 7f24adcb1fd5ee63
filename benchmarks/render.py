"""Render the recorded results into docs/results.md and the README's headline table.

    python benchmarks/render.py            # write both
    python benchmarks/render.py --check    # exit 1, naming the file, where they differ

The work is :mod:`rlgpt_bench.render`'s.
"""

import sys

from rlgpt_bench.render import main

if __name__ == "__main__":
    sys.exit(main())
