"""What a Python module's names and strings stand for, without running it: the bindings pass of
the change reading (`gate/evidence/reach_python.py`).

An agent hides a reach behind other spellings: `import _pytest.runner as r`, `from sys import
modules as m`, `s = sys; s.meta_path`, `getattr(sys, "meta" + "_path")`, `n = "_py" + "test"`.
`Bindings` resolves each local name to the dotted name it was bound to, and `fold` turns a
string built from constants back into its text, so the tables in `reach_names` see one spelling.
A blob the change carries is decoded as the run would decode it (base64, hex, zlib, rot13, a
reversed string, `chr` codes), bounded in size, so what it names or holds is read too.
The pass is flow-insensitive on purpose: a name bound to a module anywhere counts everywhere.
"""

from __future__ import annotations

import ast
import base64
import binascii
import builtins
import bz2
import codecs
import lzma
import sys
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

_BUILTINS = frozenset(dir(builtins))
_STDLIB_ROOTS = frozenset(sys.stdlib_module_names)
_ROUNDS = 3  # aliases of aliases (`a = sys; b = a`) settle within a few rounds
#: Modules that other standard modules hold as an attribute (`os.sys`, `importlib.sys`,
#: `inspect.os`): reached that way they are the module itself.
_REEXPORTED = frozenset({"sys", "os", "builtins", "importlib", "signal", "atexit", "gc",
                         "types", "threading", "_imp", "marshal", "ctypes", "site"})
#: Past this a decoded blob is not folded (a compressed bomb decodes to nothing readable).
MAX_DECODED = 1_048_576


def _inflate(make: Callable[[], object]) -> Callable[[bytes], bytes]:
    def run(data: bytes) -> bytes:
        out = make().decompress(data, MAX_DECODED)  # type: ignore[attr-defined]
        return bytes(out)
    return run


#: Decoders of a blob the change carries, folded as the run would decode it, so what the
#: blob holds is read like any other text (`importlib.import_module(codecs.decode(...))`).
_DECODERS: dict[str, Callable[[bytes], bytes]] = {
    "base64.b64decode": base64.b64decode, "base64.standard_b64decode": base64.b64decode,
    "base64.urlsafe_b64decode": base64.urlsafe_b64decode, "base64.b32decode": base64.b32decode,
    "base64.b16decode": base64.b16decode, "base64.a85decode": base64.a85decode,
    "base64.b85decode": base64.b85decode, "base64.decodebytes": base64.decodebytes,
    "binascii.a2b_base64": binascii.a2b_base64, "binascii.unhexlify": binascii.unhexlify,
    "binascii.a2b_hex": binascii.a2b_hex,
    "builtins.bytes.fromhex": lambda b: bytes.fromhex(b.decode("latin-1")),
    "zlib.decompress": _inflate(zlib.decompressobj),
    "bz2.decompress": _inflate(bz2.BZ2Decompressor),
    "lzma.decompress": _inflate(lzma.LZMADecompressor),
    "gzip.decompress": _inflate(lambda: zlib.decompressobj(wbits=47)),
}
_TEXT_CODECS = frozenset({"rot13", "rot_13", "rot-13"})
_STR_METHODS = frozenset({"upper", "lower", "strip", "lstrip", "rstrip", "title",
                          "swapcase", "casefold"})


