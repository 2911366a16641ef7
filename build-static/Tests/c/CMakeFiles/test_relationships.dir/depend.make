# Empty dependencies file for test_relationships.
# This may be replaced when dependencies are built.
