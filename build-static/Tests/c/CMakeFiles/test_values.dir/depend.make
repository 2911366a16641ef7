# Empty dependencies file for test_values.
# This may be replaced when dependencies are built.
