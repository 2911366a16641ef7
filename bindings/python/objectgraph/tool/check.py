"""check MODEL STORE: can the model open the store, and if not, what differs."""

from __future__ import annotations

import argparse
from typing import Dict, List, Optional, TextIO

from ..errors import Error
from ..model import Model
from ._files import readable
from ._store import model_kept_by, model_matching, store_type, stored_hashes

__all__ = ["check", "differences"]


def _property_hashes(model: Model, entity: str) -> Dict[str, bytes]:
    return {p.name: p.version_hash for p in model[entity].properties}


def differences(model: Model, stored: Dict[str, bytes], store_model: Optional[Model]) -> List[str]:
    """What differs between ``model`` and the hashes a store recorded, one line
    each; the store's own model, when it keeps one, names the properties."""
    mine = model.entity_version_hashes
    lines: List[str] = []
    for name in sorted(set(mine) - set(stored)):
        lines.append(f"entity {name}: in the model, not in the store")
    for name in sorted(set(stored) - set(mine)):
        lines.append(f"entity {name}: in the store, not in the model")
    for name in sorted(set(mine) & set(stored)):
        if mine[name] == stored[name]:
            continue
        detail = ""
        if store_model is not None and name in store_model:
            new, old = _property_hashes(model, name), _property_hashes(store_model, name)
            parts = [f"+{p}" for p in sorted(set(new) - set(old))]
            parts += [f"-{p}" for p in sorted(set(old) - set(new))]
            parts += [f"~{p}" for p in sorted(set(new) & set(old)) if new[p] != old[p]]
            if parts:
                detail = " (" + ", ".join(parts) + ")"
            else:
                detail = " (the entity's own settings differ)"
        lines.append(f"entity {name}: version hash differs{detail}")
    return lines


def _named(model: str, version: Optional[str]) -> str:
    return f"{model} (version {version})" if version else model


def check(args: argparse.Namespace, out: TextIO) -> int:
    """Exit status 0 when compatible, 1 when not. Of a versioned model folder,
    the version that wrote the store is checked (Core Data opens a store with
    it), and when none did, the current version."""
    with readable(args.store) as source:
        kind = store_type(source, args.type)
        stored = stored_hashes(source, args.type)
        model, version = model_matching(args.model, stored, configuration=args.configuration)
        if model.is_configuration_compatible(stored, args.configuration):
            out.write(f"compatible: {_named(args.model, version)} opens {args.store}\n")
            return 0
        try:
            store_model = model_kept_by(source)
        except Error:
            store_model = None
    if version:
        out.write(f"incompatible: no version of {args.model} opens {args.store}; "
                  f"its current version, {version}, differs\n")
    else:
        out.write(f"incompatible: {args.model} does not open {args.store}\n")
    for line in differences(model, stored, store_model):
        out.write(f"  {line}\n")
    out.write("  (+ only in the model, - only in the store, ~ changed)\n")
    return 1
