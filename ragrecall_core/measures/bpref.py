from ragrecall_core.measures.base import NONE, MeasureDef, register

BPREF = register(
    MeasureDef(
        "Bpref",
        "Binary preference over judged items only: the mean, over the relevant items, of "
        "1 - (judged non-relevant ranked above it, at most R) / min(R, judged non-relevant); "
        "a relevant item not retrieved adds 0. Unjudged items are skipped.",
        cutoff=NONE,
        trec_eval=("bpref",),
    )
)
