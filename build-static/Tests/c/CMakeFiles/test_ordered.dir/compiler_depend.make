# Empty compiler generated dependencies file for test_ordered.
# This may be replaced when dependencies are built.
