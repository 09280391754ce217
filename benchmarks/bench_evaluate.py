"""Speed and memory of ``ragrecall evaluate`` on an MS MARCO dev-sized run.

Generates (once; files are reused) a synthetic run of 6,980 queries x 1,000
results (~7M lines) with ~1% tied scores and ~1.1 binary relevant passages per
query, in TREC, Parquet and CSV (long form) and seed JSONL, plus the gold set as
TREC qrels and JSONL. Then times, end to end in a fresh process each time (process
start to printed numbers), and records each process's own peak RSS
(``os.wait4`` rusage of that one child):

* ragrecall on the TREC files, on Parquet, on CSV and on JSONL (``--compat trec_eval``),
  and on the TREC run with its ties in the writer's order (docno ascending, as Anserini
  and Pyserini write them; ``ragrecall-trec-writers``), and on a TREC run whose scores
  have two decimals (15% of the rows tie the one before, written in that order too;
  ``ragrecall-trec-rounded``, checked against ``duckdb-trec-rounded``: another ranking);
* pytrec_eval, parsing the TREC files in Python the usual way;
* ranx (``Qrels.from_file`` / ``Run.from_file`` / ``evaluate``), warm numba cache;
* one plain DuckDB query computing the same five measures (a lower bound), over the TREC
  files and over each other format (``duckdb-parquet``, ``duckdb-csv``, ``duckdb-jsonl``);
* ragrecall and pytrec_eval on a tiny input (3 queries): the fixed start-up cost;
* other data, shaped as RAG runs are, each set against the plain query over its own files
  (``duckdb-<shape>``; no pytrec_eval: another ranking): 104,700 queries x 20 as TREC
  (``ragrecall-trec-short``: the fixed costs per query), and a JSONL run whose items carry
  a passage's text and metadata, 6,980 x 100 (``ragrecall-jsonl-text``: how most RAG tools
  write a run), and the first 1,000 queries' top 100 as TREC (``ragrecall-trec-rag``: a RAG
  team's query set, 100,000 lines, where a command's fixed costs weigh most).

Measures: P@10, Recall@100, RR@10, nDCG@10, AP (trec_eval: P_10, recall_100,
recip_rank cut at 10, ndcg_cut_10, map).

    python benchmarks/bench_evaluate.py                   # --out /tmp/ragrecall-bench --repeat 3
    python benchmarks/bench_evaluate.py --repeat 1 --only ragrecall-trec pytrec_eval
    python benchmarks/bench_evaluate.py --profile trec-rag   # every DuckDB call of one run
    python benchmarks/bench_evaluate.py --source /tmp/old  # ragrecall from another checkout too
    python benchmarks/bench_evaluate.py --scale 10 --memory-limit 3.5GB   # 70M lines, ragrecall
    python benchmarks/bench_evaluate.py --queries 1000 --repeat 1 --only ragrecall-trec-writers

``--source DIR`` adds ``before-*`` cases: the same ragrecall commands run from the
checkout in DIR (e.g. ``git archive HEAD | tar -x -C DIR``), so before and after are
measured side by side in one run (``--only ragrecall-jsonl`` runs
``before-ragrecall-jsonl`` too). ``--scale N`` generates N x the queries (TREC and Parquet
only; its default ``--out`` is /tmp/ragrecall-bench-<N x 7>m) and runs only ragrecall on
them: pytrec_eval would need far more memory than the machine has.

The helper modes (``_pytrec``, ``_ranx``, ``_duckdb``) are what the
timed child processes run; they are not meant to be called by hand.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve()
sys.path.insert(0, str(REPO))
from scripts.bytecode import compiled  # noqa: E402

N_QUERIES = 6980
DEPTH = 1000
N_PASSAGES = 8_841_823  # MS MARCO passage collection size; docids are 0..P-1
SEED = 20240601
MEASURES = ["P@10", "Recall@100", "RR@10", "nDCG@10", "AP"]
RANX_METRICS = ["precision@10", "recall@100", "mrr@10", "ndcg@10", "map"]
CHECKED = ["P@10", "nDCG@10", "AP"]  # must agree with pytrec_eval to 4 decimals
FILES = {
    "run_trec": "run.trec",
    "run_writers_trec": "run_writers.trec",
    "run_rounded_trec": "run_rounded.trec",
    "run_parquet": "run.parquet",
    "run_jsonl": "run.jsonl",
    "run_csv": "run.csv",
    "qrels": "qrels.txt",
    "gold_jsonl": "gold.jsonl",
    "tiny_run": "tiny_run.trec",
    "tiny_qrels": "tiny_qrels.txt",
    # other data (RAG shapes): many short lists, and JSON lines whose items carry text
    "run_short_trec": "run_short.trec",
    "qrels_short": "qrels_short.txt",
    "run_text_jsonl": "run_text.jsonl",
    "run_rag_trec": "run_rag.trec",
    "qrels_rag": "qrels_rag.txt",
}
# the short lists: each query's top SHORT_DEPTH, as SHORT_COPIES queries of their own
# (104,700 queries x 20), each with the query's qrels
SHORT_DEPTH, SHORT_COPIES = 20, 15
# the text run: each query's top TEXT_DEPTH, each item with a passage's text and metadata
TEXT_DEPTH = 100
# a RAG team's query set: the first RAG_QUERIES queries' top RAG_DEPTH (100,000 lines), where
# the fixed costs of a command weigh most
RAG_QUERIES, RAG_DEPTH = 1000, 100


# --------------------------------------------------------------------------- data


def _prime_at_least(n: int) -> int:
    def is_prime(m: int) -> bool:
        if m < 2 or m % 2 == 0:
            return m == 2
        f = 3
        while f * f <= m:
            if m % f == 0:
                return False
            f += 2
        return True

    while not is_prime(n):
        n += 1
    return n


# the files a scaled-up run writes: the rest would only feed tools that cannot hold it
SCALED_FILES = ("run_trec", "run_writers_trec", "run_parquet", "qrels", "tiny_run", "tiny_qrels")


def files_for(scale: int) -> dict[str, str]:
    return FILES if scale == 1 else {k: FILES[k] for k in SCALED_FILES}


def generate(
    out: Path, scale: int = 1, depth: int = DEPTH, seed: int = SEED, queries: int | None = None
) -> dict:
    """Write every input file into ``out`` unless a matching manifest says they exist;
    ``queries`` replaces the N_QUERIES x ``scale`` queries (a smaller run, for a quick case)."""
    out.mkdir(parents=True, exist_ok=True)
    manifest_path = out / "manifest.json"
    queries = queries or N_QUERIES * scale
    files = files_for(scale)
    params = {"queries": queries, "depth": depth, "seed": seed, "version": 6}
    if manifest_path.exists():
        manifest = json.loads(manifest_path.read_text())
        if manifest.get("params") == params and all((out / f).exists() for f in files.values()):
            print(f"reusing inputs in {out}", file=sys.stderr)
            return manifest
    import duckdb
    import numpy as np
    import pyarrow as pa

    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    prime = _prime_at_least(N_PASSAGES)
    qids = rng.choice(np.arange(1, 1_110_000), queries, replace=False)
    # Docids of query q at list position j: (a_q * j + b_q) mod P, distinct for
    # j < P, so every list holds each docid once and j >= depth is never in it.
    a = rng.integers(1, prime, queries, dtype=np.int64)
    b = rng.integers(0, prime, queries, dtype=np.int64)
    j = np.arange(depth, dtype=np.int64)
    docids = (a[:, None] * j[None, :] + b[:, None]) % prime
    # Scores in units of 1e-4, strictly decreasing except ~1% zero gaps (ties).
    gaps = rng.integers(10, 300, (queries, depth), dtype=np.int64)
    gaps[rng.random((queries, depth)) < 0.01] = 0
    gaps[:, 0] = 0
    base = rng.integers(350_000, 450_000, queries, dtype=np.int64)
    scores = (base[:, None] - np.cumsum(gaps, axis=1)) / 10_000.0

    # Relevant passages: 1 (91%), 2 (8%) or 3 (1%) per query (mean ~1.10); 85%
    # of them in the run at a log-uniform position, the rest outside the run.
    n_rel = 1 + (rng.random(queries) < 0.09).astype(int) + (rng.random(queries) < 0.01)
    rel_q, rel_doc = [], []
    for slot in range(3):
        qs = np.nonzero(n_rel > slot)[0]
        in_run = rng.random(len(qs)) < 0.85
        pos = np.floor(np.exp(rng.random(len(qs)) * np.log(depth))).astype(np.int64) - 1
        pos = np.clip(pos + slot * 7 * (slot > 0), 0, depth - 1)
        outside = depth + rng.integers(0, prime - depth, len(qs), dtype=np.int64)
        jj = np.where(in_run, pos, outside)
        rel_q.append(qs)
        rel_doc.append((a[qs] * jj + b[qs]) % prime)
    rel_q = np.concatenate(rel_q)
    rel_doc = np.concatenate(rel_doc)

    con = duckdb.connect()
    con.execute("SET preserve_insertion_order = true")
    run_arrow = pa.table(
        {
            "qi": np.repeat(np.arange(queries, dtype=np.int32), depth),
            "qid": np.repeat(qids, depth),
            "docid": docids.ravel(),
            "score": scores.ravel(),
        }
    )
    rel_arrow = pa.table({"qi": rel_q.astype(np.int32), "qid": qids[rel_q], "docid": rel_doc})
    con.register("run_arrow", run_arrow)
    con.register("rel_arrow", rel_arrow)
    # The stored rank is trec_eval's order (score desc, docno desc as strings),
    # so TREC, Parquet and JSONL describe exactly the same ranking.
    con.execute(
        """
        CREATE TABLE run AS
        SELECT qi, CAST(qid AS VARCHAR) AS query_id, CAST(docid AS VARCHAR) AS chunk_id, score,
               CAST(row_number() OVER (PARTITION BY qi ORDER BY score DESC,
                                       CAST(docid AS VARCHAR) DESC) AS INTEGER) AS rank
        FROM run_arrow;
        CREATE TABLE rel AS
        SELECT DISTINCT qi, CAST(qid AS VARCHAR) AS query_id, CAST(docid AS VARCHAR) AS chunk_id
        FROM rel_arrow;
        """
    )
    p = {k: str(out / v) for k, v in files.items()}
    con.execute(
        f"""
        COPY (SELECT query_id, 'Q0', chunk_id, rank, score, 'bench' FROM run ORDER BY qi, rank)
          TO '{p["run_trec"]}' (FORMAT csv, DELIMITER ' ', HEADER false, QUOTE '');
        COPY (SELECT query_id, 'Q0', chunk_id,
                     row_number() OVER (PARTITION BY qi ORDER BY score DESC, chunk_id), score,
                     'bench'
              FROM run ORDER BY qi, score DESC, chunk_id)
          TO '{p["run_writers_trec"]}' (FORMAT csv, DELIMITER ' ', HEADER false, QUOTE '');
        COPY (SELECT query_id, chunk_id, rank, score FROM run ORDER BY qi, rank)
          TO '{p["run_parquet"]}' (FORMAT parquet, ROW_GROUP_SIZE 1000000);
        COPY (SELECT query_id, 'Q0', chunk_id, rank, score, 'bench' FROM run WHERE qi < 3
              ORDER BY qi, rank)
          TO '{p["tiny_run"]}' (FORMAT csv, DELIMITER ' ', HEADER false, QUOTE '');
        COPY (SELECT query_id, 0, chunk_id, 1 FROM rel ORDER BY qi, chunk_id)
          TO '{p["qrels"]}' (FORMAT csv, DELIMITER ' ', HEADER false, QUOTE '');
        COPY (SELECT query_id, 0, chunk_id, 1 FROM rel WHERE qi < 3 ORDER BY qi, chunk_id)
          TO '{p["tiny_qrels"]}' (FORMAT csv, DELIMITER ' ', HEADER false, QUOTE '');
        """
    )
    if scale == 1:
        write_unscaled_formats(con, p)
    stats = con.execute(
        """
        SELECT (SELECT count(*) FROM run), (SELECT count(*) FROM rel),
               (SELECT count(*) FROM rel JOIN run USING (qi, chunk_id)),
               (SELECT count(*) FROM (SELECT score, lead(score) OVER w AS nxt FROM run
                WINDOW w AS (PARTITION BY qi ORDER BY rank)) WHERE score = nxt)
        """
    ).fetchone()
    con.close()
    manifest = {
        "params": params,
        "run_lines": stats[0],
        "relevant": stats[1],
        "relevant_per_query": round(stats[1] / queries, 3),
        "relevant_in_run": round(stats[2] / stats[1], 3),
        "tied_adjacent_pairs": round(stats[3] / stats[0], 4),
        "bytes": {k: (out / v).stat().st_size for k, v in files.items()},
        "seconds": round(time.perf_counter() - t0, 1),
    }
    manifest_path.write_text(json.dumps(manifest, indent=2))
    print(f"generated inputs in {out} in {manifest['seconds']} s", file=sys.stderr)
    return manifest


def write_unscaled_formats(con, p: dict[str, str]) -> None:
    """The seed JSONL run and gold, the CSV run (long form, with a header), the TREC run
    with its scores rounded to two decimals, ties in the writer's order, and the other data:
    many short lists (TREC) and a JSONL run whose items carry text and metadata."""
    con.execute(
        f"""
        COPY (SELECT query_id, 'Q0', chunk_id,
                     row_number() OVER (PARTITION BY qi ORDER BY round(score, 2) DESC, chunk_id),
                     round(score, 2), 'bench'
              FROM run ORDER BY qi, round(score, 2) DESC, chunk_id)
          TO '{p["run_rounded_trec"]}' (FORMAT csv, DELIMITER ' ', HEADER false, QUOTE '');
        COPY (SELECT query_id, chunk_id, rank, score FROM run ORDER BY qi, rank)
          TO '{p["run_csv"]}' (FORMAT csv, HEADER true);
        COPY (SELECT query_id AS id,
                     list({{'chunk_id': chunk_id, 'rank': rank, 'score': score}} ORDER BY rank)
                       AS retrieved
              FROM run GROUP BY qi, query_id ORDER BY qi)
          TO '{p["run_jsonl"]}' (FORMAT json);
        COPY (SELECT query_id AS id, 'synthetic question ' || query_id AS query,
                     list(chunk_id ORDER BY chunk_id) AS relevant_ids
              FROM rel GROUP BY qi, query_id ORDER BY qi)
          TO '{p["gold_jsonl"]}' (FORMAT json);
        COPY (SELECT query_id || '_' || c, 'Q0', chunk_id, rank, score, 'bench'
              FROM run, range({SHORT_COPIES}) AS copies(c) WHERE rank <= {SHORT_DEPTH}
              ORDER BY qi, c, rank)
          TO '{p["run_short_trec"]}' (FORMAT csv, DELIMITER ' ', HEADER false, QUOTE '');
        COPY (SELECT query_id || '_' || c, 0, chunk_id, 1
              FROM rel, range({SHORT_COPIES}) AS copies(c) ORDER BY qi, c, chunk_id)
          TO '{p["qrels_short"]}' (FORMAT csv, DELIMITER ' ', HEADER false, QUOTE '');
        COPY (SELECT query_id AS id,
                     list({{'chunk_id': chunk_id, 'rank': rank, 'score': score,
                            'text': 'Passage ' || chunk_id || ': the café «naïve» résumé, '
                                    || '"quoted", comma, semicolon; '
                                    || repeat('lorem ipsum dolor sit amet, ', 8),
                            'metadata': {{'source': 'doc-' || chunk_id, 'page': 1}}}}
                          ORDER BY rank) AS retrieved
              FROM run WHERE rank <= {TEXT_DEPTH} GROUP BY qi, query_id ORDER BY qi)
          TO '{p["run_text_jsonl"]}' (FORMAT json);
        COPY (SELECT query_id, 'Q0', chunk_id, rank, score, 'bench' FROM run
              WHERE qi < {RAG_QUERIES} AND rank <= {RAG_DEPTH} ORDER BY qi, rank)
          TO '{p["run_rag_trec"]}' (FORMAT csv, DELIMITER ' ', HEADER false, QUOTE '');
        COPY (SELECT query_id, 0, chunk_id, 1 FROM rel WHERE qi < {RAG_QUERIES}
              ORDER BY qi, chunk_id)
          TO '{p["qrels_rag"]}' (FORMAT csv, DELIMITER ' ', HEADER false, QUOTE '');
        """
    )


# --------------------------------------------------------------------------- children


def child_pytrec(qrels_path: str, run_path: str) -> None:
    """What a pytrec_eval user writes: parse both TREC files into dicts, evaluate, average.

    RR@10: trec_eval's ``recip_rank`` has no cutoff; RR@10 is recip_rank when the
    first relevant item is within rank 10 (1/rank >= 0.1), else 0, which is
    exactly RR on the list cut at 10.
    """
    import pytrec_eval

    qrels: dict[str, dict[str, int]] = {}
    with open(qrels_path) as handle:
        for line in handle:
            qid, _, docid, rel = line.split()
            qrels.setdefault(qid, {})[docid] = int(rel)
    run: dict[str, dict[str, float]] = {}
    with open(run_path) as handle:
        for line in handle:
            qid, _, docid, _, score, _ = line.split()
            run.setdefault(qid, {})[docid] = float(score)
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, {"P_10", "recall_100", "recip_rank", "ndcg_cut_10", "map"}
    )
    per_query = evaluator.evaluate(run)
    n = len(per_query)
    rows = per_query.values()
    result = {
        "P@10": sum(r["P_10"] for r in rows) / n,
        "Recall@100": sum(r["recall_100"] for r in rows) / n,
        "RR@10": sum(r["recip_rank"] if r["recip_rank"] >= 0.1 - 1e-12 else 0.0 for r in rows) / n,
        "nDCG@10": sum(r["ndcg_cut_10"] for r in rows) / n,
        "AP": sum(r["map"] for r in rows) / n,
        "queries": n,
    }
    print(json.dumps(result))


def child_ranx(qrels_path: str, run_path: str) -> None:
    from ranx import Qrels, Run, evaluate

    qrels = Qrels.from_file(qrels_path, kind="trec")
    run = Run.from_file(run_path, kind="trec")
    scores = evaluate(qrels, run, RANX_METRICS)
    print(json.dumps({m: float(scores[r]) for m, r in zip(MEASURES, RANX_METRICS, strict=True)}))


# Each format's rows as one plain read gives them (``qid``, ``docno``, ``score``), without
# validation: the plain query's run, so each ragrecall format has a peer reading that format.
PLAIN_RUNS = {
    "trec": """
        SELECT qid, docno, score
        FROM read_csv($run, delim=' ', header=false, auto_detect=false,
                      columns={'qid': 'VARCHAR', 'q0': 'VARCHAR', 'docno': 'VARCHAR',
                               'rank': 'BIGINT', 'score': 'DOUBLE', 'tag': 'VARCHAR'})""",
    "csv": """
        SELECT query_id AS qid, chunk_id AS docno, score
        FROM read_csv($run, header=true, auto_detect=false,
                      columns={'query_id': 'VARCHAR', 'chunk_id': 'VARCHAR',
                               'rank': 'BIGINT', 'score': 'DOUBLE'})""",
    "parquet": "SELECT query_id AS qid, chunk_id AS docno, score FROM read_parquet($run)",
    "jsonl": """
        SELECT id AS qid, r.chunk_id AS docno, r.score
        FROM (SELECT id, unnest(retrieved) AS r
              FROM read_json($run, format='newline_delimited', columns={
                  'id': 'VARCHAR',
                  'retrieved': 'STRUCT(chunk_id VARCHAR, "rank" BIGINT, score DOUBLE)[]'}))""",
}
PLAIN_QRELS = {
    "trec": """
        SELECT qid, docno, rel
        FROM read_csv($qrels, delim=' ', header=false, auto_detect=false,
                      columns={'qid': 'VARCHAR', 'iter': 'VARCHAR', 'docno': 'VARCHAR',
                               'rel': 'INTEGER'})
        WHERE rel > 0""",
    "jsonl": """
        SELECT id AS qid, unnest(relevant_ids) AS docno, 1 AS rel
        FROM read_json($qrels, format='newline_delimited',
                       columns={'id': 'VARCHAR', 'relevant_ids': 'VARCHAR[]'})""",
}
DUCKDB_SQL = """
WITH run AS (
    SELECT qid, docno,
           row_number() OVER (PARTITION BY qid ORDER BY score DESC, docno DESC) AS r
    FROM ({run})),
