"""The wire between the grading process and the process that runs a student's answer: data only, never pickle.

Both sides of :mod:`dpteach.labs.isolated` speak this protocol: one JSON
document per line on a pipe. A value crosses as *data* when it is plain
(None, bool, int, float, str, list, tuple, dict, numpy numbers and numeric
arrays, a numpy ``Generator`` by its state) and as a *handle* otherwise (a
function, an object, a class): the other side gets a :class:`Remote` whose
calls and attribute reads travel back over the wire. Nothing received is
ever executed or unpickled, so the answer's process can send only values,
which the grading process checks like any return value.

This file is also the start of the answer's process (``python -I -S -c``
with this file's text, read by the grading process before any submission
ran), so it imports only the standard library; numpy is imported lazily.
"""

import base64
import builtins
import json
import math
import os
import select
import time

_PLAIN_KINDS = "biufc"  # numpy dtype kinds that cross as data: bool, ints, floats, complex
# Python scalars of exactly these types (not subclasses): tag and text on the wire, and back.
_TO_WIRE = {bool: ("b", bool), int: ("i", str), float: ("f", float.hex), str: ("s", str)}
_FROM_WIRE = {"b": bool, "i": int, "f": float.fromhex, "s": str}


class WireError(Exception):
    """The other side broke the protocol (or died): the answer is graded as wrong."""


class RemoteException(Exception):
    """An exception raised on the other side whose class does not exist here."""


def _numpy():
    import numpy
    return numpy


class Channel:
    """One end of the wire: encodes, decodes, and serves the other side's calls while waiting for an answer."""

    def __init__(self, read_fd, write_fd, resolve_exception=None, deadline=None):
        self._fd, self._buffer, self.deadline = read_fd, b"", deadline  # deadline: a time.monotonic() value
        self._out = os.fdopen(write_fd, "w", encoding="utf-8")
        self._objects = {}
        self._origins = {}  # id of a Generator received as an argument -> (its handle on the other side, it)
        self._resolve_exception = resolve_exception or (lambda module, name: None)

    def close(self):
        os.close(self._fd)
        self._out.close()

    # --- values -----------------------------------------------------------------------------
    def encode(self, value):
        if value is None:
            return ["n"]
        if type(value) in _TO_WIRE:
            tag, to_wire = _TO_WIRE[type(value)]
            return [tag, to_wire(value)]
        if type(value) in (list, tuple):
            return ["l" if type(value) is list else "t", [self.encode(v) for v in value]]
        if type(value) is dict:
            return ["d", [[self.encode(k), self.encode(v)] for k, v in value.items()]]
        np = _numpy() if type(value).__module__ == "numpy" or "numpy" in type(value).__module__ else None
        if np is not None:
            if isinstance(value, np.ndarray) and value.dtype.kind in _PLAIN_KINDS:
                data = base64.b64encode(np.ascontiguousarray(value).tobytes()).decode("ascii")
                return ["a", value.dtype.str, list(value.shape), data]
            if isinstance(value, np.generic) and value.dtype.kind in _PLAIN_KINDS:
                return ["ns", value.dtype.str, base64.b64encode(value.tobytes()).decode("ascii")]
            if isinstance(value, np.random.Generator):
                bit = value.bit_generator
                return ["g", type(bit).__name__, self.encode(bit.state), self._handle(value)]
        handle = self._handle(value)
        bases = [[k.__module__, k.__name__] for k in value.__mro__[1:]] if isinstance(value, type) else []
        return ["h", handle, isinstance(value, type), callable(value), bases]

    def _handle(self, value):
        self._objects[id(value)] = value
        return id(value)

    def decode(self, item):
        tag = item[0]
        if tag == "n":
            return None
        if type(tag) is str and tag in _FROM_WIRE:  # a malformed (unhashable) tag is refused below, as unknown
            return _FROM_WIRE[tag](item[1])
        if tag in ("l", "t"):
            values = [self.decode(v) for v in item[1]]
            return values if tag == "l" else tuple(values)
        if tag == "d":
            return {self.decode(k): self.decode(v) for k, v in item[1]}
        if tag in ("a", "ns"):
            np = _numpy()
            dtype = np.dtype(item[1])
            if dtype.kind not in _PLAIN_KINDS:
                raise WireError(f"refused an array of dtype {dtype}")
            raw = base64.b64decode(item[-1])
            if tag == "ns":
                return np.frombuffer(raw, dtype=dtype)[0]
            shape = tuple(int(s) for s in item[2])
            if math.prod(shape) * dtype.itemsize != len(raw):
                raise WireError("an array whose data does not fit its shape")
            return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
        if tag == "g":
            np = _numpy()
            if item[1] not in ("PCG64", "PCG64DXSM", "Philox", "SFC64", "MT19937"):
                raise WireError(f"refused a bit generator {item[1]!r}")
            bit = getattr(np.random, item[1])()
            bit.state = self.decode(item[2])
            generator = np.random.Generator(bit)
            self._origins[id(generator)] = (item[3], generator)  # to send its state back after the call
            return generator
        if tag == "h":
            remote = Remote(self, item[1], is_class=item[2], is_callable=item[3])
            if not item[2]:
                return remote
            bases = [self._resolve_exception(module, name) for module, name in item[4]]
            return _remote_class(remote, tuple(b for b in bases if isinstance(b, type))[:1])
        raise WireError(f"unknown tag {tag!r}")

    # --- messages ---------------------------------------------------------------------------
    def send(self, message):
        self._out.write(json.dumps(message) + "\n")
        self._out.flush()

    def receive(self):
        # Raw reads with a deadline: a process that keeps the pipe open (say, a child it started and detached)
        # cannot make the reader wait past it.
        while b"\n" not in self._buffer:
            if self.deadline is not None:
                remaining = self.deadline - time.monotonic()
                if remaining <= 0 or not select.select([self._fd], [], [], remaining)[0]:
                    raise WireError("the answer took longer than the time allowed for the task")
            chunk = os.read(self._fd, 1 << 16)
            if not chunk:
                raise WireError("the other process closed the wire (it exited or was killed)")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            return json.loads(line)
        except ValueError as err:
            raise WireError(f"not a message: {line[:80]!r}") from err

    def request(self, message):
        """Send ``message`` and serve the other side's requests until its reply comes; return the reply's value."""
        self.send(message)
        while True:
            reply = self.receive()
            kind = reply[0]
            if kind == "ret":
                self._sync_generators(reply[2])
                return self.decode(reply[1])
            if kind == "err":
                self._sync_generators(reply[4] if len(reply) > 4 else [])
                raise self._exception(reply[1], reply[2], reply[3])
            self.serve(reply)

    def _sync_generators(self, states):
        """After a call, each Generator passed as an argument continues from where the callee left it."""
        for handle, state in states:
            generator = self._objects.get(handle)
            if generator is not None:
                generator.bit_generator.state = self.decode(state)

    def _exception(self, module, name, text):
        klass = getattr(builtins, name, None)
        if not (isinstance(klass, type) and issubclass(klass, Exception)):
            klass = self._resolve_exception(module, name)
        if not (isinstance(klass, type) and issubclass(klass, Exception)):
            klass = RemoteException
        try:
            error = klass(text)
        except Exception:  # an exception class with another signature
            error = RemoteException(f"{name}: {text}")
        return error

    def serve(self, message):
        """Answer one request of the other side: ["call", handle, args, kwargs] or ["getattr", handle, name]."""
        generators = []
        try:
            kind, target = message[0], self._objects[message[1]]
            if kind == "call":
                args = [self.decode(a) for a in message[2]]
                kwargs = {k: self.decode(v) for k, v in message[3]}
                generators = [a for a in [*args, *kwargs.values()] if id(a) in self._origins]
                result = target(*args, **kwargs)
            elif kind == "getattr":
                result = getattr(target, str(message[2]))
            elif kind == "item":
                result = target[self.decode(message[2])]
            elif kind == "len":
                result = len(target)
            else:
                raise WireError(f"unknown request {kind!r}")
            reply = ["ret", self.encode(result), self._states(generators)]
        except WireError:
            raise
        except BaseException as err:  # noqa: B036 - an error of the callee is a reply, not a crash
            reply = ["err", type(err).__module__, type(err).__name__, str(err)[:2000], self._states(generators)]
        self.send(reply)

    def _states(self, generators):
        return [[self._origins[id(g)][0], self.encode(g.bit_generator.state)] for g in generators]


