# Empty compiler generated dependencies file for test_undo.
# This may be replaced when dependencies are built.
