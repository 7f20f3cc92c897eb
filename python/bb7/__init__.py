"""bb7: LLM-assisted, non-agentic coding for Neovim; file changes land in a reviewable sandbox."""

__version__ = "0.1.0"
