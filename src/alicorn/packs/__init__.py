"""Workflow packs for the seed's example commands. `alarms/`: yesterday's camera alarms, deduplicated and triaged."""

from pathlib import Path

PACKS_DIR = Path(__file__).parent


def pack_dir(name: str) -> Path:
    """The directory of a bundled pack (its plan.json and data)."""
    path = PACKS_DIR / name
    if not (path / "plan.json").is_file():
        known = sorted(p.name for p in PACKS_DIR.iterdir() if (p / "plan.json").is_file())
        raise FileNotFoundError(f"no pack {name!r}; bundled packs: {', '.join(known) or 'none'}")
    return path
