"""Streamlit glue for the ragrecall dashboard: caching, session state, safe rendering.

The numbers and tables come from :mod:`ragrecall_core`; this package only keeps
them cached per workspace and per session, and moves the view state between
``st.session_state``, the sidebar widgets and the URL.
"""
