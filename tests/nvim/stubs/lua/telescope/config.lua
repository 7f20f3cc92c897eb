-- Test stub: telescope's configured sorters and previewers (nothing to sort or preview here).
local function none() return {} end
return { values = { file_sorter = none, generic_sorter = none, file_previewer = none } }
