"""Tests of engy_trim. Run with `python3 -m pytest resources/python/tests` or
`python3 -m unittest discover -s resources/python/tests`.

Three layers:
  * the pure logic (no sglang);
  * the import hook and both wraps end to end against a TEST DOUBLE of sglang's two internals
    (a throw-away package written to a temp dir, shaped like 0.5.12.post1's code);
  * the real sglang, only where it is installed (skipped here with the reason).
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

# Leave no __pycache__ behind in the source tree (this test and its subprocesses).
sys.dont_write_bytecode = True
os.environ["PYTHONDONTWRITEBYTECODE"] = "1"

HERE = os.path.dirname(os.path.abspath(__file__))
PKG_ROOT = os.path.dirname(HERE)
sys.path.insert(0, PKG_ROOT)

from engy_trim import logic  # noqa: E402
from engy_trim.versions import SUPPORTED_SGLANG_VERSIONS  # noqa: E402


class FakeTensor(object):
    """Just enough of a torch tensor for the trim: 2-D slicing, cpu/clone/tolist, shape."""

    def __init__(self, rows):
        self.rows = [list(r) for r in rows]
        self.shape = (len(self.rows), len(self.rows[0]) if self.rows else 0)

    def __getitem__(self, key):
        if isinstance(key, slice):
            return FakeTensor(self.rows[key])
        return self.rows[key]

    def cpu(self):
        return self

    def clone(self):
        return FakeTensor(self.rows)

    def tolist(self):
        return [list(r) for r in self.rows]


class LogicTests(unittest.TestCase):
    def test_last_row_view_keeps_only_the_last_row_of_a_slice(self):
        t = FakeTensor([[i, i + 0.5] for i in range(6)])
        view = logic.LastRowView(t)
        self.assertEqual(view[0:4].tolist(), [[3, 3.5]])
        self.assertEqual(view[4:6].tolist(), [[5, 5.5]])

    def test_last_row_view_clamps_to_the_tensor_end_like_chunked_prefill(self):
        t = FakeTensor([[1.0], [2.0], [3.0]])
        self.assertEqual(logic.LastRowView(t)[0:13000].tolist(), [[3.0]])

    def test_last_row_view_past_the_end_is_empty_as_stock_would_be(self):
        t = FakeTensor([[1.0], [2.0]])
        self.assertEqual(logic.LastRowView(t)[5:9].tolist(), [])

    def test_last_row_view_passes_other_indexing_through(self):
        t = FakeTensor([[1.0], [2.0]])
        view = logic.LastRowView(t)
        self.assertEqual(view[1], [2.0])
        self.assertEqual(view.shape, (2, 1))
        self.assertEqual(len(view), 2)

    def test_audit_request_is_recognised_by_its_rid_prefix_only(self):
        class R(object):
            def __init__(self, rid):
                self.rid = rid

        class B(object):
            def __init__(self, reqs):
                self.reqs = reqs

        self.assertTrue(logic.has_audit_request(B([R("x"), R("engy-audit-0123")])))
        self.assertFalse(logic.has_audit_request(B([R("x"), R("audit-engy-1"), R(None), R(7)])))
        self.assertFalse(logic.has_audit_request(B([])))
        self.assertFalse(logic.has_audit_request(B(None)))
        self.assertFalse(logic.has_audit_request(object()))
        self.assertFalse(logic.has_audit_request(B(5)))

    def test_blank_unfinished_keeps_only_finishing_requests(self):
        out = logic.blank_unfinished([None, {"type": "stop"}], [[[1.0]], [[2.0], [3.0]]])
        self.assertEqual(out, [[], [[2.0], [3.0]]])

    def test_blank_unfinished_passes_through_a_batch_it_cannot_align(self):
        hidden = [[[1.0]]]
        self.assertIs(logic.blank_unfinished([None, None], hidden), hidden)
        self.assertIsNone(logic.blank_unfinished([None], None))

    def test_blank_unfinished_does_not_mutate_the_request_lists(self):
        acc = [[[1.0]]]
        logic.blank_unfinished([None], [acc])
        self.assertEqual(acc, [[[1.0]]])

    def test_version_problem(self):
        self.assertIsNone(logic.version_problem("0.5.12.post1", ("0.5.12.post1",)))
        self.assertIn("not in the supported list", logic.version_problem("0.5.15.post1", ("0.5.12.post1",)))
        self.assertIn("could not read", logic.version_problem("", ("0.5.12.post1",)))

    def test_lines_match_what_the_app_parses(self):
        # The same text electron/engine/serve/trim-module.ts formats and parses.
        self.assertEqual(
            logic.armed_line("0.5.12.post1"),
            "[engy] hidden-states trim armed on sglang 0.5.12.post1 "
            "(prefill keeps its last row; hidden states ride only the finishing step)",
        )
        self.assertEqual(
            logic.inert_line("0.5.15.post1", "version not in\nthe list"),
            "[engy] hidden-states trim not armed: inert on sglang 0.5.15.post1 (reason: version not in the list)",
        )

    def test_source_problems_name_what_moved(self):
        self.assertEqual(
            logic.source_problems(
                "x = logits_output.hidden_states[a:b]\nreq.hidden_states.append(x)",
                "BatchTokenIDOutput(finished_reasons=finished_reasons, output_hidden_states=output_hidden_states)",
            ),
            [],
        )
        problems = logic.source_problems("pass", "pass")
        self.assertEqual(len(problems), 5)

    def test_type_check_detection(self):
        self.assertTrue(logic.type_checks_batch_output("if isinstance(out, BatchTokenIDOutput):"))
        self.assertTrue(logic.type_checks_batch_output("isinstance(o, (X, BatchTokenIDOutput))"))
        self.assertFalse(logic.type_checks_batch_output("from m import (\n    BatchTokenIDOutput,\n)\nisinstance(a, int)"))

    def test_supported_versions_is_not_empty(self):
        self.assertIn("0.5.12.post1", SUPPORTED_SGLANG_VERSIONS)


# --- a TEST DOUBLE of the two sglang internals, shaped like 0.5.12.post1 -----------------

FAKE_IO_STRUCT = '''
from dataclasses import dataclass
from typing import Any, List, Optional

@dataclass
class BatchTokenIDOutput:
    rids: List[str]
    finished_reasons: List[Optional[dict]]
    output_hidden_states: Optional[List[Any]] = None
'''

FAKE_MIXIN = '''
from sglang.srt.managers.io_struct import BatchTokenIDOutput


class SchedulerOutputProcessorMixin:
    def process_batch_result_prefill(self, batch, result):
        logits_output = result.logits_output
        hidden_state_offset = 0
        for req in batch.reqs:
            if req.return_hidden_states and logits_output.hidden_states is not None:
                req.hidden_states.append(
                    logits_output.hidden_states[
                        hidden_state_offset : (
                            hidden_state_offset := hidden_state_offset + len(req.origin_input_ids)
                        )
                    ]
                    .cpu()
                    .clone()
                    .tolist()
                )

    def stream_output_generation(self, reqs):
        finished_reasons = [r.finished_reason for r in reqs]
        output_hidden_states = None
        for r in reqs:
            if r.return_hidden_states:
                if output_hidden_states is None:
                    output_hidden_states = []
                output_hidden_states.append(r.hidden_states)
        self.sent.append(
            BatchTokenIDOutput(
                rids=[r.rid for r in reqs],
                finished_reasons=finished_reasons,
                output_hidden_states=output_hidden_states,
            )
        )
'''

FAKE_SCHEDULER = '''
from sglang.srt.managers.scheduler_output_processor_mixin import SchedulerOutputProcessorMixin


class Scheduler(SchedulerOutputProcessorMixin):
    def __init__(self):
        self.sent = []
'''

DRIVER = '''
import json, sys
sys.path.insert(0, sys.argv[1])
from test_engy_trim import FakeTensor
import sglang.srt.managers.scheduler as sched

class Req:
    def __init__(self, rid, n):
        self.rid = rid
        self.origin_input_ids = list(range(n))
        self.return_hidden_states = True
        self.hidden_states = []
        self.finished_reason = None

class NS:
    def __init__(self, **kw):
        self.__dict__.update(kw)

s = sched.Scheduler()
a, b = Req(sys.argv[2] if len(sys.argv) > 2 else "a", 3), Req("b", 2)
rows = FakeTensor([[float(i)] for i in range(5)])
result = NS(logits_output=NS(hidden_states=rows))
s.process_batch_result_prefill(NS(reqs=[a, b]), result)
restored = result.logits_output.hidden_states is rows
a.hidden_states.append([9.0])
b.hidden_states.append([8.0])
s.stream_output_generation([a, b])
b.finished_reason = {"type": "stop"}
s.stream_output_generation([a, b])
print(json.dumps({
    "prefill": [a.hidden_states[0], b.hidden_states[0]],
    "restored": restored,
    "events": [o.output_hidden_states for o in s.sent],
    "types": [type(o).__name__ for o in s.sent],
}))
'''


def _write_fake_sglang(root, version, mixin_src=FAKE_MIXIN):
    files = {
        "sglang/__init__.py": "__version__ = %r\n" % version,
        "sglang/srt/__init__.py": "",
        "sglang/srt/managers/__init__.py": "",
        "sglang/srt/managers/io_struct.py": FAKE_IO_STRUCT,
        "sglang/srt/managers/scheduler_output_processor_mixin.py": mixin_src,
        "sglang/srt/managers/scheduler.py": FAKE_SCHEDULER,
    }
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(textwrap.dedent(text))


def _run_driver(version, mixin_src=FAKE_MIXIN, env_extra=None, rid_a="a"):
    with tempfile.TemporaryDirectory() as tmp:
        _write_fake_sglang(tmp, version, mixin_src)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([PKG_ROOT, tmp])
        env.pop("ENGY_TRIM_DISABLE", None)
        env.update(env_extra or {})
        proc = subprocess.run(
            [sys.executable, "-c", DRIVER, HERE, rid_a], env=env, capture_output=True, text=True, timeout=60
        )
        if proc.returncode != 0:
            raise AssertionError("driver failed: " + proc.stderr)
        return json.loads(proc.stdout), proc.stderr


class HookAgainstFakeSglangTests(unittest.TestCase):
    def test_arms_on_a_supported_version_and_trims_both_places(self):
        out, err = _run_driver("0.5.12.post1")
        self.assertIn("[engy] hidden-states trim armed on sglang 0.5.12.post1", err)
        self.assertEqual(err.count("hidden-states trim"), 1)
        # Prefill: request a got rows 0..2 -> only row 2; b got rows 3..4 -> only row 4.
        self.assertEqual(out["prefill"], [[[2.0]], [[4.0]]])
        self.assertTrue(out["restored"])
        # Stream: nothing while running; the finishing request gets its whole list.
        self.assertEqual(out["events"][0], [[], []])
        self.assertEqual(out["events"][1], [[], [[[4.0]], [8.0]]])
        self.assertEqual(out["types"], ["BatchTokenIDOutput", "BatchTokenIDOutput"])

    def test_a_batch_holding_the_self_audit_keeps_every_prefill_row(self):
        out, _ = _run_driver("0.5.12.post1", rid_a="engy-audit-0f0f")
        # Stock behaviour for that batch: a gets rows 0..2, b rows 3..4.
        self.assertEqual(out["prefill"], [[[0.0], [1.0], [2.0]], [[3.0], [4.0]]])
        self.assertTrue(out["restored"])
        # Streaming is still trimmed: nothing while running, the whole list at the finish.
        self.assertEqual(out["events"][0], [[], []])

    def test_inert_on_an_unsupported_version_and_changes_nothing(self):
        out, err = _run_driver("0.5.15.post1")
        self.assertIn(
            "[engy] hidden-states trim not armed: inert on sglang 0.5.15.post1 "
            "(reason: version not in the supported list 0.5.12.post1)",
            err,
        )
        self.assertEqual(out["prefill"], [[[0.0], [1.0], [2.0]], [[3.0], [4.0]]])
        self.assertEqual(out["events"][0], [[[[0.0], [1.0], [2.0]], [9.0]], [[[3.0], [4.0]], [8.0]]])

    def test_fails_closed_when_the_internals_moved_even_on_a_supported_version(self):
        moved = FAKE_MIXIN.replace("output_hidden_states=output_hidden_states", "output_hidden_states=list(output_hidden_states or [])")
        out, err = _run_driver("0.5.12.post1", mixin_src=moved)
        self.assertIn("trim not armed: inert on sglang 0.5.12.post1 (reason: stream_output_generation no longer passes output_hidden_states", err)
        self.assertEqual(out["prefill"], [[[0.0], [1.0], [2.0]], [[3.0], [4.0]]])

    def test_can_be_disabled_for_a_validator_serve(self):
        out, err = _run_driver("0.5.12.post1", env_extra={"ENGY_TRIM_DISABLE": "1"})
        self.assertIn("(reason: disabled by ENGY_TRIM_DISABLE)", err)
        self.assertEqual(out["prefill"][1], [[3.0], [4.0]])

    def test_still_runs_the_sitecustomize_it_shadows(self):
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "sitecustomize.py"), "w") as f:
                f.write("import sys\nsys.stderr.write('other hook ran\\n')\n")
            env = dict(os.environ)
            env["PYTHONPATH"] = os.pathsep.join([PKG_ROOT, tmp])
            proc = subprocess.run([sys.executable, "-c", "print('ok')"], env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.stdout.strip(), "ok")
        self.assertIn("other hook ran", proc.stderr)

    def test_silent_in_a_process_that_never_imports_the_scheduler(self):
        env = dict(os.environ)
        env["PYTHONPATH"] = PKG_ROOT
        proc = subprocess.run([sys.executable, "-c", "print('ok')"], env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.stdout.strip(), "ok")
        self.assertNotIn("hidden-states trim", proc.stderr)


@unittest.skipUnless(
    importlib.util.find_spec("sglang") is not None,
    "sglang is not installed here: run this on a GPU box with sglang 0.5.12.post1 (docs/trim-hidden-states.md)",
)
class RealSglangTests(unittest.TestCase):
    def test_real_sglang_prints_one_status_line_and_arms_when_supported(self):
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([PKG_ROOT, env.get("PYTHONPATH", "")])
        env.pop("ENGY_TRIM_DISABLE", None)
        proc = subprocess.run(
            [sys.executable, "-c", "import sglang.srt.managers.scheduler"],
            env=env, capture_output=True, text=True, timeout=600,
        )
        self.assertEqual(proc.returncode, 0, proc.stderr[-2000:])
        lines = [l for l in proc.stderr.splitlines() if "hidden-states trim" in l]
        self.assertEqual(len(lines), 1, proc.stderr[-2000:])
        from engy_trim.patch import sglang_version

        if sglang_version() in SUPPORTED_SGLANG_VERSIONS:
            self.assertIn("trim armed on sglang " + sglang_version(), lines[0])
        else:
            self.assertIn("trim not armed: inert", lines[0])


if __name__ == "__main__":
    unittest.main()
