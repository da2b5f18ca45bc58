-- supercoder.nvim: buffer-local commands for buffers the supercoder language server attaches to.
-- Nothing starts here: `require("supercoder").setup()` (or `vim.lsp.enable("supercoder")`) does that.
if vim.g.loaded_supercoder or vim.fn.has("nvim-0.10") == 0 then
  return
end
vim.g.loaded_supercoder = true

vim.api.nvim_create_autocmd("LspAttach", {
  group = vim.api.nvim_create_augroup("supercoder_attach", { clear = true }),
  callback = function(args)
    local client = vim.lsp.get_client_by_id(args.data.client_id)
    if client and client.name == "supercoder" then
      require("supercoder").on_attach(client, args.buf)
    end
  end,
})
