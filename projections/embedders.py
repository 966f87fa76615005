"""Embedders: the embedded offline default (WordLlama) and any model litellm
can reach (OpenAI, Ollama, Voyage, a local OpenAI-compatible server).

``[search] embeddings`` in ``kairos.toml`` picks one:

* ``"auto"`` (the default): WordLlama when the ``search`` extra is installed
  (``pip install 'kairos-memory[search]'``), else none — search is lexical
  and says nothing about it;
* ``"wordllama"``: WordLlama, and a note on every search when it is missing;
* ``"off"``: lexical search only;
* anything else: a litellm model name (``openai/text-embedding-3-small``,
  ``ollama/nomic-embed-text``…), with ``api_base`` and the provider's key
  from the environment as litellm reads it.

WordLlama (l2_supercat, 256 dimensions) is a static token-embedding table
shipped inside its wheel: no download, ~0.8 s to load, 0.15 ms a query,
about 13,000 lines a second in batches.  Its loader looks for the tokenizer
under ``<cache_dir>/tokenizers/``, where the wheel has it when ``cache_dir``
is the package folder; ``disable_download`` turns a miss into an error
instead of a download (see ``benchmarks/recall/RESULTS.md``).

Every embedder is wrapped in :class:`Guarded`: a failure (a timeout, an
HTTP error, a missing package) raises
:class:`~kairos.ports.EmbedderUnavailable` and rests the embedder for
``retry_after`` seconds, during which it fails at once — so a dead
embedding server costs one timeout, not one per search.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path
from typing import Any

from kairos.home import SearchSettings
from kairos.ports import Embedder, EmbedderUnavailable

log = logging.getLogger("kairos")
WORDLLAMA = "wordllama"
WORDLLAMA_DIMS = 256


def _unit(vectors: Any) -> Any:
    import numpy as np

    v = np.asarray(vectors, dtype=np.float32)
    if v.ndim != 2:
        raise EmbedderUnavailable(f"the embedder returned an array of shape {v.shape}")
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    return v / np.maximum(norms, 1e-12)


_LOADED: dict[str, Any] = {}  # the model, loaded once per process (16 MB, ~0.8 s)
_LOADING = threading.Lock()


class WordLlamaEmbedder:
    """WordLlama from its wheel alone, loaded on first use, once per process."""

    model = f"wordllama/l2_supercat-{WORDLLAMA_DIMS}"

    def _load(self) -> Any:
        with _LOADING:
            if WORDLLAMA not in _LOADED:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                try:
                    import wordllama
                    from wordllama import WordLlama
                except ImportError:
                    raise EmbedderUnavailable(
                        "wordllama is not installed: pip install 'kairos-memory[search]'"
                    ) from None
                _LOADED[WORDLLAMA] = WordLlama.load(cache_dir=Path(wordllama.__file__).parent,
                                                    dim=WORDLLAMA_DIMS, disable_download=True)
            return _LOADED[WORDLLAMA]

    def embed(self, texts: list[str]) -> Any:
        try:
            return _unit(self._load().embed(texts, norm=True))
        except EmbedderUnavailable:
            raise
        except Exception as e:  # a damaged install: fall back, and say why
            raise EmbedderUnavailable(f"wordllama failed: {e}") from e


class LiteLLMEmbedder:
    """Any embedding model litellm supports, over HTTP, one request per call:
    ``timeout`` bounds a call (no retries — :class:`Guarded` retries later).

    litellm (1.110) turns ``max_retries=0`` into the OpenAI client's default
    of 2 (``max_retries or DEFAULT_MAX_RETRIES``) and sets that on any client
    it is given, so a dead server at ``timeout = 1`` cost three timed-out
    requests and their back-off, ~4.5 s.  For ``openai/`` models (OpenAI and
    every OpenAI-compatible server) this passes litellm a client whose
    retries stay at 0 whatever is set on it (:func:`_no_retries_client`).
    """

    def __init__(self, model: str, api_base: str | None = None, timeout: float = 10.0):
        self.model = model
        self.api_base = api_base
        self.timeout = timeout
        self._client: Any = None

    def _openai_client(self) -> Any:
        if self._client is None and self.model.startswith("openai/"):
            self._client = _no_retries_client(self.api_base, self.timeout)
        return self._client

    def embed(self, texts: list[str]) -> Any:
        # Use the cost map litellm ships instead of fetching one at import.
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        try:
            import litellm
        except ImportError:
            raise EmbedderUnavailable(
                f"embeddings = {self.model!r} needs litellm: pip install 'kairos-memory[llm]'"
            ) from None
        litellm.suppress_debug_info = True  # it prints hints to stdout, which may be our output
        try:
            response = litellm.embedding(model=self.model, input=texts, api_base=self.api_base,
                                         timeout=self.timeout, num_retries=0, max_retries=0,
                                         client=self._openai_client())
            data = sorted(response.data, key=lambda d: d["index"])
            vectors = [d["embedding"] for d in data]
        except Exception as e:
            raise EmbedderUnavailable(f"{self.model}: {_one_line(e)}") from e
        if len(vectors) != len(texts):
            raise EmbedderUnavailable(f"{self.model} returned {len(vectors)} vectors "
                                      f"for {len(texts)} texts")
        return _unit(vectors)


class Guarded:
    """An embedder that rests after a failure: for ``retry_after`` seconds it
    raises at once, naming the failure, instead of trying again."""

    def __init__(self, inner: Embedder, retry_after: float = 60.0):
        self.inner = inner
        self.retry_after = retry_after
        self._failed: tuple[float, str] | None = None
        self._lock = threading.Lock()

    @property
    def model(self) -> str:
        return self.inner.model

    def embed(self, texts: list[str]) -> Any:
        with self._lock:
            failed = self._failed
        if failed is not None and time.monotonic() < failed[0]:
            raise EmbedderUnavailable(failed[1])
        try:
            out = self.inner.embed(texts)
        except EmbedderUnavailable as e:
            with self._lock:
                self._failed = (time.monotonic() + self.retry_after, str(e))
            log.warning("embeddings unavailable (search falls back to lexical; retry in "
                        "%.0f s): %s", self.retry_after, e)
            raise
        with self._lock:
            self._failed = None
        return out


def make_embedder(settings: SearchSettings) -> Embedder | None:
    """The home's embedder, or None for lexical search only."""
    name = settings.embeddings
    if name == "off":
        return None
    if name == "auto":
        # Installed, not imported: a command that never searches (a read,
        # an audit) should not pay for loading numpy and the model's code.
        from importlib.util import find_spec

        if find_spec("numpy") is None or find_spec("wordllama") is None:
            return None
        name = WORDLLAMA
    inner: Embedder = (WordLlamaEmbedder() if name == WORDLLAMA
                       else LiteLLMEmbedder(name, settings.api_base, settings.timeout))
    return Guarded(inner, settings.retry_after)


def _no_retries_client(api_base: str | None, timeout: float) -> Any:
    """An OpenAI client that never retries: its ``max_retries`` reads 0 and
    ignores assignment (litellm assigns its default of 2 to it)."""
    import openai  # litellm's own dependency

    class NoRetries(openai.OpenAI):
        max_retries = property(lambda self: 0, lambda self, value: None)

    return NoRetries(api_key=os.environ.get("OPENAI_API_KEY") or "none", base_url=api_base,
                     timeout=timeout, max_retries=0)


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split())[:300] or type(e).__name__


__all__ = ["Guarded", "LiteLLMEmbedder", "WordLlamaEmbedder", "make_embedder"]
