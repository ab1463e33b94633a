"""Loaded by Python at start-up because this folder is on the sglang serve's PYTHONPATH.

Arms engy_trim (see engy_trim/__init__.py). Being first on sys.path, this file hides any
other sitecustomize; that one is looked up and run too, so the environment's own hook
(e.g. a distribution's) keeps working.
"""
import os
import sys


def _run_shadowed_sitecustomize():
    here = os.path.dirname(os.path.abspath(__file__))
    for entry in sys.path:
        folder = os.path.abspath(entry or os.getcwd())
        if folder == here:
            continue
        candidate = os.path.join(folder, "sitecustomize.py")
        if os.path.isfile(candidate):
            with open(candidate, "rb") as f:
                code = compile(f.read(), candidate, "exec")
            exec(code, {"__name__": "sitecustomize", "__file__": candidate})
            return


try:
    _run_shadowed_sitecustomize()
except Exception as e:  # someone else's hook must not stop ours
    sys.stderr.write("[engy] note: the shadowed sitecustomize failed: %r\n" % (e,))

try:
    import engy_trim

    engy_trim.install()
except Exception as e:
    sys.stderr.write(
        "[engy] hidden-states trim not armed: inert on sglang unknown (reason: %r)\n" % (e,)
    )
