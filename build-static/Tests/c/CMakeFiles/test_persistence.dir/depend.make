# Empty dependencies file for test_persistence.
# This may be replaced when dependencies are built.
