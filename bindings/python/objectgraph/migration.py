"""Migration between versions of a model: the migration manager
(NSMigrationManager) and entity migration policies written in Python
(NSEntityMigrationPolicy). The mapping models it migrates through
(NSMappingModel, NSEntityMapping, NSPropertyMapping) are mapping.py's, and
exported here too.
"""

from __future__ import annotations

import ctypes
import itertools
import threading
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Tuple, Type

from . import _adding
from ._call import call, call_handle, call_quietly, call_string
from ._handle import OwnedHandle
from ._layout import Layouts
from ._lib import ERROR, MIGRATION_OBJECT_FN, MIGRATION_PROGRESS_FN, MIGRATION_STAGE_FN, OK, lib
from ._util import PathLike, _kept, encode, keep, normalize, raise_kept
from .context import Context
from .coordinator import Coordinator, _boxed
from .errors import DOMAIN_COCOA, Error, ErrorCode, make_error
from .graph import _callback, _nested
from .mapping import EntityMapping, MappingModel, PropertyMapping, _check_model, _str
from .model import Model
from .objects import ManagedObject, _target

__all__ = ["MappingModel", "EntityMapping", "PropertyMapping", "MigrationManager", "EntityMigrationPolicy",
           "register_migration_policy", "unregister_migration_policy"]


class EntityMigrationPolicy:
    """Customizes the migration of the entity mappings that name it
    (NSEntityMigrationPolicy). Subclass it, override the stages you need and
    register the subclass with ``register_migration_policy(name, cls)``; an
    EntityMapping whose ``policy`` is ``name`` then runs through it. A
    migration makes one instance per entity mapping.

    Per mapping, in order: ``begin_entity_mapping``, then
    ``create_destination_instances`` per source object and
    ``end_instance_creation``; once every mapping made its objects,
    ``create_relationships`` per destination object and
    ``end_relationship_creation``; last ``perform_custom_validation`` and
    ``end_entity_mapping``. An ``og.Error`` a method raises ends the migration
    with that error; any other exception ends it with MigrationError 134170,
    whose ``__cause__`` is the exception."""

    def begin_entity_mapping(self, entity_mapping: EntityMapping, manager: "MigrationManager") -> None:
        pass

    def create_destination_instances(self, source: ManagedObject, entity_mapping: EntityMapping,
                                     manager: "MigrationManager") -> None:
        """By default: one object of the destination entity, its attributes set
        from the attribute mappings, associated with ``source``. An override
        that makes objects itself must ``manager.associate`` them."""
        manager._create_default_destination(source, entity_mapping)

    def end_instance_creation(self, entity_mapping: EntityMapping, manager: "MigrationManager") -> None:
        pass

    def create_relationships(self, destination: ManagedObject, entity_mapping: EntityMapping,
                             manager: "MigrationManager") -> None:
        """By default: the relationships of ``destination`` set from the
        relationship mappings."""
        manager._create_default_relationships(destination, entity_mapping)

    def end_relationship_creation(self, entity_mapping: EntityMapping, manager: "MigrationManager") -> None:
        pass

    def perform_custom_validation(self, entity_mapping: EntityMapping, manager: "MigrationManager") -> None:
        pass

    def end_entity_mapping(self, entity_mapping: EntityMapping, manager: "MigrationManager") -> None:
        pass


def _stand_in(model: Model) -> Coordinator:
    """A coordinator wrapper that only gives the object layouts of ``model``:
    a migration's contexts belong to coordinators the library made itself."""
    stand_in = Coordinator.__new__(Coordinator)  # closed: never releases anything
    stand_in._model = model
    stand_in._stores = []
    stand_in._versions = []
    stand_in._mappings = []
    stand_in._layouts = Layouts(model)
    return stand_in


