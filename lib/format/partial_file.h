#pragma once
// The temporary-name protocol of h5feed outputs (docs/format.md, "Writing protocol").
//
// An output NAME is written as ".NAME.partial-PID" in the same folder (so the final rename
// never crosses file systems and is atomic), fsync'ed, renamed onto NAME, and the folder is
// fsync'ed so the rename itself survives a power cut. A crash leaves only a ".partial" file,
// which the next writer of the same output removes once its process is gone.
//
// Stateless functions; thread-safe as far as the file system is.

#include <sys/types.h>

#include <string>

namespace h5feed::format {

// ".NAME.partial-PID" beside `path`.
std::string PartialPath(const std::string& path, pid_t pid);

// Removes the ".NAME.partial-PID" files beside `path` whose process no longer runs on this
// machine (kill(PID, 0) fails with ESRCH) and returns how many. Best effort by design: it
// cleans up after other, dead processes, so a file it cannot remove or a folder it cannot
// list is left as it is (creating the output then reports any real problem with the folder).
// A live process's file, and this process's own, are never touched.
int RemoveStalePartials(const std::string& path);

// fsync(2) of a file or folder. Throws Error (kNoSpace for a delayed write that found the disk
// full, kIo otherwise) naming the path.
void SyncFile(const std::string& path);
void SyncFolder(const std::string& folder);

// Renames `from` onto `to`. Without `overwrite`, fails with Error(kAlreadyExists) when `to`
// exists, atomically (renameat2 RENAME_NOREPLACE; link+unlink where the file system lacks it),
// so an output created meanwhile by someone else is never replaced; the error names the option
// that allows replacing it as `overwrite_option` (the caller's spelling: option_names.h).
void RenameIntoPlace(const std::string& from, const std::string& to, bool overwrite,
                     const std::string& overwrite_option = "WriterOptions.overwrite");

// The folder that holds `path` ("." for a bare file name).
std::string FolderOf(const std::string& path);

}  // namespace h5feed::format
