"""How corank sees the arrays it is given: where they live (host or a GPU), their dtype, size
and data pointer; and how it makes outputs of the same kind (NumPy in, NumPy out; CuPy in,
CuPy out; PyTorch in, PyTorch out; any other CUDA array in, a DeviceArray out)."""

import sys
import warnings

import numpy as np

from . import _corank

# The dtypes corank takes, numbered as the extension numbers them (python/src/operands.hpp).
DTYPES = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float32", "float64")
DTYPE_NUMBER = {name: number for number, name in enumerate(DTYPES)}
HOST = -1  # the device of host arrays
_NUMPY_NAMES = {np.dtype(n): n for n in DTYPES}  # little-endian (native) dtypes only

_KDL_CPU, _KDL_CUDA, _KDL_CUDA_MANAGED = 1, 2, 13


class Array:
    """One argument: the object given, its kind ('numpy', 'torch', 'cupy' or 'cuda' for any
    other GPU array), dtype name, size, data pointer and device (HOST for host memory; None
    for an empty array whose pointer names no device)."""

    __slots__ = ("obj", "kind", "dtype", "size", "ptr", "device", "ready_on")

    def __init__(self, obj, kind, dtype, size, ptr, device, ready_on=None):
        self.obj, self.kind, self.dtype, self.size, self.ptr, self.device = obj, kind, dtype, size, ptr, device
        self.ready_on = ready_on  # a stream its producer wrote it on (__cuda_array_interface__), to wait for

    @property
    def on_gpu(self):
        return self.device != HOST

    def where(self):
        return "the host" if self.device == HOST else f"GPU {self.device}"


def _not_1d(name, what, shape):
    return ValueError(f"{name}: `{what}` must be 1-D, got shape {tuple(shape)}")


def _not_contiguous(name, what):
    return ValueError(f"{name}: `{what}` is not contiguous; pass copy=True to let corank copy it")


def _bad_dtype(name, what, dtype):
    return TypeError(f"{name}: `{what}` has dtype {dtype}; corank takes {', '.join(DTYPES)}")


_torch_names = {}  # torch.dtype -> its name where corank takes it (filled on first use)


def _torch_dtype_name(t):
    if not _torch_names:
        torch = sys.modules["torch"]
        _torch_names.update({getattr(torch, n): n for n in DTYPES if hasattr(torch, n)})
    return _torch_names.get(t.dtype)


def _describe_numpy(x, name, what, copy):
    if x.ndim != 1:
        raise _not_1d(name, what, x.shape)
    dtype = _NUMPY_NAMES.get(x.dtype)
    if dtype is None:
        raise _bad_dtype(name, what, x.dtype)
    if not x.flags.c_contiguous:
        if not copy:
            raise _not_contiguous(name, what)
        x = np.ascontiguousarray(x)
    return Array(x, "numpy", dtype, x.shape[0], x.ctypes.data, HOST)


def _describe_torch(x, name, what, copy):
    # Attribute reads chosen for speed: x.device builds an object, x.get_device() does not.
    if x.dim() != 1:
        raise _not_1d(name, what, x.shape)
    dtype = _torch_dtype_name(x)
    if dtype is None:
        raise _bad_dtype(name, what, x.dtype)
    if x.is_cuda:
        device = x.get_device()
    elif x.device.type == "cpu":
        device = HOST
    else:
        raise ValueError(f"{name}: `{what}` is on {x.device}; corank takes CUDA and CPU tensors")
    size = x.shape[0]
    if size > 1 and x.stride(0) != 1:
        if not copy:
            raise _not_contiguous(name, what)
        x = x.contiguous()
    return Array(x, "torch", dtype, size, x.data_ptr(), device)


def _describe_cupy(x, name, what, copy):
    # 1-D contiguity from the stride (x.flags builds an object), the device from the pointer.
    if x.ndim != 1:
        raise _not_1d(name, what, x.shape)
    dtype = _NUMPY_NAMES.get(x.dtype)
    if dtype is None:
        raise _bad_dtype(name, what, x.dtype)
    size = x.shape[0]
    if size > 1 and x.strides[0] != x.itemsize:
        if not copy:
            raise _not_contiguous(name, what)
        x = x.copy()
    memory = x.data
    return Array(x, "cupy", dtype, size, memory.ptr, memory.device_id)


