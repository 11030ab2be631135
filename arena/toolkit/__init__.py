"""Bot authors' toolkit: conformance check, SPRT A/B tests, playing a bot, a seat's view of a replay."""