class MigrationManager(OwnedHandle):
    """Migrates stores written with ``source_model`` to ``destination_model``
    (NSMigrationManager). Both models are validated and become immutable."""

    # A wrapper of a manager the library made for an automatic migration.
    _automatic = False
    _running = False

    def __init__(self, source_model: Model, destination_model: Model) -> None:
        _check_model(source_model, "source_model")
        _check_model(destination_model, "destination_model")
        handle = call_handle(lib.og_migration_manager_new, source_model._h, destination_model._h)
        self._source_model = source_model
        self._destination_model = destination_model
        self._reset()
        self._h = handle
        self._closed = False

    @classmethod
    def _lent(cls, handle: int) -> "MigrationManager":
        """A wrapper for the manager of an automatic migration, lent to its policies."""
        manager = cls.__new__(cls)
        manager._h = handle  # closed: the library releases it
        manager._automatic = True
        manager._running = True
        manager._source_model = Model._new(lib.og_migration_manager_source_model(handle))
        manager._destination_model = Model._new(lib.og_migration_manager_destination_model(handle))
        manager._reset()
        return manager

    def _reset(self) -> None:
        # Exceptions of the running migration's callbacks, the first of which its migrate raises.
        self._pending: List[BaseException] = []
        self._contexts: Dict[str, Context] = {}
        self._stand_ins: Dict[str, Coordinator] = {}
        # Policy instances by (registration, entity mapping handle): one per mapping.
        self._policies: Dict[Tuple[int, int], EntityMigrationPolicy] = {}
        # The caller's entity mappings by name, and the wrappers of lent mapping handles.
        self._by_name: Dict[str, EntityMapping] = {}
        self._lent_mappings: Dict[int, EntityMapping] = {}

    @property
    def source_model(self) -> Model:
        return self._source_model

    @property
    def destination_model(self) -> Model:
        return self._destination_model

    @property
    def migration_progress(self) -> float:
        """From 0.0 to 1.0 while a migration runs; 0.0 when none does."""
        return float(lib.og_migration_manager_progress(self._h))

    def migrate(self, source_path: PathLike, destination_path: PathLike, mapping: Optional[MappingModel] = None,
                source_type: str = "SQLite", destination_type: str = "SQLite",
                source_options: Optional[Mapping[str, Any]] = None,
                destination_options: Optional[Mapping[str, Any]] = None,
                progress: Optional[Callable[[float], Any]] = None) -> None:
        """Writes a store of ``destination_type`` at ``destination_path`` from
        the store at ``source_path`` (migrateStoreFromURL:...), through
        ``mapping`` (None: ``MappingModel.infer(...)``). The new store keeps
        the source's UUID and metadata. ``progress(fraction)`` is called as the
        work advances, last with 1.0. The options are store options by Core
        Data's key names. Raises MigrationError (134110-134190); a failure
        leaves the source untouched and nothing at the destination."""
        if mapping is not None and not isinstance(mapping, MappingModel):
            raise make_error(f"mapping must be a MappingModel or None, not {type(mapping).__name__}",
                             ErrorCode.INVALID_ARGUMENT)
        if progress is not None and not callable(progress):
            raise make_error("progress must be callable", ErrorCode.INVALID_ARGUMENT)
        if self._running:
            raise make_error("this MigrationManager is migrating already; one migration at a time",
                             ErrorCode.INVALID_ARGUMENT)
        source, destination = encode(source_path, "a store path"), encode(destination_path, "a store path")
        types = encode(source_type, "a store type"), encode(destination_type, "a store type")
        callback = MIGRATION_PROGRESS_FN(self._progress_callback(progress)) if progress else MIGRATION_PROGRESS_FN()
        boxed: List[Optional[int]] = []
        error: Optional[Error] = None
        try:
            boxed.append(_boxed(source_options))
            boxed.append(_boxed(destination_options))
            call(lib.og_migration_manager_set_progress_callback, self._h, callback, None)
            self._reset()
            for m in reversed(list(mapping.entity_mappings) if mapping is not None else []):
                self._by_name[m.name] = m  # the first of a name wins, as in Core Data
            self._running = True
            _managers[self._h or 0] = self
            # Not raised here: the exceptions of the migration's callbacks come first (below).
            _, error = call_quietly(lib.og_migration_manager_migrate, self._h, source, types[0], boxed[0],
                                    mapping._h if mapping is not None else None, destination, types[1], boxed[1])
        finally:
            _managers.pop(self._h or 0, None)
            self._end()
            lib.og_migration_manager_set_progress_callback(self._h, MIGRATION_PROGRESS_FN(), None, None)
            for value in boxed:
                if value:
                    lib.og_value_release(value)
        pending, self._pending = self._pending, []
        if pending:
            raise pending[0]
        if _kept:
            raise_kept(error)
        if error is not None:
            raise error

    def _progress_callback(self, progress: Callable[[float], Any]) -> Callable[[float, Optional[int]], None]:
        @_callback
        def on_progress(fraction: float, _user: Optional[int]) -> None:
            try:
                with _nested:
                    progress(fraction)
            except BaseException as exc:  # noqa: BLE001 - raised by migrate, unchanged
                self._pending.append(normalize(exc))
                lib.og_migration_manager_cancel(self._h, None, None)

        return on_progress

    def _end(self) -> None:
        """Closes what the finished migration lent: its contexts, policies and mappings."""
        self._running = False
        for context in self._contexts.values():
            context.close()
        self._contexts.clear()
        self._policies.clear()
        self._by_name.clear()
        self._lent_mappings.clear()

    def cancel(self) -> None:
        """Makes the running ``migrate`` stop at its next step and raise
        MigrationError 134120 (cancelMigrationWithError:); nothing is left at
        the destination. Callable from any thread, and from a policy or the
        progress callback."""
        call(lib.og_migration_manager_cancel, self._h, None)

    @property
    def source_context(self) -> Optional[Context]:
        """The context the running migration reads the source from; None when
        no migration runs."""
        return self._context("source")

    @property
    def destination_context(self) -> Optional[Context]:
        """The context the running migration writes the destination into; None
        when no migration runs."""
        return self._context("destination")

    def _context(self, which: str) -> Optional[Context]:
        if not self._running:
            return None
        context = self._contexts.get(which)
        if context is None:
            getter = lib.og_migration_manager_source_context if which == "source" else \
                lib.og_migration_manager_destination_context
            handle = call_handle(getter, self._h)
            stand_in = self._stand_ins.get(which)
            if stand_in is None:
                model = self._source_model if which == "source" else self._destination_model
                stand_in = self._stand_ins[which] = _stand_in(model)
            context = self._contexts[which] = Context._borrow(handle, stand_in)
        return context

    def associate(self, source: ManagedObject, destination: ManagedObject, entity_mapping: EntityMapping) -> None:
        """Records that ``destination`` was made from ``source`` by
        ``entity_mapping`` (associateSourceInstance:...). A policy that makes
        destination objects itself must associate them."""
        call(lib.og_migration_manager_associate, self._h, _target(source), _target(destination),
             _mapping_handle(entity_mapping))

    def destination_instances(self, entity_mapping_name: str,
                              sources: Optional[Iterable[ManagedObject]] = None) -> List[ManagedObject]:
        """The destination objects the mapping named ``entity_mapping_name``
        made from ``sources`` (None: every one it made)."""
        return self._instances(lib.og_migration_manager_destination_instances, "destination", entity_mapping_name,
                               sources)

    def source_instances(self, entity_mapping_name: str,
                         destinations: Optional[Iterable[ManagedObject]] = None) -> List[ManagedObject]:
        """The source objects the mapping named ``entity_mapping_name`` made
        ``destinations`` from (None: every one)."""
        return self._instances(lib.og_migration_manager_source_instances, "source", entity_mapping_name, destinations)

    def _instances(self, function: Any, which: str, name: str, objects: Any) -> List[ManagedObject]:
        array, count = None, 0
        if objects is not None:
            handles = [_target(o) for o in ([objects] if isinstance(objects, ManagedObject) else objects)]
            count = len(handles)
            array = (ctypes.c_void_p * max(1, count))(*handles)
        results = call_handle(function, self._h, encode(_str(name, "an entity mapping name")), array, count)
        context = self._context(which)
        if context is None:
            lib.og_results_release(results)
            return []
        return context._take_results(results)

    def _create_default_destination(self, source: ManagedObject, entity_mapping: EntityMapping) -> None:
        call(lib.og_migration_manager_create_default_destination, self._h, _target(source),
             _mapping_handle(entity_mapping))

    def _create_default_relationships(self, destination: ManagedObject, entity_mapping: EntityMapping) -> None:
        call(lib.og_migration_manager_create_default_relationships, self._h, _target(destination),
             _mapping_handle(entity_mapping))

    def _mapping_for(self, handle: int) -> EntityMapping:
        """The EntityMapping a policy gets for a lent mapping handle: the
        caller's own wrapper of that name, else one made for the migration."""
        found = self._lent_mappings.get(handle)
        if found is None:
            name = call_string(lib.og_entity_mapping_name, handle) or ""
            found = self._by_name.get(name) or EntityMapping._wrap(handle, lent=True)
            self._lent_mappings[handle] = found
        return found

    def _policy(self, key: Optional[int], mapping: int) -> EntityMigrationPolicy:
        policy = self._policies.get((key or 0, mapping))
        if policy is None:
            cls = _policy_classes.get(key or 0)
            if cls is None:
                raise make_error("the migration policy was unregistered during the migration",
                                 ErrorCode.MIGRATION_POLICY, DOMAIN_COCOA)
            policy = self._policies[(key or 0, mapping)] = cls()
        return policy

    def _release(self) -> None:
        lib.og_migration_manager_release(self._h)

    def __repr__(self) -> str:
        state = "closed" if self._closed and not self._automatic else ("migrating" if self._running else "idle")
        return f"<objectgraph.MigrationManager {state}>"