def _describe_cuda_array_interface(x, name, what):
    interface = x.__cuda_array_interface__
    shape = tuple(interface["shape"])
    if len(shape) != 1:
        raise _not_1d(name, what, shape)
    dtype = np.dtype(interface["typestr"])
    if dtype.name not in DTYPE_NUMBER or dtype.byteorder == ">":
        raise _bad_dtype(name, what, dtype)
    strides = interface.get("strides")
    if strides is not None and shape[0] > 1 and strides[0] != dtype.itemsize:
        raise _not_contiguous(name, what)
    ptr = interface["data"][0]
    device = _corank.pointer_device(ptr) if ptr else None
    ready_on = interface.get("stream")  # version 3: None, or the stream to wait for (1: legacy, 2: per-thread)
    return Array(x, "cuda", dtype.name, shape[0], ptr, device, None if ready_on in (None, 1) else ready_on)


def _describe_dlpack(x, name, what):
    device_type, _ = x.__dlpack_device__()
    if device_type == _KDL_CPU:
        return _describe_numpy(np.from_dlpack(x), name, what, False)
    if device_type not in (_KDL_CUDA, _KDL_CUDA_MANAGED):
        raise ValueError(f"{name}: `{what}` is a DLPack array on device type {device_type}; corank takes CUDA and CPU arrays")
    ptr, shape, strides, dtype, _, device = _corank.describe_dlpack(x)
    if len(shape) != 1:
        raise _not_1d(name, what, shape)
    if dtype < 0:
        raise _bad_dtype(name, what, "of DLPack")
    if shape[0] > 1 and strides[0] != 1:
        raise _not_contiguous(name, what)
    return Array(x, "cuda", DTYPES[dtype], shape[0], ptr, device)


def describe(x, name, what, copy=False):
    """The Array for argument `what` of function `name`; raises TypeError or ValueError with one
    sentence for what corank cannot take."""
    if isinstance(x, np.ndarray):
        return _describe_numpy(x, name, what, copy)
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(x, torch.Tensor):
        return _describe_torch(x, name, what, copy)
    cupy = sys.modules.get("cupy")
    if cupy is not None and isinstance(x, cupy.ndarray):
        return _describe_cupy(x, name, what, copy)
    if isinstance(x, DeviceArray):
        return Array(x, "cuda", x.dtype, x.size, x.ptr, x.device, x._stream or None)
    if callable(getattr(x, "block_until_ready", None)):
        # JAX: its transfers and computations are asynchronous, and neither interface it offers
        # names a stream to wait for (its __cuda_array_interface__ is version 2).
        x.block_until_ready()
    if hasattr(x, "__cuda_array_interface__"):
        return _describe_cuda_array_interface(x, name, what)
    if hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__"):
        return _describe_dlpack(x, name, what)
    if isinstance(x, (list, tuple, range)) or hasattr(x, "__array__"):
        return _describe_numpy(np.asarray(x), name, what, copy)
    raise TypeError(
        f"{name}: `{what}` is of type {type(x).__name__}; corank takes NumPy, CuPy and PyTorch arrays, lists, "
        "and any array with __cuda_array_interface__ or __dlpack__")


def empty(like, n, dtype, device, stream=0, stream_given=False):
    """A new 1-D array of n elements of `dtype`, of the kind of `like`, on `device`. `stream`:
    where its contents will be written; where the caller named it (stream_given), CuPy's and
    PyTorch's allocators take the memory for that stream, not for their current one. Raises
    MemoryError, whatever the framework raises, where there is too little memory."""
    try:
        return _allocate(like, n, dtype, device, stream, stream_given)
    except Exception as e:  # CuPy's OutOfMemoryError is a MemoryError, PyTorch's a RuntimeError
        if not isinstance(e, MemoryError) and "OutOfMemory" not in type(e).__name__:
            raise
        raise MemoryError(f"corank: not enough GPU memory for an output of {n} {dtype} on {like.where()}: {e}") from e


def _allocate(like, n, dtype, device, stream, stream_given):
    if like.kind == "numpy":
        return np.empty(n, dtype=dtype)
    if like.kind == "torch":
        torch = sys.modules["torch"]
        if device == HOST:
            return torch.empty(n, dtype=getattr(torch, dtype))
        if not stream_given:
            return torch.empty(n, dtype=getattr(torch, dtype), device=like.obj.device)
        given = (torch.cuda.default_stream(device) if stream == 0  # ExternalStream(0) is another stream
                 else torch.cuda.ExternalStream(stream, device=like.obj.device))
        with torch.cuda.stream(given):
            return torch.empty(n, dtype=getattr(torch, dtype), device=like.obj.device)
    if like.kind == "cupy":
        cupy = sys.modules["cupy"]
        if not stream_given and cupy.cuda.runtime.getDevice() == device:
            return cupy.empty(n, dtype=dtype)
        with cupy.cuda.Device(device):
            if not stream_given:
                return cupy.empty(n, dtype=dtype)
            with _cupy_stream(cupy, stream):
                return cupy.empty(n, dtype=dtype)
    # Flags (bool) as bytes: a DeviceArray has the dtypes of corank's keys.
    return DeviceArray(_corank.device_empty(n, DTYPE_NUMBER["uint8" if dtype == "bool" else dtype], device), stream)


