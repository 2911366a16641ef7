# Empty compiler generated dependencies file for test_predicates.
# This may be replaced when dependencies are built.
