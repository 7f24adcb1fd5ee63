"""The package's shape, as issue figures: long modules and functions, imports inside
functions, ``dict[str, Any]`` annotations. Import cycles are tests/test_architecture.py's.

    python scripts/code_shape.py [--json]
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "rlgpt_tui"


def shape() -> dict[str, object]:
    long_modules, long_functions, inner_imports, loose_dicts = [], [], 0, 0
    for path in sorted(PACKAGE.rglob("*.py")):
        if "assets" in path.relative_to(PACKAGE).parts:
            continue
        name = str(path.relative_to(PACKAGE.parent))
        text = path.read_text()
        loose_dicts += text.count("dict[str, Any]")
        if (lines := len(text.splitlines())) > 500:
            long_modules.append((name, lines))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                if (length := node.end_lineno - node.lineno + 1) > 80:
                    long_functions.append((f"{name}:{node.name}", length))
                inner_imports += sum(
                    isinstance(sub, ast.Import | ast.ImportFrom) for sub in ast.walk(node)
                )
    return {
        "modules_over_500_lines": sorted(long_modules, key=lambda m: -m[1]),
        "functions_over_80_lines": sorted(long_functions, key=lambda f: -f[1]),
        "imports_inside_functions": inner_imports,
        "dict_str_any": loose_dicts,
    }


if __name__ == "__main__":
    figures = shape()
    if "--json" in sys.argv:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key}: {len(value) if isinstance(value, list) else value}")
            for item in value if isinstance(value, list) else []:
                print(f"  {item[0]} ({item[1]})")
