"""The errors a user can cause, each caught once at the CLI boundary.

Every `JigError` carries one sentence that says what to do; `cli.main` prints it on stderr
as `jig: <message>` and exits with `exit_code`. Anything else that escapes is a bug.
"""

from __future__ import annotations

import errno
import gc
import os
import signal
import sys
from collections.abc import Callable
from typing import NoReturn


class JigError(Exception):
    """A failure the user can act on. `str(error)` is the sentence shown to them."""

    exit_code = 2

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class UsageError(JigError):
    """Bad arguments: a path that does not exist, a malformed option value."""

    exit_code = 2


class RepoNotFound(UsageError):
    """No verifier repo above the working directory."""


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised in the main thread like Ctrl-C's KeyboardInterrupt, so that
    every path that stops for Ctrl-C (children killed, cgroups and stages removed, what
    finished reported) stops for them too; exit 128 + the signal (143, 129)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _terminate(signum: int, _frame: object) -> None:
    raise Terminated(signum)


def stop_on_signals() -> None:
    """Handle SIGTERM and SIGHUP as Ctrl-C, where they are not ignored (`nohup jig …`)."""
    for signum in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(signum) is not signal.SIG_IGN:
            signal.signal(signum, _terminate)


def interrupted_code(stop: BaseException | None = None) -> int:
    """The exit code after a stop: 128 + SIGTERM or SIGHUP, 130 for Ctrl-C."""
    return 128 + stop.signum if isinstance(stop, Terminated) else 130


def _internal_error(error: Exception) -> NoReturn:
    """A bug in jig, not the user's doing: one line naming it, exit 3 (`JIG_DEBUG=1`: the
    traceback instead)."""
    from jigcli.console import say_error

    if os.environ.get("JIG_DEBUG") == "1":
        raise error
    say_error(
        f"internal error ({type(error).__name__}: {error}); rerun with JIG_DEBUG=1 "
        "for the traceback and report it."
    )
    sys.exit(3)


def guarded(call: Callable[[], int | None]) -> NoReturn:
    """The one error boundary of every entry point: run `call` and exit with its code.

    A `JigError` becomes `jig: <sentence>` and its exit code; a bug becomes one line naming
    it (with `JIG_DEBUG=1` for the traceback) and exit 3; Ctrl-C exits 130, SIGTERM 143 and
    SIGHUP 129 (`Terminated`).
    """
    from jigcli.console import say_error

    stop_on_signals()
    try:
        code = call()
    except JigError as error:
        say_error(error.message)
        sys.exit(error.exit_code)
    except KeyboardInterrupt as stop:
        sys.exit(interrupted_code(stop))
    except OSError as error:
        if error.errno != errno.ENAMETOOLONG or os.environ.get("JIG_DEBUG") == "1":
            _internal_error(error)
        # Only a path the user gave (or one made from it) is too long: theirs to shorten.
        from jigcli.display import one_line

        said = one_line(error.filename or "a path", 60)
        say_error(f"{said} is too long for this system; pass a shorter path.")
        sys.exit(UsageError.exit_code)
    except Exception as error:  # a bug in jig, not the user's doing: say so in one line
        _internal_error(error)
    finally:
        # Everything jig made is about to go at once: frozen, it is skipped by the collections
        # the interpreter runs on its way out (some 25 ms of a certificate's `jig verify`).
        gc.freeze()
    sys.exit(code or 0)
