"""The effects suites (outbox, HTTP effects) on a PostgreSQL journal: the same test functions as tests/effects/,
collected here once more with this module's `store`, a journal in a schema of its own on the session's server.

Left out: tests that open a second store or start a child process by the journal's file path (the cancellation
test's second store, the HTTP crash test's child); their PostgreSQL counterparts are the journal contract's
many-connection and many-process tests (tests/journal/test_postgres_store.py).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from alicorn.journal.postgres import PostgresJournalStore
from tests.effects import test_http_effects as http
from tests.effects import test_outbox as outbox
from tests.pgserver import next_schema


@pytest.fixture
def store(pg_url: str) -> Iterator[PostgresJournalStore]:
    with PostgresJournalStore(pg_url, schema=next_schema("e")) as s:
        yield s


test_intent_is_committed_with_the_call_and_done_with_the_result = (
    outbox.test_intent_is_committed_with_the_call_and_done_with_the_result
)
test_uncertain_failure_of_a_keyed_effect_is_retried_with_the_same_key = (
    outbox.test_uncertain_failure_of_a_keyed_effect_is_retried_with_the_same_key
)
test_unsafe_effect_with_lookup_is_resolved_by_asking_the_target = (
    outbox.test_unsafe_effect_with_lookup_is_resolved_by_asking_the_target
)
test_unsafe_effect_without_lookup_blocks_for_a_human = outbox.test_unsafe_effect_without_lookup_blocks_for_a_human
test_resolving_not_applied_runs_the_effect_again_once = outbox.test_resolving_not_applied_runs_the_effect_again_once
test_saga_compensates_completed_effects_in_reverse_order = (
    outbox.test_saga_compensates_completed_effects_in_reverse_order
)
test_partial_runs_keep_their_effects = outbox.test_partial_runs_keep_their_effects
test_a_failed_compensation_is_reported_as_left_undone = outbox.test_a_failed_compensation_is_reported_as_left_undone
test_an_unsafe_post_answered_late_is_applied_once_and_left_for_a_human = (
    http.test_an_unsafe_post_answered_late_is_applied_once_and_left_for_a_human
)
test_a_keyed_post_answered_late_is_repeated_with_its_key_and_reported_pending = (
    http.test_a_keyed_post_answered_late_is_repeated_with_its_key_and_reported_pending
)
test_a_refused_connection_is_certainly_not_applied = http.test_a_refused_connection_is_certainly_not_applied