def _mapping_handle(mapping: Any) -> Optional[int]:
    if not isinstance(mapping, EntityMapping):
        raise make_error(f"entity_mapping must be an EntityMapping, not {type(mapping).__name__}", ErrorCode.TYPE_MISMATCH)
    return mapping._h


# ---- policies written in Python ------------------------------------------

# Managers migrating through ``migrate``, by handle. The wrappers of the managers of
# automatic migrations live in _adding.automatic, by (thread, handle), until their
# add_store returns.
_managers: Dict[int, MigrationManager] = {}
# Registered policy classes and their callback tables, by registration number.
_policy_classes: Dict[int, Type[EntityMigrationPolicy]] = {}
_tables: Dict[int, Any] = {}
_numbers = itertools.count(1)


def _manager_for(handle: Optional[int]) -> MigrationManager:
    manager = _managers.get(handle or 0)
    if manager is not None:
        return manager
    key = (threading.get_ident(), handle or 0)
    manager = _adding.automatic.get(key)
    if manager is None:
        manager = _adding.automatic[key] = MigrationManager._lent(handle or 0)
    return manager


def _failed(manager: Optional[MigrationManager], exc: BaseException, error: Any, stage: str, key: Optional[int]) -> int:
    """A policy method's exception: an og.Error goes on as it is; another
    Exception becomes MigrationError 134170 caused by it. The library gets it
    as the hook's error; the caller of migrate (or add_store) raises it."""
    exc = normalize(exc)
    try:
        outcome: BaseException = exc
        if isinstance(exc, Error):
            code, message = exc.code, exc.message
        else:
            cls = _policy_classes.get(key or 0)
            name = cls.__name__ if cls is not None else "migration policy"
            message = f"{name}.{stage} raised {type(exc).__name__}: {exc}"
            code = ErrorCode.MIGRATION_POLICY
            if isinstance(exc, Exception):
                outcome = make_error(message, ErrorCode.MIGRATION_POLICY, DOMAIN_COCOA)
                outcome.__cause__ = exc
        error[0] = lib.og_error_new(int(code), message.encode("utf-8", "replace"), None)
        if manager is not None and not manager._automatic:
            manager._pending.append(outcome)
        else:
            keep(outcome)
    except BaseException:  # noqa: BLE001 - the migration still fails, with the library's error
        pass
    return ERROR


