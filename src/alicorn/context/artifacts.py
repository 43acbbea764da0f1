"""The artifact store: attachments kept content-addressed on disk, classified, and shown to prompts only as data.

    put(bytes | file) ─► size limit (streamed; nothing kept when over) ─► <root>/<sha[:2]>/<sha>  (+ <sha>.json)
                      ─► SafeView: text extracted (UTF-8/UTF-16, HTML stripped), cleaned, size-limited, classified,
                         instruction-like text flagged; binary content gets a placeholder (a recorded fallback)
                      ─► `artifact.stored` journaled (sha256, size, classification, fallback, flags; no content)

A prompt never sees the raw attachment: `SafeView.fragment()` turns the view into a data fragment for the context
builder, which fences it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from typing import BinaryIO, Literal

from pydantic import BaseModel, ConfigDict

from alicorn.context.errors import ArtifactError, ArtifactTooLargeError, UnknownArtifactError
from alicorn.context.fence import clean, injection_flags
from alicorn.context.fragments import Classification, Fragment, Layer
from alicorn.context.redact import find, scrub_secrets
from alicorn.context.tap import JournalTap

_SHA = re.compile(r"^[0-9a-f]{64}$")
#: How many origins an artifact records (the same bytes attached from more files keep the first ones).
MAX_ORIGINS = 64
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"%PDF-", "application/pdf"),
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF8", "image/gif"),
    (b"PK\x03\x04", "application/zip"),
    (b"\x7fELF", "application/x-elf"),
    (b"MZ", "application/x-msdownload"),
    (b"\x1f\x8b", "application/gzip"),
)


class Artifact(BaseModel):
    """A stored attachment's metadata (its content lives at `<root>/<sha256[:2]>/<sha256>`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    sha256: str
    name: str
    size: int
    media_type: str
    source: str
    #: The files these bytes were attached from (absolute paths, the first MAX_ORIGINS): the home's `[data]` patterns
    #: label an attachment by where it came from, not only by its name (the same bytes from `keys/` are secret).
    origins: tuple[str, ...] = ()


class SafeView(BaseModel):
    """What a prompt may see of an artifact: size-limited, cleaned text (or a placeholder), marked as data."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    sha256: str
    name: str
    media_type: str
    size: int
    classification: Classification
    representation: Literal["text", "placeholder"]
    text: str
    truncated: bool
    encoding: str | None
    fallback: str | None
    flags: tuple[str, ...]

    def fragment(self, layer: Layer = "task", priority: int = 40) -> Fragment:
        """A data fragment for the context builder (the builder fences it)."""
        return Fragment(
            id=f"artifact:{self.sha256[:16]}",
            layer=layer,
            source=f"attachment:{self.name}",
            text=self.text,
            classification=self.classification,
            trust="data",
            priority=priority,
        )


class _TextOfHtml(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def sniff(data: bytes, name: str) -> str:
    """A media type from the content's magic number, else from the name, else text/plain or octet-stream."""
    for magic, media_type in _MAGIC:
        if data.startswith(magic):
            return media_type
    lowered = name.lower()
    for suffix, media_type in (
        (".html", "text/html"),
        (".htm", "text/html"),
        (".json", "application/json"),
        (".csv", "text/csv"),
        (".md", "text/markdown"),
        (".eml", "message/rfc822"),
    ):
        if lowered.endswith(suffix):
            return media_type
    return "application/octet-stream" if b"\x00" in data[:8192] else "text/plain"


