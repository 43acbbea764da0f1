"""Test doubles shipped with Alicorn (real ones, not mocks): a SQLite ledger that counts every application of an
effect per idempotency key, operations with each idempotency contract, and a child-process runner for crash tests.
"""
