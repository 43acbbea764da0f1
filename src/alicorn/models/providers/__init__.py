"""Providers: `base` (the interface), `openai_http` (any OpenAI-compatible HTTP endpoint), `llama_local`
(llama.cpp, an optional extra, which `provider_for` runs in a child process through `isolated`), `scripted` (recorded
answers), and `provider_for`, the one place where a profile becomes a provider."""

from __future__ import annotations

from collections.abc import Mapping

from alicorn.clock import Clock
from alicorn.models.errors import ModelError
from alicorn.models.profiles import ModelProfile
from alicorn.models.providers.base import Provider


def provider_for(
    profile: ModelProfile, *, clock: Clock | None = None, env: Mapping[str, str] | None = None
) -> Provider:
    """A provider for `profile`. Scripted profiles need a script, so they are built with ScriptedProvider directly."""
    if profile.provider == "openai_compatible":
        from alicorn.models.providers.openai_http import OpenAICompatibleProvider

        if profile.endpoint is None:  # the profile's validator requires it; kept for the type checker
            raise ModelError(f"profile {profile.id!r} has no endpoint")
        return OpenAICompatibleProvider(
            profile.endpoint,
            profile.model,
            profile=profile.id,
            api_key_env=profile.api_key_env,
            structured=profile.structured_output,
            timeout_s=profile.timeout_s,
            max_retries=profile.max_retries,
            clock=clock,
            env=env,
        )
    if profile.provider == "llama_cpp":
        from alicorn.models.providers.isolated import IsolatedProvider
        from alicorn.models.providers.llama_local import require_llama

        require_llama()  # a missing extra is said here, before any child process starts
        # In a child process: a crash inside llama.cpp (a segfault) is a journaled model error, not Alicorn's death.
        return IsolatedProvider(
            "alicorn.models.providers.llama_local:LlamaCppProvider",
            kind="llama_cpp",
            model=profile.model,
            n_ctx=profile.context_length,
        )
    raise ModelError(
        f"profile {profile.id!r} is scripted: build ScriptedProvider(answers) for it (scripted answers are not "
        "part of a profile file)"
    )


__all__ = ["Provider", "provider_for"]