def _stage(stage: str) -> Any:
    @_callback
    def trampoline(manager: Optional[int], mapping: Optional[int], error: Any, key: Optional[int]) -> int:
        owner = None
        try:
            owner = _manager_for(manager)
            entity_mapping = owner._mapping_for(mapping or 0)
            policy = owner._policy(key, mapping or 0)
            with _nested:
                getattr(policy, stage)(entity_mapping, owner)
            return OK
        except BaseException as exc:  # noqa: BLE001 - handed to the library, raised by the caller
            return _failed(owner, exc, error, stage, key)

    return MIGRATION_STAGE_FN(trampoline)


def _object_stage(stage: str, which: str) -> Any:
    @_callback
    def trampoline(manager: Optional[int], obj: Optional[int], mapping: Optional[int], error: Any,
                   key: Optional[int]) -> int:
        owner = None
        try:
            owner = _manager_for(manager)
            entity_mapping = owner._mapping_for(mapping or 0)
            policy = owner._policy(key, mapping or 0)
            context = owner._context(which)
            if context is None or not obj:
                raise make_error("the migration lent no object", ErrorCode.MIGRATION_POLICY, DOMAIN_COCOA)
            with _nested:
                getattr(policy, stage)(context._wrap(obj), entity_mapping, owner)
            return OK
        except BaseException as exc:  # noqa: BLE001
            return _failed(owner, exc, error, stage, key)

    return MIGRATION_OBJECT_FN(trampoline)


