"""Every attribute type written from Python, saved, and read back after the
store is closed and opened again."""

from __future__ import annotations

import datetime as dt
import decimal
import sqlite3
import uuid

import pytest

import objectgraph as og

UTC = dt.timezone.utc

TYPES = [
    ("i16", "integer16"),
    ("i32", "integer32"),
    ("i64", "integer64"),
    ("dec", "decimal"),
    ("dbl", "double"),
    ("flt", "float"),
    ("txt", "string"),
    ("flag", "boolean"),
    ("when", "date"),
    ("blob", "binary"),
    ("uid", "uuid"),
    ("link", "uri"),
]

VALUES = {
    "i16": -32768,
    "i32": 2_147_483_647,
    "i64": -(2**63),
    "dec": decimal.Decimal("-1234567.125"),
    "dbl": 3.141592653589793,
    "flt": 0.25,  # exactly representable in 32 bits
    "txt": "Zoë 📚 \u00a0end",
    "flag": True,
    "when": dt.datetime(2024, 2, 29, 12, 30, 15, 250000, tzinfo=UTC),
    "blob": bytes(range(256)),
    "uid": uuid.UUID("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"),
    "link": "https://example.com/books?id=1",
}


def sample_model() -> og.Model:
    model = og.Model()
    entity = model.add_entity("Sample")
    for name, kind in TYPES:
        entity.add_attribute(name, kind)
    return model


def test_every_type_survives_save_close_reopen(tmp_path, open_stack) -> None:
    path = tmp_path / "values.sqlite"
    stack = open_stack(sample_model(), path)
    full = stack.context.insert("Sample", **VALUES)
    empty = stack.context.insert("Sample")
    for name, value in VALUES.items():
        assert full[name] == value, name
        assert empty[name] is None, name
    stack.context.save()
    stack.close()

    again = open_stack(sample_model(), path)
    objects = again.context.fetch("Sample")
    assert len(objects) == 2
    (full,) = [o for o in objects if o.i16 is not None]
    (empty,) = [o for o in objects if o is not full]
    for name, value in VALUES.items():
        got = full[name]
        assert got == value, name
        assert type(got) is type(value), name
        assert empty[name] is None, name
    assert full.when.tzinfo is not None and full.when.utcoffset() == dt.timedelta(0)
    assert full.to_dict() == VALUES


def test_values_change_and_clear(open_stack) -> None:
    ctx = open_stack(sample_model()).context
    obj = ctx.insert("Sample", **VALUES)
    obj.flag = False
    obj["txt"] = "other"
    obj.dbl = 2  # an int is fine for a double attribute
    obj.link = "urn:isbn:0451450523"
    obj.when = None
    assert obj.flag is False and obj.txt == "other" and obj.dbl == 2.0 and isinstance(obj.dbl, float)
    assert obj.link == "urn:isbn:0451450523" and obj.when is None
    ctx.save()
    obj["blob"] = b""
    assert obj.blob == b""
    obj.dec = decimal.Decimal("1E+3")  # exponent notation is written out
    assert obj.dec == 1000
    obj.dec = 7
    assert obj.dec == decimal.Decimal(7) and isinstance(obj.dec, decimal.Decimal)


def test_naive_datetimes_are_utc(open_stack) -> None:
    ctx = open_stack(sample_model()).context
    obj = ctx.insert("Sample", when=dt.datetime(1969, 7, 20, 20, 17, 40))
    assert obj.when == dt.datetime(1969, 7, 20, 20, 17, 40, tzinfo=UTC)
    other_zone = dt.timezone(dt.timedelta(hours=2))
    obj.when = dt.datetime(2000, 1, 1, 2, 0, tzinfo=other_zone)
    assert obj.when == dt.datetime(2000, 1, 1, tzinfo=UTC) and obj.when.tzinfo == UTC


def test_typed_helpers_by_key(open_stack) -> None:
    ctx = open_stack(sample_model()).context
    obj = ctx.insert("Sample")
    assert obj.get_string("txt") is None and obj.get_data("blob") is None
    # Typed scalar getters read an unset value as Core Data's scalar accessors do.
    assert obj.get_int64("i32") == 0 and obj.get_double("dbl") == 0.0 and obj.get_bool("flag") is False
    assert obj.i32 is None  # the generic getter still gives None
    obj.set_int64("i64", 2**62)
    obj.set_double("dbl", 1.5)
    obj.set_bool("flag", True)
    obj.set_date("when", dt.datetime(2001, 1, 1, tzinfo=UTC))
    obj.set_string("txt", "typed")
    obj.set_data("blob", b"\x00abc")
    obj.set_value("uid", VALUES["uid"])
    obj.set_value("link", "https://example.org")
    assert obj.get_int64("i64") == 2**62
    assert obj.get_double("dbl") == 1.5
    assert obj.get_bool("flag") is True and obj.get_int64("flag") == 1
    assert obj.get_date("when") == dt.datetime(2001, 1, 1, tzinfo=UTC)
    obj.set_date("when", 0.0)
    assert obj.get_date("when") == dt.datetime(1970, 1, 1, tzinfo=UTC)
    assert obj.get_string("txt") == "typed" and obj.get_data("blob") == b"\x00abc"
    assert obj.get_value("uid") == VALUES["uid"] and obj.get_value("link") == "https://example.org"
    obj.set_null("txt")
    assert obj.get_string("txt") is None and obj.get_value("txt") is None


def test_dates_on_disk_count_from_2001(tmp_path, open_stack) -> None:
    path = tmp_path / "dates.sqlite"
    stack = open_stack(sample_model(), path)
    stack.context.insert("Sample", when=dt.datetime(2001, 1, 2, tzinfo=UTC), i16=1)
    stack.context.save()
    stack.close()
    with sqlite3.connect(path) as db:
        (seconds,) = db.execute("SELECT ZWHEN FROM ZSAMPLE").fetchone()
    assert seconds == pytest.approx(86400.0)


def test_values_outside_64_bits_are_refused_before_the_call(open_stack) -> None:
    obj = open_stack(sample_model()).context.insert("Sample")
    with pytest.raises(og.ValidationError) as info:
        obj.i64 = 2**63
    assert info.value.code == og.VALIDATION_NUMBER_TOO_LARGE
    with pytest.raises(og.ValidationError) as info:
        obj.i64 = -(2**63) - 1
    assert info.value.code == og.VALIDATION_NUMBER_TOO_SMALL
