"""Shared test set-up: quiet structlog, and helpers to fight encounters written inline."""

from __future__ import annotations

import logging

import structlog

structlog.configure(
    wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING),
    logger_factory=structlog.testing.CapturingLoggerFactory(),
    cache_logger_on_first_use=False,
)
