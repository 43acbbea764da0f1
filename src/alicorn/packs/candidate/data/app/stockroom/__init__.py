"""Stockroom: a small inventory tool (items, stock levels, value, low-stock report)."""

from .config import Config, load_config
from .inventory import Inventory
from .models import Item

__all__ = ["Config", "Inventory", "Item", "load_config"]
__version__ = "1.4.0"
