"""The data keys of an encrypting home, wrapped by its master key.

Each stream (an agent's own files, or an agent+user pair) gets a random
256-bit data key the first time it records content; its memory text is
encrypted under that key with AES-256-GCM (:mod:`kairos.domain.encrypted`).
A key lives in a file of its own, ``keys/<stream id>/<key id>.key`` in the
home, wrapped (AES-256-GCM) by the home's master key, which never lives in
the home: it comes from ``KAIROS_MASTER_KEY``, ``[privacy] key_command`` (a
secrets manager) or ``[privacy] key_file``.  So:

* a copy of the store, the logs or the home without the master key holds
  no readable memory;
* erasing a pair is deleting its key files (:meth:`Keyring.destroy`):
  every event it recorded stays, verifiable, and never decrypts again;
* rotating the master key re-wraps the key files (:meth:`Keyring.rewrap`),
  and rewrites no event.

A key file is written durably *before* the first event encrypted under it
can commit: an acknowledged write is never one whose key a crash lost.
Two processes may each create a key for the same new stream; both stay
valid (an encrypted text names its key), and the first by name is used.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import logging
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Collection
from dataclasses import dataclass
from uuid import UUID

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM, AESSIV
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from kairos.domain.encrypted import SEALED, SEALED_FORM, Encrypt, envelope, is_encrypted, parts
from kairos.errors import BadInput
from kairos.home import KEYS, Settings, fsync_dir, write_durably

log = logging.getLogger(__name__)

MASTER_ENV = "KAIROS_MASTER_KEY"
# How long a process trusts that a key it holds in memory still has its
# file: an erasure by another process takes effect here within this time.
RECHECK_SECONDS = 1.0


class KeyUnavailable(BadInput):
    """The master key is missing, malformed or not the one the home's keys
    were wrapped with: nothing encrypted can be read or written."""


def parse_key(text: str, where: str) -> bytes:
    """A 256-bit key written as 64 hex digits or as base64.

    :raises KeyUnavailable: it is neither, or not 32 bytes.
    """
    text = text.strip()
    try:
        key = bytes.fromhex(text) if len(text) == 64 else base64.b64decode(text, validate=True)
    except (ValueError, binascii.Error):
        key = b""
    if len(key) != 32:
        raise KeyUnavailable(f"the master key from {where} is not 32 bytes in hex or base64 "
                             "(`kairos keygen --master-key FILE` writes one)")
    return key


def load_master(home: str, settings: Settings) -> bytes | None:
    """The master key: ``KAIROS_MASTER_KEY``, else the output of ``[privacy]
    key_command``, else the file ``[privacy] key_file``; None when none is set.

    :raises KeyUnavailable: the command fails, the file cannot be read, the
        file is inside the home, or the key is malformed.
    """
    privacy = settings.privacy
    if os.environ.get(MASTER_ENV):
        return parse_key(os.environ[MASTER_ENV], MASTER_ENV)
    if privacy.key_command:
        try:
            out = subprocess.run(privacy.key_command, shell=True, capture_output=True,
                                 text=True, timeout=30, check=True).stdout
        except (OSError, subprocess.SubprocessError) as e:
            raise KeyUnavailable(f"[privacy] key_command failed: {e}") from None
        return parse_key(out, "[privacy] key_command")
    if privacy.key_file:
        path = os.path.abspath(os.path.expanduser(privacy.key_file))
        if os.path.commonpath([path, home]) == home:
            raise KeyUnavailable(f"the master key {path} is inside the home: keep it apart "
                                 "from the data it protects")
        try:
            with open(path, encoding="ascii") as f:
                return parse_key(f.read(), path)
        except (OSError, UnicodeDecodeError) as e:
            raise KeyUnavailable(f"cannot read the master key {path}: {e}") from None
    return None


def master_id(master: bytes) -> str:
    """A public name of a master key (which key wrapped a data key)."""
    return hashlib.sha256(b"kairos master key\0" + master).hexdigest()[:16]


def derive(key: bytes, purpose: str, length: int = 32) -> bytes:
    """A key for one purpose, derived from a data or master key (HKDF-SHA256):
    destroying the key it came from destroys it too."""
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=None,
                info=f"kairos {purpose}".encode()).derive(key)


@dataclass
class _Key:
    aead: AESGCM
    path: str
    checked: float
    raw: bytes
    _siv: AESSIV | None = None

    @property
    def siv(self) -> AESSIV:
        """The key the read model seals this stream's text with (AES-SIV)."""
        if self._siv is None:
            self._siv = AESSIV(derive(self.raw, "read model", 64))
        return self._siv


