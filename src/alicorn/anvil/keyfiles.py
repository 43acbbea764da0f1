"""A person's private key file, written so that a key the journal names is never lost and a refused enrolment
leaves no file (alicorn.anvil.people enrols; this is only how its key files reach the disk).

An enrolment writes its new key as a pending file, `NAME.ed25519.<fingerprint>.new` (0600, synced), appends the
enrolment to the journal, and only then renames the pending file to `NAME.ed25519`. So:

- the append fails: the pending file is removed, and the person's current key file was never touched; unless
  the journal took the enrolment after all (an append in doubt: then it is put in place), or cannot be read to
  say (then it stays pending, for `settle` to decide at the next use of the person's key);
- the process dies before the append: a pending key no journal names is left, and the next enrolment or use of
  that person's key removes it;
- the process dies between the append and the rename: the journaled key is in its pending file, and the next use
  of that person's key puts it in place (`settle`).

Each attempt holds an exclusive `flock` on its pending file from before the file has its `.new` name until it is
renamed or removed, and `settle` only touches pending files it can lock: an enrolment in progress (in this process
or another) is never mistaken for a dead one, and a lock dies with its process. The name carries the key's
fingerprint, so two enrolments of one person never write the same file.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from alicorn.anvil import signing
from alicorn.anvil.errors import SigningKeyError


class PendingKey:
    """A new private key written beside its place and locked there until `commit` or `discard` (see the module
    docstring). Use it as a context manager: leaving it without a commit discards the key."""

    def __init__(self, final: Path, private: Ed25519PrivateKey) -> None:
        self.final = final
        self.fingerprint = signing.fingerprint(signing.public_of(private))
        self.path = final.with_name(f"{final.name}.{_tag(self.fingerprint)}.new")
        self.made_folder = not final.parent.exists()
        final.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        pem = private.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        writing = self.path.with_suffix(".tmp")  # not a `.new` name until it is locked and complete
        self._fd: int | None = None
        try:
            writing.unlink(missing_ok=True)
            self._fd = os.open(writing, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            fcntl.flock(self._fd, fcntl.LOCK_EX)
            os.write(self._fd, pem)
            os.fsync(self._fd)
            os.replace(writing, self.path)  # the lock stays with the file: settle never takes it for a dead one
            sync_folder(final.parent)  # the pending key outlives a power cut once the journal may name it
        except BaseException:
            writing.unlink(missing_ok=True)
            self.discard()
            raise

    def commit(self) -> None:
        """The journal has the enrolment: the key becomes the person's key file. If that fails, the key stays
        pending (the journal names it: it is never removed), for `settle` to put in place."""
        try:
            os.replace(self.path, self.final)
            sync_folder(self.final.parent)
        finally:
            self._release()

    def discard(self) -> None:
        """The journal does not have the enrolment: no file of it is left (nor the keys folder, if this made it)."""
        self.path.unlink(missing_ok=True)
        self._release()
        if self.made_folder:
            with contextlib.suppress(OSError):
                self.final.parent.rmdir()  # only when empty

    def keep(self) -> None:
        """Whether the journal has the enrolment cannot be told now: the pending key stays, for `settle` to put in
        place or remove at the next use of the person's key."""
        self._release()

    def _release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # releases the lock
            self._fd = None

    def __enter__(self) -> PendingKey:
        return self

    def __exit__(self, *_: object) -> None:
        if self._fd is not None:
            self.discard()


def pending(final: Path) -> list[Path]:
    """The pending keys of the key file `final` (enrolments in progress, or left by a process that died)."""
    return sorted(final.parent.glob(f"{final.name}.*.new"))


def settle(final: Path, journaled: str | None) -> None:
    """Put in place the pending key of `final` whose fingerprint is `journaled` (the person's key in the journal: a
    crash came between the append and the rename) and remove the other pending keys, which no enrolment will name;
    pending keys locked by an enrolment in progress are left to it."""
    for path in pending(final):
        try:
            fd = os.open(path, os.O_RDONLY)
        except FileNotFoundError:
            continue  # put in place or removed meanwhile
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue  # an enrolment in progress holds it
            if not path.exists():
                continue  # its enrolment ended between the listing and the lock
            if journaled is not None and _fingerprint(path) == journaled:
                os.replace(path, final)
                sync_folder(final.parent)
            else:
                path.unlink(missing_ok=True)
        finally:
            os.close(fd)


def sync_folder(folder: Path) -> None:
    """Make a folder's entries (a file made or renamed in it) durable; a filesystem that cannot is let be."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def _tag(fingerprint: str) -> str:
    return fingerprint.removeprefix("sha256:")[:16]


def _fingerprint(path: Path) -> str | None:
    try:
        return signing.fingerprint(signing.public_of(signing.load_private(path, "a pending key")))
    except SigningKeyError:
        return None  # cut short: no journal names it
