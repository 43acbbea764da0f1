"""What the memory and agents pages say, in the person's language (en, pl, ru), through `alicorn.i18n.tr`.

Kept apart from alicorn.service.words (the other pages' words) so each part's words sit with its part; the
templates see these as `k.NAME`. Translations: i18n/catalogs/knowledge.{pl,ru}.po (tests/test_i18n.py checks them).
"""

from __future__ import annotations

from alicorn.i18n import tr
from alicorn.service.words import page_words


@page_words
def knowledge_words(lang: str) -> dict[str, str]:
    """Every fixed word of the memory and agents pages in `lang`."""
    return {
        "memory": tr(lang, "Memory"),
        "agents": tr(lang, "Agents"),
        "memory_title": tr(lang, "Project memory"),
        "query": tr(lang, "Search for"),
        "mode": tr(lang, "Search by"),
        "hybrid": tr(lang, "meaning and words"),
        "vector": tr(lang, "meaning"),
        "text": tr(lang, "words"),
        "search": tr(lang, "Search"),
        "no_hits": tr(lang, "Nothing in this project's memory matches."),
        "no_memory": tr(lang, "This home has no memory yet: facts stated in a chat are remembered here."),
        "record": tr(lang, "Record"),
        "key": tr(lang, "Key (the slot a fact fills)"),
        "score": tr(lang, "Score"),
        "similarity": tr(lang, "Similarity"),
        "provenance": tr(lang, "Provenance"),
        "sources": tr(lang, "Sources"),
        "validity": tr(lang, "Validity"),
        "valid": tr(lang, "valid"),
        "invalid_from": tr(lang, "no longer valid from"),
        "recorded": tr(lang, "Recorded"),
        "trust": tr(lang, "Trust"),
        "classification": tr(lang, "Classification"),
        "contradicts": tr(lang, "Contradicts"),
        "history": tr(lang, "History"),
        "relations": tr(lang, "Relations"),
        "graph": tr(lang, "Entity graph"),
        "graph_drawing": tr(lang, "The entity graph: the record in the middle, its neighbours around it"),
        "graph_of": tr(lang, "Graph around"),
        "depth": tr(lang, "Steps"),
        "draw": tr(lang, "Draw"),
        "no_edges": tr(lang, "No relation links this record yet."),
        "forget": tr(lang, "Forget"),
        "forget_title": tr(lang, "Mark as no longer true"),
        "forget_reason": tr(lang, "Why it is no longer true (kept in the history)"),
        "forget_hint": tr(
            lang, "Nothing is deleted: the record stays in the history, and searches of earlier times still see it."
        ),
        "forget_admin": tr(lang, "Only an admin may forget a record."),
        "forgotten": tr(lang, "This record is no longer valid."),
        "reason": tr(lang, "Reason"),
        "agents_title": tr(lang, "Agents: rights and reputation"),
        "no_agents": tr(lang, "No agent is registered in this home."),
        "agent": tr(lang, "Agent"),
        "reputation": tr(lang, "Reputation"),
        "tier": tr(lang, "Tier"),
        "rights": tr(lang, "Rights"),
        "roles": tr(lang, "Roles"),
        "at": tr(lang, "At"),
        "rights_at": tr(lang, "Rights at a moment"),
        "now": tr(lang, "now"),
        "origins": tr(lang, "Where each effect class came from"),
        "eligible": tr(lang, "Eligible (a person with the approver role grants it)"),
        "chart": tr(lang, "Reputation over time"),
        "chart_drawing": tr(
            lang, "Reputation after each event: circles are reputation changes, squares rights and tiers"
        ),
        "changes": tr(lang, "Changes and their reasons"),
        "cause": tr(lang, "Cause"),
        "by": tr(lang, "By"),
        "what": tr(lang, "What changed"),
        "event": tr(lang, "Event"),
    }
