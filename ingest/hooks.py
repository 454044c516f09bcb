"""Git hooks that keep the graph current: ``vgdb hooks install|uninstall [REPO_PATH]``.

Four hooks: ``post-commit``, ``post-merge`` and ``post-rewrite`` update the code and read the
new commits; ``post-checkout`` (a branch switch, or files checked out) updates the working
tree's code only (``--no-history``): switching branches never rewrites history facts.

Never clobbering: a hook file that exists gets a marked block appended (and keeps every byte it
had); a missing one is created. The block's first line records how it was added, so
``uninstall`` gives back exactly the bytes that were there (a file it created is deleted).
Installing twice replaces the block (idempotent). A hook that is not a shell script
(another interpreter's shebang) is refused rather than broken: chain it by hand.
"""

from __future__ import annotations

import re
import shlex
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

from schema import IngestError

__all__ = ["HOOKS", "HookChange", "hooks_dir", "install_hooks", "uninstall_hooks"]

HOOKS = ("post-commit", "post-merge", "post-checkout", "post-rewrite")
_START = "# >>> vgdb hooks"
_END = "# <<< vgdb hooks <<<\n"
_BLOCK = re.compile(r"# >>> vgdb hooks \[(created|appended|appended\+newline)\] >>>\n"
                    r".*?# <<< vgdb hooks <<<\n", re.S)
_SHELLS = ("sh", "bash", "dash", "zsh", "ksh")


@dataclass(frozen=True, slots=True)
class HookChange:
    """What happened to one hook file: ``created``, ``appended``, ``updated``,
    ``removed`` (the file vgdb created), ``restored`` (our block taken out), ``absent``."""

    hook: str
    path: str
    action: str


def hooks_dir(repo: Path) -> Path:
    """The repository's hooks directory (``core.hooksPath`` honoured)."""
    found = subprocess.run(["git", "-C", str(repo), "rev-parse", "--git-path", "hooks"],
                           capture_output=True, text=True, check=False)
    if found.returncode != 0:
        raise IngestError(f"{repo} is not a git repository: {found.stderr.strip()}",
                          suggestion="pass the path of a git working tree")
    path = Path(found.stdout.strip())
    return path if path.is_absolute() else (repo / path).resolve()


def install_hooks(repo: Path, command: list[str]) -> list[HookChange]:
    """Add the block running ``command + [hook, "--", *hook arguments]`` to each hook."""
    directory = hooks_dir(repo)
    directory.mkdir(parents=True, exist_ok=True)
    for hook in HOOKS:  # refuse before changing any file
        path = directory / hook
        if path.exists() and not _BLOCK.search(path.read_text(encoding="utf-8")):
            _check_hook(path)
    changes = []
    for hook in HOOKS:
        path = directory / hook
        line = " ".join(shlex.quote(c) for c in [*command, hook, "--"]) + ' "$@" || true\n'
        if not path.exists():
            path.write_text(f"#!/bin/sh\n{_START} [created] >>>\n{line}{_END}",
                            encoding="utf-8")
            path.chmod(0o755)
            changes.append(HookChange(hook, str(path), "created"))
            continue
        text = path.read_text(encoding="utf-8")
        found = _BLOCK.search(text)
        if found:
            head = found.group(0).split("\n", 1)[0]
            text = text[:found.start()] + f"{head}\n{line}{_END}" + text[found.end():]
            path.write_text(text, encoding="utf-8")
            changes.append(HookChange(hook, str(path), "updated"))
            continue
        how = "appended" if text.endswith("\n") or not text else "appended+newline"
        glue = "" if how == "appended" else "\n"
        path.write_text(f"{text}{glue}{_START} [{how}] >>>\n{line}{_END}", encoding="utf-8")
        changes.append(HookChange(hook, str(path), "appended"))
    return changes


def _check_hook(path: Path) -> None:
    """Refuse a hook our shell block would break or wake (one git does not run)."""
    if not path.stat().st_mode & stat.S_IXUSR:  # git runs only executable hooks
        raise IngestError(f"{path} exists but is not executable: git does not run it, and "
                          "making it run could start what someone disabled; nothing was "
                          "changed", suggestion=f"chmod +x {path}, or remove it")
    first = path.read_text(encoding="utf-8").split("\n", 1)[0]
    if not first.startswith("#!"):
        return  # git runs it with /bin/sh
    words = first[2:].split()
    program = Path(words[0]).name if words else ""
    if program == "env" and len(words) > 1:
        program = words[1]
    if program not in _SHELLS:
        raise IngestError(f"{path} is a {program or 'non-shell'} script: a shell block "
                          "appended to it would break it; nothing was changed",
                          suggestion="call `vgdb hooks run HOOK -- ARGS` from it yourself")


def uninstall_hooks(repo: Path) -> list[HookChange]:
    """Take the blocks out again: each hook file is as it was before ``install``."""
    directory = hooks_dir(repo)
    changes = []
    for hook in HOOKS:
        path = directory / hook
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        found = _BLOCK.search(text)
        if not found:
            changes.append(HookChange(hook, str(path), "absent"))
            continue
        how = found.group(1)
        rest = text[:found.start()] + text[found.end():]
        if how == "created" and rest == "#!/bin/sh\n":
            path.unlink()
            changes.append(HookChange(hook, str(path), "removed"))
            continue
        if how == "appended+newline" and rest[:found.start()].endswith("\n"):
            rest = rest[:found.start() - 1] + rest[found.start():]
        path.write_text(rest, encoding="utf-8")
        changes.append(HookChange(hook, str(path), "restored"))
    return changes
