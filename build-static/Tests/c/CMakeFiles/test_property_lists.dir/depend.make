# Empty dependencies file for test_property_lists.
# This may be replaced when dependencies are built.
