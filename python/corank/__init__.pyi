# Type stubs for the corank package (python/corank/__init__.py and the modules it re-exports).
# Array types are Any: corank takes and returns arrays of several libraries (NumPy, CuPy,
# PyTorch, DLPack and __cuda_array_interface__ producers), none of which it depends on but
# NumPy. The overloads give the result's shape (an array, or a tuple of how many) from
# whether values are given and from count_on_device.

from typing import Any, Literal, Protocol, overload

import numpy.typing as npt

__version__: str
__all__ = [
    "DeviceArray",
    "find_unsorted", "gpu_unavailable_reason", "intersect1d", "isin", "join", "join_count", "merge",
    "release_temporary_memory",
    "searchsorted", "set_difference", "set_difference_count", "set_intersection", "set_intersection_count",
    "set_intersection_paired", "set_symmetric_difference", "set_symmetric_difference_count", "set_union",
    "set_union_count", "setdiff1d", "setxor1d", "union1d",
]

# An input: a 1-D NumPy array or list (CPU threads), a CuPy array, a PyTorch tensor (CUDA or
# CPU), a DeviceArray, or any CUDA array with __cuda_array_interface__ or __dlpack__.
_ArrayLike = Any
# An output: an array of the kind of `a` (numpy.ndarray, cupy.ndarray, torch.Tensor on a's
# device, or DeviceArray for other GPU arrays).
_Array = Any
# stream=: an int (a cudaStream_t), a CuPy or PyTorch stream, or an object with __cuda_stream__.
_Stream = Any
_Strategy = Literal["automatic", "naive", "tiled", "circular", "partitioned"]
# Inputs must be sorted. check_sorted=True raises ValueError naming an unsorted one. Unchecked,
# an unsorted input is never a crash: a result of unspecified content within the outputs'
# bound (len(a) + len(b), min(len(a), len(b)) for an intersection, len(a) for a difference),
# or ValueError where the operation finds the inputs unsorted (with count_on_device=True, a
# negative size on the device instead).

class DeviceArray:
    """A 1-D array in GPU memory: corank's output for GPU inputs that are neither CuPy arrays
    nor PyTorch tensors. Exported through DLPack and __cuda_array_interface__; get() copies it
    into a NumPy array."""

    dtype: str  # a NumPy dtype name: "int8" to "uint64", "float32", "float64"
    size: int
    ptr: int  # the device pointer
    device: int  # the CUDA device
    # Made by corank (array: the extension's DLPack-exporting array that owns the memory;
    # stream: the cudaStream_t its contents are written on).
    def __init__(self, array: Any, stream: int = 0) -> None: ...
    def __len__(self) -> int: ...
    @property
    def shape(self) -> tuple[int]: ...
    @property
    def ndim(self) -> Literal[1]: ...
    @property
    def nbytes(self) -> int: ...
    # Only x[:n] (a view of the first n elements); other indexing raises TypeError.
    def __getitem__(self, index: slice) -> DeviceArray: ...
    def __dlpack__(self, *, stream: Any = None, **kwargs: Any) -> Any: ...
    def __dlpack_device__(self) -> tuple[int, int]: ...
    @property
    def __cuda_array_interface__(self) -> dict[str, Any]: ...
    def get(self) -> npt.NDArray[Any]: ...

def gpu_unavailable_reason(device: int = 0) -> str: ...
def find_unsorted(x: _ArrayLike, *, stream: _Stream = None, copy: bool = False) -> int: ...
def release_temporary_memory(device: int = 0) -> None: ...

# merge: with values, (keys, values).
@overload
def merge(
    a: _ArrayLike,
    b: _ArrayLike,
    *,
    values_a: None = None,
    values_b: None = None,
    strategy: _Strategy = "automatic",
    check_sorted: bool = False,
    stream: _Stream | None = None,
    threads: int = 0,
    copy: bool = False,
) -> _Array: ...
@overload
def merge(
    a: _ArrayLike,
    b: _ArrayLike,
    *,
    values_a: _ArrayLike,
    values_b: _ArrayLike,
    strategy: _Strategy = "automatic",
    check_sorted: bool = False,
    stream: _Stream | None = None,
    threads: int = 0,
    copy: bool = False,
) -> tuple[_Array, _Array]: ...

