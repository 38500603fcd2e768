# bernstein2020_ch5 rules (to be written)
