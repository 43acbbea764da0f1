import unittest

from ..inventory import Inventory
from ..models import Item


def sample() -> Inventory:
    return Inventory([Item("B-2", "bolt", 10, 30), Item("A-1", "nut", 2, 10)])


class InventoryTest(unittest.TestCase):
    def test_items_sorted_by_sku(self) -> None:
        self.assertEqual([i.sku for i in sample().items()], ["A-1", "B-2"])

    def test_receive_and_issue(self) -> None:
        stock = sample()
        self.assertEqual(stock.receive("A-1", 5).quantity, 7)
        self.assertEqual(stock.issue("B-2", 4).quantity, 6)

    def test_cannot_issue_more_than_in_stock(self) -> None:
        with self.assertRaises(ValueError):
            sample().issue("A-1", 3)

    def test_low_stock_and_value(self) -> None:
        stock = sample()
        self.assertEqual([i.sku for i in stock.low_stock(2)], ["A-1"])
        self.assertEqual(stock.total_value_cents(), 320)

    def test_duplicate_sku_is_refused(self) -> None:
        with self.assertRaises(ValueError):
            Inventory([Item("A-1", "a", 1, 1), Item("A-1", "b", 1, 1)])
