---@meta
--- LuaCATS classes of what the host sends the chat view (never required at run time; read by
--- lua-language-server). Each mirrors a msgspec Struct named beside it.

---@class bb7.ChatSummary  python/bb7/protocol.py ChatSummary
---@field id string
---@field name string
---@field scope 'project'|'global'
---@field pinned boolean
---@field updated number seconds since the epoch
---@field model string the model the chat's next send uses
---@field active boolean

---@class bb7.Anchor  python/bb7/chatview/conversation.py Anchor: { line, message_id, role }
---@field [1] integer heading line (1-based)
---@field [2] integer message id
---@field [3] 'user'|'assistant'

---@class bb7.Rendered  python/bb7/chatview/conversation.py Rendered
---@field lines string[]
---@field highlights [integer, string][] (0-based line, highlight group)
---@field folds [integer, integer][] (first, last) 1-based lines: reasoning, long notes
---@field anchors bb7.Anchor[]
---@field usage string the chat's totals ('' before any answer)
---@field user_heading string
---@field assistant_heading string
---@field reasoning_title string
---@field quote string

---@class bb7.PanelRow  python/bb7/chatview/files.py Row
---@field text string
---@field tokens string
---@field path? string stored path (nil on a directory row)
---@field abs? string absolute path
---@field status? string
---@field kind? string
---@field has_output? boolean
---@field start_line? integer
---@field end_line? integer

---@class bb7.Panel  python/bb7/chatview/files.py Panel
---@field rows bb7.PanelRow[]
---@field total_tokens integer

---@class bb7.ChatView  python/bb7/protocol.py ChatView
---@field chat bb7.ChatSummary
---@field draft string
---@field retry boolean
---@field conversation bb7.Rendered
---@field files bb7.Panel
---@field hint? string a one-line hint to show once (e.g. a global chat outside a project)

---@class bb7.ProjectFiles  the `project_files` reply
---@field root string
---@field files string[] relative paths, git-tracked first
