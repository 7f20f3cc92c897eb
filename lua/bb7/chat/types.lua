---@meta
--- LuaCATS classes of the chat view's own payloads (never required at run time). The others
--- (bb7.ChatView, bb7.Rendered, bb7.Panel, ...) are in lua/bb7/types.lua.

---@class bb7.ProjectFiles  the `project_files` reply (python/bb7/host/protocol/calls.py ProjectFiles)
---@field root string
---@field files string[] relative paths, git-tracked first
