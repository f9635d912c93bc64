# Type stubs of the `magcl` module (the wheel ships them for editors and type checkers).
# The functions are documented in their docstrings and in docs/python.md.
import os
from typing import Any, Iterable, Optional, Sequence, Union

import numpy as np

__version__: str
EVALUATORS: list[str]
C_GRID: list[float]
OUTER_FOLDS: int
INNER_FOLDS: int
COLUMNS: list[str]

ArrayLike = Union[np.ndarray, Sequence[Any]]
Folds = Union[ArrayLike, Iterable[tuple[ArrayLike, ArrayLike]]]
PathLike = Union[str, os.PathLike[str]]

def evaluate_embedding(
    x: ArrayLike,
    y: ArrayLike,
    evaluator: str = "svc-rbf",
    seed: Optional[int] = 0,
    folds: Optional[Folds] = None,
    validation: bool = False,
    nmi: bool = False,
) -> dict[str, Any]: ...
def kmeans_nmi(
    x: ArrayLike, y: ArrayLike, seed: Optional[int] = 0, restarts: int = 20
) -> dict[str, Any]: ...
def nmi_score(labels_true: ArrayLike, labels_pred: ArrayLike) -> float: ...
def record(
    path: PathLike,
    *,
    method: str,
    dataset: str,
    seed: int,
    config: Optional[dict[str, Any]] = None,
    accuracy: Optional[float] = None,
    embeddings: Optional[ArrayLike] = None,
    labels: Optional[ArrayLike] = None,
    evaluator: str = "svc-rbf",
    folds: Optional[Folds] = None,
    ma: str = "none",
    variant: str = "",
    nmi: Optional[float] = None,
    accuracy_std_folds: Optional[float] = None,
    selected_epoch: Optional[int] = None,
    epochs: int = 0,
    train_seconds: float = 0.0,
    device: str = "cpu",
    git_commit: str = "unknown",
    warnings: str = "",
    data_source: str = "",
) -> dict[str, Any]: ...

class Report:
    markdown: str
    csv: str
    data: dict[str, Any]
    groups: Any
    comparisons: Any
    vs_baseline: Any

def report(
    paths: Union[PathLike, Iterable[PathLike]],
    metric: str = "accuracy",
    holm: str = "family",
    claims: Optional[PathLike] = None,
    baseline: Optional[str] = None,
    as_frame: Optional[bool] = None,
) -> Report: ...
