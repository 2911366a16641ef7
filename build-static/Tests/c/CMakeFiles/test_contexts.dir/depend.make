# Empty dependencies file for test_contexts.
# This may be replaced when dependencies are built.
