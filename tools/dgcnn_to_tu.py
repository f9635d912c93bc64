"""Writes a graph set of the GIN/DGCNN text format as TU-format files, for the official codes
of the side-by-side kits, which read only the TU format (PyG's `TUDataset`), on sets whose
mirror copy is the DGCNN one (DD, COLLAB, REDDIT-BINARY). Standard library only.

    python3 tools/dgcnn_to_tu.py DGCNN.zip|NAME.txt NAME OUT_DIR

writes OUT_DIR/NAME_A.txt, NAME_graph_indicator.txt, NAME_graph_labels.txt and, when the
file carries node tags that are not all equal, NAME_node_labels.txt. The format
(docs/datasets.md, "GIN/DGCNN text format"): a first line with the number of graphs; per
graph a line `n label`, then n lines `tag m nbr_1 … nbr_m [attributes]`, the neighbours
0-based within the graph. Each neighbour entry becomes one directed line of NAME_A.txt
(1-based over the whole set), so an undirected edge listed at both ends is written both
ways, as the TU files write it. Graph labels and tags are written as they are; PyG remaps
graph labels to 0…k−1 in value order and one-hot encodes tags from their minimum, as
magcl does, so the two programs see the same classes and the same features up to the order
of the one-hot columns. Node attributes, when present, are not written (no kit uses them).
"""
import io
import pathlib
import sys
import zipfile


def lines_of(src: pathlib.Path, name: str):
    if src.suffix == ".zip":
        with zipfile.ZipFile(src) as z:
            member = f"{name}/{name}.txt"
            return io.TextIOWrapper(z.open(member), encoding="ascii").read().splitlines()
    return src.read_text(encoding="ascii").splitlines()


def main() -> None:
    src, name, out = pathlib.Path(sys.argv[1]), sys.argv[2], pathlib.Path(sys.argv[3])
    lines = lines_of(src, name)
    at = 0

    def line() -> list[str]:
        nonlocal at
        at += 1
        return lines[at - 1].split()

    graphs = int(line()[0])
    edges, indicator, labels, tags = [], [], [], []
    offset = 0
    for g in range(graphs):
        n, label = (int(v) for v in line()[:2])
        labels.append(label)
        for i in range(n):
            row = line()
            tag, m = int(row[0]), int(row[1])
            nbrs = [int(v) for v in row[2 : 2 + m]]
            if len(nbrs) != m or any(not 0 <= j < n for j in nbrs):
                raise SystemExit(f"{src}: line {at}: expected {m} neighbours in 0..{n - 1}")
            tags.append(tag)
            indicator.append(g + 1)
            edges.extend((offset + i + 1, offset + j + 1) for j in nbrs)
        offset += n
    out.mkdir(parents=True, exist_ok=True)

    def write(suffix: str, rows) -> None:
        (out / f"{name}_{suffix}.txt").write_text("".join(f"{r}\n" for r in rows))

    write("A", (f"{a}, {b}" for a, b in edges))
    write("graph_indicator", indicator)
    write("graph_labels", labels)
    if len(set(tags)) > 1:
        write("node_labels", tags)
    print(f"{name}: {graphs} graphs, {offset} nodes, {len(edges)} directed edges -> {out}")


if __name__ == "__main__":
    main()