qrels AS ({qrels}),
ideal AS (
    SELECT qid, count(*) AS nrel,
           sum(rel / log2(pos + 1)) FILTER (WHERE pos <= 10) AS idcg10
    FROM (SELECT qid, rel, row_number() OVER (PARTITION BY qid ORDER BY rel DESC) AS pos
          FROM qrels) GROUP BY qid),
hits AS (
    SELECT qid, r, rel, row_number() OVER (PARTITION BY qid ORDER BY r) AS nth
    FROM run JOIN qrels USING (qid, docno)),
per_query AS (
    SELECT q.qid, any_value(i.nrel) AS nrel, any_value(i.idcg10) AS idcg10,
           count(h.r) FILTER (WHERE h.r <= 10) AS hits10,
           count(h.r) FILTER (WHERE h.r <= 100) AS hits100,
           max(1.0 / h.r) FILTER (WHERE h.r <= 10) AS rr10,
           sum(h.rel / log2(h.r + 1)) FILTER (WHERE h.r <= 10) AS dcg10,
           sum(h.nth / h.r) AS ap_sum
    FROM (SELECT DISTINCT qid FROM run) q JOIN ideal i USING (qid)
    LEFT JOIN hits h USING (qid) GROUP BY q.qid)
SELECT avg(hits10 / 10), avg(hits100 / nrel), avg(coalesce(rr10, 0)),
       avg(coalesce(dcg10, 0) / idcg10), avg(coalesce(ap_sum, 0) / nrel), count(*)
