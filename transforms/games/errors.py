"""Error type that every transform raises for bad input."""


class RejectError(ValueError):
    """Bad input that becomes one `rejects` row.

    ``reason`` is a stable snake_case code (for example ``empty_file``); the message is short
    and human-readable.
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
