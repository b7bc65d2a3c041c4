"""One rank of test_distributed.py, started by `python3 -m torch.distributed.run`: reads one
epoch with rank and world_size taken from torch.distributed and writes the rows it got to
OUT_DIR/rank<R>.json. Usage: distributed_worker.py FILE OUT_DIR"""
import json
import sys

import torch
import torch.distributed as dist

import h5feed


def main(path, out_dir):
    dist.init_process_group("gloo")  # env:// from torch.distributed.run
    loader = h5feed.Loader(path, 16, sampler="chunks:2", seed=4, dtype=None, with_indices=True)
    loader.set_epoch(3)
    rows, batches = [], 0
    for _, labels, indices in loader:
        rows += indices.tolist()
        batches += 1
    # The ranks agree on the step count without talking; the collective checks it.
    counts = torch.tensor([batches])
    dist.all_reduce(counts, op=dist.ReduceOp.MAX)
    with open(f"{out_dir}/rank{dist.get_rank()}.json", "w") as f:
        json.dump({"rank": dist.get_rank(), "world_size": dist.get_world_size(), "rows": rows,
                   "batches": batches, "max_batches": int(counts), "len": len(loader)}, f)
    dist.destroy_process_group()


if __name__ == "__main__":
    main(*sys.argv[1:])