FROM per_query
"""


def child_duckdb(qrels_path: str, run_path: str, run_format: str = "trec") -> None:
    """The same five measures as one DuckDB query over the files, without validation: the
    run in ``run_format`` (:data:`PLAIN_RUNS`), the gold as TREC qrels or, beside a JSONL
    run, JSON lines."""
    import duckdb

    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    gold = "jsonl" if qrels_path.endswith(".jsonl") else "trec"
    sql = DUCKDB_SQL.format(run=PLAIN_RUNS[run_format], qrels=PLAIN_QRELS[gold])
    row = con.execute(sql, {"run": run_path, "qrels": qrels_path}).fetchone()
    print(json.dumps({**dict(zip(MEASURES, row[:5], strict=True)), "queries": row[5]}))


# --------------------------------------------------------------------------- timing


def measure(cmd: list[str], env: dict | None = None, cwd: Path = REPO) -> dict:
    """Run ``cmd`` in a fresh process; wall time, CPU time and that process's peak RSS.

    ``python -m ragrecall_core`` imports the package from ``cwd`` (it comes first on the
    path), which is how ``--source`` runs another checkout."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, cwd=cwd, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}:\n{stderr[-3000:]}")
    return {
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "rss_mb": usage.ru_maxrss / 1024,  # KiB on Linux
        "stdout": stdout,
    }


