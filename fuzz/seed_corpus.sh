#!/usr/bin/env bash
# Fills fuzz/corpus/<target>/ with seed inputs from the dataset mirror and the test
# fixtures. Run from the repository root: bash fuzz/seed_corpus.sh [MIRROR]
set -euo pipefail
mirror="${1:-${MAGCL_DATA_MIRROR:-../shared/datasets}}"
fx=tests/fixtures/data
mkdir -p fuzz/corpus/tu_parser fuzz/corpus/pickle_reader fuzz/corpus/npz_reader fuzz/corpus/dgcnn_parser
sep=$'\xff'
# TU: parts joined by 0xFF (see fuzz_targets/tu_parser.rs); small datasets and slices.
tu_seed() { # dir name out [max lines]
  local d=$1 n=$2 out=$3 lines=${4:-100000000}
  {
    for f in A graph_indicator graph_labels node_labels node_attributes edge_labels edge_attributes; do
      if [ -f "$d/${n}_$f.txt" ]; then head -n "$lines" "$d/${n}_$f.txt"; fi
      if [ "$f" != edge_attributes ]; then printf '%s' "$sep"; fi
    done
  } > "$out"
}
tu_seed "$fx/tu/good/TINY" TINY fuzz/corpus/tu_parser/tiny
tu_seed "$fx/tu/crlf/TINY" TINY fuzz/corpus/tu_parser/tiny_crlf
for c in "$fx"/tu/bad/*/; do tu_seed "$c/TINY" TINY "fuzz/corpus/tu_parser/bad_$(basename "$c")"; done
tu_seed "$mirror/tu/MUTAG" MUTAG fuzz/corpus/tu_parser/mutag_head 60
tu_seed "$mirror/tu/PROTEINS" PROTEINS fuzz/corpus/tu_parser/proteins_head 60
# Pickles: small real files and the fixtures.
for f in "$mirror"/planetoid/ind.*.y "$mirror"/planetoid/ind.*.ty "$mirror"/planetoid/ind.cora.x; do
  cp "$f" fuzz/corpus/pickle_reader/
done
head -c 4000 "$mirror/planetoid/ind.cora.graph" > fuzz/corpus/pickle_reader/cora_graph_head
cp "$fx"/planetoid/tiny/ind.tiny.{x,tx,y,ty,graph} fuzz/corpus/pickle_reader/
cp "$fx"/planetoid/bad/*.{x,y,graph} fuzz/corpus/pickle_reader/ 2>/dev/null || true
# npz: the fixtures.
cp "$fx"/npz/*.npz fuzz/corpus/npz_reader/
# DGCNN: the fixtures and the start of MUTAG's and PROTEINS' copies (a prefix is a
# truncated file: the parser must report where it ends).
cp "$fx"/dgcnn/good/*.txt "$fx"/dgcnn/bad/*.txt fuzz/corpus/dgcnn_parser/
for n in MUTAG PROTEINS; do
  if [ -f "$mirror/dgcnn/$n.zip" ]; then
    unzip -p "$mirror/dgcnn/$n.zip" "$n/$n.txt" | head -n 200 > "fuzz/corpus/dgcnn_parser/${n,,}_head"
  fi
done
echo "seeded: $(ls fuzz/corpus/tu_parser | wc -l) tu, $(ls fuzz/corpus/pickle_reader | wc -l) pickle, $(ls fuzz/corpus/npz_reader | wc -l) npz, $(ls fuzz/corpus/dgcnn_parser | wc -l) dgcnn"
