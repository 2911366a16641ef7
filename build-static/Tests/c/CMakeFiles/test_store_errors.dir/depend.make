# Empty dependencies file for test_store_errors.
# This may be replaced when dependencies are built.