# set_union, set_intersection, set_difference and set_symmetric_difference share one
# signature (one factory makes them, _set_operations.py): keys, or (keys, values) with
# values; count_on_device=True appends the size (a 1-element int64 array) to that, and the
# outputs keep their largest size.
class _SetOperation(Protocol):
    @overload
    def __call__(
        self,
        a: _ArrayLike,
        b: _ArrayLike,
        *,
        values_a: None = None,
        values_b: None = None,
        strategy: _Strategy = "automatic",
        check_sorted: bool = False,
        count_on_device: Literal[False] = False,
        stream: _Stream | None = None,
        threads: int = 0,
        copy: bool = False,
    ) -> _Array: ...
    @overload
    def __call__(
        self,
        a: _ArrayLike,
        b: _ArrayLike,
        *,
        values_a: _ArrayLike,
        values_b: _ArrayLike,
        strategy: _Strategy = "automatic",
        check_sorted: bool = False,
        count_on_device: Literal[False] = False,
        stream: _Stream | None = None,
        threads: int = 0,
        copy: bool = False,
    ) -> tuple[_Array, _Array]: ...
    @overload
    def __call__(
        self,
        a: _ArrayLike,
        b: _ArrayLike,
        *,
        values_a: None = None,
        values_b: None = None,
        strategy: _Strategy = "automatic",
        check_sorted: bool = False,
        count_on_device: Literal[True],
        stream: _Stream | None = None,
        threads: int = 0,
        copy: bool = False,
    ) -> tuple[_Array, _Array]: ...
    @overload
    def __call__(
        self,
        a: _ArrayLike,
        b: _ArrayLike,
        *,
        values_a: _ArrayLike,
        values_b: _ArrayLike,
        strategy: _Strategy = "automatic",
        check_sorted: bool = False,
        count_on_device: Literal[True],
        stream: _Stream | None = None,
        threads: int = 0,
        copy: bool = False,
    ) -> tuple[_Array, _Array, _Array]: ...
    # count_on_device a bool known only at run time. (values_a: _ArrayLike, which takes None,
    # rather than _ArrayLike | None: mypy otherwise calls a call with values ambiguous.)
    @overload
    def __call__(
        self,
        a: _ArrayLike,
        b: _ArrayLike,
        *,
        values_a: _ArrayLike = None,
        values_b: _ArrayLike = None,
        strategy: _Strategy = "automatic",
        check_sorted: bool = False,
        count_on_device: bool,
        stream: _Stream | None = None,
        threads: int = 0,
        copy: bool = False,
    ) -> _Array | tuple[_Array, ...]: ...

# The set_*_count functions: an int, or with count_on_device=True a 1-element int64 array
# (on the device for GPU input, a NumPy array for host input).
class _SetCount(Protocol):
    @overload
    def __call__(
        self,
        a: _ArrayLike,
        b: _ArrayLike,
        *,
        strategy: _Strategy = "automatic",
        check_sorted: bool = False,
        count_on_device: Literal[False] = False,
        stream: _Stream | None = None,
        threads: int = 0,
        copy: bool = False,
    ) -> int: ...
    @overload
    def __call__(
        self,
        a: _ArrayLike,
        b: _ArrayLike,
        *,
        strategy: _Strategy = "automatic",
        check_sorted: bool = False,
        count_on_device: Literal[True],
        stream: _Stream | None = None,
        threads: int = 0,
        copy: bool = False,
    ) -> _Array: ...
    # count_on_device a bool known only at run time.
    @overload
    def __call__(
        self,
        a: _ArrayLike,
        b: _ArrayLike,
        *,
        strategy: _Strategy = "automatic",
        check_sorted: bool = False,
        count_on_device: bool,
        stream: _Stream | None = None,
        threads: int = 0,
        copy: bool = False,
    ) -> int | _Array: ...

set_union: _SetOperation
set_intersection: _SetOperation
set_difference: _SetOperation
set_symmetric_difference: _SetOperation

set_union_count: _SetCount
set_intersection_count: _SetCount
set_difference_count: _SetCount
set_symmetric_difference_count: _SetCount

