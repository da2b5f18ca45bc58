-- init.lua (Neovim >= 0.10); supercoder-lsp on PATH, or pass python = "/path/to/.venv/bin/python"
require("supercoder").setup({
  settings = { hints = { explainNoWin = true } }, -- server settings (camelCase), as in the README
})
vim.keymap.set("n", "<leader>so", "<cmd>SupercoderOptimize<cr>", { desc = "SuperCoder: optimize this function" })
vim.keymap.set("n", "<leader>sa", "<cmd>SupercoderShowAsm<cr>", { desc = "SuperCoder: side-by-side assembly" })
vim.o.statusline = "%f %m%=%{v:lua.require'supercoder'.status()}  %l:%c "
