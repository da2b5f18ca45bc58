--- supercoder.nvim: the SuperCoder language server in Neovim (>= 0.10).
---
--- setup() configures and enables the server (vim.lsp.config + vim.lsp.enable on 0.11,
--- vim.lsp.start from a FileType autocmd on 0.10). When the server attaches to a buffer,
--- on_attach() enables inlay hints and adds the buffer-local :Supercoder* commands, which
--- call the server's workspace/executeCommand commands. See :help supercoder.
local M = {}

local NAME = "supercoder"
local DEFAULT_CMD = { "supercoder-lsp", "--stdio" }

---@class supercoder.Options
---@field cmd? string[] how to start the server (default { "supercoder-lsp", "--stdio" })
---@field python? string a Python with supercoder-lsp installed: cmd becomes { python, "-m", "supercoder_lsp", "--stdio" }
---@field settings? table server settings (camelCase, as in the README): sent as init_options and workspace/configuration
---@field inlay_hints? boolean enable inlay hints in attached buffers (default true)
---@field code_lens? boolean show code lenses (speedup, Show assembly, Re-run) in attached buffers (default true)
---@field filetypes? string[] (default { "c" })
local defaults = { settings = {}, inlay_hints = true, code_lens = true, filetypes = { "c" } }

--- The options in effect (setup()'s, else the defaults).
M.options = vim.deepcopy(defaults)
M.options.cmd = vim.deepcopy(DEFAULT_CMD)

-- vim.lsp.config + vim.lsp.enable where they exist; the tests turn this off to run the 0.10 path on 0.11.
M._use_lsp_enable = vim.fn.has("nvim-0.11") == 1

--- The last supercoder/status notification: { running = int, message = str, last = str|nil }.
M.state = { running = 0, message = "", last = nil, seen = false }

local function notify(msg, level)
  vim.notify("supercoder: " .. msg, level or vim.log.levels.INFO)
end

local function value(x) -- JSON null arrives as nil or vim.NIL
  if x == vim.NIL then
    return nil
  end
  return x
end

-- Client:request() is a method from 0.11 on; 0.10 has a function field.
local function request(client, method, params, handler, bufnr)
  if vim.fn.has("nvim-0.11") == 1 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function version_string()
  local v = vim.version()
  return string.format("%d.%d.%d", v.major, v.minor, v.patch)
end

--- The base configuration: lsp/supercoder.lua from 'runtimepath' (this plugin's, unless the user has one).
function M.base_config()
  local file = vim.api.nvim_get_runtime_file("lsp/" .. NAME .. ".lua", false)[1]
  if file then
    return dofile(file)
  end
  return { cmd = vim.deepcopy(DEFAULT_CMD), filetypes = { "c" } }
end

--- The command that starts the server, as the client would run it.
function M.cmd()
  if M.configured then
    return M.options.cmd
  end
  if vim.fn.has("nvim-0.11") == 1 then
    local cfg = vim.lsp.config[NAME]
    if cfg and type(cfg.cmd) == "table" then
      return cfg.cmd
    end
  end
  return M.options.cmd
end

local function check_options(opts)
  local function list_of_strings(t)
    if type(t) ~= "table" or #t == 0 then
      return false
    end
    for _, v in ipairs(t) do
      if type(v) ~= "string" then
        return false
      end
    end
    return true
  end
  if opts.cmd ~= nil and not list_of_strings(opts.cmd) then
    return '`cmd` must be a list of strings, e.g. { "supercoder-lsp", "--stdio" }'
  end
  if opts.python ~= nil and type(opts.python) ~= "string" then
    return "`python` must be the path of a Python executable"
  end
  if opts.settings ~= nil and type(opts.settings) ~= "table" then
    return "`settings` must be a table of server settings"
  end
  if opts.filetypes ~= nil and not list_of_strings(opts.filetypes) then
    return "`filetypes` must be a list of strings"
  end
  if opts.inlay_hints ~= nil and type(opts.inlay_hints) ~= "boolean" then
    return "`inlay_hints` must be true or false"
  end
  if opts.code_lens ~= nil and type(opts.code_lens) ~= "boolean" then
    return "`code_lens` must be true or false"
  end
end

---@param opts? supercoder.Options
function M.setup(opts)
  opts = opts or {}
  if vim.fn.has("nvim-0.10") == 0 then
    vim.notify(
      ("supercoder.nvim needs Neovim >= 0.10 (this is %s); the language server still works with any LSP client"):format(
        version_string()
      ),
      vim.log.levels.WARN
    )
    return
  end
  local problem = check_options(opts)
  if problem then
    notify("setup(): " .. problem .. "; the server was not started", vim.log.levels.ERROR)
    return
  end
  local o = vim.tbl_deep_extend("force", vim.deepcopy(defaults), opts)
  o.cmd = opts.cmd
    or (opts.python and { vim.fn.expand(opts.python), "-m", "supercoder_lsp", "--stdio" })
    or vim.deepcopy(DEFAULT_CMD)
  M.options, M.configured = o, true

  local cfg = {
    cmd = o.cmd,
    filetypes = o.filetypes,
    init_options = next(o.settings) and o.settings or nil,
    settings = { supercoder = o.settings }, -- answered to workspace/configuration, section "supercoder"
  }
  if M._use_lsp_enable then
    vim.lsp.config(NAME, cfg)
    vim.lsp.enable(NAME)
    return
  end

  -- Neovim 0.10: start (or reuse) the client for each buffer of a matching filetype.
  cfg = vim.tbl_deep_extend("force", M.base_config(), cfg)
  local markers = cfg.root_markers
  cfg.root_markers = nil
  local function start(buf)
    if vim.bo[buf].buftype ~= "" or vim.api.nvim_buf_get_name(buf) == "" then
      return
    end
    vim.lsp.start(vim.tbl_extend("force", cfg, { name = NAME, root_dir = vim.fs.root(buf, markers) }), { bufnr = buf })
  end
  vim.api.nvim_create_autocmd("FileType", {
    group = vim.api.nvim_create_augroup("supercoder_start", { clear = true }),
    pattern = o.filetypes,
    callback = function(args)
      start(args.buf)
    end,
  })
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.tbl_contains(o.filetypes, vim.bo[buf].filetype) then
      start(buf)
    end
  end
end

-- -- talking to the server ----------------------------------------------------------------------

local function client_for(bufnr)
  local clients = vim.lsp.get_clients({ name = NAME, bufnr = bufnr })
  if #clients == 0 then
    clients = vim.lsp.get_clients({ name = NAME })
  end
  return clients[1]
end

--- Run a server command (workspace/executeCommand); on_result(result) gets its answer.
function M.exec(command, arguments, bufnr, on_result)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local client = client_for(bufnr)
  if not client then
    notify("no supercoder language server is running (open a C file first)", vim.log.levels.WARN)
    return false
  end
  request(client, "workspace/executeCommand", { command = command, arguments = arguments }, function(err, result)
    if err then
      notify(command .. " failed: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    elseif on_result then
      on_result(value(result))
    end
  end, bufnr)
  return true
end

local function same_file(a, b)
  return vim.fn.fnamemodify(a, ":p") == vim.fn.fnamemodify(b, ":p")
end

--- Open fname in a vertical split (or go to the window of this tab that shows it), reloaded from disk.
function M.open_split(fname, selection, take_focus)
  local from = vim.api.nvim_get_current_win()
  local shown
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if same_file(vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(win)), fname) then
      shown = win
    end
  end
  if shown then
    vim.api.nvim_set_current_win(shown)
  else
    vim.cmd("vsplit " .. vim.fn.fnameescape(fname))
  end
  pcall(vim.cmd, "checktime " .. vim.api.nvim_get_current_buf()) -- written again since it was loaded
  if selection and selection.start then
    pcall(vim.api.nvim_win_set_cursor, 0, { selection.start.line + 1, selection.start.character })
  end
  if take_focus == false then
    vim.api.nvim_set_current_win(from)
  end
end

--- window/showDocument from the server: the side-by-side assembly, in a vertical split.
function M.show_document(_, params)
  if not params or not params.uri then
    return { success = false }
  end
  if params.external then
    local ok = pcall(vim.ui.open, params.uri)
    return { success = ok }
  end
  local ok, err = pcall(M.open_split, vim.uri_to_fname(params.uri), value(params.selection), value(params.takeFocus))
  if not ok then
    notify("cannot open " .. params.uri .. ": " .. tostring(err), vim.log.levels.ERROR)
  end
  return { success = ok }
end

--- supercoder/status from the server.
function M.on_status(_, params, ctx)
  if type(params) ~= "table" then
    return
  end
  -- results changed: Neovim does not take workspace/codeLens/refresh from servers, so ask for lenses here
  if M.options.code_lens ~= false and ctx and ctx.client_id then
    for _, buf in ipairs(vim.lsp.get_buffers_by_client_id(ctx.client_id)) do
      pcall(vim.lsp.codelens.refresh, { bufnr = buf })
    end
  end
  M.state = {
    running = tonumber(value(params.running)) or 0,
    message = value(params.message) or "",
    last = value(params.last),
    seen = true,
  }
  pcall(vim.api.nvim_exec_autocmds, "User", { pattern = "SupercoderStatus", modeline = false, data = M.state })
  pcall(vim.cmd, "redrawstatus")
end

--- A short string for a statusline: "" before the server said anything, "SC ⟳1" while one job runs,
--- else the last result without its confidence interval and with its proof level cut to ", proven"
--- (a tested result's "verified on N inputs" is dropped), e.g. "SC popcount: 6.70x faster, uses popcnt",
--- cut to `width` characters (default 40).
function M.status(width)
  local s = M.state
  if not s.seen then
    return ""
  end
  if s.running > 0 then
    return "SC ⟳" .. s.running
  end
  if s.last and s.last ~= "" then
    local text = "SC " .. s.last:gsub(" %(95%% CI [^)]*%)", "")
    if text:find(" %- proven ") then
      text = text:gsub(" %- proven .*$", "") .. ", proven"
    end
    text = text:gsub(" %- verified on .*$", "")
    width = width or 40
    if vim.fn.strchars(text) > width then
      text = vim.fn.strcharpart(text, 0, width - 1) .. "…"
    end
    return text
  end
  return "SC"
end

--- supercoder.info's answer as lines of text.
function M.format_info(info)
  local lines = {
    ("SuperCoder language server %s"):format(value(info.version) or "?"),
    ("python:   %s"):format(value(info.python) or "?"),
    ("root:     %s"):format(value(info.root) or "(none)"),
    ("cache:    %s"):format(value(info.cacheDir) or "?"),
    "settings:",
  }
  local settings = value(info.settings) or {}
  local keys = vim.tbl_keys(settings)
  table.sort(keys)
  for _, k in ipairs(keys) do
    lines[#lines + 1] = ("  %s = %s"):format(k, vim.inspect(value(settings[k]), { newline = " ", indent = "" }))
  end
  local jobs = value(info.jobs) or {}
  lines[#lines + 1] = ("jobs: %d"):format(#jobs)
  for _, j in ipairs(jobs) do
    local file = vim.fn.fnamemodify(vim.uri_to_fname(j.uri), ":t")
    local result, err = value(j.result), value(j.error)
    local what = result or (err and ("error: " .. err)) or (value(j.running) and "" or "no faster candidate")
    if value(j.running) then
      what = "running" .. (what ~= "" and ("; so far " .. what) or "")
    end
    lines[#lines + 1] = ("  %s (%s): %s"):format(j["function"], file, (what:gsub("\n", " ")))
  end
  return lines
end

--- Ask the server for supercoder.info; on_info(info) gets the table.
function M.info(on_info, bufnr)
  return M.exec("supercoder.info", nil, bufnr, on_info)
end

-- -- the function at the cursor: the server parses C and resolves a position -------------------

local function cursor_position(bufnr)
  local client = client_for(bufnr)
  return vim.lsp.util.make_position_params(0, client and client.offset_encoding or "utf-16").position
end

--- Ask the server for the name of the C function around the cursor; on_name(name) gets it, or nil.
function M.function_at_cursor(on_name)
  local buf = vim.api.nvim_get_current_buf()
  return M.exec("supercoder.functionAt", { vim.uri_from_bufnr(buf), cursor_position(buf) }, buf, on_name)
end

-- -- commands ------------------------------------------------------------------------------------

--- NAME when given, else the cursor's position: the server says which function that is (or why none).
local function function_arg(args, bufnr)
  return args.args ~= "" and args.args or cursor_position(bufnr)
end

local commands = {
  SupercoderOptimize = {
    function(args)
      local buf = vim.api.nvim_get_current_buf()
      M.exec("supercoder.optimizeFunction", { vim.uri_from_bufnr(buf), function_arg(args, buf) }, buf, function(name)
        if name then -- else the server said why there is none
          notify("optimizing " .. name .. " (see the statusline, or :SupercoderInfo)")
        end
      end)
    end,
    { nargs = "?", desc = "SuperCoder: optimize the function at the cursor (or NAME) now" },
  },
  SupercoderShowAsm = {
    function(args)
      local buf = vim.api.nvim_get_current_buf()
      M.exec("supercoder.showAssembly", { vim.uri_from_bufnr(buf), function_arg(args, buf) }, buf, function(path)
        -- the server normally sent window/showDocument already; else it answers the path
        if type(path) == "string" and path ~= "" then
          for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
            if same_file(vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(win)), path) then
              return
            end
          end
          M.open_split(path)
        end
      end)
    end,
    { nargs = "?", desc = "SuperCoder: the -O3 and the verified assembly side by side" },
  },
  SupercoderInfo = {
    function()
      M.info(function(info)
        if type(info) ~= "table" then
          return notify("no answer to supercoder.info", vim.log.levels.WARN)
        end
        vim.lsp.util.open_floating_preview(
          M.format_info(info),
          "",
          { border = "rounded", focus_id = "supercoder-info" }
        )
      end)
    end,
    { desc = "SuperCoder: server version, settings and jobs" },
  },
  SupercoderRerun = {
    function()
      local buf = vim.api.nvim_get_current_buf()
      M.exec("supercoder.rerun", { vim.uri_from_bufnr(buf) }, buf)
    end,
    { desc = "SuperCoder: run this file's hot functions again" },
  },
  SupercoderClearCache = {
    function()
      M.exec("supercoder.clearCache", nil, nil)
    end,
    { desc = "SuperCoder: empty the results cache (open files are analyzed again)" },
  },
}

--- Called on LspAttach for the supercoder client (plugin/supercoder.lua).
function M.on_attach(client, bufnr)
  if M.options.inlay_hints ~= false and vim.lsp.inlay_hint then
    vim.lsp.inlay_hint.enable(true, { bufnr = bufnr })
  end
  if M.options.code_lens ~= false then
    -- the first request makes Neovim track lenses for this buffer; the server's workspace/codeLens/refresh
    -- (sent when a result arrives) then redraws them, and saving or entering the buffer asks again
    vim.lsp.codelens.refresh({ bufnr = bufnr })
    vim.api.nvim_create_autocmd({ "BufEnter", "BufWritePost", "InsertLeave" }, {
      group = vim.api.nvim_create_augroup("supercoder_codelens_" .. bufnr, { clear = true }),
      buffer = bufnr,
      callback = function()
        vim.lsp.codelens.refresh({ bufnr = bufnr })
      end,
    })
  end
  for name, def in pairs(commands) do
    vim.api.nvim_buf_create_user_command(bufnr, name, def[1], def[2])
  end
end

return M
