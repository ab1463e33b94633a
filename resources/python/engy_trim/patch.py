"""Applies the trim to a live sglang (in the process that imports its scheduler).

Two in-memory wraps, nothing on disk is touched:
  1. SchedulerOutputProcessorMixin.process_batch_result_prefill: runs with
     logits_output.hidden_states seen through LastRowView, so each request's prefill block
     is copied out as its last row only (no 13k x 2048 .tolist()); a batch holding the
     panel's self-audit request (rid "engy-audit-...") is left untrimmed.
  2. The BatchTokenIDOutput name inside scheduler_output_processor_mixin: batches built by
     stream_output_generation get hidden states only for requests that are finishing.
Every check runs before either wrap is installed: on any surprise nothing is patched.
"""
import importlib
import inspect
import os
import sys

from . import logic
from .versions import SUPPORTED_SGLANG_VERSIONS

MIXIN_MODULE = "sglang.srt.managers.scheduler_output_processor_mixin"
_MARK = "_engy_trim_wrapped"


def sglang_version():
    try:
        from importlib.metadata import version

        return version("sglang")
    except Exception:
        pass
    for name in ("sglang.version", "sglang"):
        try:
            v = getattr(importlib.import_module(name), "__version__", None)
            if v:
                return str(v)
        except Exception:
            continue
    return ""


def _say(line):
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def _wrap_prefill(original):
    def process_batch_result_prefill(self, batch, result, *args, **kwargs):
        logits_output = getattr(result, "logits_output", None)
        hidden = getattr(logits_output, "hidden_states", None)
        if hidden is None or isinstance(hidden, logic.LastRowView) or logic.has_audit_request(batch):
            return original(self, batch, result, *args, **kwargs)
        logits_output.hidden_states = logic.LastRowView(hidden)
        try:
            return original(self, batch, result, *args, **kwargs)
        finally:
            logits_output.hidden_states = hidden

    setattr(process_batch_result_prefill, _MARK, original)
    process_batch_result_prefill.__name__ = original.__name__
    process_batch_result_prefill.__doc__ = original.__doc__
    return process_batch_result_prefill


def _wrap_batch_output(cls):
    def build_batch_token_id_output(*args, **kwargs):
        if "output_hidden_states" in kwargs:
            kwargs["output_hidden_states"] = logic.blank_unfinished(
                kwargs.get("finished_reasons"), kwargs["output_hidden_states"]
            )
        return cls(*args, **kwargs)

    setattr(build_batch_token_id_output, _MARK, cls)
    return build_batch_token_id_output


def arm():
    """Returns (armed, version, reason) and prints the one status line."""
    version = sglang_version()
    reason = _check_and_patch(version)
    if reason is None:
        _say(logic.armed_line(version))
        return True, version, None
    _say(logic.inert_line(version or "unknown", reason))
    return False, version, reason


def _check_and_patch(version):
    if os.environ.get("ENGY_TRIM_DISABLE", "") not in ("", "0"):
        return "disabled by ENGY_TRIM_DISABLE"
    problem = logic.version_problem(version, SUPPORTED_SGLANG_VERSIONS)
    if problem:
        return problem
    try:
        mixin_mod = importlib.import_module(MIXIN_MODULE)
    except Exception as e:  # the module moved (0.5.15 has scheduler_components/...)
        return "cannot import %s: %r" % (MIXIN_MODULE, e)
    mixin = getattr(mixin_mod, "SchedulerOutputProcessorMixin", None)
    prefill = getattr(mixin, "process_batch_result_prefill", None) if mixin else None
    stream = getattr(mixin, "stream_output_generation", None) if mixin else None
    batch_cls = getattr(mixin_mod, "BatchTokenIDOutput", None)
    if prefill is None or stream is None or batch_cls is None:
        return "SchedulerOutputProcessorMixin or BatchTokenIDOutput is not where 0.5.12.post1 has it"
    if getattr(prefill, _MARK, None) is not None or getattr(batch_cls, _MARK, None) is not None:
        return "already wrapped in this process"
    try:
        prefill_src = inspect.getsource(prefill)
        stream_src = inspect.getsource(stream)
        module_src = inspect.getsource(mixin_mod)
    except (OSError, TypeError) as e:
        return "cannot read sglang's source to verify it: %r" % (e,)
    problems = logic.source_problems(prefill_src, stream_src)
    if logic.type_checks_batch_output(module_src):
        problems.append("the mixin type-checks BatchTokenIDOutput, which the wrap would break")
    if problems:
        return "; ".join(problems)
    mixin.process_batch_result_prefill = _wrap_prefill(prefill)
    mixin_mod.BatchTokenIDOutput = _wrap_batch_output(batch_cls)
    return None
