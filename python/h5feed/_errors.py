"""The exceptions h5feed raises: one class per h5feed::ErrorCode, all subclasses of
h5feed.Error, each also a subclass of the built-in exception a Python program would catch for
that kind of failure (InvalidArgumentError is a ValueError, NotFoundError a FileNotFoundError,
...). The message is the C++ library's: what failed, where (file, dataset, chunk) and what to do.
"""

from __future__ import annotations

import enum

from . import _h5feed

# INVALID_ARGUMENT, NOT_FOUND, ALREADY_EXISTS, IO, NO_SPACE, CORRUPT, UNSUPPORTED, CANCELLED,
# CUDA, INTERNAL; each value is the code's word in the C++ library ("invalid argument",
# "I/O error", ...), from its one table (lib/enum_names.h).
ErrorCode = enum.Enum("ErrorCode", _h5feed.error_codes)
ErrorCode.__doc__ = "h5feed::ErrorCode; the values are the C++ ToString(code) words."


class Error(Exception):
    """Any failure h5feed reports; `code` says which kind (an ErrorCode)."""
    code: ErrorCode = ErrorCode.INTERNAL


class InvalidArgumentError(Error, ValueError):
    """An option or argument is wrong; nothing was done."""
    code = ErrorCode.INVALID_ARGUMENT


class NotFoundError(Error, FileNotFoundError):
    """A file, dataset or folder that was asked for does not exist."""
    code = ErrorCode.NOT_FOUND


class AlreadyExistsError(Error, FileExistsError):
    """An output exists and replacing it was not asked for (overwrite=True)."""
    code = ErrorCode.ALREADY_EXISTS


class IoError(Error, OSError):
    """The operating system or HDF5 failed to read or write."""
    code = ErrorCode.IO


class NoSpaceError(Error, OSError):
    """The file system is full."""
    code = ErrorCode.NO_SPACE


class CorruptDataError(Error):
    """Data is damaged: a broken image, a checksum mismatch, a truncated file."""
    code = ErrorCode.CORRUPT


class UnsupportedError(Error):
    """Well-formed input or options h5feed cannot handle (a dtype, a filter, an output form)."""
    code = ErrorCode.UNSUPPORTED


class CancelledError(Error):
    """Stopped on request."""
    code = ErrorCode.CANCELLED


class CudaError(Error, RuntimeError):
    """The CUDA runtime reported a failure."""
    code = ErrorCode.CUDA


class InternalError(Error, RuntimeError):
    """A bug in h5feed: please report it with the message."""
    code = ErrorCode.INTERNAL



_CLASSES = (InvalidArgumentError, NotFoundError, AlreadyExistsError, IoError, NoSpaceError,
            CorruptDataError, UnsupportedError, CancelledError, CudaError, InternalError)
_BY_CODE = {cls.code.value: cls for cls in _CLASSES}
for _cls in (Error, ErrorCode, *_CLASSES):
    _cls.__module__ = "h5feed"  # tracebacks say h5feed.NotFoundError, where users import it


def error_class(code_name: str) -> type[Error]:
    """The class for a C++ ErrorCode's ToString name (called by the native module)."""
    return _BY_CODE.get(code_name, InternalError)
