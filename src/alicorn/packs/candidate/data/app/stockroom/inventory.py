"""The stock: items by SKU, receipts and issues, and what runs low."""

from __future__ import annotations

import json
from pathlib import Path

from .models import Item


class Inventory:
    def __init__(self, items: list[Item] | None = None) -> None:
        self._items: dict[str, Item] = {}
        for item in items or []:
            if item.sku in self._items:
                raise ValueError(f"SKU {item.sku} is listed twice")
            self._items[item.sku] = item

    @classmethod
    def from_file(cls, path: Path) -> Inventory:
        rows = json.loads(path.read_text(encoding="utf-8"))
        return cls([Item.from_dict(row) for row in rows])

    def items(self) -> list[Item]:
        return [self._items[sku] for sku in sorted(self._items)]

    def receive(self, sku: str, quantity: int) -> Item:
        if quantity <= 0:
            raise ValueError("a receipt adds at least one unit")
        item = self._items[sku]
        self._items[sku] = Item(item.sku, item.name, item.quantity + quantity, item.unit_price_cents)
        return self._items[sku]

    def issue(self, sku: str, quantity: int) -> Item:
        item = self._items[sku]
        if quantity <= 0 or quantity > item.quantity:
            raise ValueError(f"cannot issue {quantity} of {sku}: {item.quantity} in stock")
        self._items[sku] = Item(item.sku, item.name, item.quantity - quantity, item.unit_price_cents)
        return self._items[sku]

    def low_stock(self, threshold: int) -> list[Item]:
        return [item for item in self.items() if item.quantity <= threshold]

    def total_value_cents(self) -> int:
        return sum(item.value_cents for item in self._items.values())