def _aad(stream: UUID, kid: str) -> bytes:
    """What binds a ciphertext to its stream and key: a text copied into
    another stream's event never decrypts there."""
    return f"kairos text {stream} {kid}".encode()


class Keyring:
    """The data keys of one home, unwrapped on first use and held in memory."""

    def __init__(self, home: str, master: bytes, *, encrypt: bool):
        self.home = home
        self.root = os.path.join(home, KEYS)
        self.encrypts = encrypt  # new content is encrypted (else only read)
        self._master = AESGCM(master)
        self.master_id = master_id(master)
        # What the read model names a text's embedding by: a keyed digest,
        # so that a copy of the database cannot confirm a guessed text.
        self.digest_key = derive(master, "digest")
        self._keys: dict[tuple[UUID, str], _Key] = {}  # (stream, key id) -> key
        self._gone: set[tuple[UUID, str]] = set()  # looked for and not found
        self._active: dict[UUID, str] = {}  # stream -> the key id new text used last
        self._sealing: dict[UUID, str] = {}  # stream -> the key id the read model seals with
        self._lock = threading.Lock()
        self._check_master()

    # -- reading ---------------------------------------------------------------------
    def _check_master(self) -> None:
        """Fail now, with the reason, when the master key is not the one the
        home's keys were wrapped with (rather than on the first read)."""
        wrapped_by = set()
        for path in self._files():
            with open(path, encoding="utf-8") as f:
                wrapped_by.add(json.load(f).get("master"))
            if self.master_id in wrapped_by:
                return
        if wrapped_by:
            raise KeyUnavailable(
                f"the master key given (id {self.master_id}) is not the one this home's keys "
                f"were wrapped with (id {', '.join(sorted(map(str, wrapped_by)))}): nothing "
                "encrypted can be read")

    def _files(self, stream: UUID | None = None) -> list[str]:
        dirs = [os.path.join(self.root, str(stream))] if stream is not None else (
            sorted(os.path.join(self.root, d) for d in os.listdir(self.root))
            if os.path.isdir(self.root) else [])
        return [os.path.join(d, name) for d in dirs if os.path.isdir(d)
                for name in sorted(os.listdir(d)) if name.endswith(".key")]

    def _path(self, stream: UUID, kid: str) -> str:
        return os.path.join(self.root, str(stream), kid + ".key")

    def _unwrap(self, path: str) -> bytes:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        try:
            key = self._master.decrypt(base64.b64decode(data["nonce"]),
                                       base64.b64decode(data["key"]),
                                       f"kairos key {data['stream']} {data['kid']}".encode())
        except InvalidTag:
            raise KeyUnavailable(f"the master key given (id {self.master_id}) does not open "
                                 f"{path} (wrapped by id {data.get('master')})") from None
        return key

    def _find(self, stream: UUID, kid: str) -> _Key | None:
        """A key of a stream, held or read from its file; None once destroyed.
        A held key's file is looked at again after :data:`RECHECK_SECONDS`,
        so an erasure by another process takes effect here too."""
        key = self._keys.get((stream, kid))
        now = time.monotonic()
        if key is not None:
            if now - key.checked < RECHECK_SECONDS:
                return key
            if os.path.exists(key.path):
                key.checked = now
                return key
            self._drop(stream, kid)
            return None
        if (stream, kid) in self._gone:
            return None
        path = self._path(stream, kid)
        with self._lock:
            try:
                raw = self._unwrap(path)
            except FileNotFoundError:
                self._gone.add((stream, kid))
                return None
            self._keys[stream, kid] = _Key(AESGCM(raw), path, now, raw)
        return self._keys[stream, kid]

    def _drop(self, stream: UUID, kid: str) -> None:
        self._keys.pop((stream, kid), None)
        self._gone.add((stream, kid))
        if self._active.get(stream) == kid:
            del self._active[stream]

    def decrypt(self, value: str, stream: UUID) -> str | None:
        """The plaintext of a stream's encrypted text; None when its key was
        destroyed — or when it is not this stream's (copied from another
        stream, or tampered with: then ``kairos verify`` names the event)."""
        kid, _, blob = parts(value)
        key = self._find(stream, kid)
        if key is None:
            return None
        raw = base64.urlsafe_b64decode(blob + "=" * (-len(blob) % 4))
        try:
            return key.aead.decrypt(raw[:12], raw[12:], _aad(stream, kid)).decode("utf-8")
        except InvalidTag:
            log.warning("an encrypted text of stream %s does not decrypt under key %s", stream,
                        kid)
            return None

    # -- writing ---------------------------------------------------------------------
    def encryptor(self, stream: UUID, refused: Collection[str] = ()) -> Encrypt:
        """How to encrypt text for a stream: under its key, made (durably) on
        first use; never under one of the ``refused`` key ids (the keys an
        erasure of the stream destroyed, which another process may still
        hold).  A text already encrypted under one of the stream's live keys
        is kept as it is."""
        chosen: list[tuple[str, _Key]] = []  # the key, chosen on first use

        def encrypt(text: str) -> str:
            if is_encrypted(text):
                kid = parts(text)[0]
                if kid not in refused and self.decrypt(text, stream) is not None:
                    return text
            if not chosen:
                chosen.append(self._key_for(stream, refused))
            kid, key = chosen[0]
            nonce = os.urandom(12)
            blob = base64.urlsafe_b64encode(nonce + key.aead.encrypt(
                nonce, text.encode("utf-8"), _aad(stream, kid))).rstrip(b"=").decode("ascii")
            return envelope(kid, len(text), blob)
        return encrypt

    def _key_for(self, stream: UUID, refused: Collection[str]) -> tuple[str, _Key]:
        """The stream's key for new text: the one it used last, else the
        first by name of its live keys that no erasure refused, else a new
        one."""
        kid = self._active.get(stream)
        if kid is not None and kid not in refused:
            key = self._find(stream, kid)
            if key is not None:
                return kid, key
        for kid in self.key_ids(stream):
            if kid not in refused:
                key = self._find(stream, kid)
                if key is not None:
                    self._active[stream] = kid
                    return kid, key
        with self._lock:
            kid, raw = self._create(stream)
            self._keys[stream, kid] = _Key(AESGCM(raw), self._path(stream, kid), time.monotonic(),
                                           raw)
            self._active[stream] = kid
        return kid, self._keys[stream, kid]

    def _create(self, stream: UUID) -> tuple[str, bytes]:
        kid = os.urandom(8).hex()
        key = AESGCM.generate_key(bit_length=256)
        nonce = os.urandom(12)
        wrapped = self._master.encrypt(nonce, key, f"kairos key {stream} {kid}".encode())
        data = {"v": 1, "stream": str(stream), "kid": kid, "master": self.master_id,
                "nonce": base64.b64encode(nonce).decode(),
                "key": base64.b64encode(wrapped).decode()}
        # The folders first, each made durable in its parent: a key whose
        # events commit must survive a crash, its folder entries with it.
        for folder, parent in ((self.root, self.home),
                               (os.path.join(self.root, str(stream)), self.root)):
            if not os.path.isdir(folder):
                os.makedirs(folder, exist_ok=True)
                fsync_dir(parent)
        write_durably(self._path(stream, kid), json.dumps(data, sort_keys=True).encode())
        return kid, key

    # -- the read model's seal --------------------------------------------------------
    def sealing_key(self, stream: UUID) -> tuple[str, AESSIV] | None:
        """The key the read model seals a stream's text with: of its live
        keys, the first by name (every process and every rebuild picks the
        same); None when the stream has none (it never recorded encrypted
        text, or an erasure destroyed its keys).  Its file is looked at on
        every call, not every :data:`RECHECK_SECONDS`: text sealed under a
        key another process just destroyed would never open."""
        kid = self._sealing.get(stream)
        if kid is not None:
            key = self._keys.get((stream, kid))
            if key is not None and os.path.exists(key.path):
                return kid, key.siv
            self._drop(stream, kid)
            self._sealing.pop(stream, None)
        for kid in self.key_ids(stream):
            key = self._find(stream, kid)
            if key is not None:
                self._sealing[stream] = kid
                return kid, key.siv
        return None

    def unsealing_key(self, stream: UUID, kid: str) -> AESSIV | None:
        key = self._find(stream, kid)
        return None if key is None else key.siv

    # -- erasing and rotating ------------------------------------------------------------
    def key_ids(self, stream: UUID) -> list[str]:
        return [os.path.basename(p)[:-len(".key")] for p in self._files(stream)]

    def destroy(self, stream: UUID) -> list[str]:
        """Delete a stream's keys (its folder, then the folder above is
        fsynced); return their ids.  Nothing it encrypted decrypts again."""
        kids = self.key_ids(stream)
        folder = os.path.join(self.root, str(stream))
        with self._lock:
            if os.path.isdir(folder):
                shutil.rmtree(folder)
                fsync_dir(self.root)
            for kid in kids:
                self._drop(stream, kid)
            self._sealing.pop(stream, None)
        return kids

    def rewrap(self, new_master: bytes) -> int:
        """Wrap every data key with a new master key (each file replaced
        atomically); return how many.  No event changes."""
        aead, new_id = AESGCM(new_master), master_id(new_master)
        count = 0
        for path in self._files():
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
            if data["master"] == new_id:
                continue  # an earlier rotation stopped part way
            aad = f"kairos key {data['stream']} {data['kid']}".encode()
            key = self._master.decrypt(base64.b64decode(data["nonce"]),
                                       base64.b64decode(data["key"]), aad)
            nonce = os.urandom(12)
            data.update(master=new_id, nonce=base64.b64encode(nonce).decode(),
                        key=base64.b64encode(aead.encrypt(nonce, key, aad)).decode())
            write_durably(path, json.dumps(data, sort_keys=True).encode())
            count += 1
        with self._lock:  # keys this process makes from now on are wrapped by the new one
            self._master, self.master_id = aead, new_id
            self.digest_key = derive(new_master, "digest")
        return count


