"""A worker's main module, imported only if a task needs it (the workers' light entry point).

multiprocessing prepares every worker it starts by running the parent's main module again
(as ``__mp_main__``), in case a task names a function defined there: a worker of
``vgdb ingest`` re-ran the ``vgdb`` script, a worker of a notebook or a benchmark script
imported what that script imports (polars, rich, a notebook's kernel) before
its first file. Ours run functions of the ``ingest`` package. The fork server imports this
module first (``ingest.pool``'s preload): it puts a stand-in ``__main__`` in place that
carries the parent's main file (or module name), which is what multiprocessing checks to
see that the main module is already there, so forked workers skip it. The first time a
task asks the stand-in for a name (a function of the main script sent to
``ingest.executors.LocalExecutor``), the real main module runs then, as multiprocessing
would have run it, and the name comes from it.
"""

from __future__ import annotations

import json
import os
import runpy
import sys
import types
from importlib.machinery import ModuleSpec
from multiprocessing import spawn
from typing import Any

__all__ = ["ENV", "main_of_this_process"]

#: the environment variable through which the fork server learns its parent's main module
ENV = "VGDB_FORK_MAIN"


def main_of_this_process() -> str:
    """How multiprocessing would name this process's main module to a worker (JSON of
    ``{"path": ...}``, ``{"name": ...}`` or ``{}``), for :data:`ENV`."""
    data = spawn.get_preparation_data("vgdb-probe")
    if "init_main_from_name" in data:
        return json.dumps({"name": data["init_main_from_name"]})
    if "init_main_from_path" in data:
        return json.dumps({"path": data["init_main_from_path"]})
    return "{}"


def _stand_in(path: str | None, name: str | None) -> types.ModuleType:
    module = types.ModuleType("__mp_main__")
    if path is not None:
        module.__file__ = path
    if name is not None:
        module.__spec__ = ModuleSpec(name, None)
    tried: list[bool] = []

    def load_on_first_use(attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        if not tried:  # once: a name the real module lacks does not run it again
            tried.append(True)
            found = (runpy.run_module(name, run_name="__mp_main__", alter_sys=True)
                     if name is not None else runpy.run_path(path or "", run_name="__mp_main__"))
            module.__dict__.update({k: v for k, v in found.items() if not k.startswith("__")})
        try:
            return module.__dict__[attr]
        except KeyError:
            raise AttributeError(attr) from None

    module.__getattr__ = load_on_first_use  # type: ignore[method-assign]  # PEP 562
    return module


def _install() -> None:
    described = os.environ.pop(ENV, None)
    if not described:
        return
    main = json.loads(described)
    if not main:
        return
    module = _stand_in(main.get("path"), main.get("name"))
    sys.modules["__main__"] = sys.modules["__mp_main__"] = module


_install()
