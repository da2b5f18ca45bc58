-- SuperCoder language server: hot C functions, verified faster assembly, hints.
--
-- With Neovim >= 0.11 this file alone is enough: `vim.lsp.enable("supercoder")`.
-- `require("supercoder").setup({...})` adds options on top of it (see :help supercoder).
-- The server: `pip install supercoder-lsp` (or a clone's .venv), `supercoder-lsp --stdio`.

---@type vim.lsp.Config
return {
  cmd = { "supercoder-lsp", "--stdio" },
  filetypes = { "c" },
  root_markers = { "compile_commands.json", ".supercoder.toml", ".git" },
  handlers = {
    -- "Show side-by-side assembly": open the file the server wrote in a vertical split
    ["window/showDocument"] = function(err, result, ctx, config)
      return require("supercoder").show_document(err, result, ctx, config)
    end,
    -- {running, message, last}: what require("supercoder").status() shows in a statusline
    ["supercoder/status"] = function(err, result, ctx, config)
      return require("supercoder").on_status(err, result, ctx, config)
    end,
  },
}
