# Empty compiler generated dependencies file for test_fetch_results.
# This may be replaced when dependencies are built.
