"""Makes a runnable copy of MVGRL's official graph-level code (kavehhassani/mvgrl 628ed2b,
`graph/` and `utils.py`) for the side-by-side check, without touching the original.

    python3 patch_official.py OFFICIAL_DIR WORK_DIR

The patches make it run on current numpy / torch and report what the comparison needs;
none changes the model, the loss, the data order, the early stopping or the evaluation:

1. `graph/dataset.py`: `np.float` (removed from numpy) becomes `float`; the per-graph
   lists become object arrays explicitly (numpy >= 1.24 refuses ragged `np.array`).
2. `graph/dataset.py`: the TU files come from `$DATA_ROOT/<name>/` (the files magcl
   reads), processed once into that folder's `.npy` cache instead of downloaded.
3. `graph/dataset.py`, only with `MVGRL_FEATURES=labels`: every node's features are its
   one-hot node label (what PyG's TU loader and magcl's `graphcl` features give) instead of
   the code's own (node attributes where the set has them, else the one-hot label beside a
   one-hot degree; its one-hot takes the file's labels as 1-based, so on MUTAG and
   PROTEINS, whose labels start at 0, label 0 lands in the last label's column). Off by
   default; the runs that use it say so.
4. `graph/train.py`: the checkpoint goes to `$OUT_PREFIX.pkl` (parallel runs would share
   `<dataset>-<gpu>.pkl`); the seconds of each epoch are recorded; after the released
   evaluation the embeddings and labels are saved to `$OUT_PREFIX.emb.npy` / `.y.npy` and
   one JSON line is printed with the accuracy, the epochs run, the kept epoch, the epoch
   seconds and the number of values the optimiser updates. The `__main__` grid becomes
   one run: `python3 -m graph.train DATASET SEED` with `train()`'s defaults (4 layers, 40
   epochs, batch 64), seeded as the released loop seeds each run.
5. `graph/train.py`, `local_global_loss_`: the positive and negative masks, which the code
   fills entry by entry in a Python loop (one CUDA launch per node: ~160 000 per step on
   PROTEINS, whose graphs are padded to 620 nodes; a run would take hours), are filled by
   one indexed assignment with the same values.
6. `graph/train.py`: the final embeddings are computed 128 graphs at a time instead of
   all at once (~46 GB of GPU memory on PROTEINS, so parallel runs ran out); the model has
   no batch statistics and `embed` does not read its mask, so the values are the same.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from official_patch import fresh_copy, sub  # noqa: E402  (tools/official_patch.py)


def main() -> None:
    src, dst = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    fresh_copy(src, dst)
    (dst / "graph" / "__init__.py").write_text("")

    p = dst / "graph" / "dataset.py"
    t = p.read_text()
    t = t.replace("dtype=np.float)", "dtype=float)")
    t = sub(t, "    src = os.path.join(os.path.dirname(__file__), 'data')\n",
            "    src = os.environ['DATA_ROOT']\n", str(p))
    t = sub(t, "    datadir = os.path.join(basedir, 'data', dataset)\n\n    if not os.path.exists(datadir):\n        download(dataset)\n",
            "    datadir = os.path.join(os.environ['DATA_ROOT'], dataset)\n\n    if not os.path.exists(f'{datadir}/adj.npy'):\n", str(p))
    t = sub(t, "        adj, diff, feat, labels = np.array(adj), np.array(diff), np.array(feat), np.array(labels)\n",
            "        def objects(xs):\n"
            "            a = np.empty(len(xs), dtype=object)\n"
            "            for i, x in enumerate(xs):\n"
            "                a[i] = x\n"
            "            return a\n"
            "        adj, diff, feat, labels = objects(adj), objects(diff), objects(feat), np.array(labels)\n", str(p))
    t = sub(t, "                node_label_one_hot = [0] * num_unique_node_labels\n"
               "                node_label = node_labels[u - 1]\n"
               "                node_label_one_hot[node_label] = 1\n",
            "                node_label_one_hot = [0] * num_unique_node_labels\n"
            "                node_label = node_labels[u - 1]\n"
            "                node_label_one_hot[node_label] = 1\n"
            "                if os.environ.get('MVGRL_FEATURES') == 'labels':\n"
            "                    node_label_one_hot = [0] * (num_unique_node_labels + 1)\n"
            "                    node_label_one_hot[node_label + 1] = 1\n", str(p))
    t = sub(t, "    if 'feat_dim' in graphs[0].graph:\n",
            "    if os.environ.get('MVGRL_FEATURES') == 'labels':\n"
            "        for graph in graphs:\n"
            "            for u in graph.nodes(data=True):\n"
            "                graph.nodes[u[0]]['feat'] = np.array(u[1]['label'], dtype=float)\n"
            "    elif 'feat_dim' in graphs[0].graph:\n", str(p))
    p.write_text(t)

    p = dst / "graph" / "train.py"
    t = p.read_text()
    t = sub(t, "import numpy as np\n", "import json, os, time\nimport numpy as np\n", str(p))
    t = sub(t, "    itr = (adj.shape[0] // batch_size) + 1\n",
            "    itr = (adj.shape[0] // batch_size) + 1\n"
            "    epoch_seconds, trained_values = [], sum(q.numel() for q in model.parameters())\n"
            "    ckpt = os.environ['OUT_PREFIX'] + '.pkl'\n", str(p))
    t = sub(t, "        epoch_loss = 0.0\n", "        epoch_loss = 0.0\n        t0 = time.perf_counter()\n", str(p))
    t = sub(t, "        epoch_loss /= itr\n",
            "        torch.cuda.synchronize()\n        epoch_seconds.append(time.perf_counter() - t0)\n"
            "        epoch_loss /= itr\n", str(p))
    t = t.replace("f'{dataset}-{gpu}.pkl'", "ckpt")
    t = sub(t, "    print(np.mean(accuracies), np.std(accuracies))\n",
            "    prefix = os.environ['OUT_PREFIX']\n"
            "    np.save(prefix + '.emb.npy', x); np.save(prefix + '.y.npy', y)\n"
            "    print('RESULT ' + json.dumps({'dataset': dataset, 'accuracy': 100 * float(np.mean(accuracies)),\n"
            "        'std': 100 * float(np.std(accuracies)), 'epochs_run': len(epoch_seconds), 'kept_epoch': best_t,\n"
            "        'epoch_seconds': epoch_seconds, 'trained_values': trained_values,\n"
            "        'features': os.environ.get('MVGRL_FEATURES', 'code')}), flush=True)\n", str(p))
    # the masks of the local-global loss, set entry by entry in a Python loop (one CUDA
    # launch per entry: ~160 000 per step on PROTEINS), set by one indexed assignment
    t = sub(t, "    for nodeidx, graphidx in enumerate(batch):\n"
               "        pos_mask[nodeidx][graphidx] = 1.\n"
               "        neg_mask[nodeidx][graphidx] = 0.\n",
            "    rows = torch.arange(num_nodes, device=pos_mask.device)\n"
            "    pos_mask[rows, batch] = 1.\n"
            "    neg_mask[rows, batch] = 0.\n", str(p))
    # the final embedding of every graph in one batch needs ~46 GB of GPU memory on
    # PROTEINS; in chunks of 128 graphs (the model has no batch statistics: same values)
    t = sub(t, "    embeds = model.embed(features, adj, diff, num_nodes)\n",
            "    embeds = torch.cat([model.embed(features[i:i + 128], adj[i:i + 128], diff[i:i + 128], None)\n"
            "                        for i in range(0, features.shape[0], 128)])\n", str(p))
    main_at = t.index("if __name__ == '__main__':")
    t = t[:main_at] + (
        "if __name__ == '__main__':\n"
        "    import sys, warnings\n"
        "    warnings.filterwarnings('ignore')\n"
        "    d, seed = sys.argv[1], int(sys.argv[2])\n"
        "    torch.manual_seed(seed)\n"
        "    torch.backends.cudnn.deterministic = True\n"
        "    torch.backends.cudnn.benchmark = False\n"
        "    np.random.seed(seed)\n"
        "    train(d, 0)\n")
    p.write_text(t)


if __name__ == "__main__":
    main()
