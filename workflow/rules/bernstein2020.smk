# bernstein2020: chapters 4 and 5 each have their own rule file.
include: "bernstein2020_ch4.smk"
include: "bernstein2020_ch5.smk"
