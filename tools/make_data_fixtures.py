#!/usr/bin/env python3
"""Writes the small dataset fixtures under tests/fixtures/data/ (made-up data, no real
dataset content). Re-running it reproduces the committed files; the tests never need Python.

    python3 tools/make_data_fixtures.py          # numpy and scipy needed

* tu/good/TINY           a valid TU dataset with every quirk (padding, both separators,
                         repeated directed pairs, labels {-1, 1}) and node/edge data
* tu/crlf/TINY, tu/bom/TINY   the same with CRLF line endings / a UTF-8 BOM (accepted)
* tu/bad/CASE/TINY       one malformed variant per case (see BAD_TU below)
* mirror_zip, mirror_bad_zip  a mirror with only tu/PTC_MR/PTC_MR.zip (TINY's content), whole / cut
* mirror_checksum        a mirror whose tu/MUTAG files are not the known ones
* planetoid/tiny         a valid 8-file Planetoid set (protocol-2 and protocol-5 pickles)
* planetoid/bad/*        malformed replacements for single files of that set
* npz/*.npz              gnn-benchmark-style archives, stored and deflated, plus bad ones
"""
import collections
import io
import os
import pickle
import shutil
import zipfile

import numpy as np
import scipy.sparse as sp

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "data")

TINY = {
    "graph_indicator": ["1", "1", "1", "2", "2", "3", "3"],
    "graph_labels": [" -1", "1", "1"],
    "A": ["1, 2", "2, 1", "2,3", "3,2", "1, 3", "3, 1", "4, 5", "5, 4", "6, 7", "7, 6", "6, 7", "7, 6"],
    "node_labels": ["2", "5", "2", "5", "5", "2", "2"],
    "edge_labels": ["1", "1", "0", "0", "1", "1", "2", "2", "0", "0", "0", "0"],
    "node_attributes": ["  0.5,  1.0", "  1.5,  2.0", "-1, 0", "0, 0", "2.25, 1", "1e-1, 3", "4, 4"],
}


