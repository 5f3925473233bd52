"""Placement: what each server can run, what each job needs, where and in what order jobs go."""
