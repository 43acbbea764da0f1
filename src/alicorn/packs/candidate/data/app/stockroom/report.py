"""The stock report printed by `python -m stockroom`."""

from __future__ import annotations

from .config import Config
from .inventory import Inventory


def money(cents: int, currency: str) -> str:
    return f"{cents // 100}.{cents % 100:02d} {currency}"


def render(inventory: Inventory, config: Config) -> str:
    title = f"{config.name} stock report" + (" [DEMO DATA]" if config.demo else "")
    lines = [title, "=" * len(title)]
    for item in inventory.items():
        lines.append(f"{item.sku:<10} {item.name:<20} {item.quantity:>6}  {money(item.value_cents, config.currency)}")
    lines.append(f"Total value: {money(inventory.total_value_cents(), config.currency)}")
    low = inventory.low_stock(config.low_stock_threshold)
    lines.append("Low stock: " + (", ".join(item.sku for item in low) if low else "none"))
    return "\n".join(lines) + "\n"
