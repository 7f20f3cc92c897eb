"""Project state: chats, context snapshots, pending outputs, statuses, apply/discard/merge."""
