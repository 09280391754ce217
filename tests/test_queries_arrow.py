"""The Queries table is handed to streamlit as an Arrow table built once per view (issue 30):
a pandas frame is converted to Arrow again on every rerun that draws it (at 10,000 rows x 17
columns ~50 ms of each row click, step or rerun of the page)."""

from __future__ import annotations

import pandas as pd
from streamlit import dataframe_util

from tests.dashboard_support import app, no_exception
from tests.test_app_queries import select_row


def test_no_rerun_converts_the_queries_table_from_pandas(monkeypatch):
    converted = []
    original = dataframe_util.convert_pandas_df_to_arrow_bytes

    def spy(frame):
        converted.append(set(frame.columns))
        return original(frame)

    monkeypatch.setattr(dataframe_util, "convert_pandas_df_to_arrow_bytes", spy)
    at = app(monkeypatch=monkeypatch).switch_page("pages/queries.py").run()
    table = at.dataframe(key="queries_table").value
    select_row(at, "queries_table", 1)
    at.run()
    no_exception(at)
    assert at.subheader[0].value.startswith(f"Query {table.at[1, 'query_id']} ")
    assert {"status", "query_id", "query"} <= set(table.columns) and len(table) > 100
    assert not [c for c in converted if {"status", "query_id"} <= c]
    # the table as the reader sees it: text cells, missing values as words
    assert all(pd.api.types.is_string_dtype(t) for t in table.dtypes)
