"""``/metrics`` of ``kairos serve``, in Prometheus's text format
(``prometheus-client``), with a registry of its own per application.

Requests by route template, method and status, and their latency; durable
writes and searches; and, read at each scrape, the proposals waiting for a
reviewer and the read side's lag behind the store.  Labels carry route
templates ("/v1/agents/{agent}/write"), never ids or content.
"""

from __future__ import annotations

from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from kairos.memory import Memory

__all__ = ["CONTENT_TYPE_LATEST", "Metrics"]


class Metrics:
    def __init__(self, memory: Memory):
        self.registry = CollectorRegistry()
        self.requests = Counter("kairos_http_requests", "HTTP requests answered",
                                ["route", "method", "status"], registry=self.registry)
        self.latency = Histogram("kairos_http_request_seconds", "Time to answer a request",
                                 ["route"], registry=self.registry,
                                 buckets=(.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5,
                                          5, 10))
        self.writes = Counter("kairos_writes", "Durable writes through the API (events)",
                              registry=self.registry)
        self.searches = Counter("kairos_searches", "Searches through the API",
                                registry=self.registry)
        pending = Gauge("kairos_pending_proposals", "Dream proposals waiting for a reviewer",
                        registry=self.registry)
        pending.set_function(lambda: len(memory.dreams.list(pending=True)))
        lag = Gauge("kairos_log_lag_events",
                    "Events committed that the read side has not applied yet",
                    registry=self.registry)
        lag.set_function(lambda: max(0, memory.engine.store.max_position()
                                      - memory.engine.readmodel.position()))

    def observe(self, route: str, method: str, status: int, seconds: float,
                **what: Any) -> None:
        self.requests.labels(route, method, str(status)).inc()
        self.latency.labels(route).observe(seconds)
        if status == 200 and what.get("writes"):
            self.writes.inc()
        if status == 200 and route.endswith("/search"):
            self.searches.inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)