# extra ragrecall options for every ragrecall case (``--memory-limit``), set by main()
RAGRECALL_OPTIONS: list[str] = []


def ragrecall_cmd(gold: Path, run: Path) -> list[str]:
    cmd = [sys.executable, "-m", "ragrecall_core", "evaluate", str(gold), str(run)]
    for m in MEASURES:
        cmd += ["-m", m]
    return cmd + ["--compat", "trec_eval", "--format", "json", *RAGRECALL_OPTIONS]


def parse_ragrecall(stdout: str) -> dict:
    return json.loads(stdout)["runs"][0]["aggregate"]


# the other data's cases: (shape, input, gold file, run file); each ragrecall case is set
# against the plain query over its own files only (no pytrec_eval: another ranking)
OTHER_DATA = (
    ("trec-short", "TREC, 104,700 queries x 20 (short lists) + qrels", "qrels_short",
     "run_short_trec"),
    ("jsonl-text", "JSONL run, items with text and metadata (6,980 x 100) + JSONL gold",
     "gold_jsonl", "run_text_jsonl"),
    ("trec-rag", "TREC, 1,000 queries x 100 (a RAG team's query set) + qrels", "qrels_rag",
     "run_rag_trec"),
)  # fmt: skip


def cases(out: Path) -> list[dict]:
    f = {k: out / v for k, v in FILES.items()}
    me = [sys.executable, str(HERE)]
    ranx_env = {**os.environ, "NUMBA_CACHE_DIR": str(out / "numba_cache")}
    return [
        {
            "key": "ragrecall-trec",
            "tool": "ragrecall",
            "input": "TREC run + qrels",
            "cmd": ragrecall_cmd(f["qrels"], f["run_trec"]),
            "parse": parse_ragrecall,
        },
        {
            # ties in the writer's order (docno ascending, as Anserini and Pyserini write
            # them), not trec_eval's: the same ranking, ranks 1..n in another tie order
            "key": "ragrecall-trec-writers",
            "tool": "ragrecall",
            "input": "TREC run (ties in writer's order) + qrels",
            "cmd": ragrecall_cmd(f["qrels"], f["run_writers_trec"]),
            "parse": parse_ragrecall,
        },
        {
            # another ranking: scores of two decimals, so many more ties (in the writer's
            # order); its values are checked against the plain query over the same file
            "key": "ragrecall-trec-rounded",
            "tool": "ragrecall",
            "input": "TREC run (scores of 2 decimals, 15% tied, writer's order) + qrels",
            "cmd": ragrecall_cmd(f["qrels"], f["run_rounded_trec"]),
            "parse": parse_ragrecall,
            "agrees_with": "duckdb-trec-rounded",
        },
        {
            "key": "ragrecall-parquet",
            "tool": "ragrecall",
            "input": "Parquet run + TREC qrels",
            "cmd": ragrecall_cmd(f["qrels"], f["run_parquet"]),
            "parse": parse_ragrecall,
        },
        {
            "key": "ragrecall-csv",
            "tool": "ragrecall",
            "input": "CSV run + TREC qrels",
            "cmd": ragrecall_cmd(f["qrels"], f["run_csv"]),
            "parse": parse_ragrecall,
        },
        {
            "key": "ragrecall-jsonl",
            "tool": "ragrecall",
            "input": "JSONL run + JSONL gold",
            "cmd": ragrecall_cmd(f["gold_jsonl"], f["run_jsonl"]),
            "parse": parse_ragrecall,
        },
        *(
            {
                "key": f"ragrecall-{shape}",
                "tool": "ragrecall",
                "input": label,
                "cmd": ragrecall_cmd(f[gold], f[run]),
                "parse": parse_ragrecall,
                "agrees_with": f"duckdb-{shape}",
                "other_data": True,
            }
            for shape, label, gold, run in OTHER_DATA
        ),
        {
            "key": "pytrec_eval",
            "tool": "pytrec_eval",
            "input": "TREC run + qrels",
            "cmd": me + ["_pytrec", str(f["qrels"]), str(f["run_trec"])],
            "parse": json.loads,
        },
        {
            "key": "ranx",
            "tool": "ranx (warm numba cache)",
            "input": "TREC run + qrels",
            "cmd": me + ["_ranx", str(f["qrels"]), str(f["run_trec"])],
            "parse": json.loads,
            "env": ranx_env,
            "warmup": True,
        },
        {
            "key": "duckdb",
            "tool": "plain DuckDB SQL (lower bound)",
            "input": "TREC run + qrels",
            "cmd": me + ["_duckdb", str(f["qrels"]), str(f["run_trec"])],
            "parse": json.loads,
        },
        *(
            {
                "key": f"duckdb-{fmt}",
                "tool": "plain DuckDB SQL (lower bound)",
                "input": f"{label} run + {'JSONL gold' if fmt == 'jsonl' else 'TREC qrels'}",
                "cmd": me + ["_duckdb", str(f[gold]), str(f[f"run_{fmt}"]), fmt],
                "parse": json.loads,
            }
            for fmt, label, gold in (
                ("parquet", "Parquet", "qrels"),
                ("csv", "CSV", "qrels"),
                ("jsonl", "JSONL", "gold_jsonl"),
            )
        ),
        {
            "key": "duckdb-trec-rounded",
            "tool": "plain DuckDB SQL (lower bound)",
            "input": "TREC run (scores of 2 decimals) + qrels",
            "cmd": me + ["_duckdb", str(f["qrels"]), str(f["run_rounded_trec"])],
            "parse": json.loads,
            "agrees_with": None,  # the reference of ragrecall-trec-rounded
        },
        *(
            {
                "key": f"duckdb-{shape}",
                "tool": "plain DuckDB SQL (lower bound)",
                "input": label,
                "cmd": me + ["_duckdb", str(f[gold]), str(f[run]), shape.split("-")[0]],
                "parse": json.loads,
                "agrees_with": None,  # the reference of ragrecall-{shape}
                "other_data": True,
            }
            for shape, label, gold, run in OTHER_DATA
        ),
        {
            "key": "ragrecall-tiny",
            "tool": "ragrecall, 3 queries (start-up)",
            "input": "TREC run + qrels",
            "cmd": ragrecall_cmd(f["tiny_qrels"], f["tiny_run"]),
            "parse": parse_ragrecall,
            "tiny": True,
        },
        {
            "key": "pytrec_eval-tiny",
            "tool": "pytrec_eval, 3 queries (start-up)",
            "input": "TREC run + qrels",
            "cmd": me + ["_pytrec", str(f["tiny_qrels"]), str(f["tiny_run"])],
            "parse": json.loads,
            "tiny": True,
        },
    ]


