/* LD_PRELOAD library for test_many_readers.py: flock() fails with ENOLCK ("No locks
 * available"), which is what Linux returns on an NFS mount without a lock daemon and what
 * HDF5 1.10 then reports as "unable to lock file". No file system here refuses locks, so this
 * stands in for one; everything else (HDF5, the file, the reads) is real. */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/file.h>

int flock(int fd, int operation) {
  (void)fd;
  (void)operation;
  errno = ENOLCK;
  return -1;
}
