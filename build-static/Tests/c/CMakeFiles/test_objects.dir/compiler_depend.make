# Empty compiler generated dependencies file for test_objects.
# This may be replaced when dependencies are built.
