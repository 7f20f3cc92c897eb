"""Plain-text helpers every layer shares: the one line splitter (`lines`), unified diffs (`diff`),
the line diff3 and the merges built on it (`merge`), the inline review's hunks (`hunks`), the
token estimate with its display form (`tokens`) and counted nouns (`words`). Pure functions,
no I/O."""
