"""What a Python module's names and strings stand for, without running it: the bindings pass of
the change reading (`gate/evidence/reach_python.py`).

An agent hides a reach behind other spellings: `import _pytest.runner as r`, `from sys import
modules as m`, `s = sys; s.meta_path`, `getattr(sys, "meta" + "_path")`, `n = "_py" + "test"`.
`Bindings` resolves each local name to the dotted name it was bound to, and `fold` turns a
string built from constants back into its text, so the tables in `reach_names` see one spelling.
The pass is flow-insensitive on purpose: a name bound to a module anywhere counts everywhere.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field

_BUILTINS = frozenset(dir(builtins))
_ROUNDS = 3  # aliases of aliases (`a = sys; b = a`) settle within a few rounds


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
