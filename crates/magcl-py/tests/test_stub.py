"""The type stubs (magcl.pyi) name what the module has, with the same parameters."""
import ast
import inspect
from pathlib import Path

import magcl

STUB = Path(__file__).resolve().parents[1] / "magcl.pyi"


def test_stub_matches_the_module():
    tree = ast.parse(STUB.read_text())
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert {f.name for f in functions} == {
        "evaluate_embedding", "kmeans_nmi", "nmi_score", "record", "report"}
    for f in functions:
        stub = [a.arg for a in f.args.args + f.args.kwonlyargs]
        real = list(inspect.signature(getattr(magcl, f.name)).parameters)
        assert stub == real, f.name
    names = {t.id for n in tree.body if isinstance(n, ast.AnnAssign) for t in [n.target]}
    for name in names:
        assert hasattr(magcl, name), name
    assert hasattr(magcl, "Report")
