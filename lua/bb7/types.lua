---@meta
-- LuaCATS types of everything the Python host sends: request replies and event payloads.
-- They mirror the msgspec Structs of python/bb7/host/protocol/ (and the structs they embed)
-- field for field; tests/nvim/test_nvim_types.py holds them to it. Nothing requires this
-- file: lua-language-server reads it.

-- Replies ------------------------------------------------------------------------------------

--- Why the host refused something: `kind` for code, `message` (one line) for the user.
---@class bb7.Problem
---@field kind string
---@field message string
---@field reported? boolean set by Lua once the user was told

--- Every request's answer (decoded by `backend.request`, which hands on `value` or `error`).
---@class bb7.Reply
---@field ok boolean
---@field value any
---@field error? bb7.Problem

--- `ping`.
---@class bb7.Pong
---@field payload any
---@field version string
---@field pid integer

--- A short confirmation for the user (`apply`, `discard`, `add`, ...).
---@class bb7.Said
---@field message string

--- `open`: the project the host now serves.
---@class bb7.Opened
---@field root string
---@field initialized boolean `.bb7/` exists
---@field chat? string the active chat's id

--- `diff`, `file_diff`: a text to show beside the user's file.
---@class bb7.DiffView
---@field path string
---@field name string buffer name for it
---@field lines string[]
---@field eol boolean the text ends with a newline

---@class bb7.Pricing USD per token; nil where the provider did not say
---@field prompt? number
---@field completion? number
---@field cache_read? number
---@field cache_write? number

---@class bb7.ModelInfo
---@field id string
---@field name string
---@field context_length? integer
---@field max_completion_tokens? integer
---@field supports_tools? boolean
---@field supports_reasoning? boolean
---@field pricing bb7.Pricing

--- `models` (reply and event): the provider's models and the chat's current one.
---@class bb7.Models
---@field models bb7.ModelInfo[]
---@field current string
---@field warning? string
---@field error? string

---@class bb7.ChatSummary
---@field id string
---@field name string
---@field scope string 'project' or 'global'
---@field pinned boolean
---@field updated number seconds since the epoch
---@field model string
---@field active boolean

--- Where a message starts in the conversation buffer: `{ line, message_id, role }`.
---@class bb7.Anchor
---@field [1] integer 0-based line
---@field [2] integer message id
---@field [3] string role

--- The conversation, drawn by the host: lines, `{ line, group }` highlights, `{ first, last }`
--- folds (0-based lines) and the message anchors.
---@class bb7.Rendered
---@field lines string[]
---@field highlights [integer, string][]
---@field folds [integer, integer][] reasoning blocks and the details of long notes
---@field anchors bb7.Anchor[]
---@field usage string the chat's totals for the window bar ('' before any answer)
---@field user_heading string the shapes Lua streams in
---@field assistant_heading string
---@field reasoning_title string
---@field quote string

--- One row of the files panel (fields left out when empty).
---@class bb7.Row
---@field text string
---@field tokens string
---@field path? string relative to the project
---@field abs? string absolute path
---@field status? string '', 'M', 'A', '!A', '~', '~M', 'R' or 'S'
---@field kind? string 'writable', 'readonly', 'section', 'external' or '' (a new file)
---@field has_output? boolean
---@field start_line? integer a section's first line
---@field end_line? integer a section's last line

---@class bb7.Panel
---@field rows bb7.Row[]
---@field total_tokens integer
---@field total_tokens_text string the total as the panel shows it (formatted by the host)

--- `chat_view`: everything the chat view shows of one chat.
---@class bb7.ChatView
---@field chat bb7.ChatSummary
---@field draft string
---@field retry boolean the last answer's edits failed; the next send carries the errors
---@field conversation bb7.Rendered
---@field files bb7.Panel
---@field hint? string one line to show once (a global chat outside any project)
---@field statuses? bb7.StatusChanged the active chat's statuses, when asked for (`statuses`)

--- `search_chats`: a chat found by its name or a message.
---@class bb7.ChatSearchHit
---@field chat bb7.ChatSummary
---@field match string 'name' or 'message'
---@field excerpt string

--- `fork_chat`, `edit_message`: the chat now active and the draft to edit.
---@class bb7.ChatRestored
---@field chat_id string
---@field draft string
---@field warnings string[]

--- `update_all`: the files re-snapshotted and those refused (with why).
---@class bb7.Updated
---@field updated string[]
---@field problems string[]

