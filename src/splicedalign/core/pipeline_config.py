"""The benchmark pipeline's configuration, checked before anything is planned: keys that moved
are named with their new place, values given on the command line are read as the schema's
types, and a value the schema rejects gives one line naming its key (ConfigError).

Snakemake reads a nested ``--config`` value (``primer='{synthetic: {scale: 16}}'``) with
YAML's base loader, which leaves every number, boolean and null a string; ``coerce`` turns
such strings into what the schema expects at that key, so the command line and the config file
accept the same values.
"""

from __future__ import annotations

import re
import reprlib
import sys
from collections.abc import Mapping
from typing import Any

# spliced's settings live in the section ``spliced:`` like every workload's; these top-level
# keys are where they were before (a config written then gets one line naming the new place)
SPLICED_KEYS = ("dataset", "synthetic", "bundled", "ncbi", "candidate_exons", "genscan", "solvers",
                "reference_max_cells", "scoring", "repeats", "traceback", "multicore_threads", "cases")

_INT = re.compile(r"[+-]?\d+")
_NULLS = ("null", "Null", "NULL", "~", "")
_BOOLS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}


class ConfigError(ValueError):
    """A configuration the pipeline cannot run: one line naming the key and the problem."""


def stop(problem: object) -> None:
    """End planning with one line on stderr (no traceback) and exit status 2, as the command
    line does for bad input."""
    print(f"splicedalign: {problem}", file=sys.stderr)
    sys.exit(2)


def moved_keys(config: Mapping[str, Any]) -> None:
    """ConfigError for the first spliced key still at the top level."""
    for key in SPLICED_KEYS:
        if key in config:
            raise ConfigError(f"config key {key!r} moved into the section 'spliced' (spliced.{key}): write "
                              f"'spliced: {{{key}: ...}}' in the config file or --config spliced='{{{key}: ...}}'")


def _types(schema: Mapping[str, Any]) -> list[str]:
    t = schema.get("type", [])
    return [t] if isinstance(t, str) else list(t)


def _scalar(text: str, types: list[str]) -> Any:
    """``text`` as the first of ``types`` that reads it; itself when none does (or string is allowed)."""
    if "string" in types:
        return text
    for t in types:
        if t == "integer" and _INT.fullmatch(text.strip()):
            return int(text)
        if t == "number":
            try:
                return float(text) if not _INT.fullmatch(text.strip()) else int(text)
            except ValueError:
                pass
        if t == "boolean" and text in _BOOLS:
            return _BOOLS[text]
        if t == "null" and text in _NULLS:
            return None
    return text


def coerce(value: Any, schema: Mapping[str, Any]) -> Any:
    """``value`` with its strings read as the types ``schema`` expects at each key (nested
    objects, arrays, oneOf/anyOf branches) and the schema's defaults for keys an object lacks;
    anything else is left for validation to judge."""
    for key in ("oneOf", "anyOf"):
        if key in schema:
            from jsonschema import Draft202012Validator

            for branch in schema[key]:
                candidate = coerce(value, branch)
                if Draft202012Validator(branch).is_valid(candidate):
                    return candidate
            return value
    if isinstance(value, str):
        return _scalar(value, _types(schema))
    if isinstance(value, dict):
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        out = {k: coerce(v, props[k] if k in props else extra if isinstance(extra, dict) else {})
               for k, v in value.items()}
        return {**{k: p["default"] for k, p in props.items() if "default" in p and k not in out}, **out}
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [coerce(v, schema["items"]) for v in value]
    return value


def _short(value: Any) -> str:
    r = reprlib.Repr()
    r.maxstring, r.maxother, r.maxdict, r.maxlist, r.maxlevel = 60, 60, 4, 6, 2
    return r.repr(value)


def problem(error: Any) -> str:
    """One line for a jsonschema ValidationError: the key's dotted path, the offending value
    (shortened) and what the schema expects there, never the schema itself."""
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)[1:] or "(top level)"
    v, expect = error.validator, error.validator_value
    if v == "type":
        what = f"{_short(error.instance)} is not of type {' or '.join(_types(error.schema))}"
    elif v == "enum":
        what = f"{_short(error.instance)} is not one of {', '.join(map(str, expect))}"
    elif v in ("minimum", "exclusiveMinimum", "maximum", "minItems", "uniqueItems"):
        what = f"{_short(error.instance)}: {v} {expect}"
    elif v in ("oneOf", "anyOf"):
        kinds = [b.get("enum", b.get("type")) for b in expect]
        what = f"{_short(error.instance)} is none of: {'; '.join(map(str, kinds))}"
    elif v in ("required", "additionalProperties"):
        what = error.message
    else:
        what = f"{_short(error.instance)}: {v} {_short(expect)}"
    about = error.schema.get("description") if isinstance(error.schema, dict) else None
    said = v in ("required", "additionalProperties")  # their message names the key already
    return f"config key {path}: {what}" + (f" ({about})" if about and not said else "")


def check(config: dict[str, Any], schema: Mapping[str, Any]) -> dict[str, Any]:
    """``config`` with command-line strings read as the schema's types, or ConfigError: a key
    that moved, or the most relevant schema violation, in one line."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    moved_keys(config)
    coerced = coerce(config, schema)
    error = best_match(Draft202012Validator(schema).iter_errors(coerced))
    if error is not None:
        raise ConfigError(problem(error))
    return coerced
