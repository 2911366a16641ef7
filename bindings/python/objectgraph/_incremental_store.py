"""The classes of an incremental store written in Python (Core Data's
NSIncrementalStore): IncrementalStore, which a store type subclasses, the
IncrementalStoreNode its ``new_values_for_object`` returns, and the
SaveChangesRequest a save hands its ``execute_request``. incremental.py registers
store types and runs the library's callbacks into them.
"""

from __future__ import annotations

import uuid as _uuid
from typing import Any, Dict, Iterable, List, Mapping, Optional, Union

from ._call import call_handle
from ._lib import lib
from ._object_id import ObjectID
from ._util import decode, encode, take_string
from .context import Context
from .coordinator import Coordinator, Store
from .entity import Entity
from .errors import Error, ErrorCode, make_error
from .fetch import FetchRequest
from .objects import ManagedObject
from .properties import Property, Relationship
from .values import take_value, to_value

__all__ = ["IncrementalStore", "IncrementalStoreNode", "SaveChangesRequest", "Reference"]

Reference = Union[str, int, bytes, _uuid.UUID]


class IncrementalStoreNode:
    """The values of one object, as ``new_values_for_object`` returns them
    (NSIncrementalStoreNode): ``values`` maps property names to values, to-ones
    as og.ObjectIDs (None for none); ``version`` is the version the store
    holds the object at."""

    def __init__(self, object_id: str, values: Mapping[str, Any], version: int = 1) -> None:
        if not isinstance(object_id, str):
            raise make_error(f"a node's object_id is an og.ObjectID, not {type(object_id).__name__}",
                             ErrorCode.TYPE_MISMATCH)
        self.object_id = ObjectID(object_id)
        self.values: Dict[str, Any] = {}
        self.version = 0
        self.update(values, version)

    def value_for_property(self, prop: Union[Property, str]) -> Any:
        """The value of ``prop`` (an og.Property or a name); None when absent."""
        return self.values.get(prop.name if isinstance(prop, Property) else prop)

    def update(self, values: Mapping[str, Any], version: int) -> None:
        """Replaces the values and the version (updateWithValues:version:)."""
        if not isinstance(values, Mapping) or not all(isinstance(k, str) for k in values):
            raise make_error(f"a node's values map property names to values, not {type(values).__name__}",
                             ErrorCode.TYPE_MISMATCH)
        if isinstance(version, bool) or not isinstance(version, int):
            raise make_error(f"a node's version is an int, not {type(version).__name__}", ErrorCode.TYPE_MISMATCH)
        self.values = dict(values)
        self.version = version

    def __repr__(self) -> str:
        return f"<objectgraph.IncrementalStoreNode {self.object_id} version={self.version} {self.values!r}>"


class SaveChangesRequest:
    """What a save asks an incremental store to write (NSSaveChangesRequest):
    the objects it inserts, updates and deletes, and those it locks for
    optimistic locking. Each list is None when it was not given."""

    request_type = "save"

    def __init__(self, inserted: Optional[Iterable[ManagedObject]] = None,
                 updated: Optional[Iterable[ManagedObject]] = None,
                 deleted: Optional[Iterable[ManagedObject]] = None,
                 locked: Optional[Iterable[ManagedObject]] = None) -> None:
        self.inserted_objects = None if inserted is None else list(inserted)
        self.updated_objects = None if updated is None else list(updated)
        self.deleted_objects = None if deleted is None else list(deleted)
        self.locked_objects = None if locked is None else list(locked)

    def __repr__(self) -> str:
        counts = " ".join(f"{name}={len(objects)}" for name, objects in (
            ("inserted", self.inserted_objects), ("updated", self.updated_objects),
            ("deleted", self.deleted_objects), ("locked", self.locked_objects)) if objects is not None)
        return f"<objectgraph.SaveChangesRequest {counts}>"


