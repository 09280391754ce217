from ragrecall_core.measures.base import NONE, MeasureDef, register
from ragrecall_core.measures.sql import Columns, FamilySQL


def sql(c: Columns) -> FamilySQL:
    # cum: the judged non-relevant items ranked above (a relevant row adds none itself)
    return FamilySQL(
        f"sum(CASE WHEN {c.cum} = 0 THEN 1.0 ELSE 1.0 - least({c.cum}, {c.nrel}) "
        f"/ least({c.nonrel}, {c.nrel}) END) FILTER (WHERE {c.relevant})",
        c.share_of_relevant(),
        cumulative=c.not_relevant,
    )


BPREF = register(
    MeasureDef(
        "Bpref",
        "Binary preference over judged items only: the mean, over the relevant items, of "
        "1 - (judged non-relevant ranked above it, at most R) / min(R, judged non-relevant); "
        "a relevant item not retrieved adds 0. Unjudged items are skipped.",
        cutoff=NONE,
        trec_eval=("bpref",),
        sql=sql,
    )
)
