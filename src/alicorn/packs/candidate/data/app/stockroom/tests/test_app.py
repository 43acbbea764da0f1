"""The app as configured in this folder: its config loads, its data file is valid, the report renders."""

import io
import unittest
from contextlib import redirect_stdout
from pathlib import Path

from ..__main__ import main
from ..config import load_config
from ..inventory import Inventory
from ..report import money, render

ROOT = Path(__file__).resolve().parents[2]


class AppTest(unittest.TestCase):
    def test_config_and_data_load(self) -> None:
        config = load_config(ROOT / "config.json")
        stock = Inventory.from_file(ROOT / config.data_file)
        self.assertGreater(len(stock.items()), 0)

    def test_demo_build_uses_sample_data(self) -> None:
        config = load_config(ROOT / "config.json")
        if not config.demo:
            self.skipTest("not a demo build")
        self.assertIn("demo", config.data_file)
        self.assertIn("(demo)", config.name)
        self.assertGreaterEqual(len(Inventory.from_file(ROOT / config.data_file).items()), 5)

    def test_report(self) -> None:
        config = load_config(ROOT / "config.json")
        text = render(Inventory.from_file(ROOT / config.data_file), config)
        self.assertIn("Total value:", text)
        self.assertEqual("[DEMO DATA]" in text, config.demo)

    def test_money(self) -> None:
        self.assertEqual(money(12345, "PLN"), "123.45 PLN")

    def test_main_returns_zero(self) -> None:
        out = io.StringIO()
        with redirect_stdout(out):
            self.assertEqual(main([str(ROOT)]), 0)
        self.assertIn("Low stock:", out.getvalue())
