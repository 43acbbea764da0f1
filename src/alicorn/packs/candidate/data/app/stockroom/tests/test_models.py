import unittest

from ..models import Item


class ItemTest(unittest.TestCase):
    def test_value_is_quantity_times_price(self) -> None:
        self.assertEqual(Item("A-1", "a", 3, 250).value_cents, 750)

    def test_negative_quantity_is_refused(self) -> None:
        with self.assertRaises(ValueError):
            Item("A-1", "a", -1, 250)

    def test_bad_sku_is_refused(self) -> None:
        with self.assertRaises(ValueError):
            Item("a b", "a", 1, 1)

    def test_from_dict(self) -> None:
        item = Item.from_dict({"sku": "A-1", "name": "a", "quantity": "2", "unit_price_cents": 5})
        self.assertEqual(item, Item("A-1", "a", 2, 5))
