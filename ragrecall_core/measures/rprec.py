from ragrecall_core.measures.base import NONE, MeasureDef, register
from ragrecall_core.measures.sql import Columns, FamilySQL


def sql(c: Columns) -> FamilySQL:
    return FamilySQL(
        f"count(*) FILTER (WHERE rank <= {c.nrel} AND {c.relevant})", c.share_of_relevant()
    )


RPREC = register(
    MeasureDef(
        "Rprec",
        "Precision at rank R, where R is the number of relevant items of the query.",
        cutoff=NONE,
        aliases=("R-Precision", "RPrec"),
        trec_eval=("Rprec",),
        sql=sql,
    )
)
