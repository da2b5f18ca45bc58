-- End-to-end run of supercoder.nvim in a real (headless) Neovim, driven by tests/test_neovim.py:
--
--   nvim --headless -u init.lua -i NONE proj/popcount.c -c "luafile editors/neovim/tests/e2e.lua"
--
-- with init.lua = the README's snippet. It waits for the server's hint on popcount, checks inlay
-- hints, :checkhealth, :SupercoderInfo, :SupercoderShowAsm and :SupercoderOptimize, applies the
-- "Replace popcount with verified assembly" code action and writes the file. Everything it sees goes
-- to $SUPERCODER_E2E_OUT (JSON) for the pytest side; it exits 0 when every step passed, else 1.
local sc = require("supercoder")
local out_file = assert(vim.env.SUPERCODER_E2E_OUT, "SUPERCODER_E2E_OUT is not set")
local R = { steps = {}, messages = {}, statuses = {} }
local buf = vim.api.nvim_get_current_buf()
local uv = vim.uv or vim.loop
local t0 = uv.hrtime()

local function elapsed()
  return math.floor((uv.hrtime() - t0) / 1e6) / 1000
end

local function save()
  R.lsp_log = vim.lsp.get_log_path()
  R.diagnostics = vim.tbl_map(function(d)
    return { lnum = d.lnum, col = d.col, source = d.source, code = d.code, message = d.message, severity = d.severity }
  end, vim.diagnostic.get(buf))
  local f = assert(io.open(out_file, "w"))
  f:write(vim.json.encode(R))
  f:close()
end

local notify = vim.notify
vim.notify = function(msg, level, opts) -- the messages a user would see
  R.messages[#R.messages + 1] = { msg = msg, level = level, at = elapsed() }
  return notify(msg, level, opts)
end
vim.api.nvim_create_autocmd("User", {
  pattern = "SupercoderStatus",
  callback = function(args)
    local s = args.data
    R.statuses[#R.statuses + 1] =
      { running = s.running, message = s.message, last = s.last, status = sc.status(), at = elapsed() }
  end,
})

local function wait(ms, what, cond)
  if not vim.wait(ms, cond, 100) then
    error(("timed out after %d s waiting for %s"):format(ms / 1000, what), 0)
  end
end

local function client()
  return vim.lsp.get_clients({ bufnr = buf, name = "supercoder" })[1]
end

local function floats()
  return vim.tbl_filter(function(w)
    return vim.api.nvim_win_get_config(w).relative ~= ""
  end, vim.api.nvim_tabpage_list_wins(0))
end

local function plain_windows()
  return vim.tbl_filter(function(w)
    return vim.api.nvim_win_get_config(w).relative == ""
  end, vim.api.nvim_tabpage_list_wins(0))
end

local function speedup_hint()
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.source == "supercoder" and d.code == "speedup" then
      return d
    end
  end
end

local function step(name, fn)
  local start = elapsed()
  local ok, res = xpcall(fn, debug.traceback)
  R.steps[#R.steps + 1] = { name = name, ok = ok, seconds = elapsed() - start, error = not ok and res or nil }
  if not ok then
    R.failed = name .. ": " .. res
    save()
    vim.cmd("cq 1")
  end
  save()
  return res
end

step("attach", function()
  wait(30000, "the supercoder client to attach", function()
    return client() ~= nil
  end)
  local c = client()
  R.client = {
    name = c.name,
    cmd = c.config.cmd,
    root_dir = c.config.root_dir,
    init_options = c.config.init_options,
    settings = c.config.settings,
  }
  R.commands = {}
  for _, name in ipairs({
    "SupercoderOptimize",
    "SupercoderShowAsm",
    "SupercoderInfo",
    "SupercoderRerun",
    "SupercoderClearCache",
  }) do
    R.commands[name] = vim.api.nvim_buf_get_commands(buf, {})[name] ~= nil
  end
end)

step("hint", function()
  wait(240000, "a supercoder speedup diagnostic on popcount", speedup_hint)
  R.hint = speedup_hint().message
end)

step("inlay hints", function()
  R.inlay_enabled = vim.lsp.inlay_hint.is_enabled({ bufnr = buf })
  wait(10000, "an inlay hint", function()
    return #vim.lsp.inlay_hint.get({ bufnr = buf }) > 0
  end)
  R.inlay = vim.tbl_map(function(h)
    local label = h.inlay_hint.label
    return { line = h.inlay_hint.position.line, label = type(label) == "string" and label or label[1].value }
  end, vim.lsp.inlay_hint.get({ bufnr = buf }))
end)

step("code lens", function()
  wait(20000, "the speedup code lens", function()
    return #vim.tbl_filter(function(l)
      return l.command and l.command.title:match("x faster") ~= nil
    end, vim.lsp.codelens.get(buf)) > 0
  end)
  R.lenses = vim.tbl_map(function(l)
    return { line = l.range.start.line, title = l.command and l.command.title or "" }
  end, vim.lsp.codelens.get(buf))
end)

step("checkhealth", function()
  vim.cmd("checkhealth supercoder")
  local hb = vim.api.nvim_get_current_buf()
  wait(30000, "the health report", function() -- checks run synchronously; the report fills one buffer
    return #vim.tbl_filter(function(l)
      return l:match("supercoder: clients") ~= nil
    end, vim.api.nvim_buf_get_lines(hb, 0, -1, false)) > 0
  end)
  R.health = vim.api.nvim_buf_get_lines(hb, 0, -1, false)
  if #vim.api.nvim_list_tabpages() > 1 then
    vim.cmd("tabclose")
  else
    vim.api.nvim_set_current_buf(buf)
  end
end)

step("info", function()
  vim.cmd("SupercoderInfo")
  wait(10000, "the :SupercoderInfo float", function()
    return #floats() > 0
  end)
  R.info = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(floats()[1]), 0, -1, false)
  for _, w in ipairs(floats()) do
    vim.api.nvim_win_close(w, true)
  end
end)

