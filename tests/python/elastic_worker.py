"""One rank of test_elastic_resume.py, started by `python3 -m torch.distributed.run`: reads part
or all of epoch EPOCH with rank and world_size from torch.distributed, and checkpoints the
way trainers do (`if rank == 0: torch.save(loader.state_dict(), ...)`).

Usage: elastic_worker.py FILE OUT_DIR NAME STOP [CHECKPOINT]
  CHECKPOINT: a NAME.pt of an earlier run to resume from (else the epoch starts afresh).
  STOP: batches to read before checkpointing to OUT_DIR/NAME.pt; -1 reads the rest of the
  epoch and then the whole next epoch.
Writes OUT_DIR/NAME-rank<R>.npz: the rows and images delivered, the batch count, len(loader)
in the epoch, and with STOP -1 the next epoch's rows."""
import sys

import numpy as np
import torch
import torch.distributed as dist

import h5feed

EPOCH = 2


def open_loader(path, rank=None, world_size=None):
    """The loader every run of the test uses (the test's reference opens it in-process)."""
    return h5feed.Loader(path, 8, sampler="chunks:2", seed=11, with_indices=True,
                         augment=h5feed.Augment(random_resized_crop=4, random_flip=True),
                         rank=rank, world_size=world_size)


def main(path, out_dir, name, stop, checkpoint=None):
    stop = int(stop)
    dist.init_process_group("gloo")  # env:// from torch.distributed.run
    rank = dist.get_rank()
    loader = open_loader(path)
    first_epoch = EPOCH
    if checkpoint is not None:
        state = torch.load(checkpoint)
        loader.load_state_dict(state)
        first_epoch = state["epoch"]
    rows, images, batches, next_rows = [], [], 0, []
    for epoch in range(first_epoch, EPOCH + 2):
        loader.set_epoch(epoch)  # the restored epoch continues mid-way
        for x, _, indices in loader:
            if epoch == EPOCH:
                rows += indices.tolist()
                images.append(x.clone())
                batches += 1
                if batches == stop:
                    break
            else:
                next_rows += indices.tolist()
        if epoch == EPOCH:
            length = len(loader)  # the epoch's batches, those before a restore included
        if stop >= 0:
            break
    # The ranks agree on the batch count without talking; the collective checks it.
    counts = torch.tensor([batches])
    dist.all_reduce(counts, op=dist.ReduceOp.MAX)
    if stop >= 0:
        dist.barrier()  # every rank stands at `stop`: rank 0's state is everyone's
        if rank == 0:
            torch.save(loader.state_dict(), f"{out_dir}/{name}.pt")
    np.savez(f"{out_dir}/{name}-rank{rank}.npz", rows=np.array(rows, dtype=np.int64),
             images=torch.cat(images).numpy() if images else np.zeros((0,)),
             batches=batches, max_batches=int(counts), len=length,
             next_rows=np.array(next_rows, dtype=np.int64))
    dist.destroy_process_group()


if __name__ == "__main__":
    main(*sys.argv[1:])
