--- The channel to the Python host. It starts lazily on the first bb7 command
--- (`jobstart({python, '-m', 'bb7.host'}, {rpc = true})`), queues calls until the host's
--- `ready` event, reports a crash with the last stderr lines, and restarts on the next call.
--- Quick operations are `request` (rpcrequest, well under 10 ms); long ones (`send`, `cancel`)
--- are `notify` (rpcnotify) and answer with events. Never called from the statusline.
---@class bb7.Backend
local M = {}

local STDERR_LINES = 20

--- A host that has not said `ready` by then is stopped and reported (it hangs at start-up).
M.READY_TIMEOUT_MS = 10000

---@class bb7.BackendState
---@field state bb7.HostState
---@field chan integer? the host's channel once started
---@field queue table[] calls waiting for `ready`
---@field stderr string[] last lines the host wrote to stderr
---@field partial string
---@field info bb7.Ready?
---@field started number? `hrtime()` when the host was started
---@field ready_ms number?
local H = {
  state = 'stopped',
  chan = nil,
  queue = {},
  stderr = {},
  partial = '',
  info = nil,
  started = nil,
  ready_ms = nil,
}

local log = require('bb7.log')

--- `exiting`: the host's channel closed before Neovim ran its exit callback; calls wait for
--- that callback, which reports the exit and fails them (never a request to a dead channel).
---@alias bb7.HostState 'stopped'|'starting'|'ready'|'exiting'

---@return bb7.HostState
function M.state() return H.state end

---@return boolean
function M.is_ready() return H.state == 'ready' end

---@class bb7.HostStatus
---@field info? bb7.Ready the `ready` payload (nil while stopped)
---@field ready_ms? number cold start time in ms
---@field stderr string[] the last lines the host wrote to stderr

--- What `:checkhealth` shows.
---@return bb7.HostStatus
function M.status() return { info = H.info, ready_ms = H.ready_ms, stderr = H.stderr } end

local first_line = require('bb7.util').first_line

local function transport() return require('bb7.config').get().transport end

--- Whether a request is answered within the call (the remote plugin: `BB7Rpc` is
--- synchronous, and it starts within the first call), so its callback runs before
--- `request()` returns.
---@return boolean
function M.answers_at_once() return transport() == 'rplugin' end

local function fail_queue(err)
  local queue = H.queue
  H.queue = {}
  for _, call in ipairs(queue) do
    if call.cb then call.cb(err) end
  end
end

local function push_line(line)
  if vim.trim(line) == '' then return end
  table.insert(H.stderr, line)
  log.debug('host stderr: %s', line)
  if #H.stderr > STDERR_LINES then table.remove(H.stderr, 1) end
end

