"""Picture files: a batch's outputs in job order, the picks and the trash, the grid sheet, and
what each picture's job varied."""
