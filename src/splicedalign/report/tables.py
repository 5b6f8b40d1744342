"""TSV tables as the pipeline writes and reads them: tab-separated, no index, ``n/a`` for a
missing value (and only for it: an empty cell stays an empty string)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

NA = "n/a"


def write_table(df: pd.DataFrame, path: str | Path) -> None:
    df.to_csv(path, sep="\t", index=False, na_rep=NA, float_format="%.6g")


def read_table(path: str | Path) -> pd.DataFrame:
    return pd.read_csv(path, sep="\t", na_values=[NA], keep_default_na=False)