-- Events: `events.dispatch` gets batches of `{ name, payload }` -------------------------------

---@alias bb7.EventName
---| 'ready' # bb7.Ready
---| 'notify' # bb7.Notify
---| 'status_changed' # bb7.StatusChanged
---| 'request_started' # bb7.RequestStarted
---| 'done' # bb7.SendDone
---| 'diff_error' # bb7.DiffError
---| 'models' # bb7.Models
---| 'chunk' # bb7.Streamed with bb7.event.Chunk
---| 'reasoning' # bb7.Streamed with bb7.event.Reasoning
---| 'tool_progress' # bb7.Streamed with bb7.event.ToolProgress
---| 'block' # bb7.Streamed with bb7.event.BlockStatus
---| 'warning' # bb7.Streamed with bb7.event.Notice
---| 'retrying' # bb7.Streamed with bb7.event.Retrying
---| 'repairing' # bb7.Streamed with bb7.event.Repairing
---| 'title' # bb7.Streamed with bb7.event.TitleChanged

---@alias bb7.Event [bb7.EventName, any]

--- The host's first event: who it is and which protocol it speaks.
---@class bb7.Ready
---@field version string
---@field protocol integer must equal `backend.PROTOCOL`
---@field pid integer
---@field channel integer the channel Neovim started it on
---@field python string the interpreter

---@class bb7.Notify
---@field level 'error'|'warn'|'info'
---@field message string

---@class bb7.StatusItem
---@field status string '', 'M', 'A', '!A', '~', '~M', 'R' or 'S'
---@field lines integer[] lines the model's pending change touches (1-based)
---@field user_lines integer[] lines the user changed since the snapshot the model saw (1-based)

--- Statuses by absolute path; `full`: every file of the chat (others left it).
---@class bb7.StatusChanged
---@field files table<string, bb7.StatusItem>
---@field removed string[]
---@field full boolean

---@class bb7.RequestStarted
---@field request_id string
---@field chat_id string
---@field model string
---@field edit_format string 'none', 'tools' or 'text_blocks'
---@field repair boolean an automatic repair of failed edits

--- A send's end: `User BB7ResponseDone`'s data.
---@class bb7.SendDone
---@field request_id string
---@field ok boolean
---@field files string[] paths the answer changed (as the editor names them)
---@field errors string[] one line per failed edit
---@field kind string why it failed ('cancelled', 'auth', 'rate_limited', ...)
---@field message string

---@class bb7.Candidate where a failed edit probably belonged (1-based lines)
---@field start_line integer
---@field end_line integer
---@field similarity number
---@field text string

---@class bb7.ApplyError
---@field block? integer
---@field edit? integer
---@field path string
---@field kind string 'not_found', 'ambiguous', 'invalid', ...
---@field message string written for the model
---@field best? bb7.Candidate
---@field line? integer

--- Edits that could not be applied (nothing was stored).
---@class bb7.DiffError
---@field request_id string
---@field errors bb7.ApplyError[]
---@field retry_saved boolean

--- One event of a running send, named by `event.type`.
---@class bb7.Streamed
---@field request_id string
---@field event bb7.event.Chunk|bb7.event.Reasoning|bb7.event.ToolProgress|bb7.event.BlockStatus|bb7.event.Notice|bb7.event.Retrying|bb7.event.Repairing|bb7.event.TitleChanged

-- The send's events (python/bb7/host/protocol/events.py), inside `bb7.Streamed` ---------------

---@class bb7.event.Chunk
---@field type 'chunk'
---@field text string

---@class bb7.event.Reasoning
---@field type 'reasoning'
---@field text string

---@class bb7.event.ToolProgress
---@field type 'tool_progress'
---@field index integer
---@field name string
---@field path string
---@field arguments_length integer

---@class bb7.event.BlockStatus
---@field type 'block'
---@field index? integer
---@field path string
---@field line integer
---@field ok boolean
---@field message string

---@class bb7.event.Notice
---@field type 'warning'
---@field kind string
---@field message string

---@class bb7.event.Retrying
---@field type 'retrying'
---@field attempt integer
---@field max_attempts integer
---@field delay number seconds
---@field reason string

---@class bb7.event.Repairing
---@field type 'repairing'
---@field errors bb7.ApplyError[]

---@class bb7.event.TitleChanged
---@field type 'title'
---@field chat_id string
---@field title string
