# raim2021 rules (to be written)
