"""The exceptions of plaidml: one class per C status, all under plaidml.PlaidMLError.

Each also derives from the closest built-in exception, so `except ValueError` catches a parse
error and `except TypeError` a shape mismatch.
"""


class PlaidMLError(Exception):
    """A failed plaidml call.

    Attributes: status (the C status code), status_name ("PLAIDML_STATUS_PARSE_ERROR"), message
    (the library's message, e.g. "2:14: expected ']'"), function (the C function that failed).
    """

    def __init__(self, status, status_name, message, function=None):
        super().__init__(message)
        self.status = status
        self.status_name = status_name
        self.message = message
        self.function = function

    def __str__(self):
        return "%s: %s" % (self.status_name.replace("PLAIDML_STATUS_", ""), self.message)


class InvalidArgumentError(PlaidMLError, ValueError):
    """PLAIDML_STATUS_INVALID_ARGUMENT: a bad argument, option, attribute or misuse."""


class ParseError(PlaidMLError, ValueError):
    """PLAIDML_STATUS_PARSE_ERROR: malformed Tile text; the message starts with line:column."""


class TypeMismatchError(PlaidMLError, TypeError):
    """PLAIDML_STATUS_TYPE_ERROR: a dtype, rank, dimension or broadcasting mismatch."""


class NotFoundError(PlaidMLError, LookupError):
    """PLAIDML_STATUS_NOT_FOUND: unknown tensor, input, output, device, function or op."""


class UnsupportedError(PlaidMLError, NotImplementedError):
    """PLAIDML_STATUS_UNSUPPORTED: a valid program the device (or library) cannot run."""


class OutOfMemoryError(PlaidMLError, MemoryError):
    """PLAIDML_STATUS_OUT_OF_MEMORY."""


class DeviceError(PlaidMLError, RuntimeError):
    """PLAIDML_STATUS_DEVICE_ERROR: a driver or device failure."""


class InternalError(PlaidMLError, RuntimeError):
    """PLAIDML_STATUS_INTERNAL: a broken invariant inside plaidml (please report it)."""


class PlaidMLIOError(PlaidMLError, OSError):
    """PLAIDML_STATUS_IO_ERROR: a file read or write failure."""

    def __str__(self):  # OSError's own __str__ would drop the message
        return PlaidMLError.__str__(self)


class LibraryNotFoundError(ImportError):
    """libplaidml could not be found or loaded (see PLAIDML_LIBRARY)."""


_BY_STATUS = {
    1: InvalidArgumentError,
    2: ParseError,
    3: TypeMismatchError,
    4: NotFoundError,
    5: UnsupportedError,
    6: OutOfMemoryError,
    7: DeviceError,
    8: InternalError,
    9: PlaidMLIOError,
}


def from_status(status, status_name, message, function=None):
    """The exception for a non-OK status (PlaidMLError itself for a status unknown here)."""
    cls = _BY_STATUS.get(status, PlaidMLError)
    return cls(status, status_name, message, function)
