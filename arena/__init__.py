"""Rummy Arena: a competition arena for bots that play Rummy-family card games."""

__version__ = "0.1.0"
