"""The errors a user can cause, each caught once at the CLI boundary.

Every `JigError` carries one sentence that says what to do; `cli.main` prints it on stderr
as `jig: <message>` and exits with `exit_code`. Anything else that escapes is a bug.
"""

from __future__ import annotations


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


class NotBuiltYet(JigError):
    """A command registered on the CLI whose implementation has not landed."""

    exit_code = 2
