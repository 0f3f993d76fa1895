"""Replay tooling: log files (export, import), verify, diff, explain, timelines."""
