"""What `make run` prints: the periodic tasks (every few seconds) stay out of the terminal at
INFO, while each publish's outcome and every task failure still show."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from celery.signals import after_setup_logger

from config.celery import ROUTINE_LOGGERS


@pytest.fixture
def routine_levels() -> Iterator[None]:
    saved = {name: logging.getLogger(name).level for name in ROUTINE_LOGGERS}
    yield
    for name, level in saved.items():
        logging.getLogger(name).setLevel(level)


def _celery_sets_up_logging() -> None:
    # What Celery's worker and beat send once they have configured the root logger.
    after_setup_logger.send(sender=None, logger=logging.getLogger(), loglevel=logging.INFO, logfile=None)


def test_routine_task_lines_are_quiet_but_failures_show(routine_levels, settings):
    settings.LOG_EVERY_TASK = False
    _celery_sets_up_logging()
    for name in ROUTINE_LOGGERS:
        logger = logging.getLogger(name)
        assert not logger.isEnabledFor(logging.INFO), name
        assert logger.isEnabledFor(logging.ERROR), name


def test_log_every_task_keeps_celery_s_own_lines(routine_levels, settings):
    for name in ROUTINE_LOGGERS:
        logging.getLogger(name).setLevel(logging.NOTSET)
    settings.LOG_EVERY_TASK = True
    _celery_sets_up_logging()
    assert all(logging.getLogger(name).isEnabledFor(logging.INFO) for name in ROUTINE_LOGGERS)
