"""Makes a runnable copy of InfoGraph's official unsupervised code (fanyun-sun/InfoGraph,
`unsupervised/`) for the side-by-side check, without touching the original.

    python3 patch_official.py OFFICIAL_UNSUPERVISED_DIR WORK_DIR

The patches only make it run here and report what the comparison needs; none changes the
model, the loss, the optimiser, the data order or the evaluation:

1. `losses.py`: the masks are made on the scores' device instead of `.cuda()` (CPU runs).
2. `main.py`, `gin.py`: `torch_geometric.data.DataLoader` moved to
   `torch_geometric.loader.DataLoader` in current PyG.
3. `main.py`: the seed comes from `$SEED` (`random`, `numpy` and `torch` seeded before the
   dataset is shuffled and the model built; the released code seeds nothing) and the data
   root from `$DATA_ROOT`.
4. `main.py`: the evaluation before training and after every epoch is skipped (it draws no
   random number the training uses: training has no dropout, augmentation or loader
   shuffling) and replaced by one at the end: the final embeddings and labels are saved to
   `$OUT_PREFIX.emb.npy` / `.y.npy`, scored with the code's own `svc_classify(search=True)`
   (the number InfoGraph's paper reports), and one JSON line with the accuracy and the
   seconds of every epoch is printed.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from official_patch import fresh_copy, sub  # noqa: E402  (tools/official_patch.py)


def main() -> None:
    src, dst = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    fresh_copy(src, dst)

    p = dst / "losses.py"
    t = p.read_text()
    t = sub(t, "pos_mask = torch.zeros((num_nodes, num_graphs)).cuda()",
            "pos_mask = torch.zeros((num_nodes, num_graphs)).to(l_enc.device)", str(p))
    t = sub(t, "neg_mask = torch.ones((num_nodes, num_graphs)).cuda()",
            "neg_mask = torch.ones((num_nodes, num_graphs)).to(l_enc.device)", str(p))
    p.write_text(t)

    for name in ("main.py", "gin.py"):
        p = dst / name
        t = p.read_text()
        t = sub(t, "from torch_geometric.data import DataLoader",
                "from torch_geometric.loader import DataLoader", str(p))
        p.write_text(t)

    p = dst / "main.py"
    t = p.read_text()
    t = sub(t, "    path = osp.join(osp.dirname(osp.realpath(__file__)), '..', 'data', DS)\n",
            "    import os, random, time\n"
            "    seed = int(os.environ['SEED'])\n"
            "    random.seed(seed); np.random.seed(seed); torch.manual_seed(seed)\n"
            "    path = osp.join(os.environ['DATA_ROOT'], DS)\n", str(p))
    before = t[t.index("    model.eval()\n    emb, y = model.encoder.get_embeddings(dataloader)\n    print('===== Before training"):
               t.index("    for epoch in range(1, epochs+1):")]
    t = t.replace(before, "    epoch_seconds = []\n")
    t = sub(t, "        loss_all = 0\n        model.train()\n",
            "        loss_all = 0\n        model.train()\n        t0 = time.perf_counter()\n", str(p))
    t = sub(t, "        print('===== Epoch {}, Loss {} ====='.format(epoch, loss_all / len(dataloader)))\n",
            "        epoch_seconds.append(time.perf_counter() - t0)\n"
            "        print('===== Epoch {}, Loss {} ====='.format(epoch, loss_all / len(dataloader)))\n",
            str(p))
    per_epoch = t[t.index("        if epoch % log_interval == 0:"):t.index("    with open('unsupervised.log', 'a+') as f:")]
    t = t.replace(per_epoch, "")
    t = sub(t, "    with open('unsupervised.log', 'a+') as f:\n        s = json.dumps(accuracies)\n"
            "        f.write('{},{},{},{},{},{}\\n'.format(args.DS, args.num_gc_layers, epochs, log_interval, lr, s))\n",
            "    from evaluate_embedding import svc_classify\n"
            "    from sklearn import preprocessing\n"
            "    model.eval()\n"
            "    emb, y = model.encoder.get_embeddings(dataloader)\n"
            "    prefix = os.environ['OUT_PREFIX']\n"
            "    np.save(prefix + '.emb.npy', emb); np.save(prefix + '.y.npy', y)\n"
            "    svc = svc_classify(emb, preprocessing.LabelEncoder().fit_transform(y), True)\n"
            "    print('RESULT ' + json.dumps({'dataset': DS, 'seed': seed, 'svc': 100 * svc,\n"
            "                                  'epoch_seconds': epoch_seconds}))\n", str(p))
    p.write_text(t)


if __name__ == "__main__":
    main()
