"""Dashboard view-models: frames and figures for the pages, no SQL."""
