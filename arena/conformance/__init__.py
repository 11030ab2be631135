"""The conformance check: does a bot, in any language, follow the protocol and the
rules? ``arena check`` runs it; scripted scenarios put a bot in chosen positions."""
