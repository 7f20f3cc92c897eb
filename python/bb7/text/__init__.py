"""Plain-text helpers every layer shares: the one line splitter (`lines`), unified diffs (`diff`)
and the token estimate with its display form (`tokens`). Pure functions, no I/O."""
