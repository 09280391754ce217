from .base import MeasureDef, register

NDCG = register(MeasureDef(
    "nDCG", "Graded DCG of the top k (gain = grade, discount log2(rank + 1)) over the ideal "
    "DCG from all judged grades of the query.",
    aliases=("NDCG",), trec_eval="ndcg_cut"))
