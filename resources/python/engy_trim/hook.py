"""Arms the trim when sglang's scheduler module is first imported, in every process.

sitecustomize runs this at interpreter start, long before sglang (and torch) load; importing
them eagerly there would slow and perturb every Python process on the PYTHONPATH. Instead a
meta-path finder waits for `sglang.srt.managers.scheduler` (present across 0.5.x and imported
by the server process and each scheduler subprocess) and runs patch.arm() right after it
executes. Processes that never import it (pip, the miner) stay silent and untouched.
"""
import importlib.abc
import sys

TRIGGER = "sglang.srt.managers.scheduler"
_state = {"installed": False, "fired": False}


class _AfterExecLoader(importlib.abc.Loader):
    def __init__(self, inner, after):
        self._inner = inner
        self._after = after

    def create_module(self, spec):
        return self._inner.create_module(spec)

    def exec_module(self, module):
        self._inner.exec_module(module)
        self._after()

    def __getattr__(self, name):
        return getattr(self._inner, name)


class _TriggerFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        if fullname != TRIGGER or _state["fired"]:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module"):
                spec.loader = _AfterExecLoader(spec.loader, _fire)
                return spec
            if spec is not None:
                return spec
        return None


def _fire():
    if _state["fired"]:
        return
    _state["fired"] = True
    try:
        from . import patch

        patch.arm()
    except Exception as e:  # never take the serve down: report and stay inert
        sys.stderr.write(
            "[engy] hidden-states trim not armed: inert on sglang unknown (reason: %r)\n" % (e,)
        )
        sys.stderr.flush()


def install():
    if _state["installed"]:
        return
    _state["installed"] = True
    if TRIGGER in sys.modules:
        _fire()
        return
    sys.meta_path.insert(0, _TriggerFinder())