-- Job output comes in chunks: data[1] continues the last partial line and data[#data] starts
-- a new one ('' when the chunk ended with a newline).
local function push_stderr(data)
  H.partial = H.partial .. data[1]
  for i = 2, #data do
    push_line(H.partial)
    H.partial = data[i]
  end
end

local function on_exit(job, code)
  if job ~= H.chan then return end -- an old host we stopped on purpose
  push_line(H.partial)
  H.partial = ''
  H.chan, H.state, H.info = nil, 'stopped', nil
  if vim.v.exiting ~= vim.NIL then return end -- Neovim quits: its jobs end with it
  local tail = vim.list_slice(H.stderr, math.max(1, #H.stderr - 4))
  -- The last line says why (a traceback ends with its error): it goes on the first line, the
  -- one a screen shows; the lines before it follow.
  local why = table.remove(tail)
  local message = ('the Python host exited (code %d)%s%s\nThe next bb7 command restarts it.'):format(
    code,
    why and (': ' .. vim.trim(why)) or '',
    #tail > 0 and ('\n' .. table.concat(tail, '\n')) or ''
  )
  log.notify(message, 'error')
  fail_queue({ kind = 'host_exited', message = message, reported = true })
end

local function start_job()
  local python, problem = require('bb7.install').resolve()
  if not python then return false, problem end
  local root = require('bb7.install').root
  local logfile = log.path()
  vim.fn.mkdir(vim.fn.fnamemodify(logfile, ':h'), 'p')
  local pythonpath = vim.env.PYTHONPATH
  local env = {
    -- bb7's Python code always comes from this checkout, whatever venv runs it.
    PYTHONPATH = root
      .. '/python'
      .. (pythonpath and pythonpath ~= '' and (':' .. pythonpath) or ''),
    BB7_LOG_FILE = logfile,
    BB7_LOG_LEVEL = log.level(),
    -- Where the usage log lives (stdpath('data')/bb7/usage.csv), whatever NVIM_APPNAME is.
    BB7_DATA_DIR = vim.fn.stdpath('data'),
  }
  H.stderr, H.partial = {}, ''
  local ok, job = pcall(vim.fn.jobstart, { python, '-m', 'bb7.host' }, {
    rpc = true,
    env = env,
    on_stderr = function(j, data)
      if j == H.chan then push_stderr(data) end
    end,
    on_exit = function(j, code) on_exit(j, code) end,
  })
  if not ok or job <= 0 then
    return false, ('could not start %s: %s'):format(python, ok and job or tostring(job))
  end
  H.chan, H.state = job, 'starting'
  log.info('starting host %s on channel %d', python, job)
  vim.defer_fn(function()
    if H.chan ~= job or H.state ~= 'starting' then return end
    M.stop()
    log.notify(
      -- What to do first: the Python's path is long, and cut last.
      ('the host did not start in %d ms; :BB7Log says why (Python: %s)'):format(
        M.READY_TIMEOUT_MS,
        python
      ),
      'error'
    )
  end, M.READY_TIMEOUT_MS)
  vim.api.nvim_create_autocmd('VimLeavePre', {
    group = vim.api.nvim_create_augroup('bb7_backend', { clear = true }),
    callback = function() M.stop() end,
  })
  return true
end

-- The shared remote-plugin host (rplugin/python3/bb7.py): no job of our own.
local function start_rplugin()
  -- The manifest defines BB7Rpc lazily (FuncUndefined), so only a call tells.
  local ok, reply = pcall(vim.fn.BB7Rpc, 'ping', vim.empty_dict())
  if not ok or type(reply) ~= 'table' or not reply.ok then
    return false,
      ('`transport = "rplugin"`: the remote plugin did not answer (%s); run '):format(
        first_line(reply)
      ) .. ":UpdateRemotePlugins with a `g:python3_host_prog` that has bb7's dependencies"
  end
  H.state, H.info = 'ready', reply.value
  M.open()
  return true
end

--- Starts the host if it is not running (the message is also notified).
---@return boolean ok
---@return string? problem why it could not start
function M.start()
  if H.state ~= 'stopped' then return true end
  -- Commands work without setup(): the first one applies the defaults (highlights, autocmds).
  if require('bb7.config').current == nil then require('bb7').setup() end
  H.started = vim.uv.hrtime()
  local ok, problem
  if transport() == 'rplugin' then
    ok, problem = start_rplugin()
  else
    ok, problem = start_job()
  end
  if not ok then log.notify(problem or 'the host could not start', 'error') end
  return ok, problem
end

-- How long stopping waits for the host to exit by itself (it gives the chat's lease up on the
-- way out) before `jobstop`, whose SIGKILL follows its SIGTERM after 2 s: a host starved of CPU
-- was killed before it had released the lease. It usually exits within a few milliseconds.
local EXIT_GRACE_MS = 1000

--- Stops the host on purpose (no crash message); queued calls fail quietly. Closing the
--- channel lets the host exit cleanly; it is killed only if it has not within a second.
function M.stop()
  local chan = H.chan
  H.chan, H.state, H.info = nil, 'stopped', nil
  if chan then
    if transport() ~= 'rplugin' and pcall(vim.fn.chanclose, chan, 'rpc') then
      pcall(vim.fn.jobwait, { chan }, EXIT_GRACE_MS)
    end
    pcall(vim.fn.jobstop, chan)
  end
  fail_queue({ kind = 'stopped', message = 'the host was stopped', reported = true })
end

local function decode(method, ok, reply)
  if not ok then
    return { kind = 'rpc', message = ('`%s` failed: %s'):format(method, first_line(reply)) }
  end
  if type(reply) ~= 'table' or reply.ok == nil then
    return { kind = 'protocol', message = ('`%s`: unexpected reply from the host'):format(method) }
  end
  if not reply.ok then return reply.error end
  local value = reply.value
  if value == vim.NIL then value = nil end
  return nil, value
end

-- One call over the transport in force; returns pcall's `ok, result`.
local function transmit(kind, method, args)
  if transport() == 'rplugin' then
    return pcall(kind == 'request' and vim.fn.BB7Rpc or vim.fn.BB7Notify, method, args)
  end
  local chan = H.chan --[[@as integer]] -- set before any call is transmitted
  return pcall(kind == 'request' and vim.rpcrequest or vim.rpcnotify, chan, method, args)
end

local function send(call)
  -- The host may have exited with its exit callback still to run: that callback says why.
  if transport() ~= 'rplugin' and not next(vim.api.nvim_get_chan_info(H.chan or -1)) then
    H.state = 'exiting'
    return table.insert(H.queue, call)
  end
  local ok, reply = transmit(call.kind, call.method, call.args or vim.empty_dict())
  if call.kind == 'request' then
    call.cb(decode(call.method, ok, reply))
  elseif not ok then
    call.cb(decode(call.method, false, reply))
  end
end

--- Tells a ready host which project to serve (Neovim's working directory) and the options
--- it needs; the first call of every host, and again after `:cd` or `setup()`.
function M.open()
  if H.state ~= 'ready' then return end
  local config = require('bb7.config').get()
  local buffers = {}
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].modified and vim.bo[buf].buftype == '' then
      table.insert(buffers, require('bb7.buffer').text(buf))
    end
  end
  send({
    kind = 'request',
    method = 'open',
    args = {
      root = vim.fn.getcwd(),
      settings = {
        diff_mode = config.diff_mode,
        provider = config.provider,
        titles = config.titles,
        context = config.context,
        agents = require('bb7.agents').settings(),
        checks = {
          on_answer = config.checks.on_answer,
          auto_fix = config.checks.auto_fix,
          checks = { unpack(config.checks) },
        },
        prompt_log = config.log_prompts and require('bb7.log').prompts_path() or '',
      },
      buffers = buffers,
    },
    cb = M.report,
  })
end

--- The host's `ready` event: check its protocol, then send what was queued.
---@param info bb7.Ready
function M.on_ready(info)
  if H.state ~= 'starting' or info.channel ~= H.chan then
    log.debug('ignoring ready from channel %s', tostring(info.channel))
    return
  end
  local protocol = require('bb7.vocab').PROTOCOL
  if info.protocol ~= protocol then
    M.stop()
    log.notify(
      ('host protocol %d, plugin needs %d: run :BB7Install or update bb7'):format(
        info.protocol,
        protocol
      ),
      'error'
    )
    return
  end
  H.state, H.info = 'ready', info
  H.ready_ms = (vim.uv.hrtime() - (H.started or vim.uv.hrtime())) / 1e6
  log.info('host ready in %.1f ms (bb7 %s, pid %d)', H.ready_ms, info.version, info.pid)
  M.open()
  local queue = H.queue
  H.queue = {}
  for _, call in ipairs(queue) do
    send(call)
  end
end

--- Reports an error to the user unless it was already reported (a crash notifies once).
---@param err? bb7.Problem
function M.report(err)
  if err and not err.reported then log.notify(err.message, 'error') end
end

local function enqueue(call)
  call.cb = call.cb or M.report
  if H.state == 'ready' then return send(call) end
  local ok, problem = M.start()
  if not ok then return call.cb({ kind = 'no_host', message = problem, reported = true }) end
  if H.state == 'ready' then return send(call) end
  table.insert(H.queue, call)
end

--- A quick request; `cb(err, value)` runs when the host answered (at once when it is ready).
--- `err` is `{ kind, message }`; the default `cb` notifies errors.
---@param method string
---@param args? table
---@param cb? fun(err: bb7.Problem?, value: any)
function M.request(method, args, cb)
  enqueue({ kind = 'request', method = method, args = args, cb = cb })
end

--- A notification (long work); its outcome and errors come back as events.
---@param method string
---@param args? table
function M.notify(method, args) enqueue({ kind = 'notify', method = method, args = args }) end

--- Waits up to `timeout_ms` for the host, then makes a request; returns `err, value`.
--- Only for `:checkhealth` and scripts: commands use the queued `request`.
---@param method string
---@param args? table
---@param timeout_ms? integer default 5000
---@return { kind: string, message: string }? err
---@return any value
function M.request_sync(method, args, timeout_ms)
  local ok, problem = M.start()
  if not ok then return { kind = 'no_host', message = problem or 'the host could not start' } end
  vim.wait(timeout_ms or 5000, function() return H.state ~= 'starting' end, 5)
  if H.state ~= 'ready' then
    return { kind = 'not_ready', message = 'the host did not become ready; see :BB7Log' }
  end
  local err, value
  send({
    kind = 'request',
    method = method,
    args = args,
    cb = function(e, v)
      err, value = e, v
    end,
  })
  return err, value
end

return M