# (keys, values_a_out, values_b_out); count_on_device=True appends the size.
@overload
def set_intersection_paired(
    a: _ArrayLike,
    b: _ArrayLike,
    values_a: _ArrayLike,
    values_b: _ArrayLike,
    *,
    strategy: _Strategy = "automatic",
    check_sorted: bool = False,
    count_on_device: Literal[False] = False,
    stream: _Stream | None = None,
    threads: int = 0,
    copy: bool = False,
) -> tuple[_Array, _Array, _Array]: ...
@overload
def set_intersection_paired(
    a: _ArrayLike,
    b: _ArrayLike,
    values_a: _ArrayLike,
    values_b: _ArrayLike,
    *,
    strategy: _Strategy = "automatic",
    check_sorted: bool = False,
    count_on_device: Literal[True],
    stream: _Stream | None = None,
    threads: int = 0,
    copy: bool = False,
) -> tuple[_Array, _Array, _Array, _Array]: ...
# count_on_device a bool known only at run time.
@overload
def set_intersection_paired(
    a: _ArrayLike,
    b: _ArrayLike,
    values_a: _ArrayLike,
    values_b: _ArrayLike,
    *,
    strategy: _Strategy = "automatic",
    check_sorted: bool = False,
    count_on_device: bool,
    stream: _Stream | None = None,
    threads: int = 0,
    copy: bool = False,
) -> tuple[_Array, ...]: ...

# NumPy's set routines with NumPy's semantics (array-likes, promotion, NaNs); unsorted input is
# sorted first, sorted input (one read finds it) is not. Other dtypes raise TypeError.
def union1d(
    ar1: _ArrayLike,
    ar2: _ArrayLike,
    *,
    assume_sorted: bool = False,
    check_sorted: bool = True,
    stream: _Stream | None = None,
    threads: int = 0,
) -> _Array: ...

# return_indices=True: (values, first indices in flattened ar1, in flattened ar2).
def intersect1d(
    ar1: _ArrayLike,
    ar2: _ArrayLike,
    assume_unique: bool = False,
    return_indices: bool = False,
    *,
    assume_sorted: bool = False,
    check_sorted: bool = True,
    stream: _Stream | None = None,
    threads: int = 0,
) -> _Array | tuple[_Array, _Array, _Array]: ...
# assume_unique=True keeps ar1's order and repeats, as NumPy does.
def setdiff1d(
    ar1: _ArrayLike,
    ar2: _ArrayLike,
    assume_unique: bool = False,
    *,
    assume_sorted: bool = False,
    check_sorted: bool = True,
    stream: _Stream | None = None,
    threads: int = 0,
) -> _Array: ...
def setxor1d(
    ar1: _ArrayLike,
    ar2: _ArrayLike,
    assume_unique: bool = False,
    *,
    assume_sorted: bool = False,
    check_sorted: bool = True,
    stream: _Stream | None = None,
    threads: int = 0,
) -> _Array: ...

# NumPy's searchsorted and isin with NumPy's semantics; v and element of any shape and order.
# searchsorted: int64 indices of v's shape (a NumPy scalar for a scalar v); isin: bools of
# element's shape (uint8 for other GPU arrays).
def searchsorted(
    a: _ArrayLike,
    v: Any,
    side: Literal["left", "right"] = "left",
    sorter: _ArrayLike | None = None,
    *,
    assume_sorted: bool = False,
    check_sorted: bool = True,
    stream: _Stream | None = None,
    threads: int = 0,
) -> Any: ...
def isin(
    element: Any,
    test_elements: Any,
    assume_unique: bool = False,
    invert: bool = False,
    *,
    kind: Literal["sort", "table"] | None = None,
    assume_sorted: bool = False,
    check_sorted: bool = True,
    stream: _Stream | None = None,
    threads: int = 0,
) -> _Array: ...

# The inner join of two key columns: (left_indices, right_indices), int64, every matching pair.
def join(
    left: _ArrayLike,
    right: _ArrayLike,
    *,
    assume_sorted: bool = False,
    check_sorted: bool = True,
    stream: _Stream | None = None,
    threads: int = 0,
) -> tuple[_Array, _Array]: ...
def join_count(
    left: _ArrayLike,
    right: _ArrayLike,
    *,
    assume_sorted: bool = False,
    check_sorted: bool = True,
    stream: _Stream | None = None,
    threads: int = 0,
) -> int: ...
