# bernstein2020 rules: written by the bernstein2020 study issue.
