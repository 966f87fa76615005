"""Checkpoints: signed Merkle tree heads over the global order of events.

``seal`` takes every event up to the current position, in order, as the
leaves of an RFC 6962 Merkle tree (leaf data: ``"<position> <event hash>"``),
and records the count and the root as a ``CheckpointSealed`` event of the
home's own stream, and as a small JSON file in ``checkpoints/`` — signed with
Ed25519 when a key is configured.  Keep copies of those files elsewhere.

``verify_checkpoint`` proves, with a consistency proof, that the current
history *extends* a checkpoint: the first ``size`` events are exactly those
the checkpoint saw.  An old event edited (even with every chain hash
recomputed), events deleted, inserted or reordered, a fork, or a home
restored from an older backup all fail it; so does a bad signature.
"""

from __future__ import annotations

import base64
import json
import os
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from kairos import clock, faults
from kairos.domain.events import SYSTEM_AGENT, CheckpointSealed, MemoryStream, Recorded
from kairos.domain.hashing import canonical, format_time
from kairos.domain.merkle import consistency_proof, leaf_hash, root, verify_consistency
from kairos.domain.sealing import (
    BODY_FIELDS,
    FOLDER,
    FORMAT,
    checkpoint_body,
    checkpoint_file,
    checkpoint_text,
)
from kairos.errors import BadInput, disk_errors
from kairos.home import write_durably
from kairos.ports import Commands, History
from kairos.progress import SILENT, Progress, counted


def leaf(rec: Recorded) -> bytes:
    return leaf_hash(f"{rec.position} {rec.event.hash}".encode())


def leaves(history: History, progress: Progress = SILENT) -> tuple[list[bytes], list[int]]:
    """The Merkle leaves of the history, and their positions (one pass over
    every event: ``progress`` hears of it)."""
    progress.phase("hash every event", history.max_position())
    hashes, positions = [], []
    for rec in counted(history.read(), progress):
        hashes.append(leaf(rec))
        positions.append(rec.position)
    return hashes, positions


def load_private_key(path: str) -> Ed25519PrivateKey:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    try:
        with open(path, "rb") as f:
            key = serialization.load_pem_private_key(f.read(), password=None)
    except (OSError, ValueError) as e:
        raise BadInput(f"cannot load the signing key {path}: {e}") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise BadInput(f"{path} is not an Ed25519 private key")
    return key


def public_key_text(path: str) -> str:
    """A public key file (PEM), or the base64 raw key itself, as base64 raw."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        with open(path, "rb") as f:
            data = f.read()
        key = serialization.load_pem_public_key(data)
    except (OSError, ValueError) as e:
        raise BadInput(f"cannot load the public key {path}: {e}") from None
    if not isinstance(key, Ed25519PublicKey):
        raise BadInput(f"{path} is not an Ed25519 public key")
    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return base64.b64encode(raw).decode()


@disk_errors
def keygen(path: str) -> str:
    """Write a new Ed25519 private key (PEM, mode 0600) and its ``.pub``."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    if os.path.exists(path):
        raise BadInput(f"{path} exists already: not overwriting a key")
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(pem)
    with open(path + ".pub", "wb") as f:
        f.write(key.public_key().public_bytes(serialization.Encoding.PEM,
                                              serialization.PublicFormat.SubjectPublicKeyInfo))
    return path + ".pub"


@disk_errors
def entry_keygen(path: str) -> str:
    """Write a new log-entry MAC key: 32 random bytes in hex, mode 0600."""
    if os.path.exists(path):
        raise BadInput(f"{path} exists already: not overwriting a key")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as f:
        f.write(secrets.token_hex(32) + "\n")
    return path


def sign(body: dict[str, Any], key_path: str) -> dict[str, str]:
    from cryptography.hazmat.primitives import serialization

    key = load_private_key(key_path)
    raw = key.public_key().public_bytes(serialization.Encoding.Raw,
                                        serialization.PublicFormat.Raw)
    return {"signature": base64.b64encode(key.sign(canonical(body))).decode(),
            "public_key": base64.b64encode(raw).decode()}


@dataclass
class CheckpointCheck:
    ok: bool
    message: str
    size: int = 0
    current_size: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "message": self.message, "size": self.size,
                "current_size": self.current_size}


