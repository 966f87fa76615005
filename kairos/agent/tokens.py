"""Token counts that work offline.

Kairos counts with tiktoken's ``cl100k_base`` when it can load it without a
network: tiktoken itself caches encodings on disk, and litellm (the optional
``llm`` extra) ships that file, so when litellm is installed its copy is
used.  Otherwise counts are an **estimate** — one token per four characters,
rounded up — and every report says which it is.
"""

from __future__ import annotations

import functools
import importlib.util
import math
import os
from collections.abc import Callable
from dataclasses import dataclass

CHARS_PER_TOKEN = 4  # the usual rule of thumb for English text with a BPE tokenizer


@dataclass(frozen=True)
class Counter:
    name: str
    exact: bool
    count: Callable[[str], int]


@functools.cache
def counter() -> Counter:
    """The best offline token counter available here."""
    if "TIKTOKEN_CACHE_DIR" not in os.environ:
        spec = importlib.util.find_spec("litellm")
        if spec is not None and spec.submodule_search_locations:
            bundled = os.path.join(list(spec.submodule_search_locations)[0],
                                   "litellm_core_utils", "tokenizers")
            if os.path.isdir(bundled):
                os.environ["TIKTOKEN_CACHE_DIR"] = bundled
    try:
        import tiktoken

        encoding = tiktoken.get_encoding("cl100k_base")
        encoding.encode("warm up")
    except Exception:  # not installed, or no encoding file without a network
        return Counter(f"estimate ({CHARS_PER_TOKEN} characters a token)", False,
                       lambda text: math.ceil(len(text) / CHARS_PER_TOKEN))
    return Counter("cl100k_base (tiktoken)", True,
                   lambda text: len(encoding.encode(text, disallowed_special=())))