def decode(data: bytes) -> tuple[str, str] | None:
    """Text and the encoding used; None for content that is not text."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16"), "utf-16"
        except UnicodeDecodeError:
            return None
    if b"\x00" in data[:65536]:
        return None
    try:
        return data.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        replaced = text.count("\ufffd")
        if replaced <= max(1, len(text) // 50):
            return text, f"utf-8 ({replaced} invalid bytes replaced)"
        return None


class ArtifactStore:
    """Attachments on disk under `root`, at most `max_bytes` each; views at most `max_text_chars` of text."""

    def __init__(
        self,
        root: Path,
        *,
        max_bytes: int = 20 * 1024 * 1024,
        max_text_chars: int = 20_000,
        tap: JournalTap | None = None,
    ) -> None:
        self.root = Path(root)
        self.max_bytes = max_bytes
        self.max_text_chars = max_text_chars
        self.tap = tap

    def path(self, sha256: str) -> Path:
        if not _SHA.fullmatch(sha256):
            raise UnknownArtifactError(f"{sha256!r} is not a sha256 hex digest")
        return self.root / sha256[:2] / sha256

    def put_bytes(self, data: bytes, *, name: str, source: str = "attachment", origin: str | None = None) -> SafeView:
        """Store `data` (refused, nothing written, when over `max_bytes`) and return its safe view; `origin` is the
        file it was read from, added to the artifact's `origins` when it is new."""
        if len(data) > self.max_bytes:
            raise self._too_large(name, len(data))
        sha = hashlib.sha256(data).hexdigest()
        target = self.path(sha)
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            self._write_atomically(target, data)
        origins = (origin,) if origin is not None else ()
        artifact = Artifact(sha256=sha, name=name, size=len(data), media_type=sniff(data, name), source=source,
                            origins=origins)  # fmt: skip
        return self._stored(artifact)

    def put_stream(
        self, stream: BinaryIO, *, name: str, source: str = "attachment", origin: str | None = None
    ) -> SafeView:
        """Like `put_bytes`, reading at most `max_bytes` + 1 bytes, so a huge upload is refused without reading it."""
        data = stream.read(self.max_bytes + 1)
        if len(data) > self.max_bytes:
            raise self._too_large(name, None)
        return self.put_bytes(data, name=name, source=source, origin=origin)

    def put_file(self, path: Path, *, source: str | None = None) -> SafeView:
        """Store a file, remembering where it came from; its size is checked before it is read."""
        try:
            size = path.stat().st_size
            if size > self.max_bytes:
                raise self._too_large(path.name, size)
            with path.open("rb") as handle:
                return self.put_stream(handle, name=path.name, source=source or f"document:{path.name}",
                                       origin=os.path.normpath(path.absolute()))  # fmt: skip
        except OSError as exc:
            raise ArtifactError(f"cannot read the attachment {path}: {exc.strerror}") from exc

    def meta(self, sha256: str) -> Artifact:
        """A stored artifact's metadata (its first name, where it was attached from)."""
        try:
            return Artifact.model_validate_json(self.path(sha256).with_suffix(".json").read_text("utf-8"))
        except FileNotFoundError as exc:
            raise UnknownArtifactError(f"no artifact {sha256} in {self.root}") from exc

    def get(self, sha256: str) -> bytes:
        """The stored bytes; the content is re-hashed so a modified file is refused."""
        target = self.path(sha256)
        try:
            data = target.read_bytes()
        except FileNotFoundError as exc:
            raise UnknownArtifactError(f"no artifact {sha256} in {self.root}") from exc
        if hashlib.sha256(data).hexdigest() != sha256:
            raise ArtifactError(f"artifact {sha256} on disk does not match its hash (modified); store it again")
        return data

    def view(self, sha256: str) -> SafeView:
        """The safe view of a stored artifact."""
        return self.represent(self.meta(sha256), self.get(sha256))

    def represent(self, artifact: Artifact, data: bytes) -> SafeView:
        """Extract, clean, limit and classify; binary content becomes a placeholder."""
        decoded = (
            None if not artifact.media_type.startswith(("text/", "application/json", "message/")) else decode(data)
        )
        if decoded is None:
            text = (
                f"[binary attachment {artifact.name!r}: {artifact.media_type}, {artifact.size} bytes, sha256 "
                f"{artifact.sha256[:16]}…; no text was extracted]"
            )
            return SafeView(
                sha256=artifact.sha256,
                name=artifact.name,
                media_type=artifact.media_type,
                size=artifact.size,
                classification="internal",
                representation="placeholder",
                text=text,
                truncated=False,
                encoding=None,
                fallback="binary content: placeholder instead of text",
                flags=(),
            )
        text, encoding = decoded
        if artifact.media_type == "text/html":
            parser = _TextOfHtml()
            parser.feed(text)
            text = " ".join(" ".join(parser.parts).split())
        text = clean(text)
        truncated = len(text) > self.max_text_chars
        if truncated:
            text = text[: self.max_text_chars] + f"\n[… truncated: {len(text) - self.max_text_chars} more characters]"
        findings = find(text)
        classification: Classification = "internal"
        if any(f.severity == "secret" for f in findings):
            classification = "secret"
        elif findings:
            classification = "private"
        text, _ = scrub_secrets(text)
        return SafeView(
            sha256=artifact.sha256,
            name=artifact.name,
            media_type=artifact.media_type,
            size=artifact.size,
            classification=classification,
            representation="text",
            text=text,
            truncated=truncated,
            encoding=encoding,
            fallback="text truncated to the view limit" if truncated else None,
            flags=injection_flags(text),
        )

    def _stored(self, artifact: Artifact) -> SafeView:
        meta = self.path(artifact.sha256).with_suffix(".json")
        if not meta.exists():
            self._write_atomically(meta, artifact.model_dump_json().encode("utf-8"))
        elif artifact.origins:  # the same bytes from another file: its path joins the origins (the name stays)
            kept = self.meta(artifact.sha256)
            new = [o for o in artifact.origins if o not in kept.origins]
            if new and len(kept.origins) < MAX_ORIGINS:
                grown = kept.model_copy(update={"origins": (*kept.origins, *new)[:MAX_ORIGINS]})
                self._write_atomically(meta, grown.model_dump_json().encode("utf-8"))
        view = self.represent(artifact, self.get(artifact.sha256))
        if self.tap is not None:
            name, _ = scrub_secrets(artifact.name)
            self.tap.append(
                "artifact.stored",
                {
                    "sha256": artifact.sha256,
                    "name": name,
                    "size": artifact.size,
                    "media_type": artifact.media_type,
                    "classification": view.classification,
                    "representation": view.representation,
                    "truncated": view.truncated,
                    "fallback": view.fallback,
                    "flags": list(view.flags),
                },
            )
        return view

    def _too_large(self, name: str, size: int | None) -> ArtifactTooLargeError:
        shown = f"{size} bytes" if size is not None else "more than that"
        return ArtifactTooLargeError(
            f"attachment {name!r} is too large ({shown}; the limit is {self.max_bytes} bytes); nothing was stored. "
            "Split it, extract the part the task needs, or raise the store's max_bytes"
        )

    @staticmethod
    def _write_atomically(target: Path, data: bytes) -> None:
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


def describe(view: SafeView) -> str:
    """One line for a human: what was stored and how a prompt will see it."""
    return json.dumps(
        {
            "sha256": view.sha256[:16],
            "name": view.name,
            "classification": view.classification,
            "representation": view.representation,
            "fallback": view.fallback,
            "flags": list(view.flags),
        },
        ensure_ascii=False,
    )