def _remote_class(remote, bases=()):
    """A class of the other side, as a class here (``isinstance(cls, type)`` holds; its first dpteach base is a
    base here too): making one makes it there, and every attribute of the object made is read there."""
    def __new__(cls, *args, **kwargs):
        made = object.__new__(cls)
        object.__setattr__(made, "_remote", remote(*args, **kwargs))
        return made

    def __getattribute__(self, name):
        if name in ("__class__", "_remote", "_wire"):
            return object.__getattribute__(self, name)
        return getattr(object.__getattribute__(self, "_remote"), name)
    klass = type("RemoteClass", bases, {"__new__": __new__, "__init__": lambda self, *a, **k: None,
                                         "__getattribute__": __getattribute__, "_wire": remote._wire,
                                         "__repr__": lambda self: "<your class, run in its own process>"})
    klass.__abstractmethods__ = frozenset()
    return klass


class Remote:
    """A function, object or class that lives in the other process; calls and attribute reads go over the wire."""

    def __init__(self, channel, handle, is_class=False, is_callable=True):
        object.__setattr__(self, "_wire", (channel, handle, is_class, is_callable))

    def __call__(self, *args, **kwargs):
        channel, handle = self._wire[:2]
        return channel.request(["call", handle, [channel.encode(a) for a in args],
                                [[k, channel.encode(v)] for k, v in kwargs.items()]])

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        channel, handle = self._wire[:2]
        return channel.request(["getattr", handle, name])

    def __getitem__(self, key):
        channel, handle = self._wire[:2]
        return channel.request(["item", handle, channel.encode(key)])

    def __len__(self):
        channel, handle = self._wire[:2]
        return channel.request(["len", handle])

    def __repr__(self):
        return "<your answer, run in its own process>"
