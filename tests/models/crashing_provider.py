"""A provider whose native code really crashes (a segfault through ctypes) on a prompt that says so: the stand-in for
llama.cpp's crash while filling a slot, for tests/models/test_isolated.py."""

from __future__ import annotations

import ctypes
import os

from alicorn.context.tokens import TokenCounter
from alicorn.models.errors import UnknownModelError
from alicorn.models.messages import ChatRequest, ChatResponse, Usage
from alicorn.models.providers.base import Provider


class CrashingProvider(Provider):
    kind = "crashing"

    def __init__(self, answer: str = '{"month": "2026-12"}', crash_on_schema: str | None = None) -> None:
        self.answer = answer
        self.crash_on_schema = crash_on_schema

    def complete(self, request: ChatRequest) -> ChatResponse:
        prompt = request.messages[-1].content
        slot_filling = self.crash_on_schema is not None and (request.schema_name or "").endswith(self.crash_on_schema)
        if "segfault" in prompt or slot_filling:
            ctypes.string_at(0)  # reads address 0: SIGSEGV, as a crash inside llama.cpp would
        if "unknown model" in prompt:
            raise UnknownModelError("no such model here")
        if "pid" in prompt:
            return ChatResponse(text=str(os.getpid()), usage=Usage(prompt_tokens=1, completion_tokens=1), model="m")
        return ChatResponse(text=self.answer, usage=Usage(prompt_tokens=3, completion_tokens=5), model="crashing")

    def token_counter(self) -> TokenCounter:
        return TokenCounter("tokenizer:words", lambda text: len(text.split()))
