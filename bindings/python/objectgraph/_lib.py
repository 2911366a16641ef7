"""Loads libobjectgraph and declares the C signature of every function in
include/objectgraph.h.

Every handle is declared as c_void_p so that Python passes and receives plain
integers (or None for NULL). Owned strings (`char *`) are declared c_void_p too:
a c_char_p restype would copy the text and lose the pointer that og_free needs.
Borrowed strings (`const char *`) are declared c_char_p, which copies them.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import glob
import os
from typing import List, Optional

__all__ = ["LibraryNotFoundError", "lib", "library_path"]

ENV_VAR = "OBJECTGRAPH_LIBRARY"


class LibraryNotFoundError(ImportError):
    """libobjectgraph could not be found or loaded."""


def _load() -> "tuple[ctypes.CDLL, str]":
    """$OBJECTGRAPH_LIBRARY when set; else the library bundled in this package
    (a wheel's); else the system loader's. A file that exists but does not load
    is named with the loader's reason."""
    tried: List[str] = []
    broken: List[str] = []  # files that exist but did not load, with the loader's reason

    explicit = os.environ.get(ENV_VAR)
    if explicit:
        # An explicit choice that fails is an error, not a reason to pick another copy.
        try:
            return ctypes.CDLL(explicit), explicit
        except OSError as exc:
            why = "the file does not exist" if not os.path.exists(explicit) else f"it was found but did not load: {exc}"
            raise LibraryNotFoundError(f"{ENV_VAR}={explicit!r} could not be loaded: {why}") from exc
    tried.append(f"${ENV_VAR} (not set)")

    here = os.path.dirname(os.path.abspath(__file__))
    bundled = sorted(glob.glob(os.path.join(here, "libobjectgraph.so*")))
    for candidate in bundled:
        try:
            return ctypes.CDLL(candidate), candidate
        except OSError as exc:
            broken.append(str(exc) if candidate in str(exc) else f"{candidate}: {exc}")
    if not bundled:
        tried.append(f"{here}/libobjectgraph.so* (none)")

    names: List[Optional[str]] = [ctypes.util.find_library("objectgraph"), "libobjectgraph.so.0"]
    for name in names:
        if name is None:
            tried.append("ctypes.util.find_library('objectgraph') (nothing)")
            continue
        try:
            return ctypes.CDLL(name), name
        except OSError as exc:
            message = str(exc)
            if "cannot open shared object file" in message and name in message.split(":")[0]:
                tried.append(f"{name} (not found by the system loader)")
            else:
                broken.append(f"{name}: {exc}")

    if broken:
        hint = ""
        if any("libswift" in reason or "libFoundation" in reason for reason in broken):
            hint = (" (this library was built to use the Swift runtime's shared libraries; "
                    "build it with -DOBJECTGRAPH_STATIC_STDLIB=ON to carry the runtime inside)")
        raise LibraryNotFoundError("libobjectgraph was found but could not be loaded: " + "; ".join(broken) + hint)
    raise LibraryNotFoundError(
        "libobjectgraph.so was not found. Set OBJECTGRAPH_LIBRARY to its full path, "
        "put it next to the objectgraph package, or install it where the system "
        "loader looks (then run ldconfig). Tried: " + "; ".join(tried)
    )


lib, library_path = _load()

# Short names for the C types used below.
_v = ctypes.c_void_p  # any handle, owned string or buffer
_s = ctypes.c_char_p  # a string in, or a borrowed string out
_i = ctypes.c_int  # og_status and the enums
_i64 = ctypes.c_int64
_d = ctypes.c_double
_b = ctypes.c_bool
_z = ctypes.c_size_t
_p = ctypes.POINTER
_err = _p(_v)  # og_error **

# Callback types (include/objectgraph.h). Keep every instance referenced for
# as long as the library may call it.
BLOCK_FN = ctypes.CFUNCTYPE(None, _v)
HOOK_FN = ctypes.CFUNCTYPE(None, _v, _v)
VALIDATION_FN = ctypes.CFUNCTYPE(_i, _v, _p(_v), _v)
VALUE_VALIDATION_FN = ctypes.CFUNCTYPE(_i, _v, _s, _v, _p(_v), _v)
NOTIFICATION_FN = ctypes.CFUNCTYPE(None, _v, _v)
SQL_LOG_FN = ctypes.CFUNCTYPE(None, _i, _s, _v)
MIGRATION_PROGRESS_FN = ctypes.CFUNCTYPE(None, _d, _v)
MIGRATION_STAGE_FN = ctypes.CFUNCTYPE(_i, _v, _v, _p(_v), _v)
MIGRATION_OBJECT_FN = ctypes.CFUNCTYPE(_i, _v, _v, _v, _p(_v), _v)
# og_incremental_store_callbacks (version 1), member by member.
INCREMENTAL_CREATE_FN = ctypes.CFUNCTYPE(_v, _v, _s, _s, _p(_v))
INCREMENTAL_LOAD_METADATA_FN = ctypes.CFUNCTYPE(_v, _v, _p(_v))
INCREMENTAL_FETCH_FN = ctypes.CFUNCTYPE(_i, _v, _v, _v, _v, _v, _p(_v))
INCREMENTAL_SAVE_FN = ctypes.CFUNCTYPE(_i, _v, _v, _v, _v, _p(_v))
INCREMENTAL_NEW_VALUES_FN = ctypes.CFUNCTYPE(_i, _v, _v, _s, _v, _v, _p(_v))
INCREMENTAL_RELATIONSHIP_FN = ctypes.CFUNCTYPE(_i, _v, _v, _v, _s, _v, _v, _p(_v))
INCREMENTAL_PERMANENT_IDS_FN = ctypes.CFUNCTYPE(_i, _v, _v, _p(_v), _z, _v, _p(_v))
INCREMENTAL_DESTROY_FN = ctypes.CFUNCTYPE(None, _v)
INCREMENTAL_RELEASE_FN = ctypes.CFUNCTYPE(None, _v)

_SIGNATURES = {
    # Library
    "og_version": (_s, []),
    "og_free": (None, [_v]),
    # Errors
    "og_error_domain": (_s, [_v]),
    "og_error_code": (_i64, [_v]),
    "og_error_message": (_s, [_v]),
    "og_error_user_info_count": (_z, [_v]),
    "og_error_user_info_key": (_s, [_v, _z]),
    "og_error_user_info_value": (_s, [_v, _z]),
    "og_error_user_info": (_s, [_v, _s]),
    "og_error_detail_count": (_z, [_v]),
    "og_error_detail_at": (_v, [_v, _z]),
    "og_error_release": (None, [_v]),
    # Values
    "og_value_new_null": (_v, []),
    "og_value_new_int64": (_v, [_i64]),
    "og_value_new_double": (_v, [_d]),
    "og_value_new_bool": (_v, [_b]),
    "og_value_new_date": (_v, [_d]),
    "og_value_new_data": (_v, [_v, _z, _err]),
    "og_value_new_uuid": (_v, [_v, _err]),
    "og_value_new_string": (_v, [_s, _err]),
    "og_value_new_string_n": (_v, [_s, _z, _err]),
    "og_value_new_decimal": (_v, [_s, _err]),
    "og_value_new_uri": (_v, [_s, _err]),
    "og_value_type_of": (_i, [_v]),
    "og_value_get_int64": (_i, [_v, _p(_i64), _err]),
    "og_value_get_double": (_i, [_v, _p(_d), _err]),
    "og_value_get_bool": (_i, [_v, _p(_b), _err]),
    "og_value_get_date": (_i, [_v, _p(_d), _err]),
    "og_value_get_uuid": (_i, [_v, _v, _err]),
    "og_value_get_string": (_i, [_v, _p(_s), _err]),
    "og_value_get_string_n": (_i, [_v, _p(_v), _p(_z), _err]),
    "og_value_get_decimal": (_i, [_v, _p(_s), _err]),
    "og_value_get_uri": (_i, [_v, _p(_s), _err]),
    "og_value_get_data": (_i, [_v, _p(_v), _p(_z), _err]),
    "og_value_release": (None, [_v]),
    # Models
    "og_model_new": (_v, []),
    "og_model_load": (_v, [_s, _err]),
    "og_model_load_from_store": (_v, [_s, _err]),
    "og_model_from_json": (_v, [_s, _err]),
    "og_model_to_json": (_v, [_v, _err]),
    "og_model_save": (_i, [_v, _s, _err]),
    "og_model_is_editable": (_i, [_v, _p(_b), _err]),
    "og_model_entity_count": (_z, [_v]),
    "og_model_entity_at": (_v, [_v, _z, _err]),
    "og_model_entity": (_v, [_v, _s, _err]),
    "og_model_add_entity": (_v, [_v, _s, _err]),
    "og_model_release": (None, [_v]),
    "og_model_load_version": (_v, [_s, _s, _err]),
    "og_model_write": (_i, [_v, _s, _err]),
    "og_model_copy": (_v, [_v, _err]),
    "og_model_validate": (_i, [_v, _err]),
    "og_model_version_identifier_count": (_z, [_v]),
    "og_model_version_identifier_at": (_v, [_v, _z, _err]),
    "og_model_configuration_count": (_z, [_v]),
    "og_model_configuration_at": (_v, [_v, _z, _err]),
    "og_model_configuration_contains": (_i, [_v, _s, _s, _p(_b), _err]),
    "og_model_template_count": (_z, [_v]),
    "og_model_template_at": (_v, [_v, _z, _err]),
    "og_model_template_entity": (_v, [_v, _s, _err]),
    "og_model_template_substitute": (_v, [_v, _s, _p(_s), _p(_v), _z, _err]),
    "og_model_warning_count": (_z, [_v]),
    "og_model_warning_at": (_v, [_v, _z, _err]),
    # Entities
    "og_entity_name": (_s, [_v]),
    "og_entity_set_name": (_i, [_v, _s, _err]),
    "og_entity_superentity": (_v, [_v]),
    "og_entity_set_superentity": (_i, [_v, _v, _err]),
    "og_entity_is_abstract": (_i, [_v, _p(_b), _err]),
    "og_entity_set_abstract": (_i, [_v, _b, _err]),
    "og_entity_property_count": (_z, [_v]),
    "og_entity_property_at": (_v, [_v, _z, _err]),
    "og_entity_property": (_v, [_v, _s, _err]),
    "og_entity_slot": (_i64, [_v, _s, _err]),
    "og_entity_version_hash": (_i, [_v, _v, _err]),
    "og_entity_add_attribute": (_v, [_v, _s, _i, _err]),
    "og_entity_add_relationship": (_v, [_v, _s, _v, _err]),
    "og_entity_class_name": (_v, [_v, _err]),
    "og_entity_renaming_identifier": (_v, [_v, _err]),
    "og_entity_user_info": (_v, [_v, _s, _err]),
    "og_entity_subentity_count": (_z, [_v]),
    "og_entity_subentity_at": (_v, [_v, _z, _err]),
    "og_entity_is_kind_of": (_i, [_v, _v, _p(_b), _err]),
    # Properties
    "og_property_name": (_s, [_v]),
    "og_property_set_name": (_i, [_v, _s, _err]),
    "og_property_kind_of": (_i, [_v, _p(_i), _err]),
    "og_property_entity": (_v, [_v]),
    "og_property_is_optional": (_i, [_v, _p(_b), _err]),
    "og_property_set_optional": (_i, [_v, _b, _err]),
    "og_attribute_type_of": (_i, [_v, _p(_i), _err]),
    "og_attribute_default": (_v, [_v, _err]),
    "og_attribute_set_default": (_i, [_v, _v, _err]),
    "og_relationship_destination": (_v, [_v]),
    "og_relationship_inverse": (_v, [_v]),
    "og_relationship_set_inverse": (_i, [_v, _v, _err]),
    "og_relationship_is_to_many": (_i, [_v, _p(_b), _err]),
    "og_relationship_set_to_many": (_i, [_v, _b, _err]),
    "og_relationship_delete_rule": (_i, [_v, _p(_i), _err]),
    "og_relationship_set_delete_rule": (_i, [_v, _i, _err]),
    "og_relationship_counts": (_i, [_v, _p(_i64), _p(_i64), _err]),
    "og_relationship_is_ordered": (_i, [_v, _p(_b), _err]),
    "og_property_is_transient": (_i, [_v, _p(_b), _err]),
    "og_property_renaming_identifier": (_v, [_v, _err]),
    "og_property_user_info": (_v, [_v, _s, _err]),
    "og_attribute_value_transformer_name": (_v, [_v, _err]),
    "og_fetched_property_entity": (_v, [_v, _err]),
    "og_fetched_property_predicate": (_v, [_v, _err]),
    # Changing models; what they say about stores
    "og_model_remove_entity": (_i, [_v, _s, _err]),
    "og_model_set_version_identifiers": (_i, [_v, _p(_s), _z, _err]),
    "og_model_set_configuration_entities": (_i, [_v, _s, _p(_v), _z, _err]),
    "og_model_configuration_entity_count": (_i, [_v, _s, _p(_z), _err]),
    "og_model_configuration_entity_at": (_v, [_v, _s, _z, _err]),
    "og_model_set_template": (_i, [_v, _s, _s, _s, _p(_s), _p(_b), _z, _i64, _err]),
    "og_model_remove_template": (_i, [_v, _s, _err]),
    "og_model_template_predicate": (_v, [_v, _s, _err]),
    "og_model_template_fetch_limit": (_i, [_v, _s, _p(_i64), _err]),
    "og_model_template_sort_count": (_i, [_v, _s, _p(_z), _err]),
    "og_model_template_sort_at": (_v, [_v, _s, _z, _p(_b), _err]),
    "og_model_template_variable_count": (_i, [_v, _s, _p(_z), _err]),
    "og_model_template_variable_at": (_v, [_v, _s, _z, _err]),
    "og_model_set_localization": (_i, [_v, _p(_s), _p(_s), _z, _err]),
    "og_model_localization_count": (_z, [_v]),
    "og_model_localization_key_at": (_v, [_v, _z, _err]),
    "og_model_localization": (_v, [_v, _s, _err]),
    "og_model_localized_entity_name": (_v, [_v, _s, _err]),
    "og_model_localized_property_name": (_v, [_v, _s, _s, _err]),
    "og_model_version_hash_at": (_v, [_v, _z, _v, _err]),
    "og_model_is_configuration_compatible": (_i, [_v, _s, _p(_s), _v, _z, _p(_b), _err]),
    "og_model_is_configuration_compatible_with_store": (_i, [_v, _s, _v, _p(_b), _err]),
    "og_model_merge": (_v, [_p(_v), _z, _err]),
    "og_model_merge_for_metadata": (_v, [_p(_v), _z, _p(_s), _v, _z, _err]),
    "og_model_load_directory": (_v, [_s, _err]),
    "og_model_load_directory_for_metadata": (_v, [_s, _p(_s), _v, _z, _err]),
    "og_store_version_hash_count": (_z, [_v]),
    "og_store_version_hash_at": (_v, [_v, _z, _v, _err]),
    # Changing entities
    "og_entity_set_subentities": (_i, [_v, _p(_v), _z, _err]),
    "og_entity_set_class_name": (_i, [_v, _s, _err]),
    "og_entity_set_renaming_identifier": (_i, [_v, _s, _err]),
    "og_entity_set_version_hash_modifier": (_i, [_v, _s, _err]),
    "og_entity_version_hash_modifier": (_v, [_v, _err]),
    "og_entity_user_info_count": (_z, [_v]),
    "og_entity_user_info_key_at": (_v, [_v, _z, _err]),
    "og_entity_set_user_info": (_i, [_v, _p(_s), _p(_s), _z, _err]),
    "og_entity_uniqueness_constraint_count": (_z, [_v]),
    "og_entity_uniqueness_constraint_at": (_v, [_v, _z, _err]),
    "og_entity_set_uniqueness_constraints": (_i, [_v, _p(_s), _z, _err]),
    "og_entity_fetch_index_count": (_z, [_v]),
    "og_entity_fetch_index_name": (_v, [_v, _z, _err]),
    "og_entity_fetch_index_partial_predicate": (_v, [_v, _z, _err]),
    "og_entity_fetch_index_element_count": (_z, [_v, _z]),
    "og_entity_fetch_index_element_at": (_i, [_v, _z, _z, _p(_v), _p(_i), _p(_b), _err]),
    "og_entity_set_fetch_indexes": (_i, [_v, _v, _z, _err]),
    "og_entity_relationship_with_destination_count": (_z, [_v, _v]),
    "og_entity_relationship_with_destination_at": (_v, [_v, _v, _z, _err]),
    "og_entity_fetched_property_count": (_z, [_v]),
    "og_entity_fetched_property_at": (_v, [_v, _z, _err]),
    "og_entity_add_fetched_property": (_v, [_v, _s, _s, _s, _err]),
    "og_entity_remove_property": (_i, [_v, _s, _err]),
    # Changing properties
    "og_property_set_transient": (_i, [_v, _b, _err]),
    "og_property_is_indexed": (_i, [_v, _p(_b), _err]),
    "og_property_set_indexed": (_i, [_v, _b, _err]),
    "og_property_is_indexed_by_spotlight": (_i, [_v, _p(_b), _err]),
    "og_property_set_indexed_by_spotlight": (_i, [_v, _b, _err]),
    "og_property_is_stored_in_external_record": (_i, [_v, _p(_b), _err]),
    "og_property_set_stored_in_external_record": (_i, [_v, _b, _err]),
    "og_property_set_renaming_identifier": (_i, [_v, _s, _err]),
    "og_property_set_version_hash_modifier": (_i, [_v, _s, _err]),
    "og_property_version_hash_modifier": (_v, [_v, _err]),
    "og_property_version_hash": (_i, [_v, _v, _err]),
    "og_property_user_info_count": (_z, [_v]),
    "og_property_user_info_key_at": (_v, [_v, _z, _err]),
    "og_property_set_user_info": (_i, [_v, _p(_s), _p(_s), _z, _err]),
    "og_property_validation_count": (_z, [_v]),
    "og_property_validation_predicate_at": (_v, [_v, _z, _err]),
    "og_property_validation_warning_at": (_v, [_v, _z, _err]),
    "og_property_set_validation": (_i, [_v, _p(_s), _p(_s), _z, _err]),
    "og_attribute_set_type": (_i, [_v, _i, _err]),
    "og_attribute_min_value": (_v, [_v, _err]),
    "og_attribute_max_value": (_v, [_v, _err]),
    "og_attribute_set_value_bounds": (_i, [_v, _v, _v, _err]),
    "og_attribute_length_bounds": (_i, [_v, _p(_i64), _p(_i64), _err]),
    "og_attribute_set_length_bounds": (_i, [_v, _i64, _i64, _err]),
    "og_attribute_regular_expression": (_v, [_v, _err]),
    "og_attribute_set_regular_expression": (_i, [_v, _s, _err]),
    "og_attribute_set_value_transformer_name": (_i, [_v, _s, _err]),
    "og_attribute_value_class_name": (_v, [_v, _err]),
    "og_attribute_set_value_class_name": (_i, [_v, _s, _err]),
    "og_attribute_derivation_expression": (_v, [_v, _err]),
    "og_attribute_set_derivation_expression": (_i, [_v, _s, _err]),
    "og_attribute_allows_external_storage": (_i, [_v, _p(_b), _err]),
    "og_attribute_set_allows_external_storage": (_i, [_v, _b, _err]),
    "og_attribute_preserves_value_in_history": (_i, [_v, _p(_b), _err]),
    "og_attribute_set_preserves_value_in_history": (_i, [_v, _b, _err]),
    "og_relationship_set_counts": (_i, [_v, _i64, _i64, _err]),
    "og_relationship_set_ordered": (_i, [_v, _b, _err]),
    "og_relationship_set_destination": (_i, [_v, _v, _err]),
    "og_fetched_property_set_request": (_i, [_v, _s, _s, _err]),
    # Coordinators and stores
    "og_coordinator_new": (_v, [_v, _err]),
    "og_coordinator_add_store": (_v, [_v, _s, _s, _err]),
    "og_coordinator_add_store_n": (_v, [_v, _s, _s, _z, _err]),
    "og_coordinator_store_count": (_z, [_v]),
    "og_coordinator_release": (None, [_v]),
    "og_store_type": (_s, [_v]),
    "og_store_path": (_s, [_v]),
    "og_store_uuid": (_s, [_v]),
    "og_register_atomic_store_type": (_i, [_s, _v, _err]),
    "og_unregister_store_type": (_i, [_s, _err]),
    # Incremental stores
    "og_incremental_store_type_register": (_i, [_s, _v, _err]),
    "og_store_types_registered": (_v, [_err]),
    "og_store_new_object_id": (_v, [_v, _v, _v, _err]),
    "og_store_reference_object": (_v, [_v, _s, _err]),
    "og_incremental_result_add_object_id": (_i, [_v, _s, _err]),
    "og_incremental_result_add_row": (_i, [_v, _v, _err]),
    "og_incremental_result_set_count": (_i, [_v, _i64, _err]),
    "og_incremental_node_set_value": (_i, [_v, _s, _v, _err]),
    "og_incremental_node_set_version": (_i, [_v, _i64, _err]),
    "og_save_changes_request_count": (_z, [_v, _i]),
    "og_save_changes_request_object_at": (_v, [_v, _i, _z, _err]),
    "og_coordinator_object_id_for_uri": (_v, [_v, _s, _err]),
    "og_coordinator_remove_store": (_i, [_v, _v, _err]),
    "og_coordinator_set_store_read_only": (_i, [_v, _v, _b, _err]),
    "og_coordinator_is_store_read_only": (_i, [_v, _v, _p(_b), _err]),
    "og_store_file_metadata_string": (_v, [_s, _s, _s, _err]),
    "og_store_file_set_metadata_string": (_i, [_s, _s, _s, _s, _err]),
    "og_store_file_metadata": (_v, [_s, _s, _v, _err]),
    "og_store_file_set_metadata": (_i, [_s, _s, _v, _v, _err]),
    "og_coordinator_add_store_with_options": (_v, [_v, _s, _s, _s, _v, _err]),
    "og_store_configuration": (_s, [_v]),
    "og_store_options": (_v, [_v, _err]),
    "og_coordinator_migrate_store": (_v, [_v, _v, _s, _s, _v, _err]),
    "og_coordinator_store_for_path": (_v, [_v, _s, _err]),
    "og_coordinator_set_store_path": (_i, [_v, _v, _s, _err]),
    "og_coordinator_store_metadata": (_v, [_v, _v, _err]),
    "og_coordinator_set_store_metadata": (_i, [_v, _v, _v, _err]),
    "og_context_assign_object": (_i, [_v, _v, _v, _err]),
    "og_fetch_request_set_affected_stores": (_i, [_v, _p(_v), _z, _err]),
    "og_context_object_for_uri": (_v, [_v, _s, _err]),
    # Contexts
    "og_context_new": (_v, [_v, _err]),
    "og_context_insert": (_v, [_v, _s, _err]),
    "og_context_delete": (_i, [_v, _v, _err]),
    "og_context_has_changes": (_i, [_v, _p(_b), _err]),
    "og_context_save": (_i, [_v, _err]),
    "og_context_fetch": (_v, [_v, _v, _err]),
    "og_context_count": (_i, [_v, _v, _p(_z), _err]),
    "og_context_release": (None, [_v]),
    "og_context_release_objects": (_i, [_v, _v, _z, _err]),
    # Fetch requests and results
    "og_fetch_request_new": (_v, [_s, _err]),
    "og_fetch_request_entity_name": (_s, [_v]),
    "og_fetch_request_predicate": (_v, [_v, _err]),
    "og_fetch_request_sort_count": (_z, [_v]),
    "og_fetch_request_sort_key_at": (_s, [_v, _z, _p(_b), _err]),
    "og_fetch_request_add_sort": (_i, [_v, _s, _b, _err]),
    "og_fetch_request_release": (None, [_v]),
    "og_fetch_request_copy": (_v, [_v, _err]),
    "og_fetch_request_set_refreshes_refetched_objects": (_i, [_v, _b, _err]),
    "og_fetch_request_refreshes_refetched_objects": (_i, [_v, _p(_b), _err]),
    "og_results_count": (_z, [_v]),
    "og_results_object_at": (_v, [_v, _z, _err]),
    "og_results_release": (None, [_v]),
    "og_results_objects": (_i, [_v, _v, _v, _z, _err]),
    "og_results_read_int64s": (_i, [_v, _z, _v, _v, _z, _err]),
    "og_results_read_doubles": (_i, [_v, _z, _v, _v, _z, _err]),
    "og_results_read_int64_columns": (_i, [_v, _v, _z, _v, _v, _z, _err]),
    "og_results_read_double_columns": (_i, [_v, _v, _z, _v, _v, _z, _err]),
    "og_context_change_counter": (_v, [_v]),
    # Fetch result types: object IDs, dictionaries, counts
    "og_fetch_request_set_result_type": (_i, [_v, _i, _err]),
    "og_fetch_request_result_type": (_i, [_v]),
    "og_fetch_request_add_property_to_fetch": (_i, [_v, _s, _err]),
    "og_fetch_request_add_expression_to_fetch": (_i, [_v, _s, _s, _i, _err]),
    "og_fetch_request_properties_to_fetch_count": (_z, [_v]),
    "og_fetch_request_set_limit": (_i, [_v, _z, _err]),
    "og_fetch_request_limit": (_i, [_v, _p(_z), _err]),
    "og_fetch_request_set_offset": (_i, [_v, _z, _err]),
    "og_fetch_request_offset": (_i, [_v, _p(_z), _err]),
    "og_fetch_request_set_batch_size": (_i, [_v, _z, _err]),
    "og_fetch_request_batch_size": (_i, [_v, _p(_z), _err]),
    "og_fetch_request_set_includes_subentities": (_i, [_v, _b, _err]),
    "og_fetch_request_includes_subentities": (_i, [_v, _p(_b), _err]),
    "og_fetch_request_set_includes_pending_changes": (_i, [_v, _b, _err]),
    "og_fetch_request_includes_pending_changes": (_i, [_v, _p(_b), _err]),
    "og_fetch_request_set_includes_property_values": (_i, [_v, _b, _err]),
    "og_fetch_request_includes_property_values": (_i, [_v, _p(_b), _err]),
    "og_fetch_request_set_returns_objects_as_faults": (_i, [_v, _b, _err]),
    "og_fetch_request_returns_objects_as_faults": (_i, [_v, _p(_b), _err]),
    "og_fetch_request_add_prefetch_key_path": (_i, [_v, _s, _err]),
    "og_fetch_request_prefetch_key_path_count": (_z, [_v]),
    "og_fetch_request_set_distinct": (_i, [_v, _b, _err]),
    "og_fetch_request_distinct": (_i, [_v, _p(_b), _err]),
    "og_fetch_request_add_group_by": (_i, [_v, _s, _err]),
    "og_fetch_request_set_having": (_i, [_v, _v, _err]),
    "og_context_fetch_object_ids": (_v, [_v, _v, _err]),
    "og_object_ids_count": (_z, [_v]),
    "og_object_ids_uri_at": (_s, [_v, _z, _err]),
    "og_object_ids_release": (None, [_v]),
    "og_context_fetch_dictionaries": (_v, [_v, _v, _err]),
    "og_rows_count": (_z, [_v]),
    "og_rows_column_count": (_z, [_v]),
    "og_rows_column_name": (_s, [_v, _z, _err]),
    "og_rows_value": (_v, [_v, _z, _z, _err]),
    "og_rows_value_for_key": (_v, [_v, _z, _s, _err]),
    "og_rows_release": (None, [_v]),
    "og_value_get_object_id": (_i, [_v, _p(_s), _err]),
    # Managed objects
    "og_object_entity": (_v, [_v]),
    "og_object_id_uri": (_v, [_v, _err]),
    "og_object_has_temporary_id": (_i, [_v, _p(_b), _err]),
    "og_object_is_inserted": (_i, [_v, _p(_b), _err]),
    "og_object_is_updated": (_i, [_v, _p(_b), _err]),
    "og_object_is_deleted": (_i, [_v, _p(_b), _err]),
    "og_object_has_changes": (_i, [_v, _p(_b), _err]),
    "og_object_validate": (_i, [_v, ctypes.c_int, _err]),
    "og_object_get_int64": (_i, [_v, _s, _p(_i64), _err]),
    "og_object_set_int64": (_i, [_v, _s, _i64, _err]),
    "og_object_get_double": (_i, [_v, _s, _p(_d), _err]),
    "og_object_set_double": (_i, [_v, _s, _d, _err]),
    "og_object_get_bool": (_i, [_v, _s, _p(_b), _err]),
    "og_object_set_bool": (_i, [_v, _s, _b, _err]),
    "og_object_get_date": (_i, [_v, _s, _p(_d), _err]),
    "og_object_set_date": (_i, [_v, _s, _d, _err]),
    "og_object_get_string": (_i, [_v, _s, _p(_v), _err]),
    "og_object_get_string_n": (_i, [_v, _s, _p(_v), _p(_z), _err]),
    "og_object_set_string": (_i, [_v, _s, _s, _err]),
    "og_object_set_string_n": (_i, [_v, _s, _s, _z, _err]),
    "og_object_get_data": (_i, [_v, _s, _p(_v), _p(_z), _err]),
    "og_object_set_data": (_i, [_v, _s, _v, _z, _err]),
    "og_object_set_null": (_i, [_v, _s, _err]),
    "og_object_get_value": (_i, [_v, _s, _p(_v), _err]),
    "og_object_set_value": (_i, [_v, _s, _v, _err]),
    "og_object_get_int64_at": (_i, [_v, _z, _p(_i64), _err]),
    "og_object_set_int64_at": (_i, [_v, _z, _i64, _err]),
    "og_object_set_int64s_at": (_i, [_v, _v, _v, _z, _err]),
    "og_object_get_double_at": (_i, [_v, _z, _p(_d), _err]),
    "og_object_set_double_at": (_i, [_v, _z, _d, _err]),
    "og_object_copy_string_at": (_i, [_v, _z, _v, _z, _p(_z), _err]),
    "og_object_get_value_at": (_i, [_v, _z, _p(_v), _err]),
    "og_object_set_value_at": (_i, [_v, _z, _v, _err]),
    "og_object_get_object": (_i, [_v, _s, _p(_v), _err]),
    "og_object_set_object": (_i, [_v, _s, _v, _err]),
    "og_object_get_related": (_v, [_v, _s, _err]),
    "og_object_add_related": (_i, [_v, _s, _v, _err]),
    "og_object_remove_related": (_i, [_v, _s, _v, _err]),
    "og_object_insert_related_at": (_i, [_v, _s, _v, _z, _err]),
    "og_object_remove_related_at": (_i, [_v, _s, _z, _err]),
    "og_object_set_related": (_i, [_v, _s, _p(_v), _z, _err]),
    "og_value_new_array": (_v, [_p(_v), _z, _err]),
    "og_value_new_dictionary": (_v, [_p(_s), _p(_v), _z, _err]),
    "og_value_new_object": (_v, [_v, _err]),
    "og_value_new_object_id": (_v, [_v, _err]),
    "og_value_new_object_id_uri": (_v, [_s, _err]),
    "og_value_new_entity": (_v, [_v, _err]),
    "og_value_count": (_z, [_v]),
    "og_value_item_at": (_v, [_v, _z, _err]),
    "og_value_key_at": (_s, [_v, _z, _err]),
    "og_value_new_archived_object": (_v, [_s, _v, _err]),
    "og_value_class_name": (_i, [_v, _p(_s), _err]),
    "og_register_archivable_class": (_i, [_s, _err]),
    "og_unregister_archivable_class": (_i, [_s, _err]),
    "og_register_value_transformer": (_i, [_s, _v, _v, _v, _err]),
    "og_unregister_value_transformer": (_i, [_s, _err]),
    "og_predicate_parse": (_v, [_s, _p(_v), _z, _err]),
    "og_predicate_new_comparison": (_v, [_s, _i, _v, _i, _i, _err]),
    "og_predicate_new_compound": (_v, [_i, _p(_v), _z, _err]),
    "og_predicate_format": (_s, [_v, _err]),
    "og_predicate_equal": (_b, [_v, _v]),
    "og_predicate_evaluate": (_i, [_v, _v, _p(_s), _p(_v), _z, _p(_b), _err]),
    "og_predicate_substitute": (_v, [_v, _p(_s), _p(_v), _z, _err]),
    "og_predicate_release": (None, [_v]),
    "og_fetch_request_set_predicate": (_i, [_v, _v, _err]),
    "og_fetch_request_add_sort_comparison": (_i, [_v, _s, _b, _i, _err]),
    "og_model_fetch_request_from_template": (_v, [_v, _s, _p(_s), _p(_v), _z, _err]),
    # The object graph
    "og_error_new": (_v, [_i64, _s, _s]),
    "og_error_new_in_domain": (_v, [_s, _i64, _s, _s]),
    "og_value_get_object": (_i, [_v, _p(_v), _err]),
    "og_context_new_with_type": (_v, [_v, _i, _err]),
    "og_context_concurrency_type": (_i, [_v]),
    "og_context_perform": (_i, [_v, BLOCK_FN, _v, _err]),
    "og_context_perform_and_wait": (_i, [_v, BLOCK_FN, _v, _err]),
    "og_context_process_pending_changes": (_i, [_v, _err]),
    "og_context_rollback": (_i, [_v, _err]),
    "og_context_reset": (_i, [_v, _err]),
    "og_context_refresh_object": (_i, [_v, _v, _b, _err]),
    "og_context_obtain_permanent_ids": (_i, [_v, _p(_v), _z, _err]),
    "og_context_object_registered": (_i, [_v, _s, _p(_v), _err]),
    "og_context_object_with_uri": (_v, [_v, _s, _err]),
    "og_context_existing_object": (_v, [_v, _s, _err]),
    "og_context_registered_count": (_i, [_v, _p(_z), _err]),
    "og_context_objects": (_v, [_v, _i, _err]),
    "og_context_retains_registered_objects": (_i, [_v, _p(_b), _err]),
    "og_context_set_retains_registered_objects": (_i, [_v, _b, _err]),
    "og_context_propagates_deletes": (_i, [_v, _p(_b), _err]),
    "og_context_set_propagates_deletes": (_i, [_v, _b, _err]),
    "og_context_user_info": (_i, [_v, _s, _p(_v), _err]),
    "og_context_set_user_info": (_i, [_v, _s, _s, _err]),
    "og_context_set_hook": (_i, [_v, _s, _i, HOOK_FN, _v, _err]),
    "og_context_set_validation_hook": (_i, [_v, _s, _i, VALIDATION_FN, _v, _err]),
    "og_context_set_value_validator": (_i, [_v, _s, VALUE_VALIDATION_FN, _v, _err]),
    "og_context_add_observer": (_i, [_v, _i, NOTIFICATION_FN, _v, _p(ctypes.c_uint64), _err]),
    "og_context_remove_observer": (_i, [_v, ctypes.c_uint64, _err]),
    "og_notification_kind_of": (_i, [_v]),
    "og_notification_count": (_z, [_v, _i]),
    "og_notification_object_at": (_v, [_v, _i, _z, _err]),
    "og_notification_invalidated_all": (_b, [_v]),
    "og_object_is_fault": (_i, [_v, _p(_b), _err]),
    "og_object_faulting_state": (_i, [_v, _p(_i64), _err]),
    "og_object_has_fault_for_relationship": (_i, [_v, _s, _p(_b), _err]),
    "og_object_get_value_for_key_path": (_i, [_v, _s, _p(_v), _err]),
    "og_object_get_primitive_value": (_i, [_v, _s, _p(_v), _err]),
    "og_object_set_primitive_value": (_i, [_v, _s, _v, _err]),
    "og_object_changed_values": (_i, [_v, _p(_v), _err]),
    "og_object_committed_values": (_i, [_v, _p(_s), _z, _p(_v), _err]),
    "og_object_validate_value": (_i, [_v, _s, _v, _err]),
    # Conflicts and merge policies
    "og_context_merge_policy": (_i, [_v, _p(_i), _err]),
    "og_context_set_merge_policy": (_i, [_v, _i, _err]),
    "og_error_conflict_count": (_z, [_v]),
    "og_error_conflict_object": (_v, [_v, _z, _v, _err]),
    "og_error_conflict_object_uri": (_v, [_v, _z, _err]),
    "og_error_conflict_versions": (_i, [_v, _z, _p(_i64), _p(_i64), _err]),
    "og_error_conflict_has_snapshot": (_b, [_v, _z, _i]),
    "og_error_conflict_key_count": (_z, [_v, _z]),
    "og_error_conflict_key_at": (_s, [_v, _z, _z]),
    "og_error_conflict_value": (_v, [_v, _z, _i, _s, _err]),
    # Merging saves between contexts
    "og_notification_changes": (_v, [_v, _err]),
    "og_changes_new": (_v, [_err]),
    "og_changes_add": (_i, [_v, _i, _s, _err]),
    "og_changes_count": (_z, [_v, _i]),
    "og_changes_uri_at": (_v, [_v, _i, _z, _err]),
    "og_changes_release": (None, [_v]),
    "og_context_merge_changes": (_i, [_v, _v, _err]),
    "og_context_merge_remote_changes": (_i, [_v, _p(_v), _z, _err]),
    "og_context_automatically_merges_changes_from_parent": (_i, [_v, _p(_b), _err]),
    "og_context_set_automatically_merges_changes_from_parent": (_i, [_v, _b, _err]),
    # Staleness and faults
    "og_context_staleness_interval": (_i, [_v, _p(_d), _err]),
    "og_context_set_staleness_interval": (_i, [_v, _d, _err]),
    "og_context_should_delete_inaccessible_faults": (_i, [_v, _p(_b), _err]),
    "og_context_set_should_delete_inaccessible_faults": (_i, [_v, _b, _err]),
    "og_context_refresh_all_objects": (_i, [_v, _err]),
    # Nested contexts
    "og_context_new_child": (_v, [_v, _i, _err]),
    "og_context_has_parent": (_b, [_v]),
    # SQL logging and explain
    "og_set_sql_debug": (_i, [_i, _err]),
    "og_sql_debug_level": (_i, []),
    "og_set_sql_log_callback": (_i, [SQL_LOG_FN, _v, _err]),
    "og_context_explain": (_v, [_v, _v, _err]),
    "og_context_release_object": (_i, [_v, _v, _err]),
    # Events, undo and redo
    "og_context_undo_manager": (_v, [_v, _err]),
    "og_context_set_undo_manager": (_i, [_v, _v, _err]),
    "og_context_undo": (_i, [_v, _err]),
    "og_context_redo": (_i, [_v, _err]),
    "og_context_name": (_i, [_v, _p(_v), _err]),
    "og_context_set_name": (_i, [_v, _s, _err]),
    # Undo managers
    "og_undo_manager_new": (_v, [_err]),
    "og_undo_manager_release": (None, [_v]),
    "og_undo_manager_undo": (_i, [_v, _err]),
    "og_undo_manager_redo": (_i, [_v, _err]),
    "og_undo_manager_can_undo": (_b, [_v]),
    "og_undo_manager_can_redo": (_b, [_v]),
    "og_undo_manager_remove_all_actions": (_i, [_v, _err]),
    "og_undo_manager_begin_grouping": (_i, [_v, _err]),
    "og_undo_manager_end_grouping": (_i, [_v, _err]),
    "og_undo_manager_grouping_level": (_z, [_v]),
    "og_undo_manager_levels_of_undo": (_z, [_v]),
    "og_undo_manager_set_levels_of_undo": (_i, [_v, _z, _err]),
    "og_undo_manager_groups_by_event": (_b, [_v]),
    "og_undo_manager_set_groups_by_event": (_i, [_v, _b, _err]),
    "og_undo_manager_undo_action_name": (_v, [_v, _err]),
    "og_undo_manager_redo_action_name": (_v, [_v, _err]),
    "og_undo_manager_set_action_name": (_i, [_v, _s, _err]),
    "og_undo_manager_disable_registration": (_i, [_v, _err]),
    "og_undo_manager_enable_registration": (_i, [_v, _err]),
    "og_undo_manager_is_registration_enabled": (_b, [_v]),
    # Mapping models
    "og_mapping_model_new": (_v, []),
    "og_mapping_model_infer": (_v, [_v, _v, _err]),
    "og_mapping_model_load": (_v, [_s, _err]),
    "og_mapping_model_save": (_i, [_v, _s, _err]),
    "og_mapping_model_copy": (_v, [_v, _err]),
    "og_mapping_model_entity_mapping_count": (_z, [_v]),
    "og_mapping_model_entity_mapping_at": (_v, [_v, _z, _err]),
    "og_mapping_model_append_entity_mapping": (_i, [_v, _v, _err]),
    "og_mapping_model_insert_entity_mapping": (_i, [_v, _z, _v, _err]),
    "og_mapping_model_remove_entity_mapping_at": (_i, [_v, _z, _err]),
    "og_mapping_model_release": (None, [_v]),
    # Entity mappings
    "og_entity_mapping_new": (_v, [_s, _err]),
    "og_entity_mapping_release": (None, [_v]),
    "og_entity_mapping_name": (_v, [_v, _err]),
    "og_entity_mapping_set_name": (_i, [_v, _s, _err]),
    "og_entity_mapping_kind_of": (_i, [_v, _p(_i), _err]),
    "og_entity_mapping_set_kind": (_i, [_v, _i, _err]),
    "og_entity_mapping_source_entity": (_v, [_v, _err]),
    "og_entity_mapping_set_source_entity": (_i, [_v, _s, _err]),
    "og_entity_mapping_destination_entity": (_v, [_v, _err]),
    "og_entity_mapping_set_destination_entity": (_i, [_v, _s, _err]),
    "og_entity_mapping_source_version_hash": (_i, [_v, _v, _err]),
    "og_entity_mapping_set_source_version_hash": (_i, [_v, _v, _err]),
    "og_entity_mapping_destination_version_hash": (_i, [_v, _v, _err]),
    "og_entity_mapping_set_destination_version_hash": (_i, [_v, _v, _err]),
    "og_entity_mapping_source_expression": (_v, [_v, _err]),
    "og_entity_mapping_set_source_expression": (_i, [_v, _s, _err]),
    "og_entity_mapping_policy": (_v, [_v, _err]),
    "og_entity_mapping_set_policy": (_i, [_v, _s, _err]),
    "og_entity_mapping_user_info_count": (_z, [_v]),
    "og_entity_mapping_user_info_key_at": (_v, [_v, _z, _err]),
    "og_entity_mapping_user_info": (_v, [_v, _s, _err]),
    "og_entity_mapping_set_user_info": (_i, [_v, _p(_s), _p(_s), _z, _err]),
    "og_entity_mapping_attribute_mapping_count": (_z, [_v]),
    "og_entity_mapping_attribute_mapping_at": (_v, [_v, _z, _err]),
    "og_entity_mapping_append_attribute_mapping": (_i, [_v, _v, _err]),
    "og_entity_mapping_insert_attribute_mapping": (_i, [_v, _z, _v, _err]),
    "og_entity_mapping_remove_attribute_mapping_at": (_i, [_v, _z, _err]),
    "og_entity_mapping_relationship_mapping_count": (_z, [_v]),
    "og_entity_mapping_relationship_mapping_at": (_v, [_v, _z, _err]),
    "og_entity_mapping_append_relationship_mapping": (_i, [_v, _v, _err]),
    "og_entity_mapping_insert_relationship_mapping": (_i, [_v, _z, _v, _err]),
    "og_entity_mapping_remove_relationship_mapping_at": (_i, [_v, _z, _err]),
    # Property mappings
    "og_property_mapping_new": (_v, [_s, _s, _err]),
    "og_property_mapping_release": (None, [_v]),
    "og_property_mapping_name": (_v, [_v, _err]),
    "og_property_mapping_set_name": (_i, [_v, _s, _err]),
    "og_property_mapping_value_expression": (_v, [_v, _err]),
    "og_property_mapping_set_value_expression": (_i, [_v, _s, _err]),
    "og_property_mapping_user_info_count": (_z, [_v]),
    "og_property_mapping_user_info_key_at": (_v, [_v, _z, _err]),
    "og_property_mapping_user_info": (_v, [_v, _s, _err]),
    "og_property_mapping_set_user_info": (_i, [_v, _p(_s), _p(_s), _z, _err]),
    # Migration
    "og_migration_manager_new": (_v, [_v, _v, _err]),
    "og_migration_manager_release": (None, [_v]),
    "og_migration_manager_source_model": (_v, [_v]),
    "og_migration_manager_destination_model": (_v, [_v]),
    "og_migration_manager_set_progress_callback": (_i, [_v, MIGRATION_PROGRESS_FN, _v, _err]),
    "og_migration_manager_progress": (_d, [_v]),
    "og_migration_manager_migrate": (_i, [_v, _s, _s, _v, _v, _s, _s, _v, _err]),
    "og_migration_manager_cancel": (_i, [_v, _v, _err]),
    "og_migration_manager_source_context": (_v, [_v, _err]),
    "og_migration_manager_destination_context": (_v, [_v, _err]),
    "og_migration_manager_associate": (_i, [_v, _v, _v, _v, _err]),
    "og_migration_manager_destination_instances": (_v, [_v, _s, _p(_v), _z, _err]),
    "og_migration_manager_source_instances": (_v, [_v, _s, _p(_v), _z, _err]),
    "og_migration_manager_create_default_destination": (_i, [_v, _v, _v, _err]),
    "og_migration_manager_create_default_relationships": (_i, [_v, _v, _v, _err]),
    "og_register_migration_policy": (_i, [_s, _v, _err]),
    "og_unregister_migration_policy": (_i, [_s, _err]),
    "og_coordinator_new_with_versions": (_v, [_v, _p(_v), _z, _p(_v), _z, _err]),
}


def _declare() -> None:
    missing = []
    for name, (restype, argtypes) in _SIGNATURES.items():
        try:
            function = getattr(lib, name)
        except AttributeError:
            missing.append(name)
            continue
        function.restype = restype
        function.argtypes = argtypes
    if missing:
        raise LibraryNotFoundError(
            f"{library_path} does not export {', '.join(missing)}: "
            "it is not a libobjectgraph matching this binding"
        )


_declare()

# Status values (og_status).
OK = 0
NULL = 1
ERROR = -1
