"""The command line every benchmark takes: ``--help`` prints its docstring (what it measures, its targets);
positional arguments are its own, with their defaults; anything else is a usage error."""

from __future__ import annotations

import argparse
from typing import Any


def arguments(doc: str | None, *positionals: tuple[str, Any, Any, str], many: bool = False) -> argparse.Namespace:
    """Parse ``sys.argv``. Each positional is ``(name, type, default, help)``, optional; with ``many`` the last
    takes any number of values (its default is then a list)."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    for index, (name, kind, default, text) in enumerate(positionals):
        last = index == len(positionals) - 1
        parser.add_argument(name, type=kind, nargs="*" if many and last else "?", default=default,
                            help=f"{text} (default: {default})")
    return parser.parse_args()
