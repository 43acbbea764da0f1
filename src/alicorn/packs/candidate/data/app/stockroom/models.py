"""An item in stock."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Item:
    sku: str
    name: str
    quantity: int
    unit_price_cents: int

    def __post_init__(self) -> None:
        if not self.sku or not self.sku.replace("-", "").isalnum():
            raise ValueError(f"bad SKU {self.sku!r}")
        if self.quantity < 0:
            raise ValueError(f"{self.sku}: quantity must not be negative")
        if self.unit_price_cents < 0:
            raise ValueError(f"{self.sku}: price must not be negative")

    @property
    def value_cents(self) -> int:
        return self.quantity * self.unit_price_cents

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Item:
        return cls(str(data["sku"]), str(data["name"]), int(data["quantity"]), int(data["unit_price_cents"]))
