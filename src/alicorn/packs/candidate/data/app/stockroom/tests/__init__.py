"""Stockroom's tests: `python -m unittest discover` from the app folder."""
