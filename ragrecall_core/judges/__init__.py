"""Built-in judges for ``ragrecall judge`` (:mod:`.openai_chat`: any OpenAI-compatible
chat endpoint)."""