def before_cases(out: Path, source: Path) -> list[dict]:
    """The ragrecall cases again, run from the checkout in ``source``."""
    return [
        {
            **case,
            "key": "before-" + case["key"],
            "tool": f"ragrecall before ({source})",
            "cwd": source,
        }
        for case in cases(out)
        if case["key"].startswith("ragrecall-") and not case.get("tiny")
    ]


def run_benchmark(out: Path, repeat: int, only: list[str] | None, source: Path | None) -> dict:
    """Every case ``repeat`` times, round by round (each round runs every case once), so a
    change in the machine's speed during the run weighs on every tool alike."""
    chosen = [
        case
        for case in cases(out) + (before_cases(out, source) if source else [])
        if not only or case["key"] in only or case["key"].removeprefix("before-") in only
    ]
    for case in chosen:
        if case.get("warmup"):
            print(f"[{case['key']}] warm-up (JIT compile into numba cache)", file=sys.stderr)
            cold = measure(case["cmd"], case.get("env"))
            print(f"  cold: {cold['wall']:.1f} s, {cold['rss_mb']:.0f} MB", file=sys.stderr)
    samples: dict[str, list[dict]] = {case["key"]: [] for case in chosen}
    for i in range(repeat):
        for case in chosen:
            sample = measure(case["cmd"], case.get("env"), case.get("cwd", REPO))
            samples[case["key"]].append(sample)
            print(
                f"[{case['key']}] {i + 1}/{repeat}: {sample['wall']:.2f} s wall, "
                f"{sample['cpu']:.2f} s CPU, {sample['rss_mb']:.0f} MB",
                file=sys.stderr,
            )
    return {case["key"]: summary(case, samples[case["key"]]) for case in chosen}