step("show assembly", function()
  vim.api.nvim_win_set_cursor(0, { 12, 8 }) -- in popcount's body: `for (int i = 0; i < 64; i++)`
  sc.function_at_cursor(function(name)
    R.function_at_cursor = name
  end)
  wait(10000, "the server to name the function at the cursor", function()
    return R.function_at_cursor ~= nil
  end)
  vim.cmd("SupercoderShowAsm")
  wait(20000, "the side-by-side assembly in a split", function()
    return #plain_windows() == 2
  end)
  R.windows = vim.tbl_map(function(w)
    return vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(w))
  end, plain_windows())
  local asm_win = vim.api.nvim_get_current_win()
  R.asm_head = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(asm_win), 0, 6, false)
  R.asm_layout = vim.fn.winlayout()[1] -- "row": side by side
  vim.api.nvim_win_close(asm_win, true)
  vim.api.nvim_set_current_win(vim.fn.bufwinid(buf))
end)

step("optimize now", function()
  local from = #R.statuses
  vim.api.nvim_win_set_cursor(0, { 12, 8 })
  vim.cmd("SupercoderOptimize")
  wait(20000, "the popcount job to start", function()
    for i = from + 1, #R.statuses do
      if R.statuses[i].running > 0 then
        R.status_running = R.statuses[i].status
        return true
      end
    end
  end)
  wait(240000, "the popcount job to end", function()
    for i = from + 1, #R.statuses do
      if R.statuses[i].running == 0 and R.statuses[i].message == "done" then
        R.status_done = R.statuses[i].status -- what the statusline showed then
        from = i
        return true
      end
    end
  end)
  vim.wait(3000, function() -- any status that follows the job's end (there should be none)
    return #R.statuses > from
  end, 50)
  R.status_settled = sc.status()
end)

step("replace action", function()
  local lnum = speedup_hint().lnum -- the function's name line
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = { start = { line = lnum, character = 0 }, ["end"] = { line = lnum, character = 0 } },
    context = { diagnostics = {} },
  }
  local action
  local deadline = elapsed() + 240
  while not action do -- the server re-verifies the rebuilt file before it offers the action
    local res = vim.lsp.buf_request_sync(buf, "textDocument/codeAction", params, 10000) or {}
    for _, r in pairs(res) do
      R.actions = vim.tbl_map(function(a)
        return { title = a.title, disabled = a.disabled and a.disabled.reason or nil, has_edit = a.edit ~= nil }
      end, r.result or {})
      for _, a in ipairs(r.result or {}) do
        if a.title:find("Replace popcount with verified assembly", 1, true) == 1 and a.edit and not a.disabled then
          action = a
        end
      end
    end
    if not action then
      if elapsed() > deadline then
        error("timed out after 240 s waiting for the 'Replace popcount with verified assembly' code action", 0)
      end
      vim.wait(1000)
    end
  end
  R.action = action.title
  vim.lsp.util.apply_workspace_edit(action.edit, client().offset_encoding)
  vim.api.nvim_buf_call(buf, function()
    vim.cmd("write")
  end)
end)

save()
vim.cmd("qa!")
