--- :checkhealth supercoder
local M = {}

-- vim.health from 0.10 on; older Neovim has report_* (0.8/0.9) or require("health") (0.7)
local h = vim.health or require("health")
local start = h.start or h.report_start
local ok = h.ok or h.report_ok
local warn = h.warn or h.report_warn
local err = h.error or h.report_error
local info = h.info or h.report_info

local function run(argv)
  if vim.system then
    local okrun, res = pcall(function()
      return vim.system(argv, { text = true }):wait(20000)
    end)
    if not okrun then
      return nil, tostring(res)
    end
    return res.code, vim.trim((res.stdout or "") .. (res.stderr or ""))
  end
  local out = vim.fn.system(argv)
  return vim.v.shell_error, vim.trim(out)
end

local function first_line(s)
  return (s or ""):match("[^\n]*")
end

local function check_tool(tool, package)
  if vim.fn.executable(tool) == 1 then
    local _, out = run({ tool, "--version" })
    ok(("%s: %s (%s)"):format(tool, first_line(out), vim.fn.exepath(tool)))
  else
    err(("%s not found on PATH"):format(tool), { ("install it: apt-get install %s"):format(package) })
  end
end

function M.check()
  start("supercoder: Neovim")
  local v = vim.version()
  local version = ("%d.%d.%d"):format(v.major, v.minor, v.patch)
  if vim.fn.has("nvim-0.10") == 1 then
    ok("Neovim " .. version)
  else
    err(
      "Neovim " .. version .. ": supercoder.nvim needs Neovim >= 0.10",
      { "upgrade Neovim, or start supercoder-lsp --stdio from your LSP client's own configuration" }
    )
    return
  end
  local sc = require("supercoder")
  if sc.configured then
    ok("setup() was called")
  elseif vim.fn.has("nvim-0.11") == 1 and vim.lsp.is_enabled and vim.lsp.is_enabled("supercoder") then
    ok('enabled with vim.lsp.enable("supercoder")')
  else
    warn(
      "setup() was not called: the server does not start",
      { 'add require("supercoder").setup({}) to your init.lua' }
    )
  end

  start("supercoder: language server")
  local cmd = sc.cmd()
  local exe = cmd[1]
  if vim.fn.executable(exe) == 1 then
    ok(("server command: %s (%s)"):format(table.concat(cmd, " "), vim.fn.exepath(exe)))
    local argv = vim.tbl_filter(function(a)
      return a ~= "--stdio"
    end, cmd)
    argv[#argv + 1] = "--version"
    local code, out = run(argv)
    if code == 0 and out:match("%d+%.%d+") then
      ok(("`%s` prints %s"):format(table.concat(argv, " "), first_line(out)))
    else
      err(
        ("`%s` failed (exit %s): %s"):format(table.concat(argv, " "), tostring(code), first_line(out)),
        { "reinstall the server: pip install -e . in the supercoder-lsp clone (or make setup)" }
      )
    end
    if cmd[2] == "-m" and cmd[3] == "supercoder_lsp" then
      local icode, iout = run({ exe, "-c", "import supercoder_lsp" })
      if icode == 0 then
        ok(exe .. " imports supercoder_lsp")
      else
        err(
          exe .. " cannot import supercoder_lsp: " .. first_line(iout),
          { "install it into that Python: " .. exe .. " -m pip install supercoder-lsp (or -e . from a clone)" }
        )
      end
    end
  else
    err(("server command not executable: %s"):format(exe), {
      'put the venv\'s bin on PATH, or setup({ python = "/path/to/supercoder-lsp/.venv/bin/python" })',
      'or setup({ cmd = { "/path/to/supercoder-lsp", "--stdio" } })',
    })
  end

  start("supercoder: tools the server runs")
  check_tool("gcc", "gcc")
  check_tool("hyperfine", "hyperfine")

  start("supercoder: clients")
  ok("LSP log: " .. vim.lsp.get_log_path())
  local clients = vim.lsp.get_clients({ name = "supercoder" })
  if #clients == 0 then
    warn("no supercoder client is running", { "open a C file; if it still does not start, read the LSP log above" })
    return
  end
  for _, client in ipairs(clients) do
    local bufs = vim.tbl_map(function(b)
      return vim.fn.fnamemodify(vim.api.nvim_buf_get_name(b), ":~:.")
    end, vim.lsp.get_buffers_by_client_id(client.id))
    ok(("client %d attached to %d buffer(s): %s"):format(client.id, #bufs, table.concat(bufs, ", ")))
    local req = { command = "supercoder.info" }
    local res = vim.fn.has("nvim-0.11") == 1 and client:request_sync("workspace/executeCommand", req, 10000)
      or client.request_sync("workspace/executeCommand", req, 10000)
    local i = res and res.result
    if type(i) == "table" then
      ok(
        ("server %s; root %s; cache %s; %d job(s)"):format(
          tostring(i.version),
          tostring(i.root),
          tostring(i.cacheDir),
          type(i.jobs) == "table" and #i.jobs or 0
        )
      )
    else
      warn("supercoder.info did not answer: " .. vim.inspect(res and res.err))
    end
  end
  if info then
    info("statusline: " .. (sc.status() ~= "" and sc.status() or "(no status yet)"))
  end
end

return M
