"""jig: decide, the same way every time, whether a submission proves what was posted."""

__version__ = "0.1.0"
