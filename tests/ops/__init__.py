"""Tests of the operation registry's built-in operations and the packs that use them."""
