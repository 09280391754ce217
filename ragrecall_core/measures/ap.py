from ragrecall_core.measures.base import OPTIONAL, MeasureDef, register

AP = register(
    MeasureDef(
        "AP",
        "Mean of the precision at each relevant item's rank (within the top k if given), "
        "over all relevant items; its mean over queries is MAP.",
        cutoff=OPTIONAL,
        mean_name="MAP",
        trec_eval=("map", "map_cut_k"),
    )
)
