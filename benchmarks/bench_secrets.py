"""Secret detectors compared: ragrecall's tables and shape rule against detect-secrets.

    pip install --target /tmp/dslib detect-secrets      # not a dependency of ragrecall
    PYTHONPATH=/tmp/dslib python benchmarks/bench_secrets.py

Shapes: every shape of tests/adversarial/test_secrets.py and test_secrets_shapes.py (issue
10 and 27), plus ``HELD_OUT``: token families that no table of ragrecall names and that the
shape rule was not tuned on. A shape is caught when none of its leak texts is left in the
redacted config. False positives: every leaf value of the four data_samples configs (less
their two planted secrets), of the twelve realistic configs in tests/data/configs_realistic,
of the ordinary settings the secret tests keep visible, and ``MODEL_IDS``; a value counts
when redaction changed it.

detect-secrets is used as a config redactor would use it: each leaf is scanned as the JSON
line ``"key": "value"`` as ``detect-secrets scan`` reads a line of a JSON file (each key too),
and a leaf with any finding is replaced whole (the most it could catch). Results go to
benchmarks/secrets_detectors.md by hand.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from ragrecall_core.inputs import secrets  # noqa: E402
from tests.adversarial import test_secrets as old_shapes  # noqa: E402
from tests.adversarial import test_secrets_shapes as new_shapes  # noqa: E402

HELD_OUT = new_shapes.UNKNOWN_FAMILIES
MODEL_IDS = [
    "BAAI/bge-large-en-v1.5",
    "BAAI/bge-m3",
    "BAAI/bge-reranker-v2-m3",
    "sentence-transformers/all-MiniLM-L6-v2",
    "sentence-transformers/all-mpnet-base-v2",
    "sentence-transformers/multi-qa-MiniLM-L6-cos-v1",
    "intfloat/e5-large-v2",
    "intfloat/multilingual-e5-large-instruct",
    "thenlper/gte-large",
    "Alibaba-NLP/gte-Qwen2-7B-instruct",
    "Alibaba-NLP/gte-multilingual-base",
    "nomic-ai/nomic-embed-text-v1.5",
    "mixedbread-ai/mxbai-embed-large-v1",
    "Snowflake/snowflake-arctic-embed-l-v2.0",
    "jinaai/jina-embeddings-v3",
    "Salesforce/SFR-Embedding-Mistral",
    "nvidia/NV-Embed-v2",
    "dunzhang/stella_en_1.5B_v5",
    "cross-encoder/ms-marco-MiniLM-L-6-v2",
    "cross-encoder/ms-marco-MiniLM-L-12-v2",
    "naver/splade-cocondenser-ensembledistil",
    "naver/splade-v3",
    "colbert-ir/colbertv2.0",
    "answerdotai/answerai-colbert-small-v1",
    "castorini/monot5-base-msmarco-10k",
    "text-embedding-3-large",
    "text-embedding-ada-002",
    "embed-english-v3.0",
    "rerank-multilingual-v3.0",
    "voyage-3-large",
    "meta-llama/Meta-Llama-3.1-8B-Instruct",
    "mistralai/Mistral-7B-Instruct-v0.3",
    "Qwen/Qwen2.5-72B-Instruct-GPTQ-Int4",
    "TheBloke/Mistral-7B-Instruct-v0.2-GGUF",
    "/mnt/models/hf/models--BAAI--bge-large-en-v1.5/snapshots/d4aa6901d3a41ba39fb536a557fa166f842b0e09",
    "s3://acme-rag-prod/indexes/kb-2026-11/faiss_ivf4096_pq64.index",
    "gs://acme-ml-artifacts/colbert/kb.2026-11.nbits=2/plan.json",
    "ghcr.io/acme/retriever:2026.11.28-3f2a9c1",
    "arn:aws:es:us-east-1:123456789012:domain/ragdocs-prod",
    "projects/acme-rag/locations/europe-west4/indexes/8274610352987136000",
]


def shape_sets() -> dict[str, dict]:
    shapes = {f"issue 10: {k}": v for k, v in old_shapes.SHAPES.items()}
    shapes |= {f"issue 27: {k}": v for k, v in new_shapes.SHAPES.items()}
    shapes |= {
        f"held out: {k}": {"fragment": {"note": v}, "leaks": (v,)} for k, v in HELD_OUT.items()
    }
    shapes["held out: urlsafe base64 of text"]["leaks"] = (HELD_OUT["urlsafe base64 of text"][:24],)
    shapes["held out: token in an exception"]["leaks"] = ("Zq8Wm2Lx6Vn0Kp4Bs8Dc",)
    return shapes


def false_positive_set() -> list[tuple[str, dict]]:
    configs = []
    for path in sorted((ROOT / "data_samples" / "runs").glob("*.config.json")):
        config = json.loads(path.read_text("utf-8"))
        config.pop("api_key", None), config.pop("index_url", None)  # the two planted secrets
        configs.append((path.name, config))
    for path in sorted((ROOT / "tests" / "data" / "configs_realistic").glob("*.json")):
        configs.append((path.name, json.loads(path.read_text("utf-8"))))
    from tests.test_configs import ORDINARY

    configs.append(("test_secrets VISIBLE", old_shapes.VISIBLE))
    configs.append(("test_configs ORDINARY", ORDINARY))
    configs.append(("model ids and paths", {f"model_{i}": m for i, m in enumerate(MODEL_IDS)}))
    return configs


def leaves(value, key="", parent=""):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from leaves(v, str(k), key)
    elif isinstance(value, list):
        for v in value:
            yield from leaves(v, key, parent)
    else:
        yield key, value


def changed_leaves(before, after) -> int:
    """Leaf values of ``before`` that ``after`` does not hold unchanged (a renamed key too)."""
    kept = list(leaves(after))
    return sum(1 for leaf in leaves(before) if leaf not in kept)


def leaked(shape: dict, redacted) -> bool:
    text = json.dumps(redacted, ensure_ascii=False)
    return any(v in text for leak in shape["leaks"] for v in new_shapes._variants(leak))


# --- detect-secrets as a value-level redactor -----------------------------------------------


def detect_secrets_redactor(plugins: list[dict] | None):
    from detect_secrets.core import scan
    from detect_secrets.settings import default_settings, get_plugins, transient_settings
    from detect_secrets.util.code_snippet import get_code_snippet

    def scan_config_line(line: str) -> bool:
        """scan.scan_line without its eager search (which flags "bm25" in a bare word): a
        line of a JSON file, as ``detect-secrets scan`` reads it."""
        context = get_code_snippet(lines=[line], line_number=1)
        return any(
            not scan._is_filtered_out(
                required_filter_parameters=["context"],
                filename=found.filename,
                secret=found.secret_value,
                plugin=plugin,
                line=line,
                context=context,
            )
            for plugin in get_plugins()
            for found in scan._scan_line(
                plugin=plugin,
                filename="config.json",
                line=line,
                line_number=1,
                enable_eager_search=False,
                context=context,
            )
        )

    def flagged(line: str) -> bool:
        settings = (
            default_settings() if plugins is None else transient_settings({"plugins_used": plugins})
        )
        with settings:
            return scan_config_line(line)

    def redact(value, key=""):
        if isinstance(value, dict):
            return {
                ("[redacted]" if flagged(json.dumps(k)) else k): redact(v, str(k))
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [redact(v, key) for v in value]
        if value is None or isinstance(value, bool):
            return value
        text = value if isinstance(value, str) else json.dumps(value)
        return "[redacted]" if flagged(json.dumps({key: text})[1:-1]) else value

    return redact


ENTROPY_ONLY = [
    {"name": "Base64HighEntropyString", "limit": 4.5},
    {"name": "HexHighEntropyString", "limit": 3.0},
]


def main() -> None:
    shapes, fp_set = shape_sets(), false_positive_set()
    detectors = {"ragrecall (tables + shape rule)": secrets.redact}
    no_shape = {"ragrecall tables only (shape rule off)": None}
    try:
        detectors["detect-secrets 1.5 (all plugins, default filters)"] = detect_secrets_redactor(
            None
        )
        detectors["detect-secrets 1.5 (entropy scanners only)"] = detect_secrets_redactor(
            ENTROPY_ONLY
        )
    except ImportError:
        print("detect-secrets is not installed: only ragrecall is measured")
    results = {}
    for name, redact in {**detectors, **no_shape}.items():
        if redact is None:
            original = secrets._redact_shapes
            secrets._redact_shapes = lambda text, decode: text
            redact = secrets.redact
        started = time.perf_counter()
        missed = [
            s for s, shape in shapes.items() if leaked(shape, redact({"s": shape["fragment"]}))
        ]
        fps = {n: changed_leaves(c, redact(c)) for n, c in fp_set}
        seconds = time.perf_counter() - started
        if name in no_shape:
            secrets._redact_shapes = original
        results[name] = (missed, fps, seconds)
    total_leaves = sum(1 for _, c in fp_set for _ in leaves(c))
    print(f"{len(shapes)} shapes; {total_leaves} ordinary leaf values in {len(fp_set)} configs\n")
    groups = ("issue 10", "issue 27", "held out")
    print("| detector | " + " | ".join(f"{g} caught" for g in groups) + " | false positives | s |")
    print("|---|" + "---|" * (len(groups) + 2))
    for name, (missed, fps, seconds) in results.items():
        cells = []
        for g in groups:
            n = sum(s.startswith(g) for s in shapes)
            cells.append(f"{n - sum(m.startswith(g) for m in missed)}/{n}")
        print(f"| {name} | " + " | ".join(cells) + f" | {sum(fps.values())} | {seconds:.2f} |")
    for name, (missed, fps, _) in results.items():
        flagged = {k: v for k, v in fps.items() if v}
        print(f"\n{name}\n  missed: {missed}\n  false positives: {flagged}")


if __name__ == "__main__":
    main()