class IncrementalStore(Store):
    """A store whose subclass answers the library's requests itself
    (NSIncrementalStore). Register the subclass with
    ``og.register_incremental_store_type(type, cls)``; ``coord.add_store(type,
    path)`` then makes an instance as ``cls(coordinator, configuration, path,
    options)``, calls ``load_metadata()`` once, and returns it.

    Hooks to override: ``load_metadata``, ``execute_request``,
    ``new_values_for_object``, ``new_value_for_relationship`` and
    ``obtain_permanent_ids``. Helpers: ``new_object_id`` and
    ``reference_object``. An og.Error a hook raises reaches the caller
    unchanged; any other exception too."""

    # No __slots__: a subclass keeps its own state in attributes.
    _og_path: str
    _og_options: Dict[str, Any]
    _og_store: int  # the store's handle callbacks are given, for the helpers (0: none yet, or gone)
    metadata: Dict[str, Any]

    def __init__(self, coordinator: Coordinator, configuration: Optional[str] = None, path: str = "",
                 options: Optional[Mapping[str, Any]] = None) -> None:
        _prepare(self, coordinator, configuration, path, options)

    # What og.Store has, before the coordinator lends the store's handle too.

    @property
    def type(self) -> str:
        """The store's type name: the name the class was registered under
        (a subclass may override it; it must be that name)."""
        declared: Optional[str] = self.__dict__.get("_og_declared_type")
        return declared if declared is not None else self.__dict__.get("_og_registered_type", "")

    @type.setter
    def type(self, name: str) -> None:
        self.__dict__["_og_declared_type"] = name

    @property
    def uuid(self) -> str:
        """NSStoreUUID, from ``metadata``."""
        value = self.metadata.get("NSStoreUUID") if isinstance(self.metadata, Mapping) else None
        return value if isinstance(value, str) else ""

    @uuid.setter
    def uuid(self, value: str) -> None:
        self.metadata["NSStoreUUID"] = value

    @property
    def path(self) -> str:
        if self._h:
            return decode(lib.og_store_path(self._h)) or ""
        return self._og_path

    @property
    def options(self) -> Dict[str, Any]:
        if self._h:
            return Store.options.fget(self)  # type: ignore[attr-defined, no-any-return]
        return dict(self._og_options)

    # Hooks.

    def load_metadata(self) -> None:
        """Sets ``metadata`` (loadMetadata:), with "NSStoreType" (``type``) and
        "NSStoreUUID"; called once, by ``add_store``. The default gives the
        store a new UUID each time it is added."""
        self.metadata = {"NSStoreType": self.type, "NSStoreUUID": str(_uuid.uuid4()).upper()}

    def execute_request(self, request: Union[FetchRequest, SaveChangesRequest], context: Optional["Context"]) -> Any:
        """Answers a request (executeRequest:withContext:error:). A fetch
        (``request.request_type == "fetch"``, an og.FetchRequest) returns the
        matching objects or their og.ObjectIDs for the result types "object"
        and "object_id", one dict per row for "dictionary", ``[n]`` for
        "count"; its predicate, sort and window are the store's to apply. A
        save (an og.SaveChangesRequest) writes every change or raises, and
        returns []."""
        raise self._missing("execute_request")

    def new_values_for_object(self, object_id: ObjectID, context: Optional["Context"]) -> IncrementalStoreNode:
        """The values of the object ``object_id``, for firing its fault
        (newValuesForObjectWithID:withContext:error:). Each non-optional
        attribute needs a value; a to-one left out is read through
        ``new_value_for_relationship``."""
        raise self._missing("new_values_for_object")

    def new_value_for_relationship(self, relationship: Relationship, object_id: ObjectID,
                                   context: Optional["Context"]) -> Any:
        """The destination of a to-one (an og.ObjectID or None) or the members
        of a to-many (a list of og.ObjectIDs, in order for an ordered one) of
        the object ``object_id``."""
        raise self._missing("new_value_for_relationship")

    def obtain_permanent_ids(self, objects: List[ManagedObject]) -> List[ObjectID]:
        """One permanent og.ObjectID per new object, in order
        (obtainPermanentIDsForObjects:error:). The default names each by a new
        UUID."""
        return [self.new_object_id(obj.entity, _uuid.uuid4()) for obj in objects]

    # Helpers.

    def new_object_id(self, entity: Union[Entity, str], reference: Reference) -> ObjectID:
        """The permanent ID of the object of ``entity`` (an og.Entity or its
        name) that ``reference`` (a str, int, bytes or UUID) names
        (newObjectIDForEntity:referenceObject:): the same ID for the same
        reference."""
        entity_handle = self._entity(entity)._h
        boxed = _reference(reference)
        try:
            raw = call_handle(lib.og_store_new_object_id, self._helper_handle(), entity_handle, boxed)
        finally:
            lib.og_value_release(boxed)
        return ObjectID(take_string(raw) or "")

    def reference_object(self, object_id: str) -> Reference:
        """The reference ``object_id`` was made with (referenceObjectForObjectID:);
        an ID made from a URI has the text after "p" as a str."""
        if not isinstance(object_id, str):
            raise make_error(f"an object ID is an og.ObjectID, not {type(object_id).__name__}",
                             ErrorCode.TYPE_MISMATCH)
        raw = call_handle(lib.og_store_reference_object, self._helper_handle(), encode(object_id, "an object ID"))
        return take_value(raw)  # type: ignore[return-value]

    def _helper_handle(self) -> int:
        handle = self._og_store or self._h
        if not handle:
            raise make_error(f"the incremental store {type(self).__name__} is not added to a coordinator (or is "
                             "gone): new_object_id and reference_object need its store", ErrorCode.INVALID_ARGUMENT)
        return handle

    def _entity(self, entity: Union[Entity, str]) -> Entity:
        if isinstance(entity, Entity):
            return entity
        if not isinstance(entity, str):
            raise make_error(f"an entity is an og.Entity or its name, not {type(entity).__name__}",
                             ErrorCode.TYPE_MISMATCH)
        layout = self._coordinator._layouts.by_name.get(entity)
        return layout.entity if layout is not None else self._coordinator.model.entity(entity)

    def _missing(self, hook: str) -> Error:
        return make_error(f"the incremental store type {self.type!r} ({type(self).__name__}) does not implement "
                          f"{hook}", ErrorCode.STORE_OPERATION, "NSCocoaErrorDomain")

    def __repr__(self) -> str:
        return f"<objectgraph.IncrementalStore {type(self).__name__} {self.type} {self.path!r} uuid={self.uuid}>"


