"""The one exception type users see: a problem stated in one line, with no traceback."""


class WinnowError(Exception):
    """A user-facing error; ``str(err)`` is the one-line message the CLI prints."""

    exit_code = 2
