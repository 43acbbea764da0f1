"""Splitting a long text into record-sized chunks at paragraph, then sentence, then word boundaries."""

from __future__ import annotations

import re

_PARAGRAPH = re.compile(r"\n\s*\n")
_SENTENCE = re.compile(r"(?<=[.!?…])\s+")


def chunk_text(text: str, *, max_chars: int = 1500) -> list[str]:
    """Pieces of `text`, each at most `max_chars` long, cut at the largest boundary that fits.

    Paragraphs are packed together while they fit; a paragraph that does not fit is split into sentences, and a
    sentence that does not fit into words (a word longer than `max_chars` is cut). Only whitespace is lost at the
    cuts: the words of the chunks, in order, are the words of the text.
    """
    if max_chars < 1:
        raise ValueError("max_chars must be at least 1")
    pieces: list[tuple[str, str]] = []  # (separator before the piece when packed after another, piece)
    for paragraph in _PARAGRAPH.split(text):
        paragraph = paragraph.strip()
        if not paragraph:
            continue
        parts = [paragraph] if len(paragraph) <= max_chars else _split(paragraph, max_chars)
        pieces.extend(("\n\n" if i == 0 else " ", part) for i, part in enumerate(parts))
    chunks: list[str] = []
    current = ""
    for separator, piece in pieces:
        if current and len(current) + len(separator) + len(piece) <= max_chars:
            current += separator + piece
        else:
            if current:
                chunks.append(current)
            current = piece
    if current:
        chunks.append(current)
    return chunks


def _split(paragraph: str, max_chars: int) -> list[str]:
    parts: list[str] = []
    for sentence in _SENTENCE.split(paragraph):
        if len(sentence) <= max_chars:
            parts.append(sentence)
            continue
        for word in sentence.split():
            parts.extend(word[i : i + max_chars] for i in range(0, len(word), max_chars))
    return parts
