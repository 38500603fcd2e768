# raim2021 rules: written by the raim2021 study issue.
