"""dump: an entity's rows as JSON or CSV."""

from __future__ import annotations

import argparse
import base64
import csv
import json
from datetime import datetime
from decimal import Decimal
from typing import Any, Dict, List, Set, TextIO
from uuid import UUID

from ..objects import ManagedObject
from ._progress import Progress
from ._store import ToolError, close, open_store

__all__ = ["dump"]

_BATCH = 500


def _text(value: Any) -> Any:
    """A value as JSON can hold it: dates in ISO 8601, data in base64, related
    objects as their URIs."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, (Decimal, UUID)):
        return str(value)
    if isinstance(value, ManagedObject):
        return str(value.object_id)
    if isinstance(value, (list, tuple, set, frozenset)) or hasattr(value, "__iter__"):
        return [_text(v) for v in value]
    return str(value)


def _row(obj: ManagedObject, id_key: str, keys: List[str], to_many: Set[str]) -> Dict[str, Any]:
    row: Dict[str, Any] = {id_key: str(obj.object_id)}
    for key in keys:
        value = obj[key]
        if key in to_many:
            value = sorted(str(o.object_id) for o in value)
        row[key] = _text(value)
    return row


def dump(args: argparse.Namespace, out: TextIO) -> int:
    ctx, _ = open_store(args.store, args.model, args.type)
    try:
        try:
            entity = ctx.coordinator.model[args.entity]
        except KeyError as exc:
            raise ToolError(str(exc.args[0]) if exc.args else f"no entity {args.entity!r}") from None
        attributes = [name for name, a in entity.attributes.items() if not a.transient]
        to_ones = [name for name, r in entity.relationships.items() if not r.to_many and not r.transient]
        to_manys = [name for name, r in entity.relationships.items() if r.to_many and not r.transient]
        keys = attributes + to_ones + (to_manys if args.relationships else [])
        # Each row starts with the object's URI, under a name no property has.
        id_key = "objectID"
        while id_key in keys:
            id_key = "_" + id_key
        total = ctx.count(args.entity, args.where, limit=args.limit)
        progress = Progress(f"dump {args.entity}", total)
        objects = ctx.fetch(args.entity, args.where, sort=args.sort or None, limit=args.limit, batch_size=_BATCH)
        writer = None
        if args.format == "csv":
            writer = csv.DictWriter(out, fieldnames=[id_key] + keys, lineterminator="\n")
            writer.writeheader()
        else:
            out.write("[")
        for index, obj in enumerate(objects):
            row = _row(obj, id_key, keys, set(to_manys) if args.relationships else set())
            if writer is not None:
                writer.writerow({k: json.dumps(v) if isinstance(v, list) else v for k, v in row.items()})
            else:
                out.write(("," if index else "") + "\n  " + json.dumps(row, ensure_ascii=False))
            if index % _BATCH == _BATCH - 1:
                # Objects already written are turned back into faults, so memory stays flat.
                for done in objects[index - _BATCH + 1:index + 1]:
                    ctx.refresh(done, merge=False)
            progress.update(index + 1)
        if writer is None:
            out.write("\n]\n" if objects else "]\n")
        progress.finish()
    finally:
        close(ctx)
    return 0