@_callback
def _release_table(key: Optional[int]) -> None:
    _policy_classes.pop(key or 0, None)
    _tables.pop(key or 0, None)


_RELEASE_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_TRAMPOLINES = {
    "begin_entity_mapping": _stage("begin_entity_mapping"),
    "create_destination_instances": _object_stage("create_destination_instances", "source"),
    "end_instance_creation": _stage("end_instance_creation"),
    "create_relationships": _object_stage("create_relationships", "destination"),
    "end_relationship_creation": _stage("end_relationship_creation"),
    "perform_custom_validation": _stage("perform_custom_validation"),
    "end_entity_mapping": _stage("end_entity_mapping"),
}
_RELEASE = _RELEASE_FN(_release_table)


class _PolicyCallbacks(ctypes.Structure):
    """og_migration_policy_callbacks."""
    _fields_ = [("userdata", ctypes.c_void_p),
                ("begin_entity_mapping", MIGRATION_STAGE_FN),
                ("create_destination_instances", MIGRATION_OBJECT_FN),
                ("end_instance_creation", MIGRATION_STAGE_FN),
                ("create_relationships", MIGRATION_OBJECT_FN),
                ("end_relationship_creation", MIGRATION_STAGE_FN),
                ("perform_custom_validation", MIGRATION_STAGE_FN),
                ("end_entity_mapping", MIGRATION_STAGE_FN),
                ("release", _RELEASE_FN)]


def register_migration_policy(name: str, cls: Type[EntityMigrationPolicy]) -> None:
    """Registers ``cls``, a subclass of EntityMigrationPolicy, as the policy
    entity mappings name ``name`` (EntityMapping.policy); registering a name
    again replaces its class. It serves every migration, automatic ones
    included. Raises TypeMismatchError (140006) for a class that does not
    subclass EntityMigrationPolicy."""
    if not (isinstance(cls, type) and issubclass(cls, EntityMigrationPolicy)):
        raise make_error(f"a migration policy must be a subclass of EntityMigrationPolicy, not {cls!r}",
                         ErrorCode.TYPE_MISMATCH)
    raw = encode(_str(name, "a policy name"), "a policy name")
    key = next(_numbers)
    table = _PolicyCallbacks()
    table.userdata = key
    # Stages the class leaves alone run the library's default, without a call into Python.
    for stage, trampoline in _TRAMPOLINES.items():
        if getattr(cls, stage) is not getattr(EntityMigrationPolicy, stage):
            setattr(table, stage, trampoline)
    table.release = _RELEASE
    _policy_classes[key] = cls
    _tables[key] = table
    try:
        call(lib.og_migration_policy_register, raw, ctypes.addressof(table))
    except BaseException:
        _policy_classes.pop(key, None)
        _tables.pop(key, None)
        raise


def unregister_migration_policy(name: str) -> None:
    """Unregisters a policy; mappings that name it then fail with
    MigrationError 134170. Raises UsageError when none of that name is
    registered."""
    call(lib.og_migration_policy_unregister, encode(_str(name, "a policy name"), "a policy name"))
