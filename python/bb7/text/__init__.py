"""Plain-text helpers every layer shares: the one line splitter (`lines`), unified diffs (`diff`),
the token estimate with its display form (`tokens`) and counted nouns (`words`). Pure functions,
no I/O."""
