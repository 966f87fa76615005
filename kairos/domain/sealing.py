"""A checkpoint's file, as a pure function of its ``CheckpointSealed`` event.

The event carries everything the file holds — size, position, root, the
time (the event's own), the public key and, since the file became
derivable, the signature — so a seal that crashed between its commit and
its file is completed on the next open, byte for byte what the seal would
have written.  This module does no I/O.
"""

from __future__ import annotations

import json
from typing import Any

from kairos.domain.events import CheckpointSealed
from kairos.domain.hashing import format_time

FORMAT = "kairos-checkpoint/1"
BODY_FIELDS = ("format", "size", "position", "root", "time")
FOLDER = "checkpoints"


def checkpoint_body(size: int, position: int, root: str, time: str) -> dict[str, Any]:
    """What a checkpoint's signature covers."""
    return {"format": FORMAT, "size": size, "position": position, "root": root, "time": time}


def checkpoint_file(event: CheckpointSealed, event_position: int) -> tuple[str, dict[str, Any]]:
    """The file name (in ``checkpoints/``) and the content of a seal's checkpoint."""
    body = checkpoint_body(event.size, event.position, event.root, format_time(event.timestamp))
    signed = ({"signature": event.signature, "public_key": event.public_key}
              if event.signature else {})
    return (f"checkpoint-{event.position:06d}.json",
            {**body, **signed, "event_id": event.event_id, "event_position": event_position})


def checkpoint_text(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, sort_keys=True) + "\n"
