# bernstein2020_ch4 rules (to be written)
