"""`python -m stockroom [folder]`: print the stock report of the app in `folder` (default: the current one)."""

from __future__ import annotations

import sys
from pathlib import Path

from .config import load_config
from .inventory import Inventory
from .report import render


def main(argv: list[str]) -> int:
    root = Path(argv[0]) if argv else Path.cwd()
    config = load_config(root / "config.json")
    sys.stdout.write(render(Inventory.from_file(root / config.data_file), config))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