def read_checkpoint(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        raise BadInput(f"cannot read checkpoint {path}: {e}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not all(
            k in data for k in BODY_FIELDS):
        raise BadInput(f"{path} is not a Kairos checkpoint ({FORMAT})")
    return data


def check_signature(data: dict[str, Any], trusted_key: str | None) -> str | None:
    """What is wrong with the checkpoint's signature (None: it holds)."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    signature, embedded = data.get("signature"), data.get("public_key")
    if trusted_key is not None:
        if not signature:
            return "the checkpoint is not signed, but a public key was given"
        if embedded != trusted_key:
            return "the checkpoint was signed with another key than the one given"
    if not signature:
        return None
    try:
        key = Ed25519PublicKey.from_public_bytes(base64.b64decode(embedded or ""))
        key.verify(base64.b64decode(signature), canonical({k: data[k] for k in BODY_FIELDS}))
    except (InvalidSignature, ValueError):
        return "the checkpoint's signature does not hold: it was altered or forged"
    return None


def verify_checkpoint(history: History, data: dict[str, Any], trusted_key: str | None = None,
                      progress: Progress = SILENT) -> CheckpointCheck:
    """Whether the history extends the checkpoint ``data`` (and its signature holds)."""
    size = int(data["size"])
    wrong = check_signature(data, trusted_key)
    if wrong:
        return CheckpointCheck(False, wrong, size)
    hashes, positions = leaves(history, progress)
    n = len(hashes)
    if n < size:
        return CheckpointCheck(False, f"the history holds {n} events, fewer than the "
                               f"checkpoint's {size}: events were deleted, or the home was "
                               "restored from an older backup", size, n)
    if size == 0:
        return CheckpointCheck(True, "an empty checkpoint", size, n)
    proof = consistency_proof(size, hashes)
    if positions[size - 1] != int(data["position"]) or not verify_consistency(
            size, n, proof, bytes.fromhex(str(data["root"])), root(hashes)):
        return CheckpointCheck(False, f"the history does not extend the checkpoint: an event "
                               f"at or before position {data['position']} was changed, removed, "
                               "inserted or reordered", size, n)
    return CheckpointCheck(True, f"the history ({n} events) extends the checkpoint "
                           f"({size} events, root {str(data['root'])[:16]}…)", size, n)


class Checkpoints:
    """Sealing checkpoints into the home's own stream and files, and proving
    the history extends one."""

    def __init__(self, commands: Commands, history: History, home: str):
        self.commands = commands
        self.history = history
        self.home = home

    @disk_errors
    def seal(self, key: str | None = None, progress: Progress = SILENT) -> dict[str, Any]:
        """Record a checkpoint over every event so far, and write its file.

        ``key``: an Ed25519 private key (PEM) to sign it with (default:
        ``KAIROS_SIGNING_KEY``, else unsigned).  Returns the checkpoint.
        :raises BadInput: the key cannot be loaded.
        """
        key = key or os.environ.get("KAIROS_SIGNING_KEY") or None
        hashes, positions = leaves(self.history, progress)
        progress.phase("record the checkpoint", None)
        size, last, head = len(hashes), positions[-1] if positions else 0, root(hashes).hex()
        now = clock.now()  # the checkpoint's time is its event's: the file follows from the event
        body = checkpoint_body(size, last, head, format_time(now))
        signed = sign(body, key) if key else {}

        def command(stream: MemoryStream) -> None:
            stream.seal(size, last, head, signed.get("public_key"), now,
                        signature=signed.get("signature"))

        rec, _ = self.commands.execute(SYSTEM_AGENT, None, command)
        faults.point("after-seal-commit")
        name, data = checkpoint_file(cast(CheckpointSealed, rec.event), rec.position)
        path = os.path.join(self.home, FOLDER, name)
        write_durably(path, checkpoint_text(data).encode("utf-8"))
        data["file"] = os.path.relpath(path, self.home)
        return data

    def verify(self, path: str, public_key: str | None = None,
               progress: Progress = SILENT) -> CheckpointCheck:
        """Prove the current history extends the checkpoint in ``path``.

        :raises BadInput: the checkpoint or the key cannot be read.
        """
        trusted = public_key_text(public_key) if public_key else None
        return verify_checkpoint(self.history, read_checkpoint(path), trusted, progress)