@dataclass
class Bindings:
    """Local name -> dotted name (`r` -> `_pytest.runner`) and local name -> string constant."""

    aliases: dict[str, str] = field(default_factory=dict)
    strings: dict[str, str] = field(default_factory=dict)
    #: Names the module defines itself (a `def compile` is not the builtin).
    local: set[str] = field(default_factory=set)
    #: Imported names also bound to something else somewhere (`io = StringIO()`): a write
    #: through them may be to that other object, so it is not taken as a write to the module.
    shadowed: set[str] = field(default_factory=set)
    #: Names bound by a `for` over constant strings: each of them, for an import by name.
    choices: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: Names bound to a MonkeyPatch of its own (`with monkeypatch.context() as m`).
    fixtures: set[str] = field(default_factory=set)
    rebound: set[str] = field(default_factory=set)

    def resolve(self, node: ast.AST) -> str | None:
        """The dotted name an expression stands for, if it names a module or one of its parts."""
        if isinstance(node, ast.Name):
            if node.id in self.aliases:
                return self.aliases[node.id]
            if node.id in _BUILTINS and node.id not in self.local:
                return f"builtins.{node.id}"
            return None
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            if base and node.attr in _REEXPORTED and base.split(".")[0] in _STDLIB_ROOTS \
                    and node.attr != base.rsplit(".", 1)[-1]:  # `signal.signal` is a function
                return node.attr  # `os.sys.modules` is `sys.modules`
            return f"{base}.{node.attr}" if base else None
        if isinstance(node, ast.Subscript):
            return self._subscript(node)
        if isinstance(node, ast.Call):
            return self._called(node)
        return None

    def _subscript(self, node: ast.Subscript) -> str | None:
        base = self.resolve(node.value)
        key = self.fold(node.slice)
        if base == "sys.modules" and key is not None:
            return key
        if base and key is not None and base.endswith(".__dict__"):
            return f"{base.removesuffix('.__dict__')}.{key}"
        return None

    def _called(self, node: ast.Call) -> str | None:
        func = self.resolve(node.func)
        first = self.fold(node.args[0]) if node.args else None
        if func in ("builtins.__import__", "importlib.import_module", "importlib.__import__"):
            return first
        if func == "builtins.getattr" and len(node.args) >= 2:
            base, name = self.resolve(node.args[0]), self.fold(node.args[1])
            return f"{base}.{name}" if base and name else None
        if func == "builtins.vars" and node.args:
            base = self.resolve(node.args[0])
            return f"{base}.__dict__" if base else None
        return None

    def fold(self, node: ast.AST) -> str | None:
        """The text of a string built from constants (`+`, f-strings, `"".join([...])`,
        names bound to constants), or None when it is computed."""
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str):
                return node.value
            return node.value.decode("latin-1") if isinstance(node.value, bytes) else None
        if isinstance(node, ast.Name):
            return self.strings.get(node.id)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.fold(node.left), self.fold(node.right)
            return left + right if left is not None and right is not None else None
        if isinstance(node, ast.JoinedStr):
            return self._joined(node)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "join" and len(node.args) == 1:
            return self._join(node.func.value, node.args[0])
        if isinstance(node, ast.Call):
            return self._decoded(node)
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice) \
                and node.slice.lower is None and node.slice.upper is None \
                and isinstance(node.slice.step, ast.UnaryOp) \
                and self._constant(node.slice.step) == -1:
            text = self.fold(node.value)  # "rennur.tsetyp_"[::-1]
            return text[::-1] if text is not None else None
        return None

    def _constant(self, node: ast.AST) -> object:
        try:
            return ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None

    def _decoded(self, node: ast.Call) -> str | None:
        """A string a call makes from folded text: a decoder of a carried blob, `.decode()`,
        `.encode()`, `.replace(a, b)`, case changes, `bytes([...])`, `chr(n)`."""
        func = self.resolve(node.func)
        first = self.fold(node.args[0]) if node.args else None
        try:
            if func in _DECODERS and first is not None:
                return _DECODERS[func](first.encode("latin-1")).decode("latin-1")
            if func == "codecs.decode" and first is not None and len(node.args) > 1:
                how = self.fold(node.args[1])
                if how is not None and how.lower() in _TEXT_CODECS:
                    return codecs.decode(first, "rot13")
                if how is None or how.lower() not in ("base64", "hex", "zlib", "bz2"):
                    return None
                decoded = codecs.decode(first.encode("latin-1"), how)
                return decoded.decode("latin-1") if isinstance(decoded, bytes) else None
            if func == "builtins.chr" and node.args:
                number = self._constant(node.args[0])
                return chr(number) if isinstance(number, int) and 0 <= number < 0x110000 \
                    else None
            if func in ("builtins.bytes", "builtins.bytearray") and node.args:
                numbers = self._constant(node.args[0])
                return bytes(numbers).decode("latin-1") if isinstance(numbers, list | tuple) \
                    else None
        except (ValueError, TypeError, LookupError, binascii.Error, zlib.error, OSError,
                lzma.LZMAError, OverflowError):
            return None
        if not isinstance(node.func, ast.Attribute):
            return None
        receiver = self.fold(node.func.value)
        if receiver is None:
            return None
        method = node.func.attr
        if method in ("decode", "encode"):
            return receiver.encode("latin-1", "replace").decode("utf-8", "replace") \
                if method == "decode" else receiver
        if method in _STR_METHODS and not node.args:
            return str(getattr(receiver, method)())
        if method == "replace" and len(node.args) == 2:
            old, new = self.fold(node.args[0]), self.fold(node.args[1])
            return receiver.replace(old, new) if old is not None and new is not None else None
        return None

    def _joined(self, node: ast.JoinedStr) -> str | None:
        parts: list[str] = []
        for value in node.values:
            inner = value.value if isinstance(value, ast.FormattedValue) else value
            text = self.fold(inner)
            if text is None:
                return None
            parts.append(text)
        return "".join(parts)

    def _join(self, separator: ast.AST, items: ast.AST) -> str | None:
        sep = self.fold(separator)
        if sep is not None and isinstance(items, ast.Call) and len(items.args) == 2 \
                and self.resolve(items.func) == "builtins.map" \
                and self.resolve(items.args[0]) == "builtins.chr":
            numbers = self._constant(items.args[1])  # "".join(map(chr, [95, 112, ...]))
            if isinstance(numbers, list | tuple) and all(
                    isinstance(n, int) and 0 <= n < 0x110000 for n in numbers):
                return sep.join(chr(n) for n in numbers)
            return None
        if sep is not None and isinstance(items, ast.Call) and len(items.args) == 1 \
                and self.resolve(items.func) == "builtins.reversed":
            text = self.fold(items.args[0])
            return sep.join(reversed(text)) if text is not None else None
        if sep is None or not isinstance(items, ast.List | ast.Tuple):
            return None
        parts = [self.fold(element) for element in items.elts]
        return None if any(p is None for p in parts) else sep.join(p for p in parts if p)


