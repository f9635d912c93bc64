"""Runs the patched official MVGRL (`patch_official.py`'s output) on a machine without a
GPU: its `.cuda()` calls become no-ops and the CUDA synchronise before each epoch timer is
skipped; nothing else changes. From the patched folder:

    PYTHONPATH=. DATA_ROOT=… OUT_PREFIX=… python3 cpu_run.py DATASET SEED
"""
import runpy
import sys

import torch
import torch.nn as nn

torch.Tensor.cuda = lambda self, *a, **k: self
nn.Module.cuda = lambda self, *a, **k: self
torch.cuda.synchronize = lambda *a, **k: None
sys.argv = [sys.argv[0], sys.argv[1], sys.argv[2]]
runpy.run_module("graph.train", run_name="__main__")
