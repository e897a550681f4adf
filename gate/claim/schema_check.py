"""The shipped schema compiled to plain checks: is a document valid, answered fast.

jsonschema resolves `$ref`s and evaluates every keyword through its generic machinery for
every item, which was two thirds of verifying a 10,000-mutation claim (issue 23). This
compiles the schema once into nested closures over exactly the keywords the claim schema
uses, with jsonschema's draft 2020-12 semantics (`format` is an annotation, as jsonschema
treats it without a format checker), and answers only valid or not. An invalid document
goes on to jsonschema for its located messages (gate/claim/schema.py), so they stay exactly
as they were. A keyword not known here is a SchemaKeywordError when the schema is compiled:
a schema edit cannot go silently unchecked. A property test holds the two to the same answer
on generated documents, valid and invalid (tests/property/test_schema_check.py).

An array's items are asked as one column (`_Compiler.column`): every object a dict, its
required keys, each property's values as a column, each string column's types, lengths and
pattern, all in C; a column the fast answer cannot say yes to is asked value by value
(tests/test_schema_columns.py holds the two to each other).

Why not a library: fastjsonschema, the compiled validator most used, implements drafts 4-7
(this schema is 2020-12), asserts `format` by default where jsonschema does not (it would
refuse claims jsonschema accepts), and generates and executes source at start (about 0.1 s
of CPU for this schema, a third of the command's start budget).
"""

from __future__ import annotations

import itertools
import operator
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

Check = Callable[[Any], bool]
#: Whether every value of a list holds a schema (the items of an array).
ColumnCheck = Callable[[Sequence[Any]], bool]

#: The exact types json.loads makes for these JSON types (a subclass is asked the long way).
_EXACT: Mapping[str, frozenset[type]] = {
    "object": frozenset({dict}), "array": frozenset({list}), "string": frozenset({str}),
}
_MISSING = object()

#: Keywords that never change validity (jsonschema without a format checker: `format` too).
_ANNOTATIONS = frozenset({
    "$schema", "$id", "$defs", "$comment", "title", "description", "default", "examples",
    "format",
})
_OBJECT_KEYWORDS = frozenset({
    "properties", "patternProperties", "additionalProperties", "required", "propertyNames",
    "minProperties",
})


class SchemaKeywordError(ValueError):
    """The schema uses a keyword (or a `$ref`) this compiler does not implement."""


def _always(_value: Any) -> bool:
    return True


def _never(_value: Any) -> bool:
    return False


def _is_integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


_TYPES: Mapping[str, Check] = {
    "object": lambda value: isinstance(value, dict),
    "array": lambda value: isinstance(value, list),
    "string": lambda value: isinstance(value, str),
    "integer": _is_integer,
    "number": _is_number,
    "boolean": lambda value: isinstance(value, bool),
    "null": lambda value: value is None,
}

_TRUE, _FALSE = object(), object()


def _unbool(value: Any) -> Any:
    """As jsonschema compares: true and false are not 1 and 0."""
    if value is True:
        return _TRUE
    if value is False:
        return _FALSE
    return value


