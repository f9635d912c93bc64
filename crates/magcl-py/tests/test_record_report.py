"""record → report (Python) → `magcl report` (the binary): rows of a method run outside
magcl go into a magcl result file and come back out beside the built-in methods,
paired by seed; bad rows are refused and leave the file as it was."""
import json

import numpy as np
import pytest

import magcl
from conftest import load_fixture, run_cli

SEEDS = range(5)
GRAPHCL = [86.0, 88.5, 87.0, 85.5, 89.0]
MINE = [87.5, 89.0, 88.0, 87.5, 90.5]
CFG = {"lr": 0.01, "epochs": 20, "encoder": {"layers": 3, "hidden": 32}}


def fill(path):
    for s, a, b in zip(SEEDS, GRAPHCL, MINE):
        magcl.record(path, method="graphcl-py", dataset="MUTAG", seed=s, accuracy=a, config=CFG)
        magcl.record(path, method="mine", dataset="MUTAG", seed=s, accuracy=b, config=CFG,
                     epochs=20, train_seconds=1.5, device="cuda:0", git_commit="abc123")


def test_record_writes_magcl_rows(tmp_path):
    p = tmp_path / "sub" / "runs.csv"
    row = magcl.record(p, method="mine", dataset="MUTAG", seed=3, accuracy=88.25,
                       config={"lr": np.float32(0.5), "layers": np.int64(3), "tags": ("a", None)},
                       nmi=0.25, selected_epoch=7, epochs=20, train_seconds=12.5)
    lines = p.read_text().splitlines()
    assert lines[0] == ",".join(magcl.COLUMNS)
    assert len(lines) == 2
    assert row["accuracy"] == 88.25 and row["seed"] == 3 and row["nmi"] == 0.25
    assert row["ma"] == "none" and row["evaluator"] == "svc-rbf" and row["eval_seconds"] == 0.0
    cfg = json.loads(row["config"])
    assert cfg == {"lr": 0.5, "layers": 3, "tags": ["a", None], "method": "mine",
                   "dataset": "MUTAG", "seed": 3, "evaluator": "svc-rbf", "ma": "none",
                   "evaluation": "caller"}
    assert len(row["config_hash"]) == 16
    data = magcl.report(p, as_frame=False).data
    assert data["rows"] == 1 and data["groups"][0]["method"] == "mine"


def test_record_evaluates_embeddings_as_evaluate_embedding(tmp_path):
    x, y, folds = load_fixture("mutag_like")
    p = tmp_path / "r.csv"
    for seed in (0, 1):
        row = magcl.record(p, method="mine", dataset="MUTAG", seed=seed, embeddings=x, labels=y)
        want = magcl.evaluate_embedding(x, y, seed=seed)
        assert row["accuracy"] == want["accuracy"]
        assert row["accuracy_std_folds"] == want["accuracy_std_folds"]
        assert row["eval_seconds"] > 0
        assert json.loads(row["config"])["evaluation"] == "magcl"
    row = magcl.record(p, method="mine-folds", dataset="MUTAG", seed=0, embeddings=x, labels=y,
                       folds=folds, evaluator="linear-svc")
    assert row["accuracy"] == magcl.evaluate_embedding(x, y, "linear-svc", folds=folds)["accuracy"]


def test_report_pairs_by_seed(tmp_path):
    p = tmp_path / "runs.csv"
    fill(p)
    r = magcl.report([p], baseline="graphcl-py", as_frame=False)
    groups = {g["method"]: g for g in r.groups}
    assert set(groups) == {"graphcl-py", "mine"}
    assert groups["mine"]["n"] == 5
    assert groups["mine"]["mean"] == pytest.approx(np.mean(MINE))
    assert groups["mine"]["std"] == pytest.approx(np.std(MINE, ddof=1))
    assert groups["mine"]["by_seed"] == {str(s): a for s, a in zip(SEEDS, MINE)}
    (v,) = r.vs_baseline
    d = np.array(MINE) - np.array(GRAPHCL)
    assert v["method"] == "mine" and v["baseline"] == "graphcl-py"
    assert v["seeds"] == list(SEEDS)
    assert v["mean_diff"] == pytest.approx(d.mean())
    assert v["std_diff"] == pytest.approx(d.std(ddof=1))
    lo, hi = v["ci95_diff"]
    assert lo < d.mean() < hi
    # t = mean / (sd / sqrt(n)) = 1.5 / (0.5 / sqrt 5) with these numbers
    assert v["t_test"]["t"] == pytest.approx(d.mean() / (d.std(ddof=1) / np.sqrt(5)))
    assert "## Against graphcl-py, paired by seed" in r.markdown
    assert "| MUTAG | mine |" in r.markdown
    assert str(r) == r.markdown and r._repr_markdown_() == r.markdown
    with pytest.raises(ValueError, match="baseline: no rows of method 'graphcl' in the files; methods present: graphcl-py, mine"):
        magcl.report(p, baseline="graphcl")


def test_report_tables_as_frames_when_pandas_is_there(tmp_path):
    p = tmp_path / "runs.csv"
    fill(p)
    try:
        import pandas  # noqa: F401
    except ImportError:
        assert isinstance(magcl.report(p).groups, list)
        with pytest.raises(ImportError):
            magcl.report(p, as_frame=True)
    else:
        df = magcl.report(p).groups
        assert list(df["method"]) == ["graphcl-py", "mine"] or set(df["method"]) == {"graphcl-py", "mine"}


