"""What the service knows and who acts in it: memory, agents and models, wired into the app in one place.

`install` adds the memory routes (alicorn.service.memory_api), the agents and models routes
(alicorn.service.agents_api), their pages (alicorn.service.web_knowledge) and chats that remember
(alicorn.service.remember: only when the service has workers, since remembering is queued on them like every other
job about a conversation). Called once by `create_app`, after the other routes and pages.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from alicorn.service import agents_api, memory_api
from alicorn.service.agents_api import AgentBook
from alicorn.service.memory_api import HomeMemory, MemoryDesk
from alicorn.service.remember import Remembering
from alicorn.service.web_knowledge import add_knowledge_pages
from alicorn.service.words_knowledge import knowledge_words


def install(api: FastAPI, service: Any, actions: Any, signed_in: Any) -> MemoryDesk:
    """Add memory, agents and models to `api` over `service` (alicorn.service.app.Service) and `actions`
    (alicorn.service.actions.Actions); returns the memory desk the routes share."""
    memory = HomeMemory(service.app.home, service.app.store, service.clock)
    desk = MemoryDesk(memory)
    api.include_router(memory_api.router(desk, service.auth, signed_in))
    api.include_router(agents_api.router(service, service.auth, signed_in))
    pages = api.state.pages
    pages.env.globals["knowledge_words"] = knowledge_words  # the nav links of every page (templates/base.html)
    add_knowledge_pages(api, pages, desk, AgentBook(service))
    if actions.pool is not None:
        remembering = Remembering(service.app.store, memory, actions.pool.submit)
        api.state.remembering = remembering
        service.on_close.insert(0, remembering.close)
    return desk