def summary(case: dict, samples: list[dict]) -> dict:
    """A case's medians over its samples, and the values its last run printed."""
    return {
        "tool": case["tool"],
        "input": case["input"],
        "tiny": case.get("tiny", False),
        "other_data": case.get("other_data", False),
        "agrees_with": case.get("agrees_with", "pytrec_eval"),
        "wall": statistics.median(s["wall"] for s in samples),
        "cpu": statistics.median(s["cpu"] for s in samples),
        "rss_mb": statistics.median(s["rss_mb"] for s in samples),
        "walls": [round(s["wall"], 2) for s in samples],
        "cpus": [round(s["cpu"], 3) for s in samples],
        "values": case["parse"](samples[-1]["stdout"]),
    }


def table(results: dict) -> str:
    big = results.get("pytrec_eval")
    tiny = results.get("pytrec_eval-tiny")
    lines = [
        "| tool | input | median wall s | median CPU s | peak RSS MB | time vs pytrec_eval "
        "| memory vs pytrec_eval |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for r in results.values():
        ref = tiny if r["tiny"] else big
        if r.get("other_data"):
            ratio_t = ratio_m = "other data"
        elif ref:
            ratio_t = f"{r['wall'] / ref['wall']:.2f}x"
            ratio_m = f"{r['rss_mb'] / ref['rss_mb']:.2f}x"
        else:
            ratio_t = ratio_m = "n/a"
        lines.append(
            f"| {r['tool']} | {r['input']} | {r['wall']:.2f} | {r['cpu']:.2f} | "
            f"{r['rss_mb']:.0f} | {ratio_t} | {ratio_m} |"
        )
    return "\n".join(lines)


def agreement(results: dict) -> list[str]:
    ref = results.get("pytrec_eval")
    if not ref:
        return ["(pytrec_eval not run: no agreement check)"]
    lines = []
    for key, r in results.items():
        ref = results.get(r.get("agrees_with", "pytrec_eval"))
        if key == "pytrec_eval" or r["tiny"] or ref is None:
            continue
        measures = MEASURES
        diffs = {
            m: r["values"][m] - ref["values"][m]
            for m in measures
            if abs(r["values"][m] - ref["values"][m]) >= 0.5e-4
        }
        checked = [m for m in CHECKED if m in diffs]
        verdict = (
            "AGREE" if not checked else "DISAGREE"
        ) + f" with {r.get('agrees_with', 'pytrec_eval')} to 4 decimals on {', '.join(CHECKED)}"
        extra = (
            "; all five measures agree"
            if not diffs
            else "; differences: " + ", ".join(f"{m} {d:+.6f}" for m, d in diffs.items())
        )
        lines.append(f"{key}: {verdict}{extra}")
    values = "| measure | " + " | ".join(results) + " |\n|---|" + "---:|" * len(results) + "\n"
    for m in MEASURES:
        values += (
            f"| {m} | "
            + " | ".join(f"{r['values'].get(m, float('nan')):.4f}" for r in results.values())
            + " |\n"
        )
    return lines + ["", values]


def goal_lines(results: dict) -> list[str]:
    """Each ragrecall format against the goals: <= 0.4x pytrec_eval's time, <= 0.6x its
    memory, and <= 1.25x the plain DuckDB query's time: the query over TREC files and the one
    over the same format (CPU seconds too: on a shared machine wall seconds follow the other
    processes' load)."""
    ref = results.get("pytrec_eval")
    lines = []
    for key, r in results.items():
        if "ragrecall-" not in key or r["tiny"]:
            continue
        if ref and not r.get("other_data"):
            t, m = r["wall"] / ref["wall"], r["rss_mb"] / ref["rss_mb"]
            lines.append(
                f"goal {key}/pytrec_eval: time {t:.2f}x (goal <= 0.4x: "
                f"{'met' if t <= 0.4 else 'NOT met'}; CPU {r['cpu'] / ref['cpu']:.2f}x), "
                f"memory {m:.2f}x (goal <= 0.6x: {'met' if m <= 0.6 else 'NOT met'})"
            )
        peers = (plain_peer(key),) if r.get("other_data") else ("duckdb", plain_peer(key))
        for peer in dict.fromkeys(peers):
            if peer in results:
                floor = results[peer]
                t = r["wall"] / floor["wall"]
                lines.append(
                    f"goal {key}/{peer}: time {t:.2f}x (goal <= 1.25x: "
                    f"{'met' if t <= 1.25 else 'NOT met'}; CPU {r['cpu'] / floor['cpu']:.2f}x; "
                    f"{paired(r, floor)})"
                )
    return lines


def paired(case: dict, peer: dict) -> str:
    """The median over rounds of the case's time against its peer's in the same round (each
    round runs every case once, a few seconds apart): the machine's drift over a whole run
    moves a ratio of medians, much less a ratio within one round."""
    rounds = list(zip(case["walls"], peer["walls"], case["cpus"], peer["cpus"], strict=True))
    wall = statistics.median(a / b for a, b, _c, _d in rounds)
    cpu = statistics.median(c / d for _a, _b, c, d in rounds)
    return f"paired by round: wall {wall:.2f}x, CPU {cpu:.2f}x"


def plain_peer(key: str) -> str:
    """The plain DuckDB case that reads the same format as the ragrecall case ``key``
    (``duckdb`` reads TREC)."""
    fmt = key.removeprefix("before-").removeprefix("ragrecall-")
    return "duckdb" if fmt in ("trec", "trec-writers") else f"duckdb-{fmt}"


def describe_machine(load_before: float) -> str:
    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True)
        return done.stdout.strip()

    commit = git("rev-parse", "--short", "HEAD")
    dirty = len([x for x in git("status", "--porcelain", "ragrecall_core").splitlines() if x])
    changed = f"+{dirty} changed files in ragrecall_core"
    version = f"{commit} ({changed})" if commit else f"from {REPO}, not a git checkout"
    return (
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} cores; "
        f"Python {sys.version.split()[0]}; ragrecall {version}; 1-min load average before "
        f"{load_before:.1f}, after {os.getloadavg()[0]:.1f} (above the core count means other "
        "processes shared the CPUs: trust CPU s over wall s)"
    )


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    helpers = {
        "_pytrec": child_pytrec,
        "_ranx": child_ranx,
        "_duckdb": child_duckdb,
    }
    if argv and argv[0] in helpers:
        helpers[argv[0]](*argv[1:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("/tmp/ragrecall-bench"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--only",
        nargs="+",
        metavar="CASE",
        help="case keys: " + ", ".join(c["key"] for c in cases(Path("."))),
    )
    parser.add_argument("--generate-only", action="store_true")
    parser.add_argument("--source", type=Path, help="also time ragrecall from this checkout")
    parser.add_argument(
        "--scale", type=int, default=1, help="N x the queries (TREC and Parquet, ragrecall only)"
    )
    parser.add_argument(
        "--queries", type=int, help="this many queries instead (e.g. 1000: 1M lines), for one case"
    )
    parser.add_argument("--memory-limit", help="passed to every ragrecall command")
    parser.add_argument(
        "--profile",
        choices=(
            "trec",
            "trec-writers",
            "trec-rounded",
            "parquet",
            "csv",
            "jsonl",
            "trec-short",
            "jsonl-text",
            "trec-rag",
        ),  # fmt: skip
        nargs="?",
        const="trec",
        help="print where one ragrecall run's time goes (timeline.py) instead",
    )
    args = parser.parse_args(argv)
    if args.memory_limit:
        RAGRECALL_OPTIONS.extend(["--memory-limit", args.memory_limit])
    if args.queries and args.out == parser.get_default("out"):
        args.out = Path(f"/tmp/ragrecall-bench-{args.queries}q")
    if args.scale != 1:
        if args.out == parser.get_default("out"):
            args.out = Path(f"/tmp/ragrecall-bench-{round(7 * args.scale)}m")
        args.only = args.only or ["ragrecall-trec", "ragrecall-parquet"]
    if args.generate_only:
        manifest = generate(args.out, args.scale, queries=args.queries)
        print(json.dumps({k: v for k, v in manifest.items() if k != "params"}), file=sys.stderr)
        return 0
    # Generated by a child process: Linux counts a child's peak RSS from its parent's size at
    # the fork, so a parent grown by generating 70M lines lent every timed case its 11 GB.
    generator = [sys.executable, str(HERE), "--generate-only", "--out", str(args.out)]
    sized = ["--queries", str(args.queries)] if args.queries else []
    subprocess.run([*generator, "--scale", str(args.scale), *sized], check=True)
    manifest = json.loads((args.out / "manifest.json").read_text())
    if args.profile:
        f = {k: args.out / v for k, v in FILES.items()}
        gold, run = {
            "trec": (f["qrels"], f["run_trec"]),
            "parquet": (f["qrels"], f["run_parquet"]),
            "trec-writers": (f["qrels"], f["run_writers_trec"]),
            "trec-rounded": (f["qrels"], f["run_rounded_trec"]),
            "csv": (f["qrels"], f["run_csv"]),
            "jsonl": (f["gold_jsonl"], f["run_jsonl"]),
            "trec-short": (f["qrels_short"], f["run_short_trec"]),
            "jsonl-text": (f["gold_jsonl"], f["run_text_jsonl"]),
            "trec-rag": (f["qrels_rag"], f["run_rag_trec"]),
        }[args.profile]
        compiled(REPO)
        # every DuckDB call of the command, by thread (timeline.py), in a fresh process
        command = ragrecall_cmd(gold, run)[3:]  # after ``python -m ragrecall_core``
        timeline = [sys.executable, str(HERE.parent / "timeline.py"), *command]
        sample = measure(timeline)
        print(
            f"ragrecall evaluate ({args.profile}); wall {sample['wall']:.2f} s, "
            f"CPU {sample['cpu']:.2f} s, peak RSS {sample['rss_mb']:.0f} MB"
        )
        print(sample["stdout"])
        return 0
    load_before = os.getloadavg()[0]
    for checkout in (REPO, args.source):
        if checkout:
            compiled(checkout)
    results = run_benchmark(args.out, args.repeat, args.only, args.source)
    print(f"\n{describe_machine(load_before)}")
    print(
        f"\n## ragrecall evaluate benchmark ({manifest['run_lines']:,} run lines, "
        f"{manifest['params']['queries']} queries, repeat {args.repeat}, medians)\n"
    )
    print(table(results))
    print()
    print("\n".join(agreement(results)))
    for line in goal_lines(results):
        print(line)
    (args.out / "results.json").write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
