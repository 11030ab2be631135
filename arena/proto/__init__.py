"""Generated protobuf and gRPC code only (``make proto``); nothing hand-written."""
