"""The SDK's version, sent as `User-Agent: commonly-cap-python/<version>`; a test keeps it equal to pyproject.toml."""
__version__ = "1.0.0rc0"