def write_tu(folder, files, name="TINY", eol="\n", bom=False):
    d = os.path.join(folder, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    for kind, lines in files.items():
        text = eol.join(lines) + (eol if lines else "")
        data = text.encode()
        if bom:
            data = b"\xef\xbb\xbf" + data
        with open(os.path.join(d, f"{name}_{kind}.txt"), "wb") as f:
            f.write(data)


def variant(**changes):
    files = {k: list(v) for k, v in TINY.items()}
    for k, v in changes.items():
        if v is None:
            del files[k]
        else:
            files[k] = v
    return files


# Each case: the files, and (file, line) the error must name.
BAD_TU = {
    "missing_file": variant(A=None),
    "empty_file": variant(graph_labels=[]),
    "non_numeric": variant(A=TINY["A"][:2] + ["2, x"] + TINY["A"][3:]),
    "wrong_columns": variant(A=TINY["A"][:1] + ["2, 1, 7"] + TINY["A"][2:]),
    "node_out_of_range": variant(A=TINY["A"][:4] + ["1, 9"] + TINY["A"][5:]),
    "cross_graph_edge": variant(A=TINY["A"][:6] + ["3, 4"] + TINY["A"][7:]),
    "labels_count": variant(node_labels=TINY["node_labels"][:6]),
    "attributes_count": variant(node_attributes=TINY["node_attributes"] + ["9, 9"]),
    "indicator_count": variant(graph_indicator=TINY["graph_indicator"][:6]),
    "edge_labels_count": variant(edge_labels=TINY["edge_labels"][:11]),
    "empty_graph": variant(graph_labels=TINY["graph_labels"] + ["-1"]),
    "graph_id_out_of_range": variant(graph_indicator=TINY["graph_indicator"][:6] + ["4"]),
    "attribute_width": variant(node_attributes=TINY["node_attributes"][:3] + ["1, 2, 3"] + TINY["node_attributes"][4:]),
    "blank_line": variant(graph_indicator=TINY["graph_indicator"][:2] + [""] + TINY["graph_indicator"][2:]),
    "non_numeric_label": variant(graph_labels=["-1", "one", "1"]),
}


def tu_fixtures():
    base = os.path.join(ROOT, "tu")
    shutil.rmtree(base, ignore_errors=True)
    write_tu(os.path.join(base, "good"), TINY)
    write_tu(os.path.join(base, "crlf"), TINY, eol="\r\n")
    write_tu(os.path.join(base, "bom"), TINY, bom=True)
    for case, files in BAD_TU.items():
        write_tu(os.path.join(base, "bad", case), files)

    # A mirror holding only the zip, with entries named like the original TU archives. It
    # uses the name of a known dataset without known checksums (PTC_MR) with TINY's content.
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        def entry(name):  # fixed dates keep the fixture byte-identical across runs
            return zipfile.ZipInfo(name, date_time=(2016, 1, 1, 0, 0, 0))

        for kind, lines in TINY.items():
            z.writestr(entry(f"PTC_MR//PTC_MR_{kind}.txt"), "\n".join(lines) + "\n", zipfile.ZIP_DEFLATED)
        z.writestr(entry("PTC_MR//README.txt"), "made-up fixture\n", zipfile.ZIP_DEFLATED)
    zbytes = buf.getvalue()
    for folder, data in [("mirror_zip", zbytes), ("mirror_bad_zip", zbytes[: len(zbytes) // 2])]:
        d = os.path.join(ROOT, folder, "tu", "PTC_MR")
        shutil.rmtree(os.path.join(ROOT, folder), ignore_errors=True)
        os.makedirs(d)
        with open(os.path.join(d, "PTC_MR.zip"), "wb") as f:
            f.write(data)
    # A mirror whose "MUTAG" files are not the known ones: the checksum check must refuse them.
    shutil.rmtree(os.path.join(ROOT, "mirror_checksum"), ignore_errors=True)
    write_tu(os.path.join(ROOT, "mirror_checksum", "tu"), variant(node_attributes=None), name="MUTAG")


def dump(obj, path, protocol=2):
    with open(path, "wb") as f:
        pickle.dump(obj, f, protocol=protocol)


def planetoid_fixtures():
    base = os.path.join(ROOT, "planetoid")
    shutil.rmtree(base, ignore_errors=True)
    d = os.path.join(base, "tiny")
    os.makedirs(d)
    n_all, feats, classes = 502, 4, 3
    allx = np.zeros((n_all, feats), dtype=np.float32)
    allx[0] = [1, 0, 1, 0]
    allx[1] = [0, 2, 0, 0]
    allx[5] = [0, 0, 0, 3]
    ally = np.zeros((n_all, classes), dtype=np.int32)
    ally[np.arange(n_all), np.arange(n_all) % classes] = 1
    tx = np.array([[0, 0, 1, 1], [5, 0, 0, 0], [0, 0, 0, 0]], dtype=np.float32)
    ty = np.array([[0, 0, 1], [0, 1, 0], [1, 0, 0]], dtype=np.int32)
    graph = collections.defaultdict(list)
    graph[0] += [1, 1, 0]
    graph[1] += [0, 504]
    graph[504] += [1]
    graph[503] += []
    graph[505] += [2]
    dump(sp.csr_matrix(allx[:2]), os.path.join(d, "ind.tiny.x"))
    dump(sp.csr_matrix(allx), os.path.join(d, "ind.tiny.allx"))
    dump(sp.csr_matrix(tx), os.path.join(d, "ind.tiny.tx"), protocol=5)
    dump(ally[:2], os.path.join(d, "ind.tiny.y"))
    dump(ally, os.path.join(d, "ind.tiny.ally"))
    dump(ty, os.path.join(d, "ind.tiny.ty"), protocol=5)
    dump(graph, os.path.join(d, "ind.tiny.graph"))
    with open(os.path.join(d, "ind.tiny.test.index"), "w") as f:
        f.write("504\n502\n505\n")

    bad = os.path.join(base, "bad")
    os.makedirs(bad)
    good_x = open(os.path.join(d, "ind.tiny.x"), "rb").read()
    with open(os.path.join(bad, "truncated.x"), "wb") as f:
        f.write(good_x[: len(good_x) // 2])
    with open(os.path.join(bad, "unknown_opcode.y"), "wb") as f:
        f.write(b"\x80\x02\xff.")
    dump([1, 2], os.path.join(bad, "not_a_dict.graph"))
    dump(ally[:501], os.path.join(bad, "wrong_rows.ally"))
    with open(os.path.join(bad, "non_numeric.test.index"), "w") as f:
        f.write("504\nabc\n505\n")
    with open(os.path.join(bad, "duplicate.test.index"), "w") as f:
        f.write("504\n502\n504\n")


def npz_fixtures():
    base = os.path.join(ROOT, "npz")
    shutil.rmtree(base, ignore_errors=True)
    os.makedirs(base)
    # 5 nodes; stored entries include both directions, a one-way pair, a self-loop and a
    # repeated entry. Undirected simple edges: (0,1), (1,2), (3,4).
    # Row by row: 0 -> 1; 1 -> 0, 2; 2 -> 2; 3 -> 4, 4; 4 -> 3.
    adj_data = np.ones(7, dtype=np.float32)
    adj_indices = np.array([1, 0, 2, 2, 4, 4, 3], dtype=np.int32)
    adj_indptr = np.array([0, 1, 3, 4, 6, 7], dtype=np.int32)
    attr = sp.csr_matrix(np.array([[1, 0, 0], [0, 1, 1], [0, 0, 0], [2, 0, 0], [0, 0, 4]], dtype=np.float32))
    labels = np.array([0, 1, 1, 2, 0], dtype=np.int64)
    common = dict(
        adj_data=adj_data,
        adj_indices=adj_indices,
        adj_indptr=adj_indptr,
        adj_shape=np.array([5, 5], dtype=np.int64),
        labels=labels,
        node_names=np.array(["a", "b", "c", "d", "e"], dtype=object),
        class_names=np.array(["x", "y", "z"], dtype=object),
    )
    sparse_attr = dict(
        attr_data=attr.data,
        attr_indices=attr.indices,
        attr_indptr=attr.indptr,
        attr_shape=np.array(attr.shape, dtype=np.int64),
    )
    np.savez(os.path.join(base, "tiny.npz"), **common, **sparse_attr)
    np.savez_compressed(os.path.join(base, "tiny_compressed.npz"), **common, **sparse_attr)
    dense = np.asfortranarray(attr.toarray().astype(np.float64))
    np.savez_compressed(os.path.join(base, "tiny_dense.npz"), **common, attr_matrix=dense)

    full = open(os.path.join(base, "tiny_compressed.npz"), "rb").read()
    with open(os.path.join(base, "bad_truncated.npz"), "wb") as f:
        f.write(full[: len(full) * 2 // 3])
    # Flip bytes inside the first entry's compressed data (past its 30-byte local header,
    # name and extra field): the archive still opens, reading that entry fails.
    corrupt = bytearray(full)
    name_len = int.from_bytes(full[26:28], "little")
    extra_len = int.from_bytes(full[28:30], "little")
    start = 30 + name_len + extra_len + 2
    for i in range(start, start + 8):
        corrupt[i] ^= 0x5A
    with open(os.path.join(base, "bad_corrupt.npz"), "wb") as f:
        f.write(bytes(corrupt))
    no_labels = dict(common)
    del no_labels["labels"]
    np.savez(os.path.join(base, "bad_missing_labels.npz"), **no_labels, **sparse_attr)
    bad_ptr = dict(common, adj_indptr=np.array([0, 3, 1, 4, 6, 7], dtype=np.int32))
    np.savez(os.path.join(base, "bad_indptr.npz"), **bad_ptr, **sparse_attr)
    bad_shape = dict(common, adj_shape=np.array([5, 6], dtype=np.int64))
    np.savez(os.path.join(base, "bad_not_square.npz"), **bad_shape, **sparse_attr)
    with open(os.path.join(base, "bad_not_zip.npz"), "wb") as f:
        f.write(b"this is not a zip archive\n")


if __name__ == "__main__":
    tu_fixtures()
    planetoid_fixtures()
    npz_fixtures()
