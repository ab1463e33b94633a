#!/usr/bin/env python3
"""Test helper (not shipped): renders a chat template the way Hugging Face transformers'
apply_chat_template does, with Debian's python3-jinja2, for the differential prompt test.

stdin:  {"template": "<jinja source>", "specials": {...}, "requests": [{"messages", "tools", "chat_template_kwargs"}, ...]}
stdout: {"results": [{"prompt": "..."} | {"error": "..."}, ...]}

The environment is the one transformers builds (see /work/shared/vectors/qwen3.6/README.md):
ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True) with the loopcontrols
extension, tojson = json.dumps(ensure_ascii=False, ...), globals raise_exception and
strftime_now; render(messages=..., tools=..., documents=None, add_generation_prompt=True,
**special_tokens, **chat_template_kwargs).
"""
import json
import sys
from datetime import datetime

from jinja2.exceptions import TemplateError
from jinja2.ext import loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment


def raise_exception(message):
    raise TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def strftime_now(fmt):
    return datetime.now().strftime(fmt)


def normalise_arguments(message):
    """The reference's step before the template: tool-call arguments become mappings."""
    calls = message.get("tool_calls") if isinstance(message, dict) else None
    if not isinstance(calls, list):
        return message
    out = []
    for tc in calls:
        if isinstance(tc, dict):
            holder = tc.get("function") if isinstance(tc.get("function"), dict) else tc
            if "arguments" in holder and not isinstance(holder["arguments"], dict):
                args = holder["arguments"]
                try:
                    args = json.loads(args) if isinstance(args, str) else args
                except ValueError:
                    args = {}
                holder = dict(holder, arguments=args if isinstance(args, dict) else {})
                tc = dict(tc, function=holder) if isinstance(tc.get("function"), dict) else holder
        out.append(tc)
    return dict(message, tool_calls=out)


def main():
    job = json.load(sys.stdin)
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    template = env.from_string(job["template"])
    results = []
    for req in job["requests"]:
        kwargs = dict(job.get("specials") or {})
        extra = req.get("chat_template_kwargs")
        if isinstance(extra, dict):
            kwargs.update(extra)
        for reserved in ("messages", "tools", "documents", "add_generation_prompt"):
            kwargs.pop(reserved, None)
        tools = req.get("tools")
        try:
            messages = [normalise_arguments(m) for m in req["messages"]]
            prompt = template.render(messages=messages, tools=tools if tools else None, documents=None,
                                     add_generation_prompt=True, **kwargs)
            results.append({"prompt": prompt})
        except Exception as e:  # a template error is a result to compare, not a crash
            results.append({"error": f"{type(e).__name__}: {e}"})
    json.dump({"results": results}, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
