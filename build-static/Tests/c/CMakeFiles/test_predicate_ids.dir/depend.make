# Empty dependencies file for test_predicate_ids.
# This may be replaced when dependencies are built.
