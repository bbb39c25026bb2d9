"""cap_sdk"""
__version__ = "1.0.0"