def bindings_of(tree: ast.Module) -> Bindings:
    """Every import and simple alias in the module, wherever it is."""
    found = Bindings()
    assignments: list[tuple[str, ast.AST]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.split(".", 1)[0]
                found.aliases[local] = alias.name if alias.asname else local
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                if alias.name != "*":
                    found.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.local.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.NamedExpr) \
                and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            assignments += [(t.id, node.value) for t in targets if isinstance(t, ast.Name)]
        else:
            _other_binding(found, node)
    for _ in range(_ROUNDS):
        for name, value in assignments:
            _bind(found, name, value)
    found.shadowed |= {n for n in found.rebound if n in found.aliases}
    return found


def _other_binding(found: Bindings, node: ast.AST) -> None:
    """Loop variables, `with ... as`, parameters, `except ... as`: names that may shadow an
    import; a loop over constant strings also records its choices."""
    if isinstance(node, ast.For | ast.comprehension) and isinstance(node.target, ast.Name):
        found.rebound.add(node.target.id)
        if isinstance(node.iter, ast.List | ast.Tuple):
            texts = [found.fold(e) for e in node.iter.elts]
            if texts and all(t is not None for t in texts):
                found.choices[node.target.id] = tuple(t for t in texts if t is not None)
    elif isinstance(node, ast.withitem) and isinstance(node.optional_vars, ast.Name):
        found.rebound.add(node.optional_vars.id)
        call = node.context_expr
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) \
                and call.func.attr == "context":
            found.fixtures.add(node.optional_vars.id)
    elif isinstance(node, ast.arg):
        found.rebound.add(node.arg)
    elif isinstance(node, ast.ExceptHandler) and node.name:
        found.rebound.add(node.name)


def _bind(found: Bindings, name: str, value: ast.AST) -> None:
    text = found.fold(value)
    if text is not None:
        found.strings[name] = text
        return
    dotted = found.resolve(value)
    if (dotted is not None and not dotted.startswith("builtins.")) or dotted in (
            "builtins.exec", "builtins.eval", "builtins.compile", "builtins.__import__",
            "builtins.setattr", "builtins.getattr", "builtins.delattr", "builtins.vars",
            "builtins.globals", "builtins.open"):
        found.aliases[name] = str(dotted)
    else:
        found.rebound.add(name)
        if isinstance(value, ast.Call) and str(found.resolve(value.func)).endswith("MonkeyPatch"):
            found.fixtures.add(name)
        if name not in found.aliases:
            found.local.add(name)