def _cupy_stream(cupy, handle):
    """A CuPy stream object for a raw handle. ExternalStream, deprecated in CuPy 14, never
    destroys the handle; its replacement's objects may, in versions without the guard."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return cupy.cuda.ExternalStream(handle)


def data_pointer(x):
    """The data pointer of an array made by empty()."""
    if isinstance(x, np.ndarray):
        return x.ctypes.data
    if isinstance(x, DeviceArray):
        return x.ptr
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(x, torch.Tensor):
        return x.data_ptr()
    return x.data.ptr  # CuPy


def stream_handle(like, stream):
    """The cudaStream_t (as an int) to run on: `stream` if given (an int, a CuPy or PyTorch
    stream, or any object with __cuda_stream__), else the current stream of the input's
    framework on its device (CuPy's, PyTorch's), else the legacy default stream (0)."""
    if stream is not None:
        if isinstance(stream, int):
            return stream
        if hasattr(stream, "__cuda_stream__"):
            return stream.__cuda_stream__()[1]
        if hasattr(stream, "cuda_stream"):  # torch.cuda.Stream
            return stream.cuda_stream
        if hasattr(stream, "ptr"):  # cupy.cuda.Stream
            return stream.ptr
        raise TypeError(f"corank: stream= takes an int (a cudaStream_t), a CuPy or PyTorch stream or an object "
                        f"with __cuda_stream__, got {type(stream).__name__}")
    if like.kind == "cupy":
        return sys.modules["cupy"].cuda.get_current_stream(like.device).ptr
    if like.kind == "torch":
        return sys.modules["torch"].cuda.current_stream(like.device).cuda_stream
    return 0


class DeviceArray:
    """A 1-D array in GPU memory: what corank returns for GPU inputs that are neither CuPy nor
    PyTorch arrays (JAX, Numba, any DLPack or __cuda_array_interface__ producer). Hand it to
    any consumer without a copy: jax.dlpack.from_dlpack(x), torch.from_dlpack(x),
    cupy.from_dlpack(x), numba.cuda.as_cuda_array(x). x.get() copies it into a NumPy array."""

    __slots__ = ("_array", "_stream", "dtype", "size", "ptr", "device")

    def __init__(self, array, stream=0):
        self._array = array  # a nanobind ndarray that owns (or views) the memory
        self._stream = stream  # the stream its contents are written on
        self.ptr, shape, _, number, _, self.device = _corank.describe_dlpack(array)
        self.size = shape[0]
        self.dtype = DTYPES[number]

    def __len__(self):
        return self.size

    @property
    def shape(self):
        return (self.size,)

    @property
    def ndim(self):
        return 1

    @property
    def nbytes(self):
        return self.size * np.dtype(self.dtype).itemsize

    def __getitem__(self, index):
        """x[:n], the first n elements (no copy); other indexing: copy with get() first."""
        if not isinstance(index, slice) or index.start not in (None, 0) or index.step not in (None, 1):
            raise TypeError("corank.DeviceArray takes only x[:n]; use x.get() (a NumPy copy) or a DLPack consumer")
        n = max(0, index.indices(self.size)[1])  # the stop, clipped as Python clips it
        return DeviceArray(_corank.device_view(self._array, self.ptr, n, DTYPE_NUMBER[self.dtype], self.device),
                           self._stream)

    def __dlpack__(self, *, stream=None, **kwargs):
        # The consumer's stream (None: the legacy default one; -1: none) waits for ours.
        if stream != -1:
            _corank.stream_wait(0 if stream is None else stream, self._stream, self.device)
        return self._array.__dlpack__(**{k: v for k, v in kwargs.items() if v is not None})

    def __dlpack_device__(self):
        return (_KDL_CUDA, self.device)

    @property
    def __cuda_array_interface__(self):
        # Consumers wait for the stream the contents were written on (1: the legacy default stream).
        return {"shape": (self.size,), "typestr": np.dtype(self.dtype).str, "data": (self.ptr, False),
                "strides": None, "version": 3, "stream": self._stream or 1}

    def get(self):
        """A NumPy copy (waits for the device)."""
        out = np.empty(self.size, dtype=self.dtype)
        if self.size:
            _corank.stream_wait(0, self._stream, self.device)  # the copy runs on the legacy default stream
            _corank.copy_to_host(out.ctypes.data, self.ptr, out.nbytes, self.device)
        return out

    def __repr__(self):
        return f"<corank.DeviceArray of {self.size} {self.dtype} on GPU {self.device}>"