def _prepare(store: IncrementalStore, coordinator: Coordinator, configuration: Optional[str], path: str,
             options: Optional[Mapping[str, Any]]) -> None:
    """The fields the binding needs, set before the subclass's __init__ runs
    (and again by IncrementalStore.__init__): a subclass that does not call
    super().__init__() still works."""
    store._coordinator = coordinator
    store._h = 0  # the handle the coordinator lends, once add_store returns
    store.configuration = configuration
    store._og_path = path
    store._og_options = dict(options or {})
    if not isinstance(store.__dict__.get("metadata"), dict):
        store.metadata = {}
    store.__dict__.setdefault("_og_store", 0)  # the handle lent to callbacks, for the helpers


def _reference(reference: Any) -> int:
    """A NEW og_value for a reference: a string, integer, data or UUID value."""
    if isinstance(reference, str):
        return to_value(str(reference))  # an og.ObjectID as a reference is its text
    if isinstance(reference, (bytes, bytearray, memoryview)):
        return to_value(bytes(reference))
    if isinstance(reference, (int, _uuid.UUID)) and not isinstance(reference, bool):
        return to_value(reference)
    raise make_error(f"a reference is a str, int, bytes or UUID, not {type(reference).__name__}",
                     ErrorCode.TYPE_MISMATCH)