def open_keyring(home: str, settings: Settings) -> Keyring | None:
    """The home's keyring: None for a home that never encrypted.

    :raises KeyUnavailable: the home encrypts, or holds keys, and the master
        key is missing or wrong.
    """
    has_keys = os.path.isdir(os.path.join(home, KEYS))
    if not settings.privacy.encrypt and not has_keys:
        return None
    master = load_master(home, settings)
    if master is None:
        raise KeyUnavailable(
            "this home encrypts memory, but no master key is set: set KAIROS_MASTER_KEY, or "
            "[privacy] key_file or key_command in kairos.toml (see docs/privacy.md)")
    return Keyring(home, master, encrypt=settings.privacy.encrypt)


__all__ = ["KeyUnavailable", "Keyring", "load_master", "open_keyring", "parse_key"]


class Sealer:
    """The read model's seal (:class:`kairos.ports.Seal`): a stream's text
    as ``~ks1:<key id>:<AES-SIV ciphertext>``, under a key derived from the
    stream's data key, with the stream in the associated data.

    Deterministic: one text of one stream seals one way under one key, so
    the read model stays a function of the events and a rebuild writes the
    rows the writes wrote.  What that shows — that two rows of one stream
    hold the same text — the read model shows anyway (a line and the write
    it came from).  Once the stream's keys are destroyed nothing it sealed
    opens.
    """

    def __init__(self, keyring: Keyring):
        self.keyring = keyring

    def seal(self, text: str, stream: UUID) -> str:
        if not text:
            return text
        found = self.keyring.sealing_key(stream)
        if found is None:
            return text
        kid, siv = found
        blob = siv.encrypt(text.encode("utf-8"), [_sealed_aad(stream, kid)])
        return f"{SEALED}{kid}:{base64.urlsafe_b64encode(blob).rstrip(b'=').decode('ascii')}"

    def open(self, value: str, stream: UUID) -> str | None:
        if not value.startswith(SEALED):
            return value
        m = SEALED_FORM.fullmatch(value)
        if m is None:
            return value
        kid, blob = m.groups()
        siv = self.keyring.unsealing_key(stream, kid)
        if siv is None:
            return None
        try:
            raw = base64.urlsafe_b64decode(blob + "=" * (-len(blob) % 4))
            return siv.decrypt(raw, [_sealed_aad(stream, kid)]).decode("utf-8")
        except (InvalidTag, binascii.Error):
            log.warning("a sealed text of stream %s does not open under key %s", stream, kid)
            return None

    def digest(self, text: str) -> str:
        return hmac.new(self.keyring.digest_key, text.encode("utf-8"),
                        hashlib.sha256).hexdigest()[:32]


def _sealed_aad(stream: UUID, kid: str) -> bytes:
    return f"kairos read model {stream} {kid}".encode()
