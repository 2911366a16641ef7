# Empty compiler generated dependencies file for test_fetch_options.
# This may be replaced when dependencies are built.
