"""The home every test here uses (a fake key in models.toml and in the environment, a secret-labelled file)."""

from tests.secret_safety.test_every_writer import home

__all__ = ["home"]
