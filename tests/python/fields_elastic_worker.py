"""One rank of test_fields_elastic_resume.py, started by `python3 -m torch.distributed.run`:
reads epoch EPOCH of a file with masks and boxes, rank and world_size from torch.distributed,
and checkpoints as trainers do (`if rank == 0: torch.save(loader.state_dict(), ...)`).

Usage: fields_elastic_worker.py FILE OUT_DIR NAME STOP [CHECKPOINT]
  CHECKPOINT: a NAME.pt of an earlier launch to resume from (else the epoch starts afresh).
  STOP: batches to read before checkpointing to OUT_DIR/NAME.pt; -1 reads the rest.
Writes OUT_DIR/NAME-rank<R>.pt: for each row delivered, its mask, boxes and box labels."""
import sys

import torch
import torch.distributed as dist

import h5feed

EPOCH = 1


def open_loader(path, rank=None, world_size=None):
    """The loader every launch uses (the test's reference opens it in-process): masks and
    boxes through random resized crops and flips, echo 2."""
    return h5feed.Loader(path, 4, sampler="chunks:2", seed=5, with_indices=True, as_dict=True,
                         fields=["mask", "boxes"], echo=2, slots=4, threads=1,
                         augment=h5feed.Augment(random_resized_crop=(24, 32), scale=(0.2, 1),
                                                random_flip=True),
                         rank=rank, world_size=world_size)


def fields_of(batch):
    """(row, mask, boxes, box labels) of each sample of `batch`, copied."""
    delivered = []
    for i, row in enumerate(batch["indices"].tolist()):
        k = int(batch["boxes_count"][i])
        delivered.append((row, batch["mask"][i].clone(), batch["boxes"][i, :k].clone(),
                          batch["box_labels"][i, :k].clone()))
    return delivered


def main(path, out_dir, name, stop, checkpoint=None):
    stop = int(stop)
    dist.init_process_group("gloo")  # env:// from torch.distributed.run
    loader = open_loader(path)
    if checkpoint is not None:
        loader.load_state_dict(torch.load(checkpoint))
    loader.set_epoch(EPOCH)  # the restored epoch continues mid-way
    delivered, batches = [], 0
    for batch in loader:
        delivered += fields_of(batch)
        batches += 1
        if batches == stop:
            break
    if stop >= 0:
        dist.barrier()  # every rank stands at `stop`: rank 0's state is everyone's
        if dist.get_rank() == 0:
            torch.save(loader.state_dict(), f"{out_dir}/{name}.pt")
    torch.save({"delivered": delivered, "batches": batches},
               f"{out_dir}/{name}-rank{dist.get_rank()}.pt")
    dist.destroy_process_group()


if __name__ == "__main__":
    main(*sys.argv[1:])
