"""An OpenAI-compatible chat server that answers every request after a fixed latency and serves any number at once
(as vLLM, a hosted API or a batching llama.cpp server would): `python -m bench.fake_llm_server --port 8199
--latency 0.3`. The answer is a fixed text ("OK" unless --answer), so agents fall back to their symbolic policy;
the benches measure the client's waiting and bookkeeping, not a model. Token counts are characters // 4."""
from __future__ import annotations

import argparse
import asyncio
import time

from aiohttp import web


def make_app(latency: float, answer: str) -> web.Application:
    # first_at / last_done_at: time.monotonic() (one clock for every process of the machine) of the first request
    # since the last reset and of the last answer sent, so a bench can tell a run's start-up from its games.
    count = {"requests": 0, "in_flight": 0, "max_in_flight": 0, "first_at": None, "last_done_at": None}

    async def chat(request: web.Request) -> web.Response:
        body = await request.json()
        count["requests"] += 1
        if count["first_at"] is None:
            count["first_at"] = time.monotonic()
        count["in_flight"] += 1
        count["max_in_flight"] = max(count["max_in_flight"], count["in_flight"])
        try:
            await asyncio.sleep(latency)
        finally:
            count["in_flight"] -= 1
            count["last_done_at"] = time.monotonic()
        prompt = sum(len(m.get("content") or "") for m in body.get("messages", []) if isinstance(m.get("content"), str))
        return web.json_response({
            "id": f"chatcmpl-{count['requests']}", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", "fake"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": max(1, prompt // 4), "completion_tokens": max(1, len(answer) // 4),
                      "total_tokens": max(1, prompt // 4) + max(1, len(answer) // 4)},
        })

    async def models(_request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [{"id": "fake-model", "object": "model"}]})

    async def stats(request: web.Request) -> web.Response:
        out = dict(count)
        if request.query.get("reset"):
            count["max_in_flight"] = count["in_flight"]
            count["first_at"] = count["last_done_at"] = None
        return web.json_response(out)

    app = web.Application()
    app.router.add_post("/v1/chat/completions", chat)
    app.router.add_get("/v1/models", models)
    app.router.add_get("/stats", stats)
    return app


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--port", type=int, default=8199)
    p.add_argument("--latency", type=float, default=0.3)
    p.add_argument("--answer", default="OK")
    args = p.parse_args()
    web.run_app(make_app(args.latency, args.answer), host="127.0.0.1", port=args.port, print=None)


if __name__ == "__main__":
    main()
