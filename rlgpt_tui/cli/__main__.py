"""``python -m rlgpt_tui.cli``: the ``rlgpt-tui`` command."""

import sys

from rlgpt_tui.cli import main

sys.exit(main())
