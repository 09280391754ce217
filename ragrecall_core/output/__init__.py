"""Rendering results for people: command-line text and tables, reports."""