def test_the_binary_reads_the_rows(tmp_path, magcl_bin):
    """`magcl report` reads what record wrote, and prints what magcl.report renders."""
    p = tmp_path / "runs.csv"
    fill(p)
    code, out, err = run_cli(magcl_bin, "report", p)
    assert code == 0, err
    assert out == magcl.report(p).markdown
    assert "mine" in out and "graphcl-py" in out
    code, out, err = run_cli(magcl_bin, "report", p, "--format", "json")
    assert code == 0, err
    cli = json.loads(out)
    py = magcl.report(p, as_frame=False).data
    assert cli["groups"] == py["groups"]
    assert cli["rows"] == py["rows"] == 10


def test_bad_rows_are_refused_and_leave_the_file_as_it_was(tmp_path):
    p = tmp_path / "runs.csv"
    fill(p)
    before = p.read_bytes()
    cases = [
        (dict(accuracy=0.87), "accuracy is in percent (0-100), got 0.87; did you mean 87"),
        (dict(accuracy=120.0), "accuracy 120 lies outside [0, 100]"),
        (dict(accuracy=float("nan")), "accuracy is NaN; a result row holds finite numbers only"),
        (dict(accuracy=80.0, nmi=1.5), "nmi 1.5 lies outside [0, 1]"),
        (dict(accuracy=80.0, train_seconds=float("inf")), "train_seconds is inf"),
        (dict(), "nothing to record"),
        (dict(accuracy=80.0, embeddings=np.zeros((4, 2))), "not both"),
        (dict(labels=[0, 1]), "embeddings and labels go together"),
        (dict(accuracy=80.0, evaluator="svm"), "unknown evaluator"),
        (dict(accuracy=80.0, seed=-2), "seed: expected an integer"),
        (dict(accuracy=80.0, method=" "), "method: expected a non-empty name"),
        (dict(accuracy=80.0, config={"seed": 9}), "config.seed is 9 but the row's seed is 0"),
        (dict(accuracy=80.0, config={"lr": float("nan")}), "config.lr is NaN; expected a finite number"),
        # the seed-0 cell is already there
        (dict(accuracy=80.0, config=CFG), "already holds this cell"),
        # another configuration in the group of `mine` (seed aside): the report would refuse it
        (dict(accuracy=80.0, seed=9, config={**CFG, "lr": 0.1}), "come from different configurations"),
    ]
    for extra, msg in cases:
        kw = dict(method="mine", dataset="MUTAG", seed=0)
        kw.update(extra)
        with pytest.raises(ValueError) as e:
            magcl.record(p, **kw)
        assert msg in str(e.value), (extra, str(e.value))
    with pytest.raises(ValueError, match="config.model: expected str, number, bool, None, list or dict, got object"):
        magcl.record(p, method="mine", dataset="MUTAG", seed=7, accuracy=80.0, config={"model": object()})
    with pytest.raises(ValueError, match="config: keys must be strings"):
        magcl.record(p, method="mine", dataset="MUTAG", seed=7, accuracy=80.0, config={1: 2})
    with pytest.raises(ValueError, match="config: expected a dict"):
        magcl.record(p, method="mine", dataset="MUTAG", seed=7, accuracy=80.0, config=[1, 2])
    assert p.read_bytes() == before


def test_foreign_files_are_not_touched(tmp_path):
    p = tmp_path / "mine.csv"
    p.write_text("epoch,loss\n1,0.5\n")
    with pytest.raises(ValueError, match="not a magcl result file"):
        magcl.record(p, method="mine", dataset="MUTAG", seed=0, accuracy=80.0)
    assert p.read_text() == "epoch,loss\n1,0.5\n"
    d = tmp_path / "folder.csv"
    d.mkdir()
    with pytest.raises(OSError):
        magcl.record(d, method="mine", dataset="MUTAG", seed=0, accuracy=80.0)
    with pytest.raises(OSError):
        magcl.report(tmp_path / "missing.csv")


def test_a_killed_writers_half_line_is_repaired(tmp_path):
    p = tmp_path / "runs.csv"
    fill(p)
    good = p.read_bytes()
    with open(p, "ab") as f:
        f.write(b"MUTAG,mine,none,,7,svc-rbf,00")  # a writer killed mid-row
    magcl.record(p, method="mine", dataset="MUTAG", seed=7, accuracy=86.0, config=CFG,
                 git_commit="abc123")
    text = p.read_bytes()
    assert text.startswith(good) and b",00" not in text[len(good):len(good) + 30]
    r = magcl.report(p, as_frame=False)
    assert r.data["rows"] == 11
    assert {g["method"]: g["n"] for g in r.groups} == {"graphcl-py": 5, "mine": 6}


def test_a_row_from_another_commit_of_the_same_config_is_refused(tmp_path):
    # the report does not pool one configuration's runs from two versions of the code
    p = tmp_path / "runs.csv"
    fill(p)
    good = p.read_bytes()
    with pytest.raises(ValueError, match="2 commits"):
        magcl.record(p, method="mine", dataset="MUTAG", seed=7, accuracy=86.0, config=CFG,
                     git_commit="def456")
    assert p.read_bytes() == good
