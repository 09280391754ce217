"""Reading every input into DuckDB: files, checks, configs, workspaces, the judgment store."""
