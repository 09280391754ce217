from ragrecall_core.measures.base import OPTIONAL, MeasureDef, register

RR = register(
    MeasureDef(
        "RR",
        "1 / rank of the first relevant item in the top k (no cutoff: the whole list), "
        "else 0; its mean over queries is MRR.",
        cutoff=OPTIONAL,
        aliases=("RecipRank",),
        mean_name="MRR",
        trec_eval=("recip_rank",),
    )
)
