"""Pure pieces of the hidden-states trim: no sglang, no torch, testable anywhere.

The trim keeps what the engy proof needs and drops the rest:
  * prefill: of the block of prompt rows sglang copies out per request, only the last row
    (the hidden state that sampled output token 0);
  * streaming / periodic flushes: hidden states only on a request's finishing step, where
    they are complete; every earlier step carries an empty list.
A prefill batch holding the panel's self-audit request (rid prefix below) is left as stock
sglang handles it: the audit needs every row, and it runs rarely, on an idle serve.
"""

import re

ARMED_TEMPLATE = (
    "[engy] hidden-states trim armed on sglang {version} "
    "(prefill keeps its last row; hidden states ride only the finishing step)"
)
INERT_TEMPLATE = "[engy] hidden-states trim not armed: inert on sglang {version} (reason: {reason})"


def armed_line(version):
    return ARMED_TEMPLATE.format(version=version)


def inert_line(version, reason):
    # The reason is one line: the app's log parser reads to the end of it.
    reason = " ".join(str(reason).split())
    return INERT_TEMPLATE.format(version=version, reason=reason)


def version_problem(version, supported):
    """None when the version is supported, else the reason to stay inert."""
    if not version:
        return "could not read the sglang version"
    if version not in supported:
        return "version not in the supported list " + ", ".join(supported)
    return None


# The panel's own self-audit re-runs a served request as one prefill and needs every row of it
# (electron/engine/miner/self-audit.ts sends this prefix in `rid`; a unit test keeps the two equal).
AUDIT_RID_PREFIX = "engy-audit-"


def has_audit_request(batch):
    """True when a request of this prefill batch is the panel's self-audit: that batch stays untrimmed."""
    reqs = getattr(batch, "reqs", None)
    if not reqs:
        return False
    try:
        return any(isinstance(getattr(r, "rid", None), str) and r.rid.startswith(AUDIT_RID_PREFIX) for r in reqs)
    except TypeError:
        return False


def _rows(t):
    shape = getattr(t, "shape", None)
    return int(shape[0]) if shape is not None else len(t)


class LastRowView(object):
    """Stands in for logits_output.hidden_states while the prefill result is processed.

    sglang copies each request's prompt rows with `hidden_states[a:b]`. Through this view
    that slice yields only its last row (still 2-D, so the ragged layout is unchanged),
    clamped to the tensor's end: under chunked prefill the tensor holds only the last
    chunk's rows. Anything other than a plain slice goes straight to the tensor.
    """

    __slots__ = ("_t",)

    def __init__(self, tensor):
        self._t = tensor

    @property
    def wrapped(self):
        return self._t

    def __getitem__(self, key):
        if isinstance(key, slice) and key.step in (None, 1):
            start, stop, _ = key.indices(_rows(self._t))
            if stop > start:
                return self._t[stop - 1 : stop]
            return self._t[start:start]
        return self._t[key]

    def __len__(self):
        return _rows(self._t)

    def __getattr__(self, name):
        return getattr(self._t, name)


def blank_unfinished(finished_reasons, output_hidden_states):
    """Hidden states for one scheduler->detokenizer batch, kept only for finishing requests.

    Entries line up with finished_reasons only when every request in the batch asked for
    hidden states (sglang appends one entry per such request). When they do not line up
    the batch is passed through untouched: untrimmed is safe, misattributed is not.
    """
    if output_hidden_states is None or finished_reasons is None:
        return output_hidden_states
    if len(output_hidden_states) != len(finished_reasons):
        return output_hidden_states
    return [h if fr is not None else [] for fr, h in zip(finished_reasons, output_hidden_states)]


def source_problems(prefill_src, stream_src):
    """What in the two wrapped functions' source no longer looks like 0.5.12.post1's."""
    problems = []
    if "logits_output.hidden_states[" not in prefill_src:
        problems.append("process_batch_result_prefill no longer slices logits_output.hidden_states")
    if "req.hidden_states.append(" not in prefill_src:
        problems.append("process_batch_result_prefill no longer appends to req.hidden_states")
    if "BatchTokenIDOutput(" not in stream_src:
        problems.append("stream_output_generation no longer builds BatchTokenIDOutput")
    for kw in ("output_hidden_states=output_hidden_states", "finished_reasons=finished_reasons"):
        if kw not in stream_src:
            problems.append("stream_output_generation no longer passes " + kw.split("=")[0] + " by keyword")
    return problems


_TYPE_CHECK = re.compile(r"isinstance\([^)]*\bBatchTokenIDOutput\b")


def type_checks_batch_output(module_src):
    """True when the module isinstance-checks the name the wrap rebinds to a function."""
    return _TYPE_CHECK.search(module_src) is not None