def equal(one: Any, two: Any) -> bool:
    """jsonschema's equality for `const`, `enum` and `uniqueItems`."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return bool(one == two)
    if isinstance(one, Sequence) and isinstance(two, Sequence):
        return len(one) == len(two) and all(equal(a, b) for a, b in zip(one, two, strict=True))
    if isinstance(one, Mapping) and isinstance(two, Mapping):
        return one.keys() == two.keys() and all(equal(one[key], two[key]) for key in one)
    return bool(_unbool(one) == _unbool(two))


def unique(items: list[Any]) -> bool:
    """jsonschema's `uniqueItems` test, step for step: neighbours after sorting when the
    items sort, else every pair."""
    try:
        ordered = sorted(_unbool(item) for item in items)
        return not any(equal(a, b) for a, b in itertools.pairwise(ordered))
    except (NotImplementedError, TypeError):
        seen: list[Any] = []
        for item in map(_unbool, items):
            if any(equal(earlier, item) for earlier in seen):
                return False
            seen.append(item)
        return True


def _all_of(checks: Sequence[Check]) -> Check:
    needed = tuple(check for check in checks if check is not _always)
    if not needed:
        return _always
    if len(needed) == 1:
        return needed[0]
    if len(needed) == 2:
        first, second = needed
        return lambda value: first(value) and second(value)

    def all_hold(value: Any) -> bool:
        return all(check(value) for check in needed)

    return all_hold


class _Compiler:
    """One compilation of one root schema; each `$ref` target is compiled once."""

    def __init__(self, root: Mapping[str, Any] | bool) -> None:
        self.root = root
        self.refs: dict[str, Check] = {}
        self.column_refs: dict[str, ColumnCheck] = {}

    def compile(self, schema: Any) -> Check:
        if schema is True:
            return _always
        if schema is False:
            return _never
        if not isinstance(schema, Mapping):
            raise SchemaKeywordError(f"a schema is an object or a boolean, not {schema!r}")
        unknown = set(schema) - _ANNOTATIONS - _OBJECT_KEYWORDS - set(self._keywords())
        if unknown:
            raise SchemaKeywordError(f"keywords not implemented: {', '.join(sorted(unknown))}")
        fused = _fused_string(schema)
        if fused is not None:
            return fused
        objects = bool(_OBJECT_KEYWORDS & set(schema))
        # `type: object` is folded into the object check: one call per object, not two.
        folded = objects and schema.get("type") == "object"
        checks = [make(self, schema[key]) for key, make in self._keywords().items()
                  if key in schema and not (folded and key == "type")]
        if objects:
            checks.append(self._object(schema, only_objects=folded))
        return _all_of(checks)

    @staticmethod
    def _keywords() -> Mapping[str, Callable[[_Compiler, Any], Check]]:
        return _KEYWORDS

    def ref(self, target: str) -> Check:
        if target not in self.refs:
            holder: list[Check] = []
            # A reference met again while it is being compiled (a recursive schema) calls
            # through the holder, filled once the target is compiled.
            self.refs[target] = lambda value: holder[0](value)
            compiled = self.compile(_resolve(self.root, target))
            holder.append(compiled)
            self.refs[target] = compiled
        return self.refs[target]

    def column(self, schema: Any) -> ColumnCheck:
        """Whether every value of a list holds `schema`: `all(map(check, values))`, first
        asked of the whole column in C where the schema allows it (an array's items: a
        claim's 10,000 mutations and evidence records, issue 23). The fast answer is only
        ever yes; a no is asked again value by value, so it never differs from the check."""
        each = self.compile(schema)
        if each is _always:
            return _always
        fast = self._fast_column(schema)
        if fast is None:
            return lambda values: all(map(each, values))
        return lambda values: fast(values) or all(map(each, values))

    def column_ref(self, target: str) -> ColumnCheck:
        if target not in self.column_refs:
            holder: list[ColumnCheck] = []
            self.column_refs[target] = lambda values: holder[0](values)  # as `ref`
            compiled = self.column(_resolve(self.root, target))
            holder.append(compiled)
            self.column_refs[target] = compiled
        return self.column_refs[target]

    def _fast_column(self, schema: Any) -> ColumnCheck | None:
        """The column in C for the shapes the claim schema's items use, else None."""
        if not isinstance(schema, Mapping):
            return None
        keys = set(schema) - _ANNOTATIONS
        if keys == {"$ref"}:
            return self.column_ref(schema["$ref"])
        if _fused_string(schema) is not None:
            return _string_column(schema)
        if keys & _OBJECT_KEYWORDS and keys <= _OBJECT_KEYWORDS | {"type"} \
                and schema.get("type", "object") == "object":
            return self._object_column(schema)
        if keys == {"type"} and schema["type"] in _EXACT:
            exact = _EXACT[schema["type"]]
            return lambda values: exact.issuperset(map(type, values))
        if keys == {"enum"} and all(isinstance(value, str) for value in schema["enum"]):
            strings = frozenset(schema["enum"])
            return lambda values: _EXACT["string"].issuperset(map(type, values)) \
                and strings.issuperset(values)
        if keys == {"type", "items"} and schema["type"] == "array":
            items = self.column(schema["items"])
            return lambda values: _EXACT["array"].issuperset(map(type, values)) \
                and items(list(itertools.chain.from_iterable(values)))
        return None

    def _object_column(self, schema: Mapping[str, Any]) -> ColumnCheck | None:
        """Objects with no `propertyNames` and no pattern that checks a value: every object
        a dict, the required keys in each, then each property's values as one column."""
        if "propertyNames" in schema:
            return None
        written = schema.get("patternProperties", {})
        if any(self.compile(sub) is not _always for sub in written.values()):
            return None
        properties = schema.get("properties", {})
        needed = {key: self.column(sub) for key, sub in properties.items()
                  if self.compile(sub) is not _always}
        described = re.compile("|".join(written)).search if written else None
        additional = schema.get("additionalProperties", True)
        extra = None if self.compile(additional) is _always else self.column(additional)
        required = frozenset(schema.get("required", ()))
        least = schema.get("minProperties", 0)

        def objects_hold(values: Sequence[Any]) -> bool:
            if not _EXACT["object"].issuperset(map(type, values)):
                return False
            if least and min(map(len, values), default=least) < least:
                return False
            if required and not all(map(required.issubset, values)):
                return False
            names = set(itertools.chain.from_iterable(values))
            if extra is not None:
                for key in names.difference(properties):
                    if (described is None or not described(key)) \
                            and not extra([value[key] for value in values if key in value]):
                        return False
            for key, check in needed.items():
                if key in names:
                    if key in required:
                        column = list(map(operator.itemgetter(key), values))
                    else:
                        column = list(map(dict.get, values, itertools.repeat(key),
                                          itertools.repeat(_MISSING)))
                        column = [value for value in column if value is not _MISSING]
                    if not check(column):
                        return False
            return True

        return objects_hold

    def _object(self, schema: Mapping[str, Any], *, only_objects: bool) -> Check:
        properties = {key: self.compile(sub) for key, sub in schema.get("properties", {}).items()}
        written = schema.get("patternProperties", {})
        patterns = tuple((re.compile(pattern).search, check) for pattern, sub in written.items()
                         if (check := self.compile(sub)) is not _always)
        # jsonschema finds the additional properties with the patterns joined by "|".
        described = re.compile("|".join(written)).search if written else None
        additional = self.compile(schema.get("additionalProperties", True))
        names = self.compile(schema.get("propertyNames", True))
        required = frozenset(schema.get("required", ()))
        least = schema.get("minProperties", 0)
        if names is _always and not patterns:
            return self._plain_object(properties, described, additional, required, least,
                                      only_objects=only_objects)

        def object_holds(value: Any) -> bool:
            if not isinstance(value, dict):
                return not only_objects
            if len(value) < least or not value.keys() >= required:
                return False
            for key, item in value.items():
                if names is not _always and not names(key):
                    return False
                check = properties.get(key)
                if check is not None:
                    if not check(item):
                        return False
                elif (additional is not _always and (described is None or not described(key))
                      and not additional(item)):
                    return False
                for search, pattern_check in patterns:
                    if search(key) and not pattern_check(item):
                        return False
            return True

        return object_holds

    @staticmethod
    def _plain_object(properties: Mapping[str, Check], described: Callable[[str], Any] | None,
                      additional: Check, required: frozenset[str], least: int, *,
                      only_objects: bool) -> Check:
        """An object with no `propertyNames` and no pattern that checks its value (every
        object of the claim schema): one look-up per key, and a property any value meets
        is not called (issue 23: this check ran once per mutation and evidence record)."""
        needed = {key: check for key, check in properties.items() if check is not _always}
        extra = None if additional is _always else additional

        def object_holds(value: Any) -> bool:
            if not isinstance(value, dict):
                return not only_objects
            if len(value) < least or not value.keys() >= required:
                return False
            for key, item in value.items():
                check = needed.get(key)
                if check is not None:
                    if not check(item):
                        return False
                elif (extra is not None and key not in properties
                      and (described is None or not described(key)) and not extra(item)):
                    return False
            return True

        return object_holds


_STRING_KEYWORDS = frozenset({"type", "minLength", "maxLength", "pattern"})


def _fused_string(schema: Mapping[str, Any]) -> Check | None:
    """A `type: string` schema with only length and pattern limits as one check (ids and
    timestamps: most of a claim's values)."""
    if schema.get("type") != "string" or not set(schema) - _ANNOTATIONS <= _STRING_KEYWORDS:
        return None
    least, most = schema.get("minLength", 0), schema.get("maxLength")
    search = re.compile(schema["pattern"]).search if "pattern" in schema else None

    def string_holds(value: Any) -> bool:
        if not isinstance(value, str) or len(value) < least:
            return False
        if most is not None and len(value) > most:
            return False
        return search is None or search(value) is not None

    return string_holds


def _string_column(schema: Mapping[str, Any]) -> ColumnCheck:
    """`_fused_string` over a column: exact strings, the shortest and longest, the pattern."""
    least, most = schema.get("minLength", 0), schema.get("maxLength")
    search = re.compile(schema["pattern"]).search if "pattern" in schema else None

    def strings_hold(values: Sequence[Any]) -> bool:
        if not _EXACT["string"].issuperset(map(type, values)):
            return False
        if least and min(map(len, values), default=least) < least:
            return False
        if most is not None and max(map(len, values), default=0) > most:
            return False
        # each distinct string once: a claim's timestamps mostly share their second
        return search is None or all(map(search, set(values)))

    return strings_hold


def _resolve(root: Any, target: str) -> Any:
    if not target.startswith("#"):
        raise SchemaKeywordError(f"only references inside the schema are compiled: {target!r}")
    found = root
    for part in filter(None, target[1:].split("/")):
        found = found[part.replace("~1", "/").replace("~0", "~")]
    return found


def _type(_compiler: _Compiler, names: Any) -> Check:
    checks = tuple(_TYPES[name] for name in ([names] if isinstance(names, str) else names))
    if len(checks) == 1:
        return checks[0]
    return lambda value: any(check(value) for check in checks)


def _enum(_compiler: _Compiler, values: Any) -> Check:
    if all(isinstance(value, str) for value in values):
        strings = frozenset(values)
        return lambda value: isinstance(value, str) and value in strings
    return lambda value: any(equal(value, wanted) for wanted in values)


def _const(compiler: _Compiler, wanted: Any) -> Check:
    return _enum(compiler, [wanted])


def _string(test: Callable[[str], bool]) -> Check:
    return lambda value: not isinstance(value, str) or test(value)


def _min_length(_compiler: _Compiler, least: int) -> Check:
    return _string(lambda text: len(text) >= least)


def _max_length(_compiler: _Compiler, most: int) -> Check:
    return _string(lambda text: len(text) <= most)


def _pattern(_compiler: _Compiler, pattern: str) -> Check:
    search = re.compile(pattern).search
    return _string(lambda text: search(text) is not None)


def _minimum(_compiler: _Compiler, least: float) -> Check:
    return lambda value: not _is_number(value) or not value < least


def _items(compiler: _Compiler, schema: Any) -> Check:
    check = compiler.compile(schema)
    if check is _always:
        return _always
    column = compiler.column(schema)  # the items as one column (`_Compiler.column`)
    return lambda value: not isinstance(value, list) or column(value)


def _unique_items(_compiler: _Compiler, wanted: bool) -> Check:
    if not wanted:
        return _always
    return lambda value: not isinstance(value, list) or unique(value)


def _all_of_keyword(compiler: _Compiler, schemas: Any) -> Check:
    return _all_of([compiler.compile(schema) for schema in schemas])


def _one_of(compiler: _Compiler, schemas: Any) -> Check:
    checks = tuple(compiler.compile(schema) for schema in schemas)
    return lambda value: sum(1 for check in checks if check(value)) == 1


def _ref(compiler: _Compiler, target: str) -> Check:
    return compiler.ref(target)


_KEYWORDS: Mapping[str, Callable[[_Compiler, Any], Check]] = {
    "$ref": _ref,
    "type": _type,
    "enum": _enum,
    "const": _const,
    "minLength": _min_length,
    "maxLength": _max_length,
    "pattern": _pattern,
    "minimum": _minimum,
    "items": _items,
    "uniqueItems": _unique_items,
    "allOf": _all_of_keyword,
    "oneOf": _one_of,
}


def compile_schema(root: Mapping[str, Any], ref: str | None = None) -> Check:
    """A check that is true exactly when jsonschema finds `root` (or its `ref`, e.g.
    `#/$defs/evidence`) valid for a document."""
    compiler = _Compiler(root)
    return compiler.ref(ref) if ref is not None else compiler.compile(root)
