"""Makes a runnable copy of JOAOv2's official unsupervised TU code
(Shen-Lab/GraphCL_Automated, `unsupervised_TU/`) for the side-by-side check, without
touching the original.

    python3 patch_official.py OFFICIAL_UNSUPERVISED_TU_DIR WORK_DIR

The patches only make it run on current torch / PyG and report what the comparison
needs; none changes the model, the loss, the augmentations, the min-max step, the data
order or the evaluation:

1. `aug.py`: `torch.load(..., weights_only=False)` (torch >= 2.6 refuses pickled `Data`
   otherwise); `read_tu_data` returns three values in current PyG (the first two are the
   old pair); `Data.keys` is a method in current PyG.
2. `joaov2.py`, `gin.py`: `torch_geometric.data.DataLoader` moved to
   `torch_geometric.loader.DataLoader`.
3. `joaov2.py`: the data root from `$DATA_ROOT` (the same TU files magcl reads); the
   epoch count from `$EPOCHS` (default 40, as released; only the smoke test lowers it).
4. `joaov2.py`: the seconds of each epoch's training loop are recorded, and after the
   final evaluation (the released epoch-40 one, unchanged) the embeddings and labels are
   saved to `$OUT_PREFIX.emb.npy` / `.y.npy` and one JSON line is printed with its test
   accuracy, the final augmentation distribution and the epoch seconds.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from official_patch import fresh_copy, sub  # noqa: E402  (tools/official_patch.py)


def main() -> None:
    src, dst = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    fresh_copy(src, dst)

    p = dst / "aug.py"
    t = p.read_text()
    t = sub(t, "self.data, self.slices = torch.load(self.processed_paths[0])",
            "self.data, self.slices = torch.load(self.processed_paths[0], weights_only=False)", str(p))
    t = sub(t, "self.data, self.slices = read_tu_data(self.raw_dir, self.name)",
            "self.data, self.slices = read_tu_data(self.raw_dir, self.name)[:2]", str(p))
    t = sub(t, "for key in self.data.keys:", "for key in self.data.keys():", str(p))
    p.write_text(t)

    for name in ("joaov2.py", "gin.py"):
        p = dst / name
        t = p.read_text()
        t = sub(t, "from torch_geometric.data import DataLoader",
                "from torch_geometric.loader import DataLoader", str(p))
        p.write_text(t)

    p = dst / "joaov2.py"
    t = p.read_text()
    t = sub(t, "    epochs = 40\n", "    import os, time\n    epochs = int(os.environ.get('EPOCHS', 40))\n"
            "    epoch_seconds = []\n", str(p))
    t = sub(t, "    path = osp.join(osp.dirname(osp.realpath(__file__)), '.', 'data', DS)\n",
            "    path = osp.join(os.environ['DATA_ROOT'], DS)\n", str(p))
    t = sub(t, "        n_aug = np.random.choice(5, 1, p=aug_P)[0]\n",
            "        n_aug = np.random.choice(5, 1, p=aug_P)[0]\n        t0 = time.perf_counter()\n", str(p))
    t = sub(t, "        print('Epoch {}, Loss {}'.format(epoch, loss_all / len(dataloader)))\n",
            "        epoch_seconds.append(time.perf_counter() - t0)\n"
            "        print('Epoch {}, Loss {}'.format(epoch, loss_all / len(dataloader)))\n", str(p))
    t = sub(t, "            accuracies['test'].append(acc)\n",
            "            accuracies['test'].append(acc)\n"
            "            if epoch == epochs:\n"
            "                prefix = os.environ['OUT_PREFIX']\n"
            "                np.save(prefix + '.emb.npy', emb); np.save(prefix + '.y.npy', y)\n"
            "                print('RESULT ' + json.dumps({'dataset': DS, 'seed': args.seed,\n"
            "                    'svc': 100 * acc, 'aug_P': [float(v) for v in aug_P],\n"
            "                    'epoch_seconds': epoch_seconds}), flush=True)\n", str(p))
    # the released script appends to results/log_*: keep that folder
    (dst / "results").mkdir(exist_ok=True)
    p.write_text(t)


if __name__ == "__main__":
    main()
